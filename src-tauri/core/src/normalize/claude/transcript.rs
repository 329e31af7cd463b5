//! Claude Code's own transcript, read three ways: the items of its last turn (`turn`), the tokens it
//! counts (`usage`), and the record that ends a turn where no hook fires (`settles`).

use serde_json::Value;

use crate::turn::{item, result_text, str_of, tool_line, TurnItem, TurnPart};
use crate::usage::{number, Counted, Meter};

/// One record's items of a turn (`turn::last_turn`).
pub(crate) fn turn(record: &Value) -> Vec<TurnItem> {
    let kind = str_of(record, "type");
    if record.get("isSidechain").and_then(Value::as_bool) == Some(true)
        || record.get("isMeta").and_then(Value::as_bool) == Some(true)
    {
        return Vec::new();
    }
    let Some(content) = record.get("message").and_then(|m| m.get("content")) else { return Vec::new() };
    match (kind, content) {
        (Some("user"), Value::String(text)) => prompt_or_note(text).into_iter().collect(),
        (Some("user"), Value::Array(blocks)) => blocks
            .iter()
            .filter_map(|block| match str_of(block, "type") {
                Some("tool_result") => {
                    item(TurnPart::Result, &result_text(block.get("content").unwrap_or(&Value::Null)))
                }
                Some("text") => prompt_or_note(str_of(block, "text").unwrap_or_default()),
                _ => None,
            })
            .collect(),
        (Some("assistant"), Value::Array(blocks)) => blocks
            .iter()
            .filter_map(|block| match str_of(block, "type") {
                Some("text") => item(TurnPart::Text, str_of(block, "text").unwrap_or_default()),
                Some("tool_use") => {
                    let name = str_of(block, "name").unwrap_or("tool");
                    item(TurnPart::Tool, &tool_line(name, block.get("input").unwrap_or(&Value::Null)))
                }
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    }
}

/// A user's text: a prompt, or — Claude's own bracketed notes, commands' wrappers — a note.
fn prompt_or_note(text: &str) -> Option<TurnItem> {
    let trimmed = text.trim_start();
    if trimmed.starts_with("[Request interrupted") {
        item(TurnPart::Note, trimmed)
    } else if trimmed.starts_with('<') {
        // `<command-name>`, `<local-command-stdout>`, `<task-notification>`: not what the user typed.
        None
    } else {
        item(TurnPart::Prompt, text)
    }
}

/// Counts one record's tokens into `meter`; `true` when its usage changed.
pub(crate) fn usage(meter: &mut Meter, record: &Value) -> bool {
    if record.get("type").and_then(Value::as_str) != Some("assistant") {
        return false;
    }
    let Some(message) = record.get("message") else { return false };
    let (Some(usage), Some(id)) = (message.get("usage"), message.get("id").and_then(Value::as_str)) else {
        return false;
    };
    let model = message.get("model").and_then(Value::as_str);
    // Claude Code's own notes (errors, interruptions) are not model responses.
    if model == Some("<synthetic>") {
        return false;
    }
    let counted = Counted {
        input: number(usage, "input_tokens"),
        output: number(usage, "output_tokens"),
        cache_read: number(usage, "cache_read_input_tokens"),
        cache_write: number(usage, "cache_creation_input_tokens"),
        ..Counted::default()
    };
    let sidechain = record.get("isSidechain").and_then(Value::as_bool).unwrap_or(false);
    let changed = meter.count(id, counted);
    if !sidechain {
        if let Some(model) = model {
            meter.model = Some(model.to_owned());
        }
        meter.context_tokens = counted.input + counted.cache_read + counted.cache_write + counted.output;
    }
    changed
}

/// Whether the record ends the turn where no hook fires (docs/model.md §8).
pub(crate) fn settles(record: &Value) -> bool {
    const MARK: &str = "[Request interrupted by user";
    if record.get("type").and_then(Value::as_str) != Some("user") {
        return false;
    }
    match record.pointer("/message/content") {
        Some(Value::String(text)) => text.starts_with(MARK),
        Some(Value::Array(items)) => items.iter().any(|item| {
            item.get("type").and_then(Value::as_str) == Some("text")
                && item.get("text").and_then(Value::as_str).is_some_and(|text| text.starts_with(MARK))
        }),
        _ => false,
    }
}
