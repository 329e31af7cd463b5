//! Copilot CLI's own record of a session (`~/.copilot/session-state/<id>/events.jsonl`), read
//! three ways: the items of its last turn (`turn`), the tokens it counts (`usage`), and the
//! records that end a turn where no hook fires (`settles`: Esc, a refused permission, a request
//! that failed for good). Each line is `{type, data, id, timestamp, parentId}`.

use serde_json::Value;

use crate::turn::{item, str_of, tool_line, TurnItem, TurnPart};
use crate::usage::{number, Counted, Meter};

fn data(record: &Value) -> &Value {
    record.get("data").unwrap_or(&Value::Null)
}

/// One record's items of a turn (`turn::last_turn`).
pub(crate) fn turn(record: &Value) -> Vec<TurnItem> {
    let data = data(record);
    match str_of(record, "type") {
        Some("user.message") => {
            str_of(data, "content").and_then(|text| item(TurnPart::Prompt, text)).into_iter().collect()
        }
        Some("assistant.message") => {
            let mut found: Vec<TurnItem> =
                str_of(data, "content").and_then(|text| item(TurnPart::Text, text)).into_iter().collect();
            for call in data.get("toolRequests").and_then(Value::as_array).into_iter().flatten() {
                let name = str_of(call, "name").unwrap_or("tool");
                found.extend(item(TurnPart::Tool, &tool_line(name, call.get("arguments").unwrap_or(&Value::Null))));
            }
            found
        }
        Some("abort") => item(TurnPart::Note, "Interrupted").into_iter().collect(),
        Some("session.error") => {
            str_of(data, "message").and_then(|text| item(TurnPart::Note, text)).into_iter().collect()
        }
        _ => Vec::new(),
    }
}

/// Counts one `session.usage_record` (written before each model answer) into `meter`.
pub(crate) fn usage(meter: &mut Meter, record: &Value) -> bool {
    if str_of(record, "type") != Some("session.usage_record") {
        return false;
    }
    let (Some(tokens), Some(id)) = (data(record).get("usage"), str_of(record, "id")) else { return false };
    let counted = Counted {
        input: number(tokens, "inputTokens"),
        output: number(tokens, "outputTokens"),
        cache_read: number(tokens, "cacheReadTokens"),
        cache_write: number(tokens, "cacheWriteTokens"),
        ..Counted::default()
    };
    let changed = meter.count(id, counted);
    if let Some(model) = str_of(tokens, "model") {
        meter.model = Some(model.to_owned());
    }
    meter.context_tokens = counted.input + counted.cache_read + counted.cache_write + counted.output;
    changed
}

/// `abort` (Esc, or a permission refused with Esc) and `session.error` (the request failed after
/// its retries) end the turn; no hook says so.
pub(crate) fn settles(record: &Value) -> bool {
    matches!(str_of(record, "type"), Some("abort" | "session.error"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_turn_usage_and_interrupts_are_read_off_its_event_log() {
        let prompt =
            json!({"type": "user.message", "data": {"content": "Say hi", "transformedContent": "<current_datetime>…"}});
        let answer_record = || {
            json!({"type": "assistant.message", "data": {"content": "On it.", "toolRequests": [
            {"toolCallId": "c1", "name": "bash", "arguments": {"command": "touch x", "description": "Create x"}}]}})
        };
        let parts = |record: &Value| turn(record).into_iter().map(|item| item.part).collect::<Vec<_>>();
        assert_eq!(parts(&prompt), [TurnPart::Prompt]);
        assert_eq!(parts(&answer_record()), [TurnPart::Text, TurnPart::Tool]);

        let record = json!({"type": "session.usage_record", "id": "u1", "data": {"usage": {"model": "gpt-4.1",
            "inputTokens": 100, "outputTokens": 10, "cacheReadTokens": 20, "cacheWriteTokens": 0}}});
        let mut meter = Meter::new("copilot", Some(usage));
        assert!(meter.record(&record) && !meter.record(&record));
        let counted = meter.usage(&crate::usage::Prices::builtin());
        assert_eq!((counted.input_tokens, counted.output_tokens, counted.cache_read_tokens), (100, 10, 20));
        assert_eq!(counted.model.as_deref(), Some("gpt-4.1"));

        assert!(settles(&json!({"type": "abort", "data": {"reason": "user_abort"}})));
        assert!(settles(&json!({"type": "session.error", "data": {"message": "400 fake error 400"}})));
        assert!(!settles(&json!({"type": "assistant.turn_end", "data": {}})));
    }
}
