//! GitHub Copilot CLI (`/hook/copilot`), as Copilot CLI 1.0.102 sends it (docs/model.md §1.6,
//! checked by `tests/real_cli/copilot.py`).
//!
//! Its camelCase hooks send camelCase payloads that do not name their event (`sessionId`,
//! `toolName`, `toolArgs`, …): the installer's hook entry sets `SWITCHBOARD_HOOK_EVENT`, and the
//! forwarder adds it as `hook_event_name`. This module renames the rest to the shared shape and
//! reads it. `sessionStart` fires with the first prompt, not at launch; no hook reports Esc or the
//! final failure of a request (`errorOccurred` fires per attempt, always "recoverable").

use crate::json::{Map, Value};

mod transcript;

use super::{lifecycle, one_line, Hook};
use crate::agent::row::{Agent, ArrowForm, DecisionReply, Start, Transcript, Typing};
use crate::agent::setup::{DirVar, Layout, Setup};
use crate::status::{AgentStatus, Cue, Lifecycle, Millis, SessionKind, StatusEvent};

const AGENT_ID: &str = "copilot";
/// Its question tool: a message and a schema of choices.
const ASK_USER: &str = "ask_user";

/// What a done card says: the answer itself is in the terminal and in the panel's last turn.
const FINISHED: &str = "Finished its turn";

/// Events that say nothing about whether the agent needs the user.
pub const IGNORED: &[&str] =
    &["preMcpToolCall", "userPromptTransformed", "postResult", "prePRDescription", "preCompact"];

/// The events the installer registers for: exactly those this normalizer reads.
pub const HOOK_EVENTS: &[&str] = &[
    "sessionStart",
    "sessionEnd",
    "userPromptSubmitted",
    "preToolUse",
    "postToolUse",
    "postToolUseFailure",
    "permissionRequest",
    "notification",
    "agentStop",
    "errorOccurred",
    "subagentStart",
    "subagentStop",
];

/// GitHub Copilot CLI, as Switchboard knows it.
pub static AGENT: Agent = Agent {
    id: AGENT_ID,
    name: "Copilot CLI",
    short_name: "Copilot",
    letter: 'P',
    held_note: Some("its own dialog appears only if the board does not answer"),
    start: Some(Start { program: "copilot", prompt_flag: Some("-i") }),
    normalize: normalize_copilot,
    ignored: IGNORED,
    hook_events: HOOK_EVENTS,
    // It takes `{"behavior": "allow" | "deny", "message"}` from its permissionRequest hook before
    // it draws a dialog (checked by the real-CLI harness).
    decision_event: Some("permissionRequest"),
    decision_reply: DecisionReply::Flat,
    resume: Some("copilot --resume {id}"),
    transcript: Transcript { turn: transcript::turn, usage: transcript::usage, settles: transcript::settles },
    // Its ask_user form picks with ↑/↓ from wherever its cursor is, not by number (a typed `2`
    // does nothing): the board reads the cursor off the form and moves it (checked on 1.0.102,
    // `tests/fixtures/screens/copilot-cli-1.0.102/`).
    typing: Typing { prompts: &["❯", ">"], enter_after_ms: 150, pasted: Some("[Paste"), options_by_digit: false },
    arrow_form: Some(ArrowForm { hints: "↑/↓ select · enter accept", cursor: "❯" }),
    setup: Some(Setup {
        dir: ".copilot",
        dir_var: Some(DirVar::Folder("COPILOT_HOME")),
        // A file of its hooks folder that is Switchboard's own (`config.json` is the CLI's, and
        // it rewrites it).
        file: "hooks/switchboard.json",
        program: "copilot",
        install_hint: "npm install -g @github/copilot",
        // Its matcher is a regex anchored on the tool's name: "*" is invalid, none matches all.
        every_tool: &[],
        layout: Layout::Flat { version: 1 },
        command_key: "bash",
        timeout_key: "timeoutSec",
        event_env: Some("SWITCHBOARD_HOOK_EVENT"),
        // Only agentStop names it, and an Esc before the first one must still be seen there.
        transcript_in: Some("session-state/{id}/events.jsonl"),
        // `disableAllHooks` lives in its settings.json, not in this file.
        all_off: None,
        next_step: "new Copilot CLI sessions report to Switchboard (from their first prompt); restart the ones \
                    already running",
        ..Setup::BASE
    }),
    ..Agent::BASE
};

/// Its camelCase payload in the shared snake_case shape (the event's name was added by the
/// forwarder); the question tool's choices as a question with options.
fn shared_shape<'a>(raw: &Value<'a>) -> Option<Value<'a>> {
    let fields = raw.as_object()?;
    let mut shaped = Map::new();
    for (key, value) in fields {
        let key = match key {
            // A subagent's own events carry its id as `sessionId`: they belong to the parent's.
            "sessionId" if fields.contains_key("parentAgentId") => continue,
            "parentAgentId" => "session_id",
            "agentId" => "agent_id",
            "sessionId" => "session_id",
            "toolName" => "tool_name",
            "toolArgs" | "toolInput" => "tool_input",
            "transcriptPath" => "transcript_path",
            other => other,
        };
        // toolArgs (the full input) wins over permissionRequest's shorter toolInput.
        if key == "tool_input" && shaped.contains_key(key) && fields.contains_key("toolArgs") {
            continue;
        }
        shaped.insert(key.to_owned(), value.clone());
    }
    if let Some(args) =
        shaped.get("tool_input").filter(|_| fields.get("toolName").and_then(Value::as_str) == Some(ASK_USER))
    {
        shaped.insert("tool_input", question_input(args));
    }
    Some(Value::Object(shaped))
}

/// `ask_user`'s `{message, requestedSchema: {properties: {<field>: {enum | oneOf}}}}` as the shared
/// `{questions: [{question, options: [{label}]}]}`.
fn question_input(args: &Value) -> Value<'static> {
    let question = args.get("message").or_else(|| args.get("question")).and_then(Value::as_str).unwrap_or_default();
    // A field's choices: `enum` (with `enumNames`), `oneOf: [{const, title}]`, or the same in
    // `items` for a list.
    let labels = |field: &Value| -> Option<Vec<String>> {
        let field = field.get("items").unwrap_or(field);
        if let Some(values) = field.get("enum").and_then(Value::as_array) {
            let names = field.get("enumNames").and_then(Value::as_array);
            let name = |n: usize, value: &Value| {
                names.and_then(|names| names.get(n)).unwrap_or(value).as_str().map(str::to_owned)
            };
            return Some(values.iter().enumerate().filter_map(|(n, value)| name(n, value)).collect());
        }
        let choices = field.get("oneOf").or_else(|| field.get("anyOf"))?.as_array()?;
        let title = |choice: &Value| choice.get("title").or_else(|| choice.get("const"))?.as_str().map(str::to_owned);
        Some(choices.iter().filter_map(title).collect())
    };
    let properties = args.pointer("/requestedSchema/properties").and_then(Value::as_object);
    let choices = properties.and_then(|properties| properties.values().find_map(labels));
    let object = |entries: Vec<(&'static str, Value<'static>)>| {
        let mut map = Map::new();
        for (key, value) in entries {
            map.insert(key, value);
        }
        Value::Object(map)
    };
    let options =
        choices.unwrap_or_default().into_iter().map(|label| object(vec![("label", Value::String(label.into()))]));
    let asked = object(vec![
        ("question", Value::String(question.to_owned().into())),
        ("options", Value::Array(options.collect())),
    ]);
    object(vec![("questions", Value::Array(vec![asked]))])
}

pub fn normalize_copilot(raw: &Value, now: Millis) -> Option<StatusEvent> {
    let shaped = shared_shape(raw)?;
    let hook = Hook::parse(&shaped)?;
    let base = hook.event(AGENT_ID, now);
    let status = |status| StatusEvent { status: Some(status), ..hook.event(AGENT_ID, now) };
    let event = match hook.event_name {
        "userPromptSubmitted" => StatusEvent {
            cue: Cue::NewTurn,
            prompt: hook.str("prompt").map(str::to_owned),
            ..status(AgentStatus::Working)
        },
        "preToolUse" if hook.tool_name() == Some(ASK_USER) => StatusEvent {
            awaiting_input: true,
            question: hook.first_question(),
            questions: hook.questions(),
            ..status(AgentStatus::Waiting)
        },
        "preToolUse" | "postToolUse" | "postToolUseFailure" => status(AgentStatus::Working),
        "permissionRequest" => StatusEvent {
            message: hook.tool_input_summary(),
            command: hook.tool_input_text(),
            edit: super::edit::of_tool_input(hook.str("tool_name"), hook.fields.get("tool_input")),
            ..status(AgentStatus::Blocked)
        },
        "notification" | "Notification" => notification(&hook, base)?,
        // Its hook does not carry the answer, and its event log has it only after the hook ran:
        // a plain word, so the card does not keep the turn's earlier text.
        "agentStop" => StatusEvent { message: Some(FINISHED.to_owned()), ..status(AgentStatus::Done) },
        // Fires for each failed attempt, all "recoverable": the turn is done and errored unless
        // a later event of the retry says otherwise.
        "errorOccurred" => {
            StatusEvent { errored: true, message: Some(failure_text(&hook)), ..status(AgentStatus::Done) }
        }
        "subagentStart" => StatusEvent { cue: Cue::SubagentStart, ..subagent(&hook, status(AgentStatus::Working)) },
        "subagentStop" => subagent(&hook, status(AgentStatus::Done)),
        "sessionStart" => lifecycle(&hook, AGENT_ID, now, Lifecycle::Start),
        "sessionEnd" => lifecycle(&hook, AGENT_ID, now, Lifecycle::End),
        _ => return None,
    };
    Some(hook.with_agent_id(event))
}

/// `notification` by its `notification_type`; background work and idle notices give no event.
fn notification(hook: &Hook, base: StatusEvent) -> Option<StatusEvent> {
    let message = hook.str("message").map(one_line);
    let (status, cue) = match hook.str("notification_type")? {
        "permission_prompt" => (AgentStatus::Blocked, Cue::PermissionNotice),
        "elicitation_dialog" => (AgentStatus::Waiting, Cue::Plain),
        _ => return None,
    };
    Some(StatusEvent { status: Some(status), cue, message, awaiting_input: status == AgentStatus::Waiting, ..base })
}

fn failure_text(hook: &Hook) -> String {
    super::request_failed(hook.fields.get("error").and_then(|error| error.get("message")).and_then(Value::as_str))
}

fn subagent(hook: &Hook, event: StatusEvent) -> StatusEvent {
    StatusEvent { kind: SessionKind::Subagent, subagent_id: hook.string("agent_id"), ..event }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use serde_json::Value;

    /// The normalizer on a test's `serde_json` value (the server reads bodies with `crate::json`).
    fn normalize_copilot(raw: &Value, now: Millis) -> Option<StatusEvent> {
        super::normalize_copilot(&raw.into(), now)
    }

    const NOW: Millis = 1_750_000_000_000;

    fn copilot(event: &str, extra: Value) -> Option<StatusEvent> {
        let mut raw = json!({"sessionId": "0f3c-copilot", "timestamp": 1_750_000_000_000u64, "cwd": "/w/app",
                             "hook_event_name": event});
        raw.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
        normalize_copilot(&raw, NOW)
    }

    #[test]
    fn a_prompt_starts_a_turn_and_agent_stop_ends_it() {
        let turn = copilot("userPromptSubmitted", json!({"prompt": "fix it"})).unwrap();
        assert_eq!(
            (turn.status, turn.cue, turn.session_id.as_str()),
            (Some(AgentStatus::Working), Cue::NewTurn, "0f3c-copilot")
        );
        assert_eq!(turn.cwd.as_deref(), Some("/w/app"));
        let done = copilot(
            "agentStop",
            json!({"transcriptPath": "/h/.copilot/session-state/0f3c/events.jsonl", "stopReason": "end_turn"}),
        )
        .unwrap();
        assert_eq!((done.status, done.message.as_deref()), (Some(AgentStatus::Done), Some(FINISHED)));
        assert_eq!(done.transcript_path.as_deref(), Some("/h/.copilot/session-state/0f3c/events.jsonl"));
    }

    #[test]
    fn a_permission_is_blocked_with_the_command_and_decided_in_the_flat_shape() {
        let held = copilot(
            "permissionRequest",
            json!({"hookName": "permissionRequest", "toolName": "bash",
            "toolInput": {"command": "touch x"}, "permissionSuggestions": []}),
        )
        .unwrap();
        assert_eq!((held.status, held.command.as_deref()), (Some(AgentStatus::Blocked), Some("touch x")));
        assert_eq!((AGENT.decision_event, AGENT.decision_reply), (Some("permissionRequest"), DecisionReply::Flat));
        let notice = copilot(
            "Notification",
            json!({"notification_type": "permission_prompt", "message": "Run command: touch x"}),
        )
        .unwrap();
        assert_eq!((notice.status, notice.cue), (Some(AgentStatus::Blocked), Cue::PermissionNotice));
        assert!(copilot("notification", json!({"notification_type": "agent_idle"})).is_none());
    }

    #[test]
    fn ask_user_is_a_question_with_its_choices() {
        let asked = copilot("preToolUse", json!({"toolName": "ask_user", "toolArgs": {"message": "Which database?",
            "requestedSchema": {"type": "object", "properties": {"choice": {"type": "string", "enum": ["PostgreSQL", "SQLite"]}}}}})).unwrap();
        assert_eq!((asked.status, asked.awaiting_input), (Some(AgentStatus::Waiting), true));
        assert_eq!(asked.question.as_deref(), Some("Which database?"));
        let labels: Vec<_> = asked.questions[0].options.iter().map(|o| o.label.as_str()).collect();
        assert_eq!(labels, ["PostgreSQL", "SQLite"]);
        let tool = copilot("preToolUse", json!({"toolName": "bash", "toolArgs": {"command": "ls"}})).unwrap();
        assert_eq!((tool.status, tool.tool.as_deref()), (Some(AgentStatus::Working), Some("bash")));
    }

    #[test]
    fn a_failed_attempt_is_an_errored_done_and_sessions_start_and_end() {
        let failed = copilot(
            "errorOccurred",
            json!({"errorContext": "model_call", "recoverable": true,
            "error": {"message": "500 Internal error", "name": "Error"}}),
        )
        .unwrap();
        assert!(failed.errored && failed.status == Some(AgentStatus::Done));
        assert_eq!(failed.message.as_deref(), Some("The request failed: 500 Internal error"));
        assert_eq!(copilot("sessionStart", json!({"source": "new"})).unwrap().lifecycle, Some(Lifecycle::Start));
        assert_eq!(copilot("sessionEnd", json!({"reason": "user_exit"})).unwrap().lifecycle, Some(Lifecycle::End));
        for event in IGNORED {
            assert!(copilot(event, json!({})).is_none(), "{event}");
        }
        assert!(normalize_copilot(&json!({"sessionId": "s", "prompt": "no event name"}), NOW).is_none());
    }

    #[test]
    fn a_subagents_own_events_belong_to_its_parent_session() {
        let inner = json!({"sessionId": "c478-sub", "agentId": "c478-sub", "agentType": "explore", "parentAgentId": "0f3c-copilot"});
        let stop = copilot("agentStop", inner.clone()).unwrap();
        assert_eq!(
            (stop.session_id.as_str(), stop.kind, stop.subagent_id.as_deref()),
            ("0f3c-copilot", SessionKind::Subagent, Some("c478-sub"))
        );
        let started = copilot(
            "subagentStart",
            json!({"agentName": "explore", "agentId": "c478-sub", "parentAgentId": "0f3c-copilot"}),
        )
        .unwrap();
        assert_eq!((started.session_id.as_str(), started.kind), ("0f3c-copilot", SessionKind::Subagent));
        assert_eq!(started.status, Some(AgentStatus::Working));
    }

    #[test]
    fn ask_user_choices_may_be_titled() {
        let asked = copilot("preToolUse", json!({"toolName": "ask_user", "toolArgs": {"message": "Pick a size",
            "requestedSchema": {"properties": {"size": {"type": "string", "oneOf": [{"const": "s", "title": "Small"}, {"const": "l", "title": "Large"}]}}}}})).unwrap();
        let labels: Vec<_> = asked.questions[0].options.iter().map(|o| o.label.as_str()).collect();
        assert_eq!(labels, ["Small", "Large"]);
    }
}
