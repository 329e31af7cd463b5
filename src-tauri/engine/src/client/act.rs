//! Acting on a session from a script, through the running instance (issue 24):
//! `switchboard decide | answer | reply | peek SESSION …`. A session is named by its whole id or
//! by the start of it that `status` shows (unique among the sessions).

use std::path::Path;
use std::time::Duration;

use serde_json::Value;
use switchboard_core::Session;

use crate::endpoint::Endpoint;
use crate::protocol::{decision_path, session_action_path, Verdict};

/// A typed answer waits on tmux and then for its CLI to take it (`confirm_within`, 10 s), a
/// remote's on its link as well.
const TIMEOUT: Duration = Duration::from_secs(45);

#[derive(Debug, thiserror::Error)]
pub enum ActError {
    #[error(transparent)]
    Status(#[from] super::status::StatusError),
    #[error("no session matches `{0}` (see `switchboard status`)")]
    NoSuchSession(String),
    #[error("`{0}` matches {1} sessions: give more of its id")]
    Ambiguous(String, usize),
    #[error("{0} is not waiting for Allow / Deny from Switchboard")]
    NoDecision(String),
    #[error("refused: {0}")]
    Refused(String),
    #[error("the instance did not answer: {0}")]
    Unreachable(std::io::Error),
}

/// The session `name` names: its whole id, or the unique session whose id starts with it.
pub fn find(state_dir: &Path, name: &str) -> Result<Session, ActError> {
    let (snapshot, _) = super::status::fetch(state_dir)?;
    if let Some(exact) = snapshot.sessions.iter().find(|s| s.session_id == name) {
        return Ok(exact.clone());
    }
    let matching: Vec<&Session> = snapshot.sessions.iter().filter(|s| s.session_id.starts_with(name)).collect();
    match matching.as_slice() {
        [one] => Ok((*one).clone()),
        [] => Err(ActError::NoSuchSession(name.to_owned())),
        many => Err(ActError::Ambiguous(name.to_owned(), many.len())),
    }
}

fn endpoint(state_dir: &Path) -> Result<Endpoint, ActError> {
    Endpoint::read(state_dir)
        .ok_or_else(|| super::status::StatusError::NotRunning(state_dir.display().to_string()).into())
}

/// What the instance said when it refused (`{"error": …}`), else its status.
fn refusal(status: u16, body: &[u8]) -> ActError {
    let said = serde_json::from_slice::<Value>(body).ok().and_then(|v| v["error"].as_str().map(str::to_owned));
    ActError::Refused(said.unwrap_or_else(|| format!("the instance answered HTTP {status}")))
}

/// The CLI's own name (`Codex CLI`) for an agent id, for messages; an agent this build does not
/// know (a box's, a `custom` label) is said as one printable line of at most 40 characters.
pub fn cli_name(agent: &str) -> std::borrow::Cow<'_, str> {
    match switchboard_core::agent(agent) {
        Some(cli) => cli.name.into(),
        None => crate::text::clip_chars(&crate::text::printable_line(agent), 40).into(),
    }
}

/// Allow or deny the permission the session holds for the board.
pub fn decide(state_dir: &Path, name: &str, verdict: Verdict) -> Result<Session, ActError> {
    let session = find(state_dir, name)?;
    let hold = session.decision.ok_or_else(|| ActError::NoDecision(session.session_id.clone()))?;
    let endpoint = endpoint(state_dir)?;
    let path = decision_path(&session.session_id, &endpoint.key, hold, verdict);
    let response = super::request(endpoint.addr(), "POST", &path, b"", TIMEOUT).map_err(ActError::Unreachable)?;
    match response.status {
        204 => Ok(session),
        409 => Err(ActError::Refused(
            "nothing waits for that answer any more (answered at the terminal, or it timed out)".into(),
        )),
        502 => Err(ActError::Refused(format!("{} is unreachable", session.host))),
        status => Err(refusal(status, &response.body)),
    }
}

/// What the user says to an agent from the command line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Said<'a> {
    /// Option `n` of the question on screen.
    Option(usize),
    /// A written answer to the question on screen.
    Answer(&'a str),
    /// Its next prompt.
    Reply(&'a str),
}

/// An answer or reply, given through the CLI's hook or typed into the agent's own pane. What was
/// given, and where, as the instance said.
pub fn answer(state_dir: &Path, name: &str, said: Said<'_>) -> Result<(Session, Value), ActError> {
    let session = find(state_dir, name)?;
    let given = answer_session(state_dir, &session, said)?;
    Ok((session, given))
}

/// [`answer`] for a session already found.
pub fn answer_session(state_dir: &Path, session: &Session, said: Said<'_>) -> Result<Value, ActError> {
    let name = &session.session_id;
    let endpoint = endpoint(state_dir)?;
    let (path, body) = match said {
        Said::Option(n) => {
            (format!("{}&option={n}", session_action_path("answer", &session.session_id, &endpoint.key)), Vec::new())
        }
        Said::Answer(text) => {
            (session_action_path("answer", &session.session_id, &endpoint.key), text.as_bytes().to_vec())
        }
        Said::Reply(text) => {
            (session_action_path("reply", &session.session_id, &endpoint.key), text.as_bytes().to_vec())
        }
    };
    let response = super::request(endpoint.addr(), "POST", &path, &body, TIMEOUT).map_err(ActError::Unreachable)?;
    match response.status {
        200 => Ok(serde_json::from_slice(&response.body).unwrap_or(Value::Null)),
        404 => Err(ActError::NoSuchSession(name.to_owned())),
        status => Err(refusal(status, &response.body)),
    }
}

/// SIGTERM to the session's agent (its own process group); the instance is told which process
/// asks, so it never ends this one or the shell it runs under (issue 45).
pub fn end(state_dir: &Path, session: &Session) -> Result<(), ActError> {
    let endpoint = endpoint(state_dir)?;
    let me = std::process::id();
    let start = crate::platform::stat(me).map(|stat| stat.start).ok_or_else(|| {
        ActError::Refused("this process's start time cannot be read, so the instance could not check it".into())
    })?;
    let path = crate::protocol::end_path(&session.session_id, &endpoint.key, (me, start));
    let response = super::request(endpoint.addr(), "POST", &path, b"", TIMEOUT).map_err(ActError::Unreachable)?;
    match response.status {
        204 => Ok(()),
        404 => Err(ActError::NoSuchSession(session.session_id.clone())),
        status => Err(refusal(status, &response.body)),
    }
}

/// The session and its pane's last lines (`screen`), or why there are none (`noScreen`).
pub fn peek(state_dir: &Path, name: &str) -> Result<Value, ActError> {
    let session = find(state_dir, name)?;
    let endpoint = endpoint(state_dir)?;
    let path = session_action_path("peek", &session.session_id, &endpoint.key);
    let response = super::request(endpoint.addr(), "GET", &path, b"", TIMEOUT).map_err(ActError::Unreachable)?;
    match response.status {
        200 => serde_json::from_slice(&response.body).map_err(|error| ActError::Refused(error.to_string())),
        404 => Err(ActError::NoSuchSession(name.to_owned())),
        status => Err(refusal(status, &response.body)),
    }
}

/// `peek` for a person: what it is doing, what it asks (with numbered options), its last message,
/// and its screen.
pub fn peek_text(peeked: &Value) -> String {
    let Ok(session) = serde_json::from_value::<Session>(peeked["session"].clone()) else {
        return "the instance sent no session\n".into();
    };
    // Each field from the agent is one line here: a title or a command cannot draw a line of
    // its own (a fake "1. Allow: …") between the ones this prints.
    let line = crate::text::printable_line;
    let mut out = format!(
        "{} · {} · {}\n",
        line(session.title.as_deref().unwrap_or(&session.session_id)),
        line(&session.agent),
        session.status.map_or("no status yet".into(), |status| format!("{status:?}").to_lowercase())
    );
    if let Some(cwd) = &session.cwd {
        out.push_str(&format!("in {}\n", line(cwd)));
    }
    for question in &session.questions {
        out.push_str(&format!("\nAsks: {}\n", line(&question.question)));
        for (n, option) in question.options.iter().enumerate() {
            let about = option.description.as_deref().map(|d| format!(" — {}", line(d))).unwrap_or_default();
            out.push_str(&format!("  {}. {}{about}\n", n + 1, line(&option.label)));
        }
        if !question.options.is_empty() {
            out.push_str(&format!("  (switchboard answer {} N)\n", short(&session.session_id)));
        }
    }
    if let Some(command) = &session.command {
        out.push_str(&format!("\nWants to run: {}\n", line(command)));
    }
    if let Some(message) = &session.message {
        out.push_str(&format!("\nLast message: {}\n", line(message)));
    }
    let turn: Vec<switchboard_core::turn::TurnItem> =
        peeked["lastTurn"].as_array().map(|items| items.iter().filter_map(turn_item).collect()).unwrap_or_default();
    if !turn.is_empty() {
        out.push_str("\n--- its last turn ---\n");
        for item in &turn {
            use switchboard_core::turn::TurnPart::*;
            let lead = match item.part {
                Prompt => "> ",
                Text => "",
                Tool => "  ⏺ ",
                Result => "    ⎿ ",
                Note => "  · ",
            };
            let text = item.text.replace('\n', &format!("\n{}", " ".repeat(lead.chars().count())));
            out.push_str(&format!("{lead}{text}\n"));
        }
    }
    match (peeked["screen"].as_str(), peeked["noScreen"].as_str()) {
        (Some(screen), _) => out.push_str(&format!("\n--- its screen ---\n{screen}\n")),
        (None, Some(why)) => out.push_str(&format!("\n(no screen: {why})\n")),
        _ => {}
    }
    out
}

fn turn_item(value: &Value) -> Option<switchboard_core::turn::TurnItem> {
    use switchboard_core::turn::{TurnItem, TurnPart};
    let part = match value["part"].as_str()? {
        "prompt" => TurnPart::Prompt,
        "text" => TurnPart::Text,
        "tool" => TurnPart::Tool,
        "result" => TurnPart::Result,
        _ => TurnPart::Note,
    };
    Some(TurnItem { part, text: value["text"].as_str()?.to_owned() })
}

fn short(id: &str) -> String {
    id.chars().take(8).collect()
}
