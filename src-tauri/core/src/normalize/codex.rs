//! Codex CLI (`/hook/codex`), docs/model.md §1.2 as corrected by what Codex 0.171.0 sends (§8).

use crate::json::Value;

mod transcript;

use super::claude::permission_request;
use super::{lifecycle, one_line, Hook};
use crate::agent::row::{Agent, AppServer, Start, Tie, TitleSource, Transcript, Typing};
use crate::agent::setup::{DirVar, Setup};
use crate::status::{AgentStatus, Cue, Lifecycle, Millis, SessionKind, StatusEvent};

const AGENT_ID: &str = "codex";
/// Codex's question tool. Interactive Codex blocks inside it and reports the answer in
/// PostToolUse; headless `codex exec` of older versions returned at once and left the question
/// open across the turn's Stop (docs/model.md §2.2), which the reducer keeps as the hold.
const REQUEST_USER_INPUT: &str = "request_user_input";

/// Events Codex fires that carry no status of their own: listed so that every event the pinned
/// CLI knows is either mapped or deliberately ignored. (Notification, StopFailure and
/// PostToolUseFailure are Claude's: Codex never fires them.)
pub const IGNORED: &[&str] = &["Notification", "StopFailure", "PostToolUseFailure"];

/// The events the installer registers for: exactly those this normalizer reads, so Switchboard
/// sees every event its table uses and pays for no other.
pub const HOOK_EVENTS: &[&str] = &[
    "SessionStart",
    "SessionEnd",
    "PreCompact",
    "PostCompact",
    "SubagentStart",
    "SubagentStop",
    "PreToolUse",
    "PostToolUse",
    "UserPromptSubmit",
    "PermissionRequest",
    "PreModelRequest",
    "PostModelRequest",
    "Stop",
    "Interrupt",
];

/// Codex CLI, as Switchboard knows it.
pub static AGENT: Agent = Agent {
    id: AGENT_ID,
    name: "Codex CLI",
    short_name: "Codex",
    letter: 'X',
    held_note: Some("its own prompt appears only when the wait ends"),
    start: Some(Start { program: "codex", prompt_flag: None }),
    normalize: normalize_codex,
    ignored: IGNORED,
    hook_events: HOOK_EVENTS,
    // Like Claude's (exit 0 only), and Codex draws its own prompt only after the hook returns.
    decision_event: Some("PermissionRequest"),
    resume: Some("codex resume {id}"),
    title: TitleSource::SessionIndex,
    transcript: Transcript { turn: transcript::turn, usage: transcript::usage, settles: transcript::settles },
    tie: Tie::SessionFile {
        servers: &["app-server"],
        prefix: "rollout-",
        suffix: ".jsonl",
        fix:
            "start Codex with `codex --no-daemon` (or `codex resume <id>`) so that its window holds the session itself",
    },
    app_server: Some(AppServer { sessions: "sessions", socket: "app-server-control/app-server-control.sock" }),
    typing: Typing { prompts: &["›"], enter_after_ms: 150, pasted: Some("[Pasted Content"), options_by_digit: true },
    setup: Some(Setup {
        dir: ".codex",
        dir_var: Some(DirVar::Folder("CODEX_HOME")),
        // Its only top-level key is `hooks`; `config.toml` is its own (and switches hooks: the
        // installer's Codex checks read it).
        file: "hooks.json",
        program: "codex",
        install_hint: "npm install -g @openai/codex",
        // An omitted matcher matches everything in every release (older ones compile a matcher as
        // a regex, where `*` is invalid).
        every_tool: &[],
        next_step: "Codex runs a new or changed hook only after you trust it: start Codex and choose to trust the \
                    hooks when it says they need review, or run /hooks and trust Switchboard's",
        ..Setup::BASE
    }),
    ..Agent::BASE
};

pub fn normalize_codex(raw: &Value, now: Millis) -> Option<StatusEvent> {
    let hook = Hook::parse(raw)?;
    let base = hook.event(AGENT_ID, now);
    let status = |status| StatusEvent { status: Some(status), ..hook.event(AGENT_ID, now) };
    let event = match hook.event_name {
        "SessionStart" => lifecycle(&hook, AGENT_ID, now, Lifecycle::Start),
        "SessionEnd" => lifecycle(&hook, AGENT_ID, now, Lifecycle::End),
        // `/compact` ends with no Stop (docs/model.md §8): a finished manual compaction settles a
        // session left working; otherwise compaction is lifecycle only.
        "PostCompact" if hook.str("trigger") == Some("manual") => StatusEvent {
            interrupted: true,
            cue: Cue::IdleRescue,
            lifecycle: Some(Lifecycle::Compact),
            message: Some("Conversation compacted".to_owned()),
            ..status(AgentStatus::Done)
        },
        "PreCompact" | "PostCompact" => lifecycle(&hook, AGENT_ID, now, Lifecycle::Compact),
        "SubagentStart" => StatusEvent { kind: SessionKind::Subagent, subagent_id: hook.string("agent_id"), ..base },
        "PreToolUse" if hook.tool_name() == Some(REQUEST_USER_INPUT) => StatusEvent {
            awaiting_input: true,
            question: Some(question(&hook)),
            questions: hook.questions(),
            ..status(AgentStatus::Waiting)
        },
        "PostToolUse" if hook.tool_name() == Some(REQUEST_USER_INPUT) => {
            // Today's Codex reports the user's answers as a JSON string: the question is closed,
            // answered or not (docs/model.md §8). Without one (older exec) it is still open (§2.2).
            if !hook.fields.get("tool_response").is_some_and(Value::is_string) {
                return None;
            }
            status(AgentStatus::Working)
        }
        "PreToolUse" | "PostToolUse" => status(AgentStatus::Working),
        "UserPromptSubmit" => StatusEvent {
            cue: Cue::NewTurn,
            prompt: hook.str("prompt").map(str::to_owned),
            ..status(AgentStatus::Working)
        },
        "PermissionRequest" => permission_request(&hook, base),
        // Around every model call. A call proves a returned question tool or a retry.
        "PreModelRequest" => StatusEvent { cue: Cue::ModelCall, ..status(AgentStatus::Working) },
        // A failed call that ends the turn fires nothing else (docs/model.md §8); a retried one is
        // followed by the next PreModelRequest.
        "PostModelRequest" if hook.str("status") == Some("failed") => StatusEvent {
            errored: true,
            message: Some(hook.str("error").map(one_line).unwrap_or_else(|| "The model request failed".to_owned())),
            ..status(AgentStatus::Done)
        },
        "PostModelRequest" => return None,
        "Stop" => hook.stop(status(AgentStatus::Done)),
        "SubagentStop" => StatusEvent {
            kind: SessionKind::Subagent,
            subagent_id: hook.string("agent_id"),
            message: hook.string("last_assistant_message"),
            ..status(AgentStatus::Done)
        },
        "Interrupt" => StatusEvent { interrupted: true, ..status(AgentStatus::Done) },
        _ => return None,
    };
    Some(hook.with_agent_id(event))
}

/// `tool_input.questions[0].question`, else `tool_input.question`, else `""`.
fn question(hook: &Hook) -> String {
    hook.first_question()
        .or_else(|| hook.fields.get("tool_input")?.get("question")?.as_str().map(str::to_owned))
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    /// The normalizer on a test's `serde_json` value (the server reads bodies with `crate::json`).
    fn normalize_codex(raw: &Value, now: Millis) -> Option<StatusEvent> {
        super::normalize_codex(&raw.into(), now)
    }

    use crate::normalize::fixtures::{fixture, fixture_with};
    use serde_json::json;

    const NOW: Millis = 1_750_000_000_000;

    fn codex(name: &str) -> StatusEvent {
        normalize_codex(&fixture(&format!("codex/{name}.json")), NOW).expect(name)
    }

    #[test]
    fn session_start_and_end_are_lifecycle_only() {
        let start = codex("SessionStart");
        assert_eq!((start.status, start.lifecycle), (None, Some(Lifecycle::Start)));
        let end = codex("SessionEnd");
        assert_eq!((end.status, end.lifecycle), (None, Some(Lifecycle::End)));
        assert_eq!(start.agent, "codex");
    }

    #[test]
    fn pre_and_post_compact_are_lifecycle_compact() {
        for name in ["PreCompact", "PostCompact"] {
            let event = codex(name);
            assert_eq!((event.status, event.lifecycle), (None, Some(Lifecycle::Compact)), "{name}");
        }
    }

    #[test]
    fn subagent_start_has_no_status_and_names_the_subagent() {
        let event = codex("SubagentStart");
        assert_eq!(event.status, None);
        assert_eq!(event.kind, SessionKind::Subagent);
        assert_eq!(event.subagent_id.as_deref(), Some("019fb3cc-2222-7000-8000-000000000009"));
    }

    #[test]
    fn pre_and_post_tool_use_are_working() {
        let pre = codex("PreToolUse-Bash");
        assert_eq!(pre.status, Some(AgentStatus::Working));
        assert_eq!(pre.tool.as_deref(), Some("Bash"));
        assert_eq!(codex("PostToolUse").status, Some(AgentStatus::Working));
    }

    #[test]
    fn user_prompt_submit_is_a_new_working_turn() {
        let event = codex("UserPromptSubmit");
        assert_eq!(event.status, Some(AgentStatus::Working));
        assert_eq!(event.cue, Cue::NewTurn);
    }

    #[test]
    fn pre_tool_use_request_user_input_is_waiting_with_the_question() {
        let event = codex("PreToolUse-request_user_input");
        assert_eq!(event.status, Some(AgentStatus::Waiting));
        assert!(event.awaiting_input);
        assert_eq!(event.question.as_deref(), Some("Choose a value."));
    }

    #[test]
    fn request_user_input_question_falls_back_to_tool_input_question_then_empty() {
        let raw = fixture_with(
            "codex/PreToolUse-request_user_input.json",
            json!({"tool_input": {"question": "Which branch?"}}),
        );
        assert_eq!(normalize_codex(&raw, NOW).unwrap().question.as_deref(), Some("Which branch?"));
        let raw = fixture_with("codex/PreToolUse-request_user_input.json", json!({"tool_input": {}}));
        let event = normalize_codex(&raw, NOW).unwrap();
        assert_eq!(event.question.as_deref(), Some(""));
        assert!(event.awaiting_input);
    }

    #[test]
    fn post_tool_use_request_user_input_gives_no_event() {
        assert_eq!(normalize_codex(&fixture("codex/PostToolUse-request_user_input.json"), NOW), None);
    }

    #[test]
    fn permission_request_is_blocked_with_tool_and_command() {
        let event = codex("PermissionRequest");
        assert_eq!(event.status, Some(AgentStatus::Blocked));
        assert_eq!(event.tool.as_deref(), Some("Bash"));
        assert_eq!(event.message.as_deref(), Some("rm -f /tmp/tapq-codex-0.142.5-marker"));
    }

    #[test]
    fn stop_is_done_with_the_last_message() {
        let event = codex("Stop");
        assert_eq!(event.status, Some(AgentStatus::Done));
        assert_eq!(event.kind, SessionKind::Session);
        assert_eq!(event.message.as_deref(), Some("Would you like me to run the migration?"));
    }

    #[test]
    fn stop_with_a_subagent_id_is_a_subagents_done() {
        let raw = fixture_with("codex/Stop.json", json!({"subagent_id": "child-1"}));
        let event = normalize_codex(&raw, NOW).unwrap();
        assert_eq!(event.kind, SessionKind::Subagent);
        assert_eq!(event.status, Some(AgentStatus::Done));
    }

    #[test]
    fn subagent_stop_is_a_subagents_done() {
        let event = codex("SubagentStop");
        assert_eq!(event.status, Some(AgentStatus::Done));
        assert_eq!(event.kind, SessionKind::Subagent);
        assert_eq!(event.subagent_id.as_deref(), Some("019fb3cc-2222-7000-8000-000000000009"));
    }

    #[test]
    fn interrupt_is_an_interrupted_done() {
        let event = codex("Interrupt");
        assert_eq!(event.status, Some(AgentStatus::Done));
        assert!(event.interrupted);
    }

    #[test]
    fn events_carrying_agent_id_belong_to_a_subagent_of_the_parent_session() {
        let raw = fixture_with("codex/PreToolUse-Bash.json", json!({"agent_id": "child-9", "agent_type": "default"}));
        let event = normalize_codex(&raw, NOW).unwrap();
        assert_eq!(event.kind, SessionKind::Subagent);
        assert_eq!(event.subagent_id.as_deref(), Some("child-9"));
        assert_eq!(event.session_id, "019fb3cc-1111-7000-8000-000000000001");
    }

    #[test]
    fn a_null_transcript_path_is_left_out() {
        let raw = fixture_with("codex/Stop.json", json!({"transcript_path": null}));
        assert_eq!(normalize_codex(&raw, NOW).unwrap().transcript_path, None);
    }

    #[test]
    fn events_outside_codexs_table_give_no_event() {
        for name in ["Notification", "PostToolUseFailure", "StopFailure", "BeforeAgent"] {
            let raw = fixture_with("codex/Stop.json", json!({"hook_event_name": name}));
            assert_eq!(normalize_codex(&raw, NOW), None, "{name}");
        }
    }

    fn real(name: &str) -> Value {
        fixture(&format!("real/codex-0.171.0/events/{name}.json"))
    }

    #[test]
    fn an_answered_request_user_input_closes_the_question() {
        let event = normalize_codex(&real("PostToolUse-request_user_input"), NOW).unwrap();
        assert_eq!(event.status, Some(AgentStatus::Working));
        let raw =
            fixture_with("codex/PostToolUse-request_user_input.json", json!({"tool_response": "{\"answers\":{}}"}));
        assert_eq!(normalize_codex(&raw, NOW).unwrap().status, Some(AgentStatus::Working));
    }

    #[test]
    fn model_requests_are_cues_and_only_a_failed_one_is_a_status() {
        let pre = normalize_codex(&real("PreModelRequest"), NOW).unwrap();
        assert_eq!((pre.status, pre.cue), (Some(AgentStatus::Working), Cue::ModelCall));
        assert_eq!(normalize_codex(&real("PostModelRequest-completed"), NOW), None);
        assert_eq!(normalize_codex(&real("PostModelRequest-cancelled"), NOW), None);
        let failed = normalize_codex(&real("PostModelRequest-failed"), NOW).unwrap();
        assert_eq!((failed.status, failed.errored), (Some(AgentStatus::Done), true));
        assert_eq!(
            failed.message.as_deref(),
            Some("We\u{2019}re currently experiencing high demand, which may cause temporary errors.")
        );
    }

    #[test]
    fn a_manual_compaction_settles_a_working_session_and_an_automatic_one_is_lifecycle() {
        let manual = normalize_codex(&real("PostCompact-manual"), NOW).unwrap();
        assert_eq!((manual.status, manual.cue, manual.interrupted), (Some(AgentStatus::Done), Cue::IdleRescue, true));
        assert_eq!(codex("PostCompact").status, None);
    }
}
