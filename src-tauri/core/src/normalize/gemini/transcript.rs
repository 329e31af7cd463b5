//! Gemini CLI's own transcript, read three ways: the items of its last turn (`turn`), the tokens it
//! counts (`usage`), and the record that ends a turn where no hook fires (`settles`).

use serde_json::Value;

use crate::turn::{item, result_text, str_of, tool_line, TurnItem, TurnPart};
use crate::usage::{number, Counted, Meter};

/// One record's items of a turn (`turn::last_turn`).
pub(crate) fn turn(record: &Value) -> Vec<TurnItem> {
    match str_of(record, "type") {
        Some("user") => match record.get("content") {
            Some(Value::String(text)) => item(TurnPart::Prompt, text).into_iter().collect(),
            Some(Value::Array(parts)) => {
                let responses: Vec<TurnItem> = parts
                    .iter()
                    .filter_map(|part| part.get("functionResponse"))
                    .filter_map(|response| {
                        item(TurnPart::Result, &result_text(response.get("response").unwrap_or(&Value::Null)))
                    })
                    .collect();
                if !responses.is_empty() {
                    return responses;
                }
                let text = parts.iter().filter_map(|part| str_of(part, "text")).collect::<Vec<_>>().join("\n");
                item(TurnPart::Prompt, &text).into_iter().collect()
            }
            _ => Vec::new(),
        },
        Some("gemini") => {
            let mut found: Vec<TurnItem> = record
                .get("content")
                .map(result_text)
                .and_then(|text| item(TurnPart::Text, &text))
                .into_iter()
                .collect();
            for call in record.get("toolCalls").and_then(Value::as_array).into_iter().flatten() {
                let name = str_of(call, "name").unwrap_or("tool");
                found.extend(item(TurnPart::Tool, &tool_line(name, call.get("args").unwrap_or(&Value::Null))));
            }
            found
        }
        Some("info" | "error" | "warning") => {
            record.get("content").map(result_text).and_then(|text| item(TurnPart::Note, &text)).into_iter().collect()
        }
        _ => Vec::new(),
    }
}

/// Counts one record's tokens into `meter`; `true` when its usage changed.
pub(crate) fn usage(meter: &mut Meter, record: &Value) -> bool {
    if record.get("type").and_then(Value::as_str) != Some("gemini") {
        return false;
    }
    let (Some(tokens), Some(id)) = (record.get("tokens"), record.get("id").and_then(Value::as_str)) else {
        return false;
    };
    let input = number(tokens, "input");
    let cached = number(tokens, "cached").min(input);
    let counted = Counted {
        input: input - cached,
        output: number(tokens, "output") + number(tokens, "thoughts"),
        cache_read: cached,
        cache_write: 0,
        ..Counted::default()
    };
    let changed = meter.count(id, counted);
    if let Some(model) = record.get("model").and_then(Value::as_str) {
        meter.model = Some(model.to_owned());
    }
    meter.context_tokens = input + counted.output;
    changed
}

/// Whether the record ends the turn where no hook fires (docs/model.md §8).
pub(crate) fn settles(record: &Value) -> bool {
    record.get("type").and_then(Value::as_str) == Some("info")
        && record.get("content").and_then(Value::as_str) == Some("Request cancelled.")
}
