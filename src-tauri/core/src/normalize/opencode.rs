//! OpenCode (`/hook/opencode`), as OpenCode 1.18.33 (`opencode-ai`) sends it through Switchboard's
//! bridge (`opencode/bridge.js`, a plugin the installer writes: OpenCode runs no hook commands).
//! docs/model.md §1.8 has what was found; `tests/real_cli/opencode.py` checks it.
//!
//! What differs: the events are OpenCode's own bus events (`session.status`, `permission.asked`,
//! `question.asked`, `session.idle`, …) and its `chat.message` plugin hook, with the session's id
//! and folder; the bridge folds a turn's `session.error` (Esc is `MessageAbortedError`) and its
//! last answer into the `session.idle` that ends it, once. A refused permission or a dismissed
//! question ends the turn. A subagent (the `task` tool) is a session with a parent: its events
//! come as the parent's with a `subagent_id`. Its sessions live in SQLite, not in a transcript
//! file: the board reads their usage there (`opencode/database.rs`), and has no last turn from it.

mod database;

use crate::json::Value;

use super::{lifecycle, one_line, request_failed, Hook};
use crate::agent::row::{Agent, DecisionReply, Start, Transcript, Typing};
use crate::agent::setup::{Bridge, DirVar, Layout, Setup};
use crate::status::{AgentStatus, Cue, Lifecycle, Millis, SessionKind, StatusEvent};

const AGENT_ID: &str = "opencode";

/// OpenCode's events (bus events and plugin hooks) that say nothing about whether the agent needs
/// the user, or that the bridge folds into another.
pub const IGNORED: &[&str] = &[
    "session.deleted",
    "session.diff",
    "session.error",
    "session.compacted",
    "message.updated",
    "message.removed",
    "message.part.updated",
    "message.part.delta",
    "message.part.removed",
    // The same requests again, for OpenCode's next API: the bridge reads the first form.
    "permission.v2.asked",
    "permission.v2.replied",
    "question.v2.asked",
    "question.v2.replied",
    "question.v2.rejected",
    "chat.headers",
    "chat.params",
    "command.execute.before",
    "experimental.chat.messages.transform",
    "experimental.chat.system.transform",
    "experimental.compaction.autocontinue",
    "experimental.session.compacting",
    "experimental.text.complete",
    // Declared, never called by 1.18.33: a permission is answered through its server instead.
    "permission.ask",
    "shell.env",
    "tool.definition",
    "tool.execute.after",
    "tool.execute.before",
];

/// The events the installer registers for: exactly those this normalizer reads.
pub const HOOK_EVENTS: &[&str] = &[
    "session.created",
    "session.updated",
    "chat.message",
    "session.status",
    "permission.asked",
    "permission.replied",
    "question.asked",
    "question.replied",
    "question.rejected",
    "session.idle",
    "dispose",
];

/// OpenCode, as Switchboard knows it.
pub static AGENT: Agent = Agent {
    id: AGENT_ID,
    name: "OpenCode",
    short_name: "OpenCode",
    letter: 'O',
    held_note: Some("its own dialog shows too; whichever answer comes first wins"),
    start: Some(Start { program: "opencode", prompt_flag: Some("--prompt") }),
    normalize: normalize_opencode,
    ignored: IGNORED,
    hook_events: HOOK_EVENTS,
    // The bridge replies through OpenCode's own server, as its dialog does.
    decision_event: Some("permission.asked"),
    decision_reply: DecisionReply::Flat,
    // Its questions come to the same hook (the tool `question`); the bridge gives the board's
    // answers to OpenCode's server (`/question/{id}/reply`), as its own dialog does.
    answers_in_hook: true,
    resume: Some("opencode -s {id}"),
    // No transcript: its usage comes from its database, a row at a time.
    transcript: Transcript { usage: database::usage, ..Transcript::NONE },
    database: Some(database::DATABASE),
    typing: Typing { prompts: &["┃"], enter_after_ms: 200, pasted: None, options_by_digit: true },
    setup: Some(Setup {
        dir: ".config/opencode",
        dir_var: Some(DirVar::Base("XDG_CONFIG_HOME", "opencode")),
        file: "switchboard-hooks.json",
        program: "opencode",
        install_hint: "npm install -g opencode-ai",
        layout: Layout::Flat { version: 1 },
        next_step: "new OpenCode sessions report to Switchboard; restart the ones already running",
        bridge: Some(Bridge {
            file: "plugin/switchboard.js",
            source: include_str!("opencode/bridge.js"),
            mark: "Switchboard's bridge for OpenCode",
        }),
        ..Setup::BASE
    }),
    ..Agent::BASE
};

pub fn normalize_opencode(raw: &Value, now: Millis) -> Option<StatusEvent> {
    let hook = Hook::parse(raw)?;
    let base = match hook.string("subagent_id") {
        Some(id) => StatusEvent { kind: SessionKind::Subagent, subagent_id: Some(id), ..hook.event(AGENT_ID, now) },
        None => hook.event(AGENT_ID, now),
    };
    let subagent = base.kind == SessionKind::Subagent;
    let status = |status| StatusEvent { status: Some(status), ..base.clone() };
    let event = match hook.event_name {
        "session.created" if subagent => StatusEvent { cue: Cue::SubagentStart, ..status(AgentStatus::Working) },
        "session.created" => StatusEvent { title: title(&hook), ..lifecycle(&hook, AGENT_ID, now, Lifecycle::Start) },
        "session.updated" if subagent => return None,
        "session.updated" => StatusEvent { title: Some(title(&hook)?), ..base },
        "chat.message" if subagent => status(AgentStatus::Working),
        "chat.message" => {
            StatusEvent { cue: Cue::NewTurn, prompt: hook.string("prompt"), ..status(AgentStatus::Working) }
        }
        "session.status" => StatusEvent { message: retrying(&hook), ..status(AgentStatus::Working) },
        // A question, sent as a permission of the tool `question` so the board may hold it and
        // answer it through OpenCode's server (`answers_in_hook`).
        "permission.asked" if hook.str("tool_name") == Some("question") => {
            question(&hook, status(AgentStatus::Waiting))
        }
        "question.asked" => question(&hook, status(AgentStatus::Waiting)),
        "permission.asked" => StatusEvent {
            message: hook.tool_input_summary(),
            command: hook.tool_input_text(),
            edit: super::edit::of_tool_input(hook.str("tool_name"), hook.fields.get("tool_input")),
            ..status(AgentStatus::Blocked)
        },
        // Allowed: the tool runs. Refused: the idle that ends the turn follows at once.
        "permission.replied" => StatusEvent { cue: Cue::Approved, ..status(AgentStatus::Working) },
        "question.replied" | "question.rejected" => status(AgentStatus::Working),
        "session.idle" => turn_end(&hook, status(AgentStatus::Done)),
        "dispose" => lifecycle(&hook, AGENT_ID, now, Lifecycle::End),
        _ => return None,
    };
    Some(event)
}

/// Its question tool's questions: waiting for the user.
fn question(hook: &Hook, waiting: StatusEvent) -> StatusEvent {
    StatusEvent {
        awaiting_input: true,
        question: hook.first_question(),
        questions: hook.questions(),
        tool: None,
        ..waiting
    }
}

/// Its own title, once it is more than the placeholder it starts with.
fn title(hook: &Hook) -> Option<String> {
    let title = hook.str("title")?.trim();
    (!title.is_empty() && !title.starts_with("New session - ")).then(|| one_line(title))
}

fn retrying(hook: &Hook) -> Option<String> {
    (hook.str("status") == Some("retry")).then(|| {
        let why = hook.str("message").map(one_line).unwrap_or_default();
        format!("Retrying: {why}").trim_end_matches([':', ' ']).to_owned()
    })
}

/// The idle that ends a turn, with what the bridge saw of it: Esc, an error, its last answer.
fn turn_end(hook: &Hook, done: StatusEvent) -> StatusEvent {
    let said = hook.text("last_assistant_message");
    if hook.flag("interrupted") {
        return StatusEvent { interrupted: true, message: said, ..done };
    }
    if hook.str("error_name").is_some() {
        return StatusEvent { errored: true, message: Some(request_failed(hook.str("error_message"))), ..done };
    }
    StatusEvent { message: said, ..done }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    /// The normalizer on a test's `serde_json` value (the server reads bodies with `crate::json`).
    fn normalize_opencode(raw: &Value, now: Millis) -> Option<StatusEvent> {
        super::normalize_opencode(&raw.into(), now)
    }

    use serde_json::json;

    const NOW: Millis = 1_750_000_000_000;

    fn opencode(event: &str, extra: Value) -> Option<StatusEvent> {
        let mut raw = json!({"hook_event_name": event, "session_id": "ses_5a1b", "cwd": "/w/app"});
        raw.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
        normalize_opencode(&raw, NOW)
    }

    #[test]
    fn a_prompt_starts_a_turn_and_the_idle_ends_it_with_its_answer() {
        let turn = opencode("chat.message", json!({"prompt": "fix it"})).unwrap();
        assert_eq!(
            (turn.status, turn.cue, turn.prompt.as_deref()),
            (Some(AgentStatus::Working), Cue::NewTurn, Some("fix it"))
        );
        let busy = opencode("session.status", json!({"status": "busy"})).unwrap();
        assert_eq!((busy.status, busy.message), (Some(AgentStatus::Working), None));
        let retry =
            opencode("session.status", json!({"status": "retry", "attempt": 2, "message": "overloaded"})).unwrap();
        assert_eq!(retry.message.as_deref(), Some("Retrying: overloaded"));
        let done =
            opencode("session.idle", json!({"interrupted": false, "last_assistant_message": "All set."})).unwrap();
        assert_eq!(
            (done.status, done.message.as_deref(), done.interrupted, done.errored),
            (Some(AgentStatus::Done), Some("All set."), false, false)
        );
    }

    #[test]
    fn esc_and_errors_come_folded_into_the_idle() {
        let esc = opencode("session.idle", json!({"interrupted": true})).unwrap();
        assert!(esc.interrupted && !esc.errored);
        let failed =
            opencode("session.idle", json!({"error_name": "APIError", "error_message": "fake error 400"})).unwrap();
        assert!(failed.errored && !failed.interrupted);
        assert_eq!(failed.message.as_deref(), Some("The request failed: fake error 400"));
    }

    #[test]
    fn a_permission_is_blocked_with_its_command_and_a_question_is_waiting() {
        let asked = opencode(
            "permission.asked",
            json!({"tool_name": "bash", "permission_id": "per_1",
            "tool_input": {"command": "rm -rf build"}}),
        )
        .unwrap();
        assert_eq!((asked.status, asked.command.as_deref()), (Some(AgentStatus::Blocked), Some("rm -rf build")));
        assert!(AGENT.decides_with("permission.asked") && !AGENT.asks_only_when_held);
        let replied = opencode("permission.replied", json!({"reply": "once"})).unwrap();
        assert_eq!((replied.status, replied.cue), (Some(AgentStatus::Working), Cue::Approved));
        let question = opencode("question.asked", json!({"tool_name": "question", "tool_input": {"questions": [{
            "question": "Which color?", "header": "Color", "multiple": false,
            "options": [{"label": "Red", "description": "A red button"}, {"label": "Blue", "description": "A blue one"}]}]}})).unwrap();
        assert_eq!((question.status, question.awaiting_input), (Some(AgentStatus::Waiting), true));
        assert_eq!((question.question.as_deref(), question.questions[0].options.len()), (Some("Which color?"), 2));
        // The bridge sends a question to the decision hook, so the board may hold and answer it.
        let held = opencode("permission.asked", json!({"tool_name": "question", "question_id": "que_1",
            "tool_input": {"questions": [{"question": "Which color?", "options": [{"label": "Red"}, {"label": "Blue"}]}]}}))
        .unwrap();
        assert_eq!((held.status, held.awaiting_input, held.command), (Some(AgentStatus::Waiting), true, None));
        assert_eq!((held.question.as_deref(), held.questions[0].options.len()), (Some("Which color?"), 2));
        assert!(AGENT.answers_in_hook);
    }

    #[test]
    fn titles_skip_the_placeholder_and_a_child_session_is_a_subagent() {
        let created = opencode("session.created", json!({"title": "New session - 2026-12-03T11:00:00.000Z"})).unwrap();
        assert_eq!((created.lifecycle, created.title), (Some(Lifecycle::Start), None));
        let named = opencode("session.updated", json!({"title": "Fix the build"})).unwrap();
        assert_eq!((named.status, named.title.as_deref()), (None, Some("Fix the build")));
        assert!(opencode("session.updated", json!({"title": "New session - 2026"})).is_none());
        let child = opencode("session.created", json!({"subagent_id": "ses_child", "title": "explore"})).unwrap();
        assert_eq!(
            (child.kind, child.subagent_id.as_deref(), child.status),
            (SessionKind::Subagent, Some("ses_child"), Some(AgentStatus::Working))
        );
        let child_done = opencode("session.idle", json!({"subagent_id": "ses_child"})).unwrap();
        assert_eq!((child_done.kind, child_done.status), (SessionKind::Subagent, Some(AgentStatus::Done)));
    }

    #[test]
    fn exit_ends_the_session_and_the_rest_is_ignored() {
        assert_eq!(opencode("dispose", json!({})).unwrap().lifecycle, Some(Lifecycle::End));
        for event in IGNORED {
            assert!(opencode(event, json!({})).is_none(), "{event}");
        }
        for event in HOOK_EVENTS.iter().filter(|e| **e != "session.updated") {
            assert!(opencode(event, json!({})).is_some(), "{event} is registered, so it must be read");
        }
        let bridge = AGENT.setup.unwrap().bridge.unwrap();
        assert!(bridge.is_ours(bridge.source));
        for event in HOOK_EVENTS {
            assert!(bridge.source.contains(&format!("\"{event}\"")), "the bridge sends {event}");
        }
    }
}
