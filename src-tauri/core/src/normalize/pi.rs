//! pi (`/hook/pi`), as pi 0.73.1 (`@mariozechner/pi-coding-agent`) sends it through Switchboard's
//! bridge (`pi/bridge.ts`, an extension the installer writes: pi runs no hook commands itself).
//! docs/model.md §1.7 has what was found; `tests/real_cli/pi.py` checks it.
//!
//! What differs: the events are pi's own (`input`, `agent_start`, `tool_execution_start`,
//! `tool_call`, `agent_end`, …) with the session's id, file, name and folder added by the bridge;
//! every turn ends with `agent_end`, whose last answer says how (`stop`, `aborted` by Esc, or
//! `error`); pi retries a failed request by itself with another `agent_start` and no `input`. It
//! never asks before a tool: a `tool_call` is a permission only while the board holds it (the
//! user turned Allow / Deny on for pi), and pi has no question tool.

use crate::json::Value;

mod transcript;

use super::{lifecycle, request_failed, Hook};
use crate::agent::row::{Agent, DecisionReply, Start, Transcript, Typing};
use crate::agent::setup::{Bridge, DirVar, Layout, Setup};
use crate::status::{AgentStatus, Cue, Lifecycle, Millis, StatusEvent};

const AGENT_ID: &str = "pi";

/// pi's events that say nothing about whether the agent needs the user (inside a turn, about its
/// resources or settings), each one a fork of something the registered events already say.
pub const IGNORED: &[&str] = &[
    "resources_discover",
    "session_before_switch",
    "session_before_fork",
    "session_before_compact",
    "session_before_tree",
    "session_compact",
    "session_tree",
    "before_agent_start",
    "turn_start",
    "turn_end",
    "context",
    "before_provider_request",
    "after_provider_response",
    "message_start",
    "message_update",
    "message_end",
    "tool_execution_update",
    "tool_result",
    "model_select",
    "thinking_level_select",
    "user_bash",
];

/// The events the installer registers for: exactly those this normalizer reads.
pub const HOOK_EVENTS: &[&str] = &[
    "session_start",
    "input",
    "agent_start",
    "tool_execution_start",
    "tool_call",
    "tool_execution_end",
    "agent_end",
    "session_shutdown",
];

/// pi, as Switchboard knows it.
pub static AGENT: Agent = Agent {
    id: AGENT_ID,
    name: "pi",
    short_name: "pi",
    letter: 'π',
    held_note: Some("pi asks in its own dialog only if the board does not answer"),
    start: Some(Start { program: "pi", prompt_flag: None }),
    normalize: normalize_pi,
    ignored: IGNORED,
    hook_events: HOOK_EVENTS,
    // The bridge blocks the call on `{"behavior":"deny"}` and lets it run on allow.
    decision_event: Some("tool_call"),
    decision_reply: DecisionReply::Flat,
    resume: Some("pi --session {id}"),
    transcript: Transcript { turn: transcript::turn, usage: transcript::usage, settles: |_| false },
    typing: Typing { prompts: &[], enter_after_ms: 150, pasted: Some("[paste #"), options_by_digit: true },
    setup: Some(Setup {
        dir: ".pi/agent",
        dir_var: Some(DirVar::Folder("PI_CODING_AGENT_DIR")),
        file: "switchboard-hooks.json",
        program: "pi",
        install_hint: "npm install -g @mariozechner/pi-coding-agent",
        layout: Layout::Flat { version: 1 },
        next_step: "new pi sessions report to Switchboard; in a session already running, type /reload",
        bridge: Some(Bridge {
            file: "extensions/switchboard.ts",
            source: include_str!("pi/bridge.ts"),
            mark: "Switchboard's bridge for pi",
        }),
        ..Setup::BASE
    }),
    asks_only_when_held: true,
    unanswered_reply: Some(r#"{"behavior":"ask"}"#),
    ..Agent::BASE
};

pub fn normalize_pi(raw: &Value, now: Millis) -> Option<StatusEvent> {
    let hook = Hook::parse(raw)?;
    let base = StatusEvent {
        title: hook.string("session_name").filter(|name| !name.trim().is_empty()),
        ..hook.event(AGENT_ID, now)
    };
    let status = |status| StatusEvent { status: Some(status), ..base.clone() };
    let event = match hook.event_name {
        "input" => StatusEvent { cue: Cue::NewTurn, prompt: hook.string("prompt"), ..status(AgentStatus::Working) },
        // After `input` it changes nothing; after a failed answer it is pi retrying by itself.
        "agent_start" => StatusEvent { cue: Cue::ModelCall, ..status(AgentStatus::Working) },
        "tool_execution_start" | "tool_execution_end" => status(AgentStatus::Working),
        "tool_call" => StatusEvent {
            message: hook.tool_input_summary(),
            command: hook.tool_input_text(),
            edit: super::edit::of_tool_input(hook.str("tool_name"), hook.fields.get("tool_input")),
            ..status(AgentStatus::Blocked)
        },
        "agent_end" => turn_end(&hook, status(AgentStatus::Done)),
        "session_start" => {
            StatusEvent { title: base.title.clone(), ..lifecycle(&hook, AGENT_ID, now, Lifecycle::Start) }
        }
        "session_shutdown" => lifecycle(&hook, AGENT_ID, now, Lifecycle::End),
        _ => return None,
    };
    Some(event)
}

/// `agent_end` by how its last answer stopped: finished, stopped by Esc, or failed.
fn turn_end(hook: &Hook, done: StatusEvent) -> StatusEvent {
    let said = hook.text("last_assistant_message");
    match hook.str("stop_reason") {
        Some("stop" | "length") => StatusEvent { message: said, ..done },
        Some("error") => {
            StatusEvent { errored: true, message: Some(request_failed(hook.str("error_message"))), ..done }
        }
        // `aborted`, or Esc while a tool ran (the last answer asked for it).
        _ => StatusEvent { interrupted: true, message: said, ..done },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    /// The normalizer on a test's `serde_json` value (the server reads bodies with `crate::json`).
    fn normalize_pi(raw: &Value, now: Millis) -> Option<StatusEvent> {
        super::normalize_pi(&raw.into(), now)
    }

    use serde_json::json;

    const NOW: Millis = 1_750_000_000_000;

    fn pi(event: &str, extra: Value) -> Option<StatusEvent> {
        let mut raw = json!({
            "hook_event_name": event, "session_id": "019a0b7e-pi", "cwd": "/w/app",
            "transcript_path": "/h/.pi/agent/sessions/--w-app--/2026-12-03T11-00-00-000Z_019a0b7e-pi.jsonl",
        });
        raw.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
        normalize_pi(&raw, NOW)
    }

    #[test]
    fn input_starts_a_turn_and_agent_start_only_retries() {
        let turn = pi("input", json!({"prompt": "fix it", "source": "interactive"})).unwrap();
        assert_eq!(
            (turn.status, turn.cue, turn.prompt.as_deref()),
            (Some(AgentStatus::Working), Cue::NewTurn, Some("fix it"))
        );
        assert_eq!(turn.transcript_path.as_deref().map(|p| p.ends_with("_019a0b7e-pi.jsonl")), Some(true));
        let start = pi("agent_start", json!({})).unwrap();
        assert_eq!((start.status, start.cue), (Some(AgentStatus::Working), Cue::ModelCall));
        let tool = pi("tool_execution_start", json!({"tool_name": "bash", "tool_input": {"command": "ls"}})).unwrap();
        assert_eq!((tool.status, tool.tool.as_deref()), (Some(AgentStatus::Working), Some("bash")));
    }

    #[test]
    fn a_held_tool_call_is_blocked_with_its_command() {
        let held = pi("tool_call", json!({"tool_name": "bash", "tool_input": {"command": "rm -rf build"}})).unwrap();
        assert_eq!((held.status, held.command.as_deref()), (Some(AgentStatus::Blocked), Some("rm -rf build")));
        assert!(AGENT.decides_with("tool_call") && AGENT.asks_only_when_held);
        let edit =
            pi("tool_call", json!({"tool_name": "write", "tool_input": {"path": "/w/app/a.txt", "content": "x"}}))
                .unwrap();
        assert_eq!(edit.command.as_deref(), Some("/w/app/a.txt"));
    }

    #[test]
    fn agent_end_is_done_interrupted_or_errored_by_how_the_answer_stopped() {
        let done = pi("agent_end", json!({"stop_reason": "stop", "last_assistant_message": "All set."})).unwrap();
        assert_eq!(
            (done.status, done.message.as_deref(), done.interrupted, done.errored),
            (Some(AgentStatus::Done), Some("All set."), false, false)
        );
        let esc = pi("agent_end", json!({"stop_reason": "aborted", "error_message": "Request was aborted"})).unwrap();
        assert!(esc.interrupted && !esc.errored);
        let failed =
            pi("agent_end", json!({"stop_reason": "error", "error_message": "400 Bad request\n(fake)"})).unwrap();
        assert!(failed.errored && !failed.interrupted);
        assert_eq!(failed.message.as_deref(), Some("The request failed: 400 Bad request (fake)"));
    }

    #[test]
    fn sessions_start_and_end_named_and_the_rest_is_ignored() {
        let start = pi("session_start", json!({"reason": "startup", "session_name": "refactor"})).unwrap();
        assert_eq!((start.lifecycle, start.title.as_deref()), (Some(Lifecycle::Start), Some("refactor")));
        assert_eq!(pi("session_shutdown", json!({"reason": "quit"})).unwrap().lifecycle, Some(Lifecycle::End));
        for event in IGNORED {
            assert!(pi(event, json!({})).is_none(), "{event}");
        }
        for event in HOOK_EVENTS {
            assert!(pi(event, json!({})).is_some(), "{event} is registered, so it must be read");
        }
    }

    #[test]
    fn the_bridge_is_recognised_by_its_first_line() {
        let bridge = AGENT.setup.unwrap().bridge.unwrap();
        assert!(bridge.is_ours(bridge.source));
        assert!(!bridge.is_ours("export default function (pi) {}\n// Switchboard's bridge for pi"));
        // Every event the bridge describes is one the installer registers.
        for event in HOOK_EVENTS.iter().filter(|e| **e != "agent_start") {
            assert!(bridge.source.contains(&format!("\"{event}\"")), "{event}");
        }
    }
}
