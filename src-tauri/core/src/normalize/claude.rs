//! Claude Code (`/hook/claude`), docs/model.md §1.1 as corrected by what Claude Code 2.1.332
//! sends (§8).

use serde_json::Value;

mod transcript;

use super::{lifecycle, one_line, Hook};
use crate::agent::row::{Agent, Start, TitleSource, Transcript, Typing};
use crate::agent::setup::{DirVar, Setup, Switch, Version};
use crate::status::{AgentStatus, Cue, Lifecycle, Millis, SessionKind, StatusEvent};

const AGENT_ID: &str = "claude";
/// Claude's question picker: a tool call that is really a question to the user.
const ASK_USER_QUESTION: &str = "AskUserQuestion";

/// Events Claude Code fires that say nothing about whether the agent needs the user: they fire
/// inside a turn (PostToolBatch, MessageDisplay — MessageDisplay even after Stop), describe the
/// environment, or are decided without the user. Listed so that every event the pinned CLI knows
/// is either mapped or deliberately ignored (a test walks the CLI's own list).
pub const IGNORED: &[&str] = &[
    "PostToolBatch",
    "MessageDisplay",
    "PermissionDenied",
    "Setup",
    "ConfigChange",
    "InstructionsLoaded",
    "CwdChanged",
    "FileChanged",
    "WorktreeCreate",
    "WorktreeRemove",
    "TaskCreated",
    "TaskCompleted",
    "TeammateIdle",
    "UserPromptExpansion",
    "PreModelSwitch",
    "PostModelSwitch",
    "DirectoryAdded",
    "PreSkillShellCommand",
];

/// The events the installer registers for: exactly those this normalizer reads, so Switchboard
/// sees every event its table uses and pays for no other.
pub const HOOK_EVENTS: &[&str] = &[
    "UserPromptSubmit",
    "PreToolUse",
    "PostToolUse",
    "PostToolUseFailure",
    "PreCompact",
    "PostCompact",
    "Notification",
    "PermissionRequest",
    "Elicitation",
    "ElicitationResult",
    "Stop",
    "StopFailure",
    "SubagentStart",
    "SubagentStop",
    "SessionStart",
    "SessionEnd",
];

/// Claude Code, as Switchboard knows it.
pub static AGENT: Agent = Agent {
    id: AGENT_ID,
    name: "Claude Code",
    short_name: "Claude",
    letter: 'C',
    held_note: Some("its own prompt stays on screen meanwhile"),
    start: Some(Start { program: "claude", prompt_flag: None }),
    normalize: normalize_claude,
    ignored: IGNORED,
    hook_events: HOOK_EVENTS,
    // It takes `hookSpecificOutput.decision.behavior` = allow | deny (checked by the real-CLI harness).
    decision_event: Some("PermissionRequest"),
    // Claude Code 2.1.332 reads AskUserQuestion's `updatedInput.answers` from an allowing
    // PermissionRequest hook; its own dialog is drawn ~0.4 s later all the same, and an answer
    // given there wins (the hook's later answer is ignored).
    answers_in_hook: true,
    resume: Some("claude --resume {id}"),
    title: TitleSource::Transcript,
    transcript: Transcript { turn: transcript::turn, usage: transcript::usage, settles: transcript::settles },
    typing: Typing { prompts: &["❯", ">"], enter_after_ms: 50, pasted: Some("[Pasted text"), options_by_digit: true },
    setup: Some(Setup {
        dir: ".claude",
        dir_var: Some(DirVar::Folder("CLAUDE_CONFIG_DIR")),
        file: "settings.json",
        program: "claude",
        install_hint: "npm install -g @anthropic-ai/claude-code",
        every_tool: &["PreToolUse", "PostToolUse", "PostToolUseFailure", "PermissionRequest"],
        all_off: Some(Switch {
            path: &["disableAllHooks"],
            off: true,
            message: "`disableAllHooks` is true in these settings: Claude Code runs no hook, Switchboard's included, \
                      until you set it to false",
            fix: "set \"disableAllHooks\": false in {file}",
        }),
        // Claude Code refuses a settings file with an unknown hook event as a whole ("Invalid key
        // in record"). Changelog 2.1.78 (anthropics/claude-code#35620).
        introduced: &[("StopFailure", Version(2, 1, 78))],
        next_step: "new Claude Code sessions report to Switchboard; in a session already running, open /hooks to \
                    accept the change (or restart it)",
        ..Setup::BASE
    }),
    ..Agent::BASE
};

pub fn normalize_claude(raw: &Value, now: Millis) -> Option<StatusEvent> {
    let hook = Hook::parse(raw)?;
    let base = hook.event(AGENT_ID, now);
    let status = |status| StatusEvent { status: Some(status), ..hook.event(AGENT_ID, now) };
    let event = match hook.event_name {
        "UserPromptSubmit" => StatusEvent {
            cue: Cue::NewTurn,
            prompt: hook.str("prompt").map(str::to_owned),
            ..status(AgentStatus::Working)
        },
        "PreToolUse" if hook.tool_name() == Some(ASK_USER_QUESTION) => question(&hook, base),
        "PreToolUse" | "PostToolUse" | "PreCompact" => status(AgentStatus::Working),
        "PostToolUseFailure" if hook.flag("is_interrupt") => {
            StatusEvent { interrupted: true, ..status(AgentStatus::Done) }
        }
        "PostToolUseFailure" => status(AgentStatus::Working),
        // `/compact` ends with no Stop (docs/model.md §8): a finished manual compaction settles the
        // session it set working. An automatic one happens inside a turn, which goes on.
        "PostCompact" if hook.str("trigger") == Some("manual") => StatusEvent {
            interrupted: true,
            cue: Cue::IdleRescue,
            message: Some("Conversation compacted".to_owned()),
            ..status(AgentStatus::Done)
        },
        "Notification" => notification(&hook, base)?,
        "PermissionRequest" if hook.tool_name() == Some(ASK_USER_QUESTION) => question(&hook, base),
        "PermissionRequest" => permission_request(&hook, base),
        // An MCP server asks the user to fill in a form.
        "Elicitation" => StatusEvent {
            awaiting_input: true,
            question: hook.str("message").map(one_line),
            ..status(AgentStatus::Waiting)
        },
        "ElicitationResult" => status(AgentStatus::Working),
        "Stop" => hook.stop(status(AgentStatus::Done)),
        "StopFailure" => StatusEvent {
            errored: true,
            message: Some(failure_text(hook.str("error"), hook.str("last_assistant_message"))),
            ..status(AgentStatus::Done)
        },
        "SubagentStart" => subagent(&hook, base),
        "SubagentStop" => StatusEvent {
            status: Some(AgentStatus::Done),
            message: hook.string("last_assistant_message"),
            ..subagent(&hook, base)
        },
        "SessionStart" => {
            StatusEvent { title: hook.string("session_title"), ..lifecycle(&hook, AGENT_ID, now, Lifecycle::Start) }
        }
        "SessionEnd" => lifecycle(&hook, AGENT_ID, now, Lifecycle::End),
        _ => return None,
    };
    Some(hook.with_agent_id(event))
}

/// StopFailure as a sentence: Claude sends a bare code (`rate_limit`, `server_error`,
/// `unknown`, …) and the error it showed as `last_assistant_message`.
pub fn failure_text(code: Option<&str>, shown: Option<&str>) -> String {
    let sentence = match code.unwrap_or("unknown") {
        "rate_limit" => "Rate limit reached",
        "server_error" => "The API had a server error",
        "overloaded" | "overloaded_error" => "The API is overloaded",
        "authentication_failed" => "The API key was refused",
        "billing_error" => "The API account has a billing problem",
        "invalid_request" => "The API refused the request",
        "max_output_tokens" => "The answer hit the output limit",
        "unknown" => "The request failed",
        other => return shown.map(one_line).unwrap_or_else(|| format!("The turn failed ({other})")),
    };
    let detail = shown.map(|text| one_line(text.trim_start_matches("API Error:").trim())).filter(|t| !t.is_empty());
    match detail {
        Some(detail) if detail.to_lowercase().contains(&sentence.to_lowercase()) => detail,
        Some(detail) => format!("{sentence}: {detail}"),
        None => sentence.to_owned(),
    }
}

/// `AskUserQuestion`, by PreToolUse or by its PermissionRequest: the user has a question.
fn question(hook: &Hook, base: StatusEvent) -> StatusEvent {
    StatusEvent {
        status: Some(AgentStatus::Waiting),
        awaiting_input: true,
        question: hook.first_question(),
        questions: hook.questions(),
        ..base
    }
}

pub(super) fn permission_request(hook: &Hook, base: StatusEvent) -> StatusEvent {
    StatusEvent {
        status: Some(AgentStatus::Blocked),
        message: hook.tool_input_summary(),
        command: hook.tool_input_text(),
        edit: super::edit::of_tool_input(hook.str("tool_name"), hook.fields.get("tool_input")),
        ..base
    }
}

fn subagent(hook: &Hook, base: StatusEvent) -> StatusEvent {
    StatusEvent { kind: SessionKind::Subagent, subagent_id: hook.string("agent_id"), ..base }
}

/// Notification, by `notification_type` (a closed set: unknown types give no event).
fn notification(hook: &Hook, base: StatusEvent) -> Option<StatusEvent> {
    let message = hook.str("message").map(one_line);
    let (status, cue) = match hook.fields.get("notification_type") {
        None | Some(Value::Null) => (AgentStatus::Waiting, Cue::IdleReminder),
        Some(Value::String(kind)) => match kind.as_str() {
            "permission_prompt" => (AgentStatus::Blocked, Cue::PermissionNotice),
            "elicitation_dialog" | "elicitation_url_dialog" | "agent_needs_input" => (AgentStatus::Waiting, Cue::Plain),
            "idle_prompt" => {
                return Some(StatusEvent {
                    interrupted: true,
                    cue: Cue::IdleRescue,
                    message,
                    status: Some(AgentStatus::Done),
                    ..base
                })
            }
            _ => return None,
        },
        Some(_) => return None,
    };
    Some(StatusEvent { status: Some(status), cue, message, ..base })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::normalize::fixtures::{fixture, fixture_with};
    use serde_json::json;

    const NOW: Millis = 1_750_000_000_000;

    fn claude(name: &str) -> StatusEvent {
        normalize_claude(&fixture(&format!("claude/{name}.json")), NOW).expect(name)
    }

    #[test]
    fn user_prompt_submit_is_a_new_working_turn() {
        let event = claude("UserPromptSubmit");
        assert_eq!(event.status, Some(AgentStatus::Working));
        assert_eq!(event.cue, Cue::NewTurn);
        assert_eq!(event.session_id, "00893aaf-19fa-41d2-8238-13269b9b3ca0");
        assert_eq!(event.cwd.as_deref(), Some("/Users/ana/src/webapp"));
        assert_eq!(event.agent, "claude");
        assert_eq!(event.ts, NOW);
    }

    #[test]
    fn pre_tool_use_is_working_with_the_tool() {
        let event = claude("PreToolUse-Bash");
        assert_eq!(event.status, Some(AgentStatus::Working));
        assert_eq!(event.tool.as_deref(), Some("Bash"));
        assert_eq!(event.cue, Cue::Plain);
        assert!(!event.awaiting_input);
    }

    #[test]
    fn pre_tool_use_ask_user_question_is_waiting_with_the_question() {
        let event = claude("PreToolUse-AskUserQuestion");
        assert_eq!(event.status, Some(AgentStatus::Waiting));
        assert!(event.awaiting_input);
        assert_eq!(event.question.as_deref(), Some("Which framework?"));
    }

    #[test]
    fn post_tool_use_and_pre_compact_are_working() {
        assert_eq!(claude("PostToolUse").status, Some(AgentStatus::Working));
        assert_eq!(claude("PostToolUse").tool.as_deref(), Some("Write"));
        let compact = claude("PreCompact");
        assert_eq!(compact.status, Some(AgentStatus::Working));
        assert_eq!(compact.lifecycle, None);
    }

    #[test]
    fn an_automatic_post_compact_gives_no_event_and_a_manual_one_settles_a_working_session() {
        assert_eq!(normalize_claude(&fixture("claude/PostCompact.json"), NOW), None);
        let manual =
            normalize_claude(&fixture("real/claude-code-2.1.332/events/PostCompact-manual.json"), NOW).unwrap();
        assert_eq!((manual.status, manual.cue, manual.interrupted), (Some(AgentStatus::Done), Cue::IdleRescue, true));
    }

    #[test]
    fn post_tool_use_failure_is_working() {
        let event = claude("PostToolUseFailure");
        assert_eq!(event.status, Some(AgentStatus::Working));
        assert!(!event.interrupted);
    }

    #[test]
    fn post_tool_use_failure_with_is_interrupt_is_an_interrupted_done() {
        let raw = fixture_with("claude/PostToolUseFailure.json", json!({"is_interrupt": true}));
        let event = normalize_claude(&raw, NOW).unwrap();
        assert_eq!(event.status, Some(AgentStatus::Done));
        assert!(event.interrupted);
    }

    #[test]
    fn notification_permission_prompt_is_blocked() {
        let event = claude("Notification-permission_prompt");
        assert_eq!(event.status, Some(AgentStatus::Blocked));
        assert_eq!(event.cue, Cue::PermissionNotice);
        assert_eq!(event.message.as_deref(), Some("Claude needs your permission to use Bash"));
    }

    #[test]
    fn notification_elicitation_and_needs_input_types_are_waiting() {
        assert_eq!(claude("Notification-elicitation_dialog").status, Some(AgentStatus::Waiting));
        for kind in ["elicitation_url_dialog", "agent_needs_input"] {
            let raw = fixture_with("claude/Notification-elicitation_dialog.json", json!({"notification_type": kind}));
            let event = normalize_claude(&raw, NOW).unwrap();
            assert_eq!(event.status, Some(AgentStatus::Waiting), "{kind}");
            assert_eq!(event.cue, Cue::Plain);
        }
    }

    #[test]
    fn notification_idle_prompt_is_an_idle_rescue() {
        let event = claude("Notification-idle_prompt");
        assert_eq!(event.cue, Cue::IdleRescue);
        assert_eq!(event.status, Some(AgentStatus::Done));
        assert!(event.interrupted);
    }

    #[test]
    fn notification_without_a_type_is_an_idle_reminder_waiting() {
        let mut raw = fixture("claude/Notification-idle_prompt.json");
        raw.as_object_mut().unwrap().remove("notification_type");
        let event = normalize_claude(&raw, NOW).unwrap();
        assert_eq!(event.status, Some(AgentStatus::Waiting));
        assert_eq!(event.cue, Cue::IdleReminder);
    }

    #[test]
    fn notification_of_other_or_unknown_types_gives_no_event() {
        assert_eq!(normalize_claude(&fixture("claude/Notification-auth_success.json"), NOW), None);
        for kind in ["elicitation_complete", "elicitation_response", "agent_completed", "brand_new_type"] {
            let raw = fixture_with("claude/Notification-auth_success.json", json!({"notification_type": kind}));
            assert_eq!(normalize_claude(&raw, NOW), None, "{kind}");
        }
    }

    #[test]
    fn permission_request_is_blocked_with_tool_and_command() {
        let event = claude("PermissionRequest");
        assert_eq!(event.status, Some(AgentStatus::Blocked));
        assert_eq!(event.tool.as_deref(), Some("Bash"));
        assert_eq!(event.message.as_deref(), Some("rm -rf node_modules"));
    }

    #[test]
    fn permission_request_for_ask_user_question_is_waiting_with_the_question() {
        let raw = fixture_with(
            "claude/PermissionRequest.json",
            json!({"tool_name": "AskUserQuestion", "tool_input": {"questions": [{"question": "Ship it?"}]}}),
        );
        let event = normalize_claude(&raw, NOW).unwrap();
        assert_eq!(event.status, Some(AgentStatus::Waiting));
        assert!(event.awaiting_input);
        assert_eq!(event.question.as_deref(), Some("Ship it?"));
    }

    #[test]
    fn stop_is_done_with_the_last_assistant_message() {
        let event = claude("Stop");
        assert_eq!(event.status, Some(AgentStatus::Done));
        assert_eq!(event.kind, SessionKind::Session);
        assert_eq!(event.message.as_deref(), Some("I've completed the refactoring. Here's a summary..."));
    }

    #[test]
    fn stop_with_a_subagent_id_is_a_subagents_done() {
        let raw = fixture_with("claude/Stop.json", json!({"subagent_id": "sub-1"}));
        let event = normalize_claude(&raw, NOW).unwrap();
        assert_eq!(event.kind, SessionKind::Subagent);
        assert_eq!(event.subagent_id.as_deref(), Some("sub-1"));
    }

    #[test]
    fn stop_failure_is_an_errored_done_with_the_error() {
        let event = claude("StopFailure");
        assert_eq!(event.status, Some(AgentStatus::Done));
        assert!(event.errored);
        assert_eq!(event.message.as_deref(), Some("Rate limit reached"));
        let mut raw = fixture("claude/StopFailure.json");
        raw.as_object_mut().unwrap().remove("last_assistant_message");
        let event = normalize_claude(&raw, NOW).unwrap();
        assert_eq!(event.message.as_deref(), Some("Rate limit reached"));
    }

    #[test]
    fn subagent_start_has_no_status_and_names_the_subagent() {
        let event = claude("SubagentStart");
        assert_eq!(event.status, None);
        assert_eq!(event.lifecycle, None);
        assert_eq!(event.kind, SessionKind::Subagent);
        assert_eq!(event.subagent_id.as_deref(), Some("agent-abc123"));
    }

    #[test]
    fn subagent_stop_is_a_subagents_done() {
        let event = claude("SubagentStop");
        assert_eq!(event.status, Some(AgentStatus::Done));
        assert_eq!(event.kind, SessionKind::Subagent);
        assert_eq!(event.subagent_id.as_deref(), Some("def456"));
    }

    #[test]
    fn session_start_and_end_are_lifecycle_only() {
        let start = claude("SessionStart");
        assert_eq!((start.status, start.lifecycle), (None, Some(Lifecycle::Start)));
        let end = claude("SessionEnd");
        assert_eq!((end.status, end.lifecycle), (None, Some(Lifecycle::End)));
    }

    #[test]
    fn session_start_title_feeds_the_event_title() {
        let raw = fixture_with("claude/SessionStart.json", json!({"session_title": "auth-refactor"}));
        assert_eq!(normalize_claude(&raw, NOW).unwrap().title.as_deref(), Some("auth-refactor"));
    }

    #[test]
    fn any_event_carrying_agent_id_is_a_subagents() {
        let raw = fixture_with("claude/PermissionRequest.json", json!({"agent_id": "agent-7"}));
        let event = normalize_claude(&raw, NOW).unwrap();
        assert_eq!(event.kind, SessionKind::Subagent);
        assert_eq!(event.subagent_id.as_deref(), Some("agent-7"));
        assert_eq!(event.status, Some(AgentStatus::Blocked));
    }

    #[test]
    fn unknown_events_give_no_event() {
        for name in ["BeforeAgent", "Interrupt", "Setup", "WorktreeCreate", "PostToolBatch", "MessageDisplay"] {
            let raw = fixture_with("claude/Stop.json", json!({"hook_event_name": name}));
            assert_eq!(normalize_claude(&raw, NOW), None, "{name}");
        }
    }

    #[test]
    fn a_null_transcript_path_and_non_string_tool_are_left_out() {
        let raw = fixture_with("claude/PreToolUse-Bash.json", json!({"transcript_path": null, "tool_name": 5}));
        let event = normalize_claude(&raw, NOW).unwrap();
        assert_eq!(event.transcript_path, None);
        assert_eq!(event.tool, None);
    }

    #[test]
    fn stop_failure_codes_read_as_sentences() {
        assert_eq!(
            failure_text(Some("server_error"), Some("API Error: 500 Internal server error (fake). Try again.")),
            "The API had a server error: 500 Internal server error (fake). Try again."
        );
        assert_eq!(failure_text(Some("unknown"), None), "The request failed");
        assert_eq!(failure_text(None, Some("API Error: 400 Bad request")), "The request failed: 400 Bad request");
        assert_eq!(failure_text(Some("brand_new"), None), "The turn failed (brand_new)");
        assert_eq!(failure_text(Some("brand_new"), Some("Something broke")), "Something broke");
    }

    #[test]
    fn elicitation_waits_for_the_user_and_its_result_resumes_work() {
        let raw = fixture_with("claude/Stop.json", json!({"hook_event_name": "Elicitation", "message": "Pick a repo"}));
        let event = normalize_claude(&raw, NOW).unwrap();
        assert_eq!((event.status, event.awaiting_input), (Some(AgentStatus::Waiting), true));
        assert_eq!(event.question.as_deref(), Some("Pick a repo"));
        let raw = fixture_with("claude/Stop.json", json!({"hook_event_name": "ElicitationResult"}));
        assert_eq!(normalize_claude(&raw, NOW).unwrap().status, Some(AgentStatus::Working));
    }
}
