//! Qwen Code's own transcript (`~/.qwen/projects/<slug>/chats/<session>.jsonl`), read two ways:
//! the items of its last turn (`turn`) and the tokens it counts (`usage`). Each line is a record
//! `{uuid, type: user | assistant | tool_result | system, message: {role, parts}}` in Gemini's
//! parts shape; an assistant record carries `usageMetadata`. Esc leaves no record (the idle
//! notice settles that turn), so nothing here settles one.

use serde_json::Value;

use crate::turn::{item, result_text, str_of, tool_line, TurnItem, TurnPart};
use crate::usage::{number, Counted, Meter};

fn parts(record: &Value) -> impl Iterator<Item = &Value> {
    record.pointer("/message/parts").and_then(Value::as_array).into_iter().flatten()
}

fn texts(record: &Value) -> String {
    parts(record).filter_map(|part| str_of(part, "text")).collect::<Vec<_>>().join("\n")
}

/// One record's items of a turn (`turn::last_turn`).
pub(crate) fn turn(record: &Value) -> Vec<TurnItem> {
    match str_of(record, "type") {
        Some("user") => item(TurnPart::Prompt, &texts(record)).into_iter().collect(),
        Some("tool_result") => parts(record)
            .filter_map(|part| part.get("functionResponse"))
            .filter_map(|response| {
                item(TurnPart::Result, &result_text(response.get("response").unwrap_or(&Value::Null)))
            })
            .collect(),
        Some("assistant") => {
            let mut found: Vec<TurnItem> = item(TurnPart::Text, &texts(record)).into_iter().collect();
            for call in parts(record).filter_map(|part| part.get("functionCall")) {
                let name = str_of(call, "name").unwrap_or("tool");
                found.extend(item(TurnPart::Tool, &tool_line(name, call.get("args").unwrap_or(&Value::Null))));
            }
            found
        }
        _ => Vec::new(),
    }
}

/// Counts one assistant record's tokens into `meter`; `true` when its usage changed.
pub(crate) fn usage(meter: &mut Meter, record: &Value) -> bool {
    if str_of(record, "type") != Some("assistant") {
        return false;
    }
    let (Some(tokens), Some(id)) = (record.get("usageMetadata"), str_of(record, "uuid")) else { return false };
    let input = number(tokens, "promptTokenCount");
    let cached = number(tokens, "cachedContentTokenCount").min(input);
    let counted = Counted {
        input: input - cached,
        output: number(tokens, "candidatesTokenCount") + number(tokens, "thoughtsTokenCount"),
        cache_read: cached,
        cache_write: 0,
        ..Counted::default()
    };
    let changed = meter.count(id, counted);
    if let Some(model) = str_of(record, "model") {
        meter.model = Some(model.to_owned());
    }
    meter.context_tokens = input + counted.output;
    changed
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_turn_reads_the_prompt_the_answer_its_tools_and_their_results() {
        let prompt = json!({"type": "user", "message": {"role": "user", "parts": [{"text": "list the files"}]}});
        let answer = json!({"type": "assistant", "message": {"role": "model", "parts": [
            {"text": "Let me look."}, {"functionCall": {"id": "c1", "name": "glob", "args": {"pattern": "*"}}}]}});
        let result = json!({"type": "tool_result", "message": {"role": "user", "parts": [
            {"functionResponse": {"id": "c1", "name": "glob", "response": {"output": "Found 1 file(s)"}}}]}});
        let system = json!({"type": "system", "subtype": "ui_telemetry"});
        let parts = |record: &Value| turn(record).into_iter().map(|item| item.part).collect::<Vec<_>>();
        assert_eq!(parts(&prompt), [TurnPart::Prompt]);
        assert_eq!(parts(&answer), [TurnPart::Text, TurnPart::Tool]);
        assert_eq!(parts(&result), [TurnPart::Result]);
        assert!(turn(&system).is_empty());
    }

    #[test]
    fn usage_counts_each_answer_once_with_its_cached_tokens_apart() {
        let record = json!({"uuid": "u1", "type": "assistant", "model": "qwen3-coder-plus",
            "message": {"role": "model", "parts": [{"text": "Hi there!"}]},
            "usageMetadata": {"promptTokenCount": 1234, "candidatesTokenCount": 5, "thoughtsTokenCount": 2,
                              "totalTokenCount": 1241, "cachedContentTokenCount": 1000}});
        let mut meter = Meter::new("qwen", Some(usage));
        assert!(meter.record(&record));
        assert!(!meter.record(&record), "the same answer again counts nothing");
        let counted = meter.usage(&crate::usage::Prices::builtin());
        assert_eq!((counted.input_tokens, counted.output_tokens, counted.cache_read_tokens), (234, 7, 1000));
        assert_eq!((counted.context_tokens, counted.model.as_deref()), (1241, Some("qwen3-coder-plus")));
        assert!(!meter.record(&json!({"type": "assistant", "uuid": "u2"})), "a cancelled partial answer has no usage");
    }
}
