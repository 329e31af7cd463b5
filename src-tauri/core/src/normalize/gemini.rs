//! Gemini CLI (`/hook/gemini`), docs/model.md §1.3 as corrected by what Gemini CLI 0.61.0
//! sends (§8).

use crate::json::Value;

mod transcript;

use super::{lifecycle, one_line, Hook};
use crate::agent::row::{Agent, Start, Transcript, Typing};
use crate::agent::setup::{DirVar, Setup, Switch};
use crate::status::{AgentStatus, Cue, Lifecycle, Millis, StatusEvent};

const AGENT_ID: &str = "gemini";
/// Gemini's question tool: its confirmation dialog is a question, not a permission.
const ASK_USER: &str = "ask_user";

/// Events that fire per model call or per streamed chunk: never a status. Listed so that every
/// event the pinned CLI knows is either mapped or deliberately ignored.
pub const IGNORED: &[&str] = &["BeforeModel", "AfterModel", "BeforeToolSelection"];

/// The events the installer registers for: exactly those this normalizer reads, so Switchboard
/// sees every event its table uses and pays for no other.
pub const HOOK_EVENTS: &[&str] = &[
    "BeforeAgent",
    "BeforeTool",
    "AfterTool",
    "AfterAgent",
    "Notification",
    "SessionStart",
    "SessionEnd",
    "PreCompress",
];

/// Gemini CLI, as Switchboard knows it.
pub static AGENT: Agent = Agent {
    id: AGENT_ID,
    name: "Gemini CLI",
    short_name: "Gemini",
    letter: 'G',
    start: Some(Start { program: "gemini", prompt_flag: Some("--prompt-interactive") }),
    normalize: normalize_gemini,
    ignored: IGNORED,
    hook_events: HOOK_EVENTS,
    // 0.61.0: BeforeTool runs before every tool (not only those that will ask), ignores "allow",
    // and hides the confirmation while it runs.
    decision_event: None,
    why_not_decided: Some("no hook of Gemini CLI 0.61 can approve a tool"),
    turn_end_hides_interrupts: true,
    screen_cancel: Some("Request cancelled."),
    silent_reply: Some("{}"),
    resume: Some("gemini --resume {id}"),
    transcript: Transcript { turn: transcript::turn, usage: transcript::usage, settles: transcript::settles },
    typing: Typing { prompts: &[">", "*"], enter_after_ms: 150, pasted: None, options_by_digit: true },
    setup: Some(Setup {
        dir: ".gemini",
        dir_var: Some(DirVar::Home("GEMINI_CLI_HOME")),
        file: "settings.json",
        program: "gemini",
        install_hint: "npm install -g @google/gemini-cli",
        every_tool: &["BeforeTool", "AfterTool"],
        timeout_in_ms: true,
        hook_name: Some("switchboard"),
        // It reads settings through strip-json-comments: rewriting would lose them.
        comments: true,
        all_off: Some(Switch {
            path: &["hooksConfig", "enabled"],
            off: false,
            message: "`hooksConfig.enabled` is false in these settings: Gemini CLI runs no hook, Switchboard's \
                      included, until you set it to true",
            fix: "set \"hooksConfig\": {\"enabled\": true} in {file}",
        }),
        switch_on: Some(&["hooksConfig", "enabled"]),
        disabled_list: Some(Switch {
            path: &["hooksConfig", "disabled"],
            off: true,
            message: "`hooksConfig.disabled` lists Switchboard's hook: remove it there (or run `/hooks enable \
                      switchboard` in Gemini CLI) for Gemini sessions to appear",
            fix: "run /hooks enable switchboard in Gemini CLI",
        }),
        next_step: "new Gemini CLI sessions report to Switchboard; restart the ones already running",
        ..Setup::BASE
    }),
    ..Agent::BASE
};

pub fn normalize_gemini(raw: &Value, now: Millis) -> Option<StatusEvent> {
    let hook = Hook::parse(raw)?;
    let status = |status| StatusEvent { status: Some(status), ..hook.event(AGENT_ID, now) };
    let event = match hook.event_name {
        "BeforeAgent" => StatusEvent {
            cue: Cue::NewTurn,
            prompt: hook.str("prompt").map(str::to_owned),
            ..status(AgentStatus::Working)
        },
        "BeforeTool" if hook.tool_name() == Some(ASK_USER) => StatusEvent {
            awaiting_input: true,
            question: hook.first_question(),
            questions: hook.questions(),
            ..status(AgentStatus::Waiting)
        },
        // Esc while a tool runs: the tool reports the cancel and no AfterAgent follows
        // (docs/model.md §8).
        "AfterTool" if cancelled_by_user(&hook) => StatusEvent { interrupted: true, ..status(AgentStatus::Done) },
        "BeforeTool" | "AfterTool" => status(AgentStatus::Working),
        "AfterAgent" => StatusEvent { message: hook.str("prompt_response").map(ungarble), ..status(AgentStatus::Done) },
        "Notification" if hook.str("notification_type") == Some("ToolPermission") => tool_permission(&hook, status),
        "SessionStart" => lifecycle(&hook, AGENT_ID, now, Lifecycle::Start),
        "SessionEnd" => lifecycle(&hook, AGENT_ID, now, Lifecycle::End),
        // Fires before every model call with `trigger: auto` (docs/model.md §8): never a status.
        "PreCompress" => lifecycle(&hook, AGENT_ID, now, Lifecycle::Compact),
        _ => return None,
    };
    Some(event)
}

/// Notification(ToolPermission): `details` says what is asked. `ask_user` is the question
/// dialog (its text came with BeforeTool); `exec` has the command, `edit` the file.
fn tool_permission(hook: &Hook, status: impl Fn(AgentStatus) -> StatusEvent) -> StatusEvent {
    let details = hook.fields.get("details");
    let detail = |key: &str| details.and_then(|d| d.get(key)).and_then(Value::as_str);
    if detail("type") == Some(ASK_USER) {
        return StatusEvent { awaiting_input: true, ..status(AgentStatus::Waiting) };
    }
    // The CLI's own text is generic ("Tool Confirm Shell Command requires execution") unless it
    // already names the command; the command or the file's title says what is asked.
    let text = hook.str("message");
    let specific = detail("command").or_else(|| detail("title"));
    let message = match (text, specific) {
        (Some(text), Some(specific)) if !text.contains(specific) => Some(specific),
        (text, specific) => text.or(specific),
    };
    let command = specific.filter(|text| !text.trim().is_empty()).map(str::to_owned);
    let message = message.map(one_line);
    let edit = super::edit::of_file_diff(details);
    StatusEvent { message, command, edit, ..status(AgentStatus::Blocked) }
}

fn cancelled_by_user(hook: &Hook) -> bool {
    let response = hook.fields.get("tool_response");
    let text = |key: &str| response.and_then(|r| r.get(key)).and_then(Value::as_str).unwrap_or_default();
    text("returnDisplay").contains("cancelled by user") || text("llmContent").contains("was cancelled by user")
}

/// AfterAgent's `prompt_response` repeats the tail of a streamed answer after a space
/// ("Hello! lo!", "Wrote notes.txt. tes.txt."): drop a trailing word run that the text before
/// it already ends with.
fn ungarble(text: &str) -> String {
    for (at, _) in text.match_indices(' ') {
        let (head, tail) = (&text[..at], &text[at + 1..]);
        if !tail.is_empty() && tail.len() < head.len() && head.ends_with(tail) {
            return head.to_owned();
        }
    }
    text.to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    /// The normalizer on a test's `serde_json` value (the server reads bodies with `crate::json`).
    fn normalize_gemini(raw: &Value, now: Millis) -> Option<StatusEvent> {
        super::normalize_gemini(&raw.into(), now)
    }

    use crate::normalize::fixtures::{fixture, fixture_with};
    use serde_json::json;

    const NOW: Millis = 1_750_000_000_000;

    fn gemini(name: &str) -> StatusEvent {
        normalize_gemini(&fixture(&format!("gemini/{name}.json")), NOW).expect(name)
    }

    #[test]
    fn before_agent_is_a_new_working_turn() {
        let event = gemini("BeforeAgent");
        assert_eq!(event.status, Some(AgentStatus::Working));
        assert_eq!(event.cue, Cue::NewTurn);
        assert_eq!(event.agent, "gemini");
    }

    #[test]
    fn before_and_after_tool_are_working() {
        for name in ["BeforeTool", "AfterTool"] {
            let event = gemini(name);
            assert_eq!(event.status, Some(AgentStatus::Working), "{name}");
            assert_eq!(event.tool.as_deref(), Some("run_shell_command"));
        }
    }

    #[test]
    fn after_agent_is_done_with_the_response() {
        let event = gemini("AfterAgent");
        assert_eq!(event.status, Some(AgentStatus::Done));
        assert_eq!(event.message.as_deref(), Some("Fixed the token refresh logic and added a test."));
    }

    #[test]
    fn notification_tool_permission_is_blocked_with_the_message() {
        let event = gemini("Notification-ToolPermission");
        assert_eq!(event.status, Some(AgentStatus::Blocked));
        assert_eq!(event.message.as_deref(), Some("Allow execution of: npm test?"));
    }

    #[test]
    fn notification_of_other_types_gives_no_event() {
        let raw = fixture_with("gemini/Notification-ToolPermission.json", json!({"notification_type": "Other"}));
        assert_eq!(normalize_gemini(&raw, NOW), None);
    }

    #[test]
    fn session_start_end_and_pre_compress_are_lifecycle_only() {
        let cases =
            [("SessionStart", Lifecycle::Start), ("SessionEnd", Lifecycle::End), ("PreCompress", Lifecycle::Compact)];
        for (name, expected) in cases {
            let event = gemini(name);
            assert_eq!((event.status, event.lifecycle), (None, Some(expected)), "{name}");
        }
    }

    #[test]
    fn per_model_call_events_give_no_event() {
        for name in ["BeforeModel", "AfterModel", "BeforeToolSelection", "Unknown"] {
            let raw = fixture_with("gemini/BeforeAgent.json", json!({"hook_event_name": name}));
            assert_eq!(normalize_gemini(&raw, NOW), None, "{name}");
        }
    }

    #[test]
    fn payload_timestamps_are_ignored_for_the_injected_clock() {
        assert_eq!(gemini("AfterTool").ts, NOW);
    }

    fn real(name: &str) -> StatusEvent {
        normalize_gemini(&fixture(&format!("real/gemini-cli-0.61.0/events/{name}.json")), NOW).expect(name)
    }

    #[test]
    fn the_ask_user_tool_and_its_dialog_are_a_question_not_a_permission() {
        let before = real("BeforeTool-ask_user");
        assert_eq!((before.status, before.awaiting_input), (Some(AgentStatus::Waiting), true));
        assert_eq!(before.question.as_deref(), Some("Which database should I use?"));
        let notice = real("Notification-ToolPermission-ask_user");
        assert_eq!((notice.status, notice.awaiting_input), (Some(AgentStatus::Waiting), true));
        assert_eq!(notice.question, None);
    }

    #[test]
    fn a_permission_names_the_command_or_the_file() {
        let exec = real("Notification-ToolPermission-exec");
        assert_eq!((exec.status, exec.message.as_deref()), (Some(AgentStatus::Blocked), Some("touch sb_b_marker.txt")));
        let edit = real("Notification-ToolPermission-edit");
        assert_eq!(
            (edit.status, edit.message.as_deref()),
            (Some(AgentStatus::Blocked), Some("Tool Confirm Write: notes.txt requires editing"))
        );
    }

    #[test]
    fn a_tool_cancelled_by_the_user_is_an_interrupted_done() {
        let event = real("AfterTool-run_shell_command-cancelled");
        assert_eq!((event.status, event.interrupted), (Some(AgentStatus::Done), true));
        assert_eq!(real("AfterTool-run_shell_command").status, Some(AgentStatus::Working));
    }

    #[test]
    fn a_garbled_streamed_answer_loses_its_repeated_tail() {
        assert_eq!(real("AfterAgent-g-clear-and-resume").message.as_deref(), Some("Hello!"));
        assert_eq!(real("AfterAgent-b3-write-file-permission").message.as_deref(), Some("Wrote notes.txt."));
        assert_eq!(real("AfterAgent-c-ask-user").message.as_deref(), Some("Great, I will use PostgreSQL."));
        assert_eq!(ungarble("All good here."), "All good here.");
        assert_eq!(ungarble("no no"), "no no");
    }
}
