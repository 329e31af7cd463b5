//! A session's last turn as its transcript tells it (issue 24, "Read"): the prompt, then what
//! the agent said, the tools it called and what they returned, each clipped — whatever terminal
//! it runs in. Pure: the engine reads the transcript's tail and hands the records here.
//!
//! Each CLI reads its own records (its row's `transcript.turn`, in `normalize/<cli>/transcript.rs`):
//! - **Claude Code**: `user` records (a prompt: text; a tool's result: `tool_result` blocks) and
//!   `assistant` records (`text` and `tool_use` blocks); a subagent's (`isSidechain`) are left out.
//! - **Codex**: `response_item` records: `message` (role `user`: a prompt, unless it is the
//!   context Codex injects, which starts with `<`; role `assistant`: its text),
//!   `function_call` / `custom_tool_call` and their `…_output`.
//! - **Gemini CLI**: `user` messages (text: a prompt; `functionResponse`: a tool's result) and
//!   `gemini` messages (`content`, `toolCalls`); `info` / `error` messages as notes.

use serde::Serialize;
use serde_json::Value;

/// What one part of the turn is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub enum TurnPart {
    Prompt,
    /// What the agent said.
    Text,
    /// A tool it called, with what it was asked to do.
    Tool,
    /// What a tool returned.
    Result,
    /// What the CLI noted (an interrupt, an error).
    Note,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct TurnItem {
    pub part: TurnPart,
    pub text: String,
}

/// The longest text kept per item (characters).
pub const MAX_ITEM_TEXT: usize = 600;
/// Items kept: the prompt and the last ones after it.
pub const MAX_ITEMS: usize = 40;

/// The last turn in `records` (a transcript's, in order), each record read by its CLI's `items`
/// (`agent::last_turn` picks them): from its last prompt on.
pub fn last_turn<'a>(
    items: fn(&Value) -> Vec<TurnItem>,
    records: impl IntoIterator<Item = &'a Value>,
) -> Vec<TurnItem> {
    let mut turn: Vec<TurnItem> = Vec::new();
    for record in records {
        for item in items(record) {
            if item.part == TurnPart::Prompt {
                turn.clear();
            }
            turn.push(item);
        }
    }
    if turn.len() > MAX_ITEMS {
        // The prompt stays; the middle goes.
        let prompt = (turn[0].part == TurnPart::Prompt).then(|| turn[0].clone());
        turn.drain(..turn.len() - (MAX_ITEMS - usize::from(prompt.is_some())));
        if let Some(prompt) = prompt {
            turn.insert(0, prompt);
        }
    }
    turn
}

pub(crate) fn item(part: TurnPart, text: &str) -> Option<TurnItem> {
    let text = text.trim();
    if text.is_empty() {
        return None;
    }
    let mut clipped: String = text.chars().take(MAX_ITEM_TEXT).collect();
    if clipped.len() < text.len() {
        clipped.push('…');
    }
    Some(TurnItem { part, text: clipped })
}

pub(crate) fn str_of<'a>(value: &'a Value, key: &str) -> Option<&'a str> {
    value.get(key).and_then(Value::as_str)
}

/// What a tool was asked to do, in a line: its command, file, pattern or query, else its input.
pub(crate) fn tool_line(name: &str, input: &Value) -> String {
    let input = match input {
        // Codex sends its arguments as a JSON string.
        Value::String(text) => serde_json::from_str(text).unwrap_or_else(|_| Value::String(text.clone())),
        other => other.clone(),
    };
    let what = ["command", "cmd", "file_path", "path", "pattern", "query", "url", "prompt", "description"]
        .iter()
        .find_map(|key| match input.get(key) {
            Some(Value::String(text)) => Some(text.clone()),
            Some(Value::Array(parts)) => Some(parts.iter().filter_map(Value::as_str).collect::<Vec<_>>().join(" ")),
            _ => None,
        })
        .or_else(|| input.as_str().map(str::to_owned))
        .unwrap_or_else(|| if input.is_null() { String::new() } else { input.to_string() });
    if what.is_empty() {
        name.to_owned()
    } else {
        format!("{name}: {what}")
    }
}

/// The text of a tool result: a string, or the text parts of a list.
pub(crate) fn result_text(content: &Value) -> String {
    match content {
        Value::String(text) => text.clone(),
        Value::Array(parts) => parts
            .iter()
            .filter_map(|part| part.as_str().or_else(|| str_of(part, "text")))
            .collect::<Vec<_>>()
            .join("\n"),
        Value::Object(_) => ["output", "content", "text"]
            .iter()
            .find_map(|key| content.get(key).map(result_text))
            .unwrap_or_else(|| content.to_string()),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn records(path: &str) -> Vec<Value> {
        let text =
            std::fs::read_to_string(format!("{}/../../tests/fixtures/{path}", env!("CARGO_MANIFEST_DIR"))).unwrap();
        text.lines().filter_map(|line| serde_json::from_str(line).ok()).collect()
    }

    fn parts(turn: &[TurnItem]) -> Vec<TurnPart> {
        turn.iter().map(|item| item.part).collect()
    }

    #[test]
    fn claudes_last_turn_is_its_prompt_tool_call_result_and_note() {
        let turn = crate::agent::last_turn("claude", &records("real-transcripts/claude/esc-during-tool.jsonl"));
        use TurnPart::*;
        assert_eq!(parts(&turn), [Prompt, Tool, Result, Note], "{turn:?}");
        assert_eq!(turn[0].text, "Run the slow script [[scenario:sleep]]");
        assert_eq!(turn[1].text, "Bash: ./slow.sh");
    }

    #[test]
    fn codexs_last_turn_leaves_out_the_context_it_injects() {
        let turn = crate::agent::last_turn("codex", &records("real-transcripts/codex/permission-approved.jsonl"));
        use TurnPart::*;
        assert_eq!(parts(&turn), [Prompt, Tool, Result, Text], "{turn:?}");
        assert_eq!(turn[0].text, "Create the marker [[scenario:perm]] (approve)");
        assert!(turn[1].text.starts_with("exec_command: "), "{turn:?}");
        assert_eq!(turn[3].text, "Marker created.");
    }

    #[test]
    fn geminis_last_turn_has_its_tool_calls_and_their_results() {
        let turn = crate::agent::last_turn("gemini", &records("real-transcripts/gemini/permission-approved.jsonl"));
        use TurnPart::*;
        assert_eq!(turn.first().map(|item| item.part), Some(Prompt), "{turn:?}");
        assert!(
            turn.iter()
                .any(|item| item.part == Tool && item.text == "run_shell_command: sleep 2 && touch sb_marker.txt"),
            "{turn:?}"
        );
        assert!(parts(&turn).contains(&Result));
        assert_eq!(turn.last().map(|item| item.text.as_str()), Some("Created the marker."));
    }

    #[test]
    fn only_the_last_turn_is_kept_clipped_and_bounded() {
        let prompt = |text: &str| json!({"type": "user", "message": {"content": text}});
        let said = |text: &str| json!({"type": "assistant", "message": {"content": [{"type": "text", "text": text}]}});
        let mut all = vec![prompt("first"), said("old answer"), prompt("second")];
        all.extend((0..100).map(|i| said(&format!("step {i} {}", "x".repeat(1_000)))));
        let turn = crate::agent::last_turn("claude", &all);
        assert_eq!(turn.len(), MAX_ITEMS);
        assert_eq!(turn[0], TurnItem { part: TurnPart::Prompt, text: "second".into() });
        assert!(turn[1].text.starts_with("step 61 "), "the last ones after the prompt: {}", &turn[1].text[..10]);
        assert!(turn.iter().all(|item| item.text.chars().count() <= MAX_ITEM_TEXT + 1));
        assert!(crate::agent::last_turn("claude", &[json!("garbage"), json!({"type": "user"})]).is_empty());
        assert!(crate::agent::last_turn("custom", &all).is_empty());
    }
}
