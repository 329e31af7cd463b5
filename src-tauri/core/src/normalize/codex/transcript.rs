//! Codex's own transcript, read three ways: the items of its last turn (`turn`), the tokens it
//! counts (`usage`), and the record that ends a turn where no hook fires (`settles`).

use serde_json::Value;

use crate::turn::{item, result_text, str_of, tool_line, TurnItem, TurnPart};
use crate::usage::{number, Counted, Meter};

/// One record's items of a turn (`turn::last_turn`).
pub(crate) fn turn(record: &Value) -> Vec<TurnItem> {
    if str_of(record, "type") != Some("response_item") {
        return Vec::new();
    }
    let Some(payload) = record.get("payload") else { return Vec::new() };
    match str_of(payload, "type") {
        Some("message") => {
            let text = result_text(payload.get("content").unwrap_or(&Value::Null));
            match str_of(payload, "role") {
                // The context Codex injects (`<environment_context>`, instructions) is no prompt.
                Some("user") if !text.trim_start().starts_with('<') => {
                    item(TurnPart::Prompt, &text).into_iter().collect()
                }
                Some("assistant") => item(TurnPart::Text, &text).into_iter().collect(),
                _ => Vec::new(),
            }
        }
        Some("function_call" | "custom_tool_call" | "local_shell_call") => {
            let name = str_of(payload, "name").unwrap_or("shell");
            let input = payload.get("arguments").or_else(|| payload.get("input")).or_else(|| payload.get("action"));
            item(TurnPart::Tool, &tool_line(name, input.unwrap_or(&Value::Null))).into_iter().collect()
        }
        Some("function_call_output" | "custom_tool_call_output") => {
            item(TurnPart::Result, &result_text(payload.get("output").unwrap_or(&Value::Null))).into_iter().collect()
        }
        _ => Vec::new(),
    }
}

/// Counts one record's tokens into `meter`; `true` when its usage changed.
pub(crate) fn usage(meter: &mut Meter, record: &Value) -> bool {
    let Some(payload) = record.get("payload") else { return false };
    match record.get("type").and_then(Value::as_str) {
        Some("turn_context") => {
            let model = payload.get("model").and_then(Value::as_str).map(str::to_owned);
            let changed = model.is_some() && model != meter.model;
            if model.is_some() {
                meter.model = model;
            }
            changed
        }
        Some("event_msg") if payload.get("type").and_then(Value::as_str) == Some("token_count") => {
            let Some(info) = payload.get("info").filter(|info| info.is_object()) else { return false };
            let Some(total) = info.get("total_token_usage") else { return false };
            let input = number(total, "input_tokens");
            let cached = number(total, "cached_input_tokens").min(input);
            let totals = Counted {
                input: input - cached,
                output: number(total, "output_tokens"),
                cache_read: cached,
                cache_write: 0,
                ..Counted::default()
            };
            let context = info
                .get("last_token_usage")
                .map(|last| number(last, "input_tokens") + number(last, "output_tokens"))
                .unwrap_or(meter.context_tokens);
            let window = info.get("model_context_window").and_then(Value::as_u64).or(meter.context_window);
            let changed = totals != meter.totals || context != meter.context_tokens || window != meter.context_window;
            if totals != meter.totals {
                meter.requests += 1;
            }
            meter.totals = totals;
            meter.context_tokens = context;
            meter.context_window = window;
            changed
        }
        _ => false,
    }
}

/// Whether the record ends the turn where no hook fires (docs/model.md §8).
pub(crate) fn settles(record: &Value) -> bool {
    record.get("type").and_then(Value::as_str) == Some("event_msg")
        && record.pointer("/payload/type").and_then(Value::as_str) == Some("turn_aborted")
}
