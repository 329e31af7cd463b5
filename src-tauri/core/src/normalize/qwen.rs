//! Qwen Code (`/hook/qwen`), as Qwen Code 0.24.4 sends it (a Gemini CLI fork with Claude Code's
//! hook dialect: docs/model.md §1.5, checked by `tests/real_cli/qwen.py`).
//!
//! What differs from Claude Code: `UserPromptSubmit` fires again with an empty prompt after every
//! tool batch (the continuation request: not a new turn); `Notification(idle_prompt)` fires each
//! time the TUI goes back to idle, so it is the one event that closes a turn ended by Esc (no Stop
//! then); a refused permission shows as a `cancelled` call in `PostToolBatch`; `StopFailure` runs
//! detached under a short-lived supervisor, so its process is not the CLI.

use crate::json::Value;

mod transcript;

use super::{lifecycle, one_line, Hook};
use crate::agent::row::{Agent, Start, Transcript, Typing};
use crate::agent::setup::{DirVar, Layout, Setup, Switch};
use crate::status::{AgentStatus, Cue, Lifecycle, Millis, SessionKind, StatusEvent};

const AGENT_ID: &str = "qwen";
/// Qwen's question tool (Claude's `questions` shape in its input).
const ASK_USER_QUESTION: &str = "ask_user_question";

/// Events that say nothing about whether the agent needs the user (inside a turn, about the
/// environment, or decided without the user), or that run under a detached supervisor.
pub const IGNORED: &[&str] = &[
    "MessageDisplay",
    "InstructionsLoaded",
    "PermissionDenied",
    "UserPromptExpansion",
    "SessionDelete",
    "TodoCreated",
    "TodoCompleted",
    "PreCompact",
    "PostCompact",
];

/// The events the installer registers for: exactly those this normalizer reads.
pub const HOOK_EVENTS: &[&str] = &[
    "UserPromptSubmit",
    "PreToolUse",
    "PostToolUse",
    "PostToolUseFailure",
    "PostToolBatch",
    "Notification",
    "PermissionRequest",
    "Stop",
    "StopFailure",
    "SubagentStart",
    "SubagentStop",
    "SessionStart",
    "SessionEnd",
];

/// Qwen Code, as Switchboard knows it.
pub static AGENT: Agent = Agent {
    id: AGENT_ID,
    name: "Qwen Code",
    short_name: "Qwen",
    letter: 'Q',
    held_note: Some("its own dialog appears only if the board does not answer"),
    start: Some(Start { program: "qwen", prompt_flag: Some("--prompt-interactive") }),
    normalize: normalize_qwen,
    ignored: IGNORED,
    hook_events: HOOK_EVENTS,
    // It takes Claude's `hookSpecificOutput.decision.behavior` = allow | deny before it draws its
    // dialog (checked by the real-CLI harness).
    decision_event: Some("PermissionRequest"),
    // An allowing hook is ignored for a tool that needs the user (its question dialog shows anyway).
    answers_in_hook: false,
    resume: Some("qwen --resume {id}"),
    transcript: Transcript { turn: transcript::turn, usage: transcript::usage, settles: |_| false },
    typing: Typing { prompts: &[">", "*"], enter_after_ms: 150, pasted: Some("[Pasted text"), options_by_digit: true },
    setup: Some(Setup {
        dir: ".qwen",
        dir_var: Some(DirVar::Folder("QWEN_HOME")),
        file: "settings.json",
        program: "qwen",
        install_hint: "npm install -g @qwen-code/qwen-code",
        every_tool: &["PreToolUse", "PostToolUse", "PostToolUseFailure", "PermissionRequest"],
        // Seconds (values of 1000 and more keep an old meaning in milliseconds).
        layout: Layout::Groups,
        comments: true,
        all_off: Some(Switch {
            path: &["disableAllHooks"],
            off: true,
            message: "`disableAllHooks` is true in these settings: Qwen Code runs no hook, Switchboard's included, \
                      until you set it to false",
            fix: "set \"disableAllHooks\": false in {file}",
        }),
        next_step: "new Qwen Code sessions report to Switchboard; restart the ones already running",
        ..Setup::BASE
    }),
    detached_events: &["StopFailure", "MessageDisplay", "SessionDelete"],
    ..Agent::BASE
};

pub fn normalize_qwen(raw: &Value, now: Millis) -> Option<StatusEvent> {
    let hook = Hook::parse(raw)?;
    let base = hook.event(AGENT_ID, now);
    let status = |status| StatusEvent { status: Some(status), ..hook.event(AGENT_ID, now) };
    let event = match hook.event_name {
        // An empty prompt is the request that goes on after a tool batch: the same turn.
        "UserPromptSubmit" if hook.str("prompt").is_some_and(|prompt| prompt.trim().is_empty()) => {
            status(AgentStatus::Working)
        }
        "UserPromptSubmit" => StatusEvent {
            cue: Cue::NewTurn,
            prompt: hook.str("prompt").map(str::to_owned),
            ..status(AgentStatus::Working)
        },
        "PermissionRequest" if hook.tool_name() == Some(ASK_USER_QUESTION) => StatusEvent {
            awaiting_input: true,
            question: hook.first_question(),
            questions: hook.questions(),
            ..status(AgentStatus::Waiting)
        },
        "PermissionRequest" => StatusEvent {
            message: hook.tool_input_summary(),
            command: hook.tool_input_text(),
            edit: super::edit::of_tool_input(hook.str("tool_name"), hook.fields.get("tool_input")),
            ..status(AgentStatus::Blocked)
        },
        "PreToolUse" | "PostToolUse" | "PostToolUseFailure" => status(AgentStatus::Working),
        // The user refused a permission or cancelled a question: the turn ends, no Stop follows.
        "PostToolBatch" if cancelled(&hook) => StatusEvent { interrupted: true, ..status(AgentStatus::Done) },
        "PostToolBatch" => status(AgentStatus::Working),
        "Notification" => notification(&hook, base)?,
        "Stop" => hook.stop(status(AgentStatus::Done)),
        "StopFailure" => StatusEvent { errored: true, message: Some(failure_text(&hook)), ..status(AgentStatus::Done) },
        "SubagentStart" => StatusEvent { cue: Cue::SubagentStart, ..subagent(&hook, status(AgentStatus::Working)) },
        "SubagentStop" => {
            StatusEvent { message: hook.string("last_assistant_message"), ..subagent(&hook, status(AgentStatus::Done)) }
        }
        "SessionStart" => lifecycle(&hook, AGENT_ID, now, Lifecycle::Start),
        "SessionEnd" => lifecycle(&hook, AGENT_ID, now, Lifecycle::End),
        _ => return None,
    };
    Some(event)
}

/// A call of the batch the user refused or cancelled.
fn cancelled(hook: &Hook) -> bool {
    let calls = hook.fields.get("tool_calls").and_then(Value::as_array);
    calls.is_some_and(|calls| calls.iter().any(|call| call.get("status").and_then(Value::as_str) == Some("cancelled")))
}

/// `Notification` by its `notification_type`; others (`auth_success`) give no event.
fn notification(hook: &Hook, base: StatusEvent) -> Option<StatusEvent> {
    let message = hook.str("message").map(one_line);
    match hook.str("notification_type")? {
        "permission_prompt" => {
            Some(StatusEvent { status: Some(AgentStatus::Blocked), cue: Cue::PermissionNotice, message, ..base })
        }
        // Back at its prompt: closes a turn no Stop closed (Esc while it streamed).
        "idle_prompt" => Some(StatusEvent {
            status: Some(AgentStatus::Done),
            interrupted: true,
            cue: Cue::IdleRescue,
            message,
            ..base
        }),
        _ => None,
    }
}

/// What failed, as Qwen said it: `error_details` ("500 The server had an error…"), else the text it
/// showed ("[API Error: …]"), else the bare code.
fn failure_text(hook: &Hook) -> String {
    let shown = hook.str("error_details").or_else(|| hook.str("last_assistant_message"));
    let shown = shown.map(|text| one_line(text.trim_start_matches("[API Error:").trim_end_matches(']').trim()));
    match (shown.filter(|text| !text.is_empty()), hook.str("error")) {
        (Some(text), _) => format!("The request failed: {text}"),
        (None, Some(code)) => format!("The request failed ({code})"),
        (None, None) => "The request failed".to_owned(),
    }
}

fn subagent(hook: &Hook, event: StatusEvent) -> StatusEvent {
    let id = hook.string("agent_id").or_else(|| hook.string("subagent_id"));
    StatusEvent { kind: SessionKind::Subagent, subagent_id: id, ..event }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    /// The normalizer on a test's `serde_json` value (the server reads bodies with `crate::json`).
    fn normalize_qwen(raw: &Value, now: Millis) -> Option<StatusEvent> {
        super::normalize_qwen(&raw.into(), now)
    }

    use serde_json::json;

    const NOW: Millis = 1_750_000_000_000;

    fn qwen(event: &str, extra: Value) -> Option<StatusEvent> {
        let mut raw = json!({
            "session_id": "7b0f9f7c-qwen", "hook_event_name": event, "cwd": "/w/app",
            "transcript_path": "/h/.qwen/projects/-w-app/chats/7b0f9f7c-qwen.jsonl",
            "timestamp": "2026-12-03T11:00:00.000Z", "permission_mode": "default",
        });
        raw.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
        normalize_qwen(&raw, NOW)
    }

    #[test]
    fn a_prompt_starts_a_turn_and_the_empty_continuation_does_not() {
        let turn = qwen("UserPromptSubmit", json!({"prompt": "fix it", "submitted_prompt": "fix it"})).unwrap();
        assert_eq!(
            (turn.status, turn.cue, turn.prompt.as_deref()),
            (Some(AgentStatus::Working), Cue::NewTurn, Some("fix it"))
        );
        let more = qwen("UserPromptSubmit", json!({"prompt": ""})).unwrap();
        assert_eq!((more.status, more.cue), (Some(AgentStatus::Working), Cue::Plain));
    }

    #[test]
    fn a_permission_is_blocked_with_its_command_and_a_question_is_waiting() {
        let shell = json!({"tool_name": "run_shell_command", "tool_input": {"command": "rm -rf build", "description": "clean"}});
        let held = qwen("PermissionRequest", shell).unwrap();
        assert_eq!((held.status, held.command.as_deref()), (Some(AgentStatus::Blocked), Some("rm -rf build")));
        assert!(AGENT.decides_with("PermissionRequest"));
        let questions = json!({"tool_name": "ask_user_question", "tool_input": {"questions": [{
            "question": "Which database?", "header": "DB", "multiSelect": false,
            "options": [{"label": "PostgreSQL", "description": "server"}, {"label": "SQLite", "description": "file"}]}]}});
        let asked = qwen("PermissionRequest", questions).unwrap();
        assert_eq!((asked.status, asked.awaiting_input), (Some(AgentStatus::Waiting), true));
        assert_eq!(asked.question.as_deref(), Some("Which database?"));
        assert_eq!(asked.questions[0].options.len(), 2);
    }

    #[test]
    fn idle_closes_only_an_open_turn_and_a_cancelled_batch_is_an_interrupt() {
        let idle = qwen(
            "Notification",
            json!({"notification_type": "idle_prompt", "message": "Qwen Code is waiting for your input"}),
        )
        .unwrap();
        assert_eq!((idle.status, idle.cue, idle.interrupted), (Some(AgentStatus::Done), Cue::IdleRescue, true));
        let notice = qwen("Notification", json!({"notification_type": "permission_prompt"})).unwrap();
        assert_eq!((notice.status, notice.cue), (Some(AgentStatus::Blocked), Cue::PermissionNotice));
        assert!(qwen("Notification", json!({"notification_type": "auth_success"})).is_none());
        let refused =
            qwen("PostToolBatch", json!({"tool_calls": [{"tool_name": "run_shell_command", "status": "cancelled"}]}));
        assert_eq!(refused.map(|e| (e.status, e.interrupted)), Some((Some(AgentStatus::Done), true)));
        let ran =
            qwen("PostToolBatch", json!({"tool_calls": [{"tool_name": "run_shell_command", "status": "success"}]}));
        assert_eq!(ran.map(|e| (e.status, e.interrupted)), Some((Some(AgentStatus::Working), false)));
    }

    #[test]
    fn stop_is_done_and_a_failure_is_an_errored_done_that_says_what_failed() {
        let done = qwen("Stop", json!({"last_assistant_message": "All set."})).unwrap();
        assert_eq!((done.status, done.message.as_deref()), (Some(AgentStatus::Done), Some("All set.")));
        let failed = qwen(
            "StopFailure",
            json!({"error": "server_error", "error_details": "500 The server had an error",
            "last_assistant_message": "[API Error: 500 The server had an error]"}),
        )
        .unwrap();
        assert!(failed.errored);
        assert_eq!(failed.message.as_deref(), Some("The request failed: 500 The server had an error"));
        assert_eq!(
            qwen("StopFailure", json!({"error": "rate_limit"})).unwrap().message.as_deref(),
            Some("The request failed (rate_limit)")
        );
    }

    #[test]
    fn sessions_start_and_end_and_the_rest_is_ignored() {
        assert_eq!(qwen("SessionStart", json!({"source": "startup"})).unwrap().lifecycle, Some(Lifecycle::Start));
        assert_eq!(qwen("SessionEnd", json!({"reason": "prompt_input_exit"})).unwrap().lifecycle, Some(Lifecycle::End));
        for event in IGNORED {
            assert!(qwen(event, json!({})).is_none(), "{event}");
        }
        for event in HOOK_EVENTS {
            let extra = if *event == "Notification" { json!({"notification_type": "idle_prompt"}) } else { json!({}) };
            assert!(qwen(event, extra).is_some(), "{event} is registered, so it must be read");
        }
    }
}
