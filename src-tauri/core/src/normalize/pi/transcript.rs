//! pi's own record of a session (`~/.pi/agent/sessions/--<cwd>--/<time>_<id>.jsonl`), read two
//! ways: the items of its last turn (`turn`) and the tokens it counts (`usage`). After a header
//! line each line is a tree entry `{type, id, parentId, timestamp}`; a `message` entry holds one
//! message `{role: user | assistant | toolResult, content: [{type: text | toolCall | …}]}`, and an
//! assistant message carries its `usage`. Every turn ends with `agent_end` (Esc and errors too),
//! so nothing here settles one.

use serde_json::Value;

use crate::turn::{item, result_text, str_of, tool_line, TurnItem, TurnPart};
use crate::usage::{number, Counted, Meter};

fn message(record: &Value) -> Option<&Value> {
    (str_of(record, "type") == Some("message")).then(|| record.get("message")).flatten()
}

fn content(message: &Value) -> impl Iterator<Item = &Value> {
    message.get("content").and_then(Value::as_array).into_iter().flatten()
}

fn texts(message: &Value) -> String {
    if let Some(text) = message.get("content").and_then(Value::as_str) {
        return text.to_owned();
    }
    content(message)
        .filter(|part| str_of(part, "type") == Some("text"))
        .filter_map(|part| str_of(part, "text"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// One record's items of a turn (`turn::last_turn`).
pub(crate) fn turn(record: &Value) -> Vec<TurnItem> {
    let Some(message) = message(record) else { return Vec::new() };
    match str_of(message, "role") {
        Some("user") => item(TurnPart::Prompt, &texts(message)).into_iter().collect(),
        Some("toolResult") => {
            item(TurnPart::Result, &result_text(message.get("content").unwrap_or(&Value::Null))).into_iter().collect()
        }
        Some("assistant") => {
            let mut found: Vec<TurnItem> = item(TurnPart::Text, &texts(message)).into_iter().collect();
            for call in content(message).filter(|part| str_of(part, "type") == Some("toolCall")) {
                let name = str_of(call, "name").unwrap_or("tool");
                found.extend(item(TurnPart::Tool, &tool_line(name, call.get("arguments").unwrap_or(&Value::Null))));
            }
            match str_of(message, "stopReason") {
                Some("aborted") => found.extend(item(TurnPart::Note, "Interrupted")),
                Some("error") => {
                    found.extend(str_of(message, "errorMessage").and_then(|text| item(TurnPart::Note, text)))
                }
                _ => {}
            }
            found
        }
        _ => Vec::new(),
    }
}

/// Counts one assistant message's tokens into `meter`; `true` when its usage changed.
pub(crate) fn usage(meter: &mut Meter, record: &Value) -> bool {
    let Some(message) = message(record).filter(|message| str_of(message, "role") == Some("assistant")) else {
        return false;
    };
    let (Some(tokens), Some(id)) = (message.get("usage"), str_of(record, "id")) else { return false };
    let counted = Counted {
        input: number(tokens, "input"),
        output: number(tokens, "output"),
        cache_read: number(tokens, "cacheRead"),
        cache_write: number(tokens, "cacheWrite"),
        ..Counted::default()
    };
    if counted.input + counted.output + counted.cache_read + counted.cache_write == 0 {
        // An aborted or failed answer is saved with no usage: not a request that counted.
        return false;
    }
    let changed = meter.count(id, counted);
    if let Some(model) = str_of(message, "model") {
        meter.model = Some(model.to_owned());
    }
    meter.context_tokens = counted.input + counted.cache_read + counted.cache_write + counted.output;
    changed
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn entry(id: &str, message: Value) -> Value {
        json!({"type": "message", "id": id, "parentId": null, "timestamp": "2026-12-03T11:00:00.000Z", "message": message})
    }

    #[test]
    fn a_turn_reads_the_prompt_the_answer_its_tools_and_their_results() {
        let prompt = entry("a", json!({"role": "user", "content": [{"type": "text", "text": "list the files"}]}));
        let answer = entry(
            "b",
            json!({"role": "assistant", "stopReason": "toolUse", "content": [
            {"type": "text", "text": "Let me look."},
            {"type": "toolCall", "id": "call_1", "name": "bash", "arguments": {"command": "ls"}}]}),
        );
        let result = entry(
            "c",
            json!({"role": "toolResult", "toolCallId": "call_1", "toolName": "bash",
            "content": [{"type": "text", "text": "a.txt\n"}], "isError": false}),
        );
        let aborted = entry("d", json!({"role": "assistant", "stopReason": "aborted", "content": []}));
        let parts = |record: &Value| turn(record).into_iter().map(|item| item.part).collect::<Vec<_>>();
        assert_eq!(parts(&prompt), [TurnPart::Prompt]);
        assert_eq!(parts(&answer), [TurnPart::Text, TurnPart::Tool]);
        assert_eq!(parts(&result), [TurnPart::Result]);
        assert_eq!(parts(&aborted), [TurnPart::Note]);
        assert!(turn(&json!({"type": "session", "version": 3, "id": "s"})).is_empty());
        assert!(turn(&json!({"type": "model_change", "id": "m"})).is_empty());
    }

    #[test]
    fn usage_counts_each_answer_once_and_a_failed_answer_not_at_all() {
        let answer = entry(
            "b",
            json!({"role": "assistant", "model": "fake-model", "stopReason": "stop",
            "content": [{"type": "text", "text": "Hi"}],
            "usage": {"input": 100, "output": 10, "cacheRead": 20, "cacheWrite": 0, "totalTokens": 130,
                      "cost": {"total": 0}}}),
        );
        let mut meter = Meter::new("pi", Some(usage));
        assert!(meter.record(&answer));
        assert!(!meter.record(&answer), "the same answer again counts nothing");
        let failed = entry(
            "e",
            json!({"role": "assistant", "stopReason": "error", "errorMessage": "500",
            "usage": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 0}}),
        );
        assert!(!meter.record(&failed));
        let counted = meter.usage(&crate::usage::Prices::builtin());
        assert_eq!((counted.input_tokens, counted.output_tokens, counted.cache_read_tokens), (100, 10, 20));
        assert_eq!((counted.context_tokens, counted.model.as_deref()), (130, Some("fake-model")));
        assert_eq!(counted.requests, 1);
    }
}
