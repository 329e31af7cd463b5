//! `custom` (`/hook/custom`): Switchboard's own canonical event, for scripts and tools that have
//! no normalizer of their own (docs/model.md §1.4).

use crate::json::{Map, Value};

use crate::agent::row::{Agent, Typing};
use crate::status::{AgentStatus, Cue, Lifecycle, Millis, SessionKind, StatusEvent};

/// Scripts and tools that speak Switchboard's own event (docs/model.md §1.4): not installed,
/// not decided.
pub static AGENT: Agent = Agent {
    id: "custom",
    name: "Custom",
    short_name: "Custom",
    letter: '?',
    normalize: normalize_custom,
    why_not_decided: Some("a custom agent has no permission hook"),
    typing: Typing { prompts: &[">"], enter_after_ms: 50, pasted: None, options_by_digit: true },
    ..Agent::BASE
};

pub fn normalize_custom(raw: &Value, now: Millis) -> Option<StatusEvent> {
    let body = raw.as_object()?;
    let session_id = body.get("sessionId")?.as_str().filter(|id| !id.is_empty() && id.len() <= super::MAX_ID_LEN)?;
    let status = optional(body, "status", |v| v.as_str().and_then(AgentStatus::parse))?;
    let question = optional(body, "question", string)?;
    let lifecycle = optional(body, "lifecycle", |v| match v.as_str()? {
        "start" => Some(Lifecycle::Start),
        "end" => Some(Lifecycle::End),
        _ => None,
    })?;
    // A question is an open question to the user: without an explicit status it means waiting.
    let status = status.or(question.as_ref().map(|_| AgentStatus::Waiting));
    Some(StatusEvent {
        agent: optional(body, "agent", string)?
            .filter(|a| !a.is_empty() && a.len() <= 64)
            .unwrap_or_else(|| "custom".into()),
        session_id: session_id.to_owned(),
        status,
        kind: optional(body, "kind", |v| v.as_str().and_then(SessionKind::parse))?.unwrap_or_default(),
        tool: optional(body, "tool", string)?,
        cwd: optional(body, "cwd", string)?,
        title: optional(body, "title", string)?,
        message: optional(body, "message", string)?,
        awaiting_input: question.is_some(),
        question,
        lifecycle,
        interrupted: optional(body, "interrupted", Value::as_bool)?.unwrap_or(false),
        errored: optional(body, "errored", Value::as_bool)?.unwrap_or(false),
        // A script states its status outright: there are no parallel hooks to hold off, so a
        // custom `working` is treated as the start of a turn.
        cue: if status == Some(AgentStatus::Working) { Cue::NewTurn } else { Cue::Plain },
        ts: now,
        ..StatusEvent::default()
    })
}

fn string(value: &Value) -> Option<String> {
    value.as_str().map(str::to_owned)
}

/// `Some(None)` when the field is absent or null, `Some(Some(v))` when it parses, and `None`
/// (drop the event) when it is present with the wrong type or value.
fn optional<'a, T>(body: &Map<'a>, key: &str, parse: impl Fn(&Value<'a>) -> Option<T>) -> Option<Option<T>> {
    match body.get(key) {
        None | Some(Value::Null) => Some(None),
        Some(value) => parse(value).map(Some),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    /// The normalizer on a test's `serde_json` value (the server reads bodies with `crate::json`).
    fn normalize_custom(raw: &Value, now: Millis) -> Option<StatusEvent> {
        super::normalize_custom(&raw.into(), now)
    }

    use serde_json::json;

    const NOW: Millis = 42;

    #[test]
    fn a_minimal_body_needs_only_a_session_id() {
        let event = normalize_custom(&json!({"sessionId": "job-1"}), NOW).unwrap();
        assert_eq!(event.session_id, "job-1");
        assert_eq!(event.agent, "custom");
        assert_eq!(event.status, None);
        assert_eq!(event.kind, SessionKind::Session);
        assert_eq!(event.ts, NOW);
    }

    #[test]
    fn every_documented_field_is_read() {
        let raw = json!({
            "sessionId": "nightly", "status": "done", "agent": "cron", "kind": "recurring",
            "tool": "make", "cwd": "/srv/app", "title": "Nightly build", "message": "green",
            "interrupted": false, "errored": true, "lifecycle": "start", "extra": [1, 2]
        });
        let event = normalize_custom(&raw, NOW).unwrap();
        assert_eq!(event.status, Some(AgentStatus::Done));
        assert_eq!(event.agent, "cron");
        assert_eq!(event.kind, SessionKind::Recurring);
        assert_eq!(event.tool.as_deref(), Some("make"));
        assert_eq!(event.cwd.as_deref(), Some("/srv/app"));
        assert_eq!(event.title.as_deref(), Some("Nightly build"));
        assert_eq!(event.message.as_deref(), Some("green"));
        assert!(event.errored && !event.interrupted);
        assert_eq!(event.lifecycle, Some(Lifecycle::Start));
    }

    #[test]
    fn a_question_implies_awaiting_input_and_waiting() {
        let event = normalize_custom(&json!({"sessionId": "s", "question": "Deploy?"}), NOW).unwrap();
        assert!(event.awaiting_input);
        assert_eq!(event.question.as_deref(), Some("Deploy?"));
        assert_eq!(event.status, Some(AgentStatus::Waiting));
    }

    #[test]
    fn a_wrong_type_drops_the_event() {
        let bad = [
            json!({"sessionId": ""}),
            json!({"sessionId": 3}),
            json!({"session_id": "snake"}),
            json!({"sessionId": "s", "status": "sleeping"}),
            json!({"sessionId": "s", "status": 1}),
            json!({"sessionId": "s", "kind": "daemon"}),
            json!({"sessionId": "s", "interrupted": "yes"}),
            json!({"sessionId": "s", "lifecycle": "compact"}),
            json!({"sessionId": "s", "message": {"text": "hi"}}),
            json!({"sessionId": "s", "question": 5}),
            json!("s"),
        ];
        for raw in bad {
            assert_eq!(normalize_custom(&raw, NOW), None, "{raw}");
        }
    }

    #[test]
    fn a_custom_working_starts_a_turn() {
        let event = normalize_custom(&json!({"sessionId": "s", "status": "working"}), NOW).unwrap();
        assert_eq!(event.cue, Cue::NewTurn);
    }
}
