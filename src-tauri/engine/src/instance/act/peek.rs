//! What `peek` and the details panel show of a session (issue 24): its screen — the pane that
//! shows it, once tied, or where its CLI's daemon serves it, its last turns as the daemon has
//! them — and its last turn from its transcript.

use serde::Serialize;
use switchboard_core::Session;

use super::answer::{tied_pane, AnswerError};
use crate::terminal::{app_server, tmux, TieError};

/// Lines of the pane `peek` shows.
pub const PEEK_LINES: usize = 60;

/// The agent's screen for the details panel: its pane's last lines, or why there are none.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct Screen {
    pub text: Option<String>,
    pub reason: Option<String>,
}

impl Screen {
    pub fn of(session: &Session) -> Self {
        match screen(session) {
            Ok(text) => Self { text: Some(text), reason: None },
            Err(why) => Self { text: None, reason: Some(why.to_string()) },
        }
    }
}

/// How much of a transcript's end is read for its last turn.
const LAST_TURN_BYTES: u64 = 512 * 1024;

/// The session's last turn from its transcript's end (issue 24): its prompt, what the agent said,
/// the tools it called and their results, clipped. Empty when there is no transcript to read
/// here (not written yet, another machine's, a CLI Switchboard cannot read).
pub fn last_turn(session: &Session) -> Vec<switchboard_core::turn::TurnItem> {
    use std::io::{Read, Seek, SeekFrom};
    let Some(path) = crate::instance::observe::transcript::readable(session).filter(|_| session.is_local()) else {
        return Vec::new();
    };
    let Ok(mut file) = crate::files::open_regular(&path) else { return Vec::new() };
    let length = file.metadata().map(|m| m.len()).unwrap_or(0);
    let start = length.saturating_sub(LAST_TURN_BYTES);
    let mut bytes = Vec::new();
    if file.seek(SeekFrom::Start(start)).is_err() || file.take(LAST_TURN_BYTES).read_to_end(&mut bytes).is_err() {
        return Vec::new();
    }
    let mut lines = bytes.split(|b| *b == b'\n');
    if start > 0 {
        lines.next(); // starts mid-line
    }
    let records: Vec<serde_json::Value> = lines.filter_map(|line| serde_json::from_slice(line).ok()).collect();
    switchboard_core::agent::last_turn(&session.agent, &records)
}

/// The last lines of the pane that shows the session, once it is tied to it; where a daemon
/// serves it, its last turns as the daemon has them.
fn screen(session: &Session) -> Result<String, AnswerError> {
    if let Some(door) = app_server::door(session) {
        return Ok(door.screen()?);
    }
    let pane = tied_pane(session)?;
    let output =
        tmux::capture(pane.socket(), &pane.id, PEEK_LINES).ok_or_else(|| TieError::PaneGone(pane.id.clone()))?;
    Ok(output.trim_end().to_owned())
}
