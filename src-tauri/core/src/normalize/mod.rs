//! The CLIs, one module each (`<cli>.rs` and its folder `<cli>/`), and the one table of them:
//! a new CLI is its module and two lines here — its `mod` and its row in [`AGENTS`]
//! (docs/ARCHITECTURE.md, "An eighth CLI").
//!
//! Each module's normalizer turns the CLI's raw hook JSON into a [`StatusEvent`], or `None` for
//! input that is malformed or not in its table. It never panics and never reports an error: a
//! hook must never fail the agent, so bad input is simply dropped.

pub(crate) mod claude;
pub(crate) mod codex;
pub(crate) mod copilot;
pub(crate) mod custom;
pub(crate) mod gemini;
pub(crate) mod opencode;
pub(crate) mod pi;
pub(crate) mod qwen;

pub mod edit;
pub mod observed;

use crate::json::{Map, Value};

use crate::agent::Agent;
use crate::status::{Lifecycle, Millis, SessionKind, StatusEvent};

/// Every agent Switchboard understands, in the order the board and the installer list them.
pub static AGENTS: &[&Agent] = &[
    &claude::AGENT,
    &codex::AGENT,
    &gemini::AGENT,
    &qwen::AGENT,
    &copilot::AGENT,
    &pi::AGENT,
    &opencode::AGENT,
    &custom::AGENT,
];

/// Longest session id accepted (real ids are 36 characters); longer ones are dropped.
pub const MAX_ID_LEN: usize = 256;

/// A hook payload in the shape Claude, Codex and Gemini share (`hook_event_name`,
/// `session_id`, `transcript_path`, `cwd`, `tool_name`, `tool_input`).
pub(crate) struct Hook<'a> {
    pub fields: &'a Map<'a>,
    pub event_name: &'a str,
    pub session_id: &'a str,
}

impl<'a> Hook<'a> {
    /// `None` unless the payload is an object with a string `hook_event_name` and a non-empty
    /// string `session_id`.
    pub fn parse(raw: &'a Value<'a>) -> Option<Self> {
        let fields = raw.as_object()?;
        let event_name = fields.get("hook_event_name")?.as_str()?;
        let session_id = fields.get("session_id")?.as_str().filter(|id| !id.is_empty() && id.len() <= MAX_ID_LEN)?;
        Some(Self { fields, event_name, session_id })
    }

    pub fn str(&self, key: &str) -> Option<&'a str> {
        self.fields.get(key).and_then(Value::as_str)
    }

    pub fn string(&self, key: &str) -> Option<String> {
        self.str(key).map(str::to_owned)
    }

    /// The field's text, trimmed; `None` when absent or blank.
    pub fn text(&self, key: &str) -> Option<String> {
        self.str(key).map(str::trim).filter(|text| !text.is_empty()).map(str::to_owned)
    }

    pub fn flag(&self, key: &str) -> bool {
        self.fields.get(key).and_then(Value::as_bool).unwrap_or(false)
    }

    pub fn tool_name(&self) -> Option<&'a str> {
        self.str("tool_name")
    }

    /// The event with the fields every CLI fills the same way.
    pub fn event(&self, agent: &str, now: Millis) -> StatusEvent {
        StatusEvent {
            agent: agent.to_owned(),
            session_id: self.session_id.to_owned(),
            tool: self.string("tool_name"),
            transcript_path: self.string("transcript_path"),
            cwd: self.string("cwd"),
            ts: now,
            ..StatusEvent::default()
        }
    }

    /// Marks the event as a subagent's when the payload carries a string `agent_id`
    /// (docs/model.md §2.1, rule 2).
    pub fn with_agent_id(&self, mut event: StatusEvent) -> StatusEvent {
        if let Some(agent_id) = self.string("agent_id") {
            event.kind = SessionKind::Subagent;
            event.subagent_id = Some(agent_id);
        }
        event
    }

    /// Stop: the turn's last message; a `subagent_id` makes it a subagent's (Claude and Codex
    /// share the shape).
    pub fn stop(&self, done: StatusEvent) -> StatusEvent {
        let mut event = StatusEvent { message: self.string("last_assistant_message"), ..done };
        if let Some(subagent_id) = self.string("subagent_id") {
            event.kind = SessionKind::Subagent;
            event.subagent_id = Some(subagent_id);
        }
        event
    }

    /// `tool_input.questions[0].question`, for Claude's AskUserQuestion and Codex's
    /// `request_user_input`.
    /// Every question of the question tool, with its options.
    pub fn questions(&self) -> Vec<crate::session::Question> {
        crate::session::Question::parse_all(self.fields.get("tool_input"))
    }

    pub fn first_question(&self) -> Option<String> {
        self.fields.get("tool_input")?.get("questions")?.get(0)?.get("question")?.as_str().map(str::to_owned)
    }

    /// A one-line summary of `tool_input` for a permission prompt: the command, the file, the
    /// URL, … — whatever says best what the agent wants to do.
    pub fn tool_input_summary(&self) -> Option<String> {
        let line = one_line(&self.tool_input_text()?);
        (!line.is_empty()).then_some(line)
    }

    /// What the tool input asks for, whole (the command with its newlines, the file's path, …).
    pub fn tool_input_text(&self) -> Option<String> {
        const KEYS: [&str; 9] =
            ["command", "file_path", "path", "url", "pattern", "query", "prompt", "description", "notebook_path"];
        let input = self.fields.get("tool_input")?;
        let text = match input {
            Value::String(text) => text.clone().into_owned(),
            Value::Object(map) => match KEYS.iter().find_map(|key| map.get(key).and_then(Value::as_str)) {
                Some(text) => text.to_owned(),
                None if map.is_empty() => return None,
                None => input.to_string(),
            },
            Value::Null => return None,
            other => other.to_string(),
        };
        (!text.trim().is_empty()).then_some(text)
    }
}

/// What a failed request says on its card: "The request failed: <why, on one line>", or without
/// the reason when there is none.
pub(crate) fn request_failed(why: Option<&str>) -> String {
    match why.map(one_line).filter(|text| !text.is_empty()) {
        Some(why) => format!("The request failed: {why}"),
        None => "The request failed".to_owned(),
    }
}

/// Collapses all whitespace (newlines included) to single spaces and clips the result, so a
/// heredoc or a 60 KB command still gives one readable line.
pub(crate) fn one_line(text: &str) -> String {
    const MAX_CHARS: usize = 240;
    let mut line = String::new();
    for word in text.split_whitespace() {
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
        if line.len() > MAX_CHARS * 4 {
            break;
        }
    }
    if line.chars().count() > MAX_CHARS {
        line = line.chars().take(MAX_CHARS - 1).collect::<String>() + "…";
    }
    line
}

pub(crate) fn lifecycle(hook: &Hook, agent: &str, now: Millis, lifecycle: Lifecycle) -> StatusEvent {
    StatusEvent { lifecycle: Some(lifecycle), ..hook.event(agent, now) }
}

#[cfg(test)]
pub(crate) mod fixtures {
    use serde_json::Value;
    use std::path::PathBuf;

    /// The shared fixture payloads (`tests/fixtures`), read as the CLIs write them.
    pub fn fixture(name: &str) -> Value {
        let path = dir().join(name);
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        serde_json::from_str(&text).unwrap()
    }

    pub fn dir() -> PathBuf {
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures")
    }

    /// A fixture with some fields replaced or added.
    pub fn fixture_with(name: &str, patch: Value) -> Value {
        let mut value = fixture(name);
        for (key, field) in patch.as_object().unwrap() {
            value[key] = field.clone();
        }
        value
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn input_without_an_object_an_event_name_or_a_session_id_gives_no_event() {
        let bad = [
            json!(null),
            json!([1, 2]),
            json!("Stop"),
            json!({"session_id": "s"}),
            json!({"hook_event_name": "Stop"}),
            json!({"hook_event_name": "Stop", "session_id": ""}),
            json!({"hook_event_name": "Stop", "session_id": 7}),
            json!({"hook_event_name": 3, "session_id": "s"}),
        ];
        for agent in crate::agent::AGENTS {
            for raw in &bad {
                assert_eq!((agent.normalize)(&raw.into(), 1), None, "{}: {raw}", agent.id);
            }
        }
    }

    /// `tests/real_cli/events/<cli>.txt` lists every hook event the pinned CLI knows (read off
    /// the CLI itself): each is either registered by the installer (and so read by the
    /// normalizer) or deliberately ignored — never both, never neither.
    #[test]
    fn every_event_each_pinned_cli_knows_is_mapped_or_explicitly_ignored() {
        for (agent, ignored) in
            crate::agent::AGENTS.iter().filter(|a| !a.hook_events.is_empty()).map(|a| (a.id, a.ignored))
        {
            let cli = crate::hook_config::Cli::from_agent(agent).unwrap();
            let path = fixtures::dir().join(format!("../real_cli/events/{agent}.txt"));
            let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            let known: Vec<&str> = text.lines().filter(|l| !l.starts_with('#') && !l.trim().is_empty()).collect();
            assert!(known.len() >= 10, "{agent}: {} events", known.len());
            for event in &known {
                let mapped = cli.events().contains(event);
                assert!(mapped != ignored.contains(event), "{agent}: {event} must be mapped or ignored, not both");
            }
            for event in cli.events() {
                assert!(known.contains(event), "{agent}: {event} is registered but the pinned CLI does not know it");
            }
        }
    }

    #[test]
    fn one_line_collapses_whitespace_and_clips_long_text() {
        assert_eq!(one_line("  cat <<EOF\n  hi\nEOF "), "cat <<EOF hi EOF");
        let long = one_line(&"x ".repeat(10_000));
        assert_eq!(long.chars().count(), 240);
        assert!(long.ends_with('…'));
    }
}
