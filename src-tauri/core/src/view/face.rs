//! What a card says, worked out once: its badge (tone and word), the header chip it counts
//! towards and the line that says why (docs/model.md §6). The reducer stamps them on every
//! session it hands out and the board only draws them, so a word is never chosen in two places.

use serde::Serialize;

use super::clip;
pub use crate::session::{Badge, Category, Look, Reason, Tone};
use crate::session::{HistoryEntry, Session};

#[cfg(test)]
mod tests;
use crate::status::{AgentStatus, Millis};

/// A session with no status yet is "Starting" for this long after its first event, then "Idle".
pub const STARTING_GRACE_MS: Millis = 60_000;
/// How much of a reason the card puts on screen; `full` keeps the whole text for the tooltip.
pub const REASON_CHARS: usize = 240;

/// Each tone with the word the board puts beside it and what it means: the `?` sheet's legend.
pub const LEGEND: [(Tone, &str, &str); 7] = [
    (Tone::Blocked, "Needs permission", "waits for Allow / Deny — here or in its terminal"),
    (Tone::Waiting, "Has a question", "asked you something"),
    (Tone::Working, "Working", "busy; nothing for you yet"),
    (Tone::Done, "Done", "finished its turn"),
    (Tone::Interrupted, "Interrupted", "stopped (Esc, a refusal)"),
    (Tone::Error, "Error", "its request failed"),
    (Tone::Idle, "Idle / Starting", "no status yet, or ended"),
];

impl Reason {
    fn new(full: &str, look: Look) -> Self {
        let text = clip(full, REASON_CHARS);
        let full = (text != full).then(|| full.to_owned());
        Self { lead: None, text, full, look }
    }

    /// `text` under a heading: the tooltip reads "lead  text".
    fn led(lead: String, text: Option<&str>, look: Look) -> Self {
        match text {
            None => Self { lead: Some(lead), text: String::new(), full: None, look },
            Some(text) => {
                let full = [lead.as_str(), "  ", text].concat();
                Self { lead: Some(lead), full: Some(full), ..Self::new(text, look) }
            }
        }
    }
}

fn filled(text: &Option<String>) -> Option<&str> {
    text.as_deref().filter(|text| !text.trim().is_empty())
}

/// The badge of a reported status, shared by cards and the history timeline.
fn status_badge(status: AgentStatus, errored: bool, interrupted: bool) -> Badge {
    match status {
        AgentStatus::Working => Badge::of(Tone::Working, "Working"),
        AgentStatus::Waiting => Badge::of(Tone::Waiting, "Has a question"),
        AgentStatus::Blocked => Badge::of(Tone::Blocked, "Needs permission"),
        AgentStatus::Done if errored => Badge::of(Tone::Error, "Error"),
        AgentStatus::Done if interrupted => Badge::of(Tone::Interrupted, "Interrupted"),
        AgentStatus::Done => Badge::of(Tone::Done, "Done"),
    }
}

/// A session's badge. Without a status, `errored`/`interrupted` still describe its last turn;
/// else it is "Starting" for [`STARTING_GRACE_MS`] (`Session::starting`), then "Idle".
pub fn badge(session: &Session) -> Badge {
    match session.status {
        Some(status) => status_badge(status, session.errored, session.interrupted),
        None if session.errored => Badge::of(Tone::Error, "Error"),
        None if session.interrupted => Badge::of(Tone::Interrupted, "Interrupted"),
        None if session.starting && !session.ended => Badge::of(Tone::Idle, "Starting"),
        None => Badge::of(Tone::Idle, "Idle"),
    }
}

/// The header chip it counts towards; ended and archived sessions count towards none. A failed
/// turn needs the user (a retry, a look), not the green chip.
pub fn category(session: &Session) -> Option<Category> {
    if session.ended || session.archived {
        return None;
    }
    match session.status? {
        AgentStatus::Waiting | AgentStatus::Blocked => Some(Category::Needs),
        AgentStatus::Working => Some(Category::Working),
        AgentStatus::Done if session.errored => Some(Category::Needs),
        AgentStatus::Done => Some(Category::Done),
    }
}

/// What the board says after an answer it gave ("Allowed from Switchboard: …").
fn answered_from_board(message: &str) -> bool {
    ["Allowed", "Denied", "Answered"]
        .iter()
        .any(|verb| message.strip_prefix(verb).is_some_and(|rest| rest.starts_with(" from Switchboard")))
}

/// Why the user is needed (or what is going on), for the card and the panel.
pub fn why(session: &Session) -> Option<Reason> {
    let message = filled(&session.message);
    let tool = filled(&session.tool);
    match session.status {
        Some(AgentStatus::Waiting) => {
            let text = filled(&session.question).or(message).unwrap_or("Waiting for your answer");
            Some(Reason::new(text, Look::Attention))
        }
        Some(AgentStatus::Blocked) => {
            // A hold that ended with no answer from the board: the prompt is the terminal's again.
            if session.decision.is_none() && session.decision_until.is_some() && !session.ended {
                let lead = "Expired — answer in your terminal";
                let full = format!("{lead}  {}", message.unwrap_or_default());
                return Some(Reason {
                    lead: Some(lead.to_owned()),
                    full: Some(full.trim_end().to_owned()),
                    ..Reason::new(message.unwrap_or(lead), Look::Attention)
                });
            }
            let lead = match tool {
                Some(tool) => ["Needs permission: ", tool].concat(),
                None => "Needs permission".to_owned(),
            };
            Some(Reason::led(lead, message, Look::Attention))
        }
        Some(AgentStatus::Working) => match (message, tool) {
            (Some(message), _) if answered_from_board(message) => Some(Reason::new(message, Look::Box)),
            (_, Some(tool)) => Some(Reason::new(&["Using ", tool].concat(), Look::Quiet)),
            _ => None,
        },
        status => {
            let done = status == Some(AgentStatus::Done);
            if session.errored {
                return Some(Reason::new(message.unwrap_or("The turn ended with an error"), Look::Attention));
            }
            let look = if done && !session.interrupted { Look::Box } else { Look::Quiet };
            message.map(|message| Reason::new(message, look))
        }
    }
}

/// A history entry as the timeline shows it: its badge, and what it was about. The badge stands
/// beside it, so a permission is led by its tool alone, not "Needs permission:".
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct HistoryView {
    #[serde(flatten)]
    pub entry: HistoryEntry,
    pub badge: Badge,
    pub reason: Option<Reason>,
}

impl From<HistoryEntry> for HistoryView {
    fn from(entry: HistoryEntry) -> Self {
        let message = filled(&entry.message);
        let tool = filled(&entry.tool);
        let reason = match entry.status {
            AgentStatus::Waiting => filled(&entry.question).or(message).map(|text| Reason::new(text, Look::Attention)),
            AgentStatus::Blocked => match tool {
                Some(tool) => Some(Reason::led(tool.to_owned(), message, Look::Attention)),
                None => message.map(|message| Reason::new(message, Look::Attention)),
            },
            AgentStatus::Working => match tool {
                Some(tool) => Some(Reason::new(&["Using ", tool].concat(), Look::Quiet)),
                None => message.map(|message| Reason::new(message, Look::Quiet)),
            },
            AgentStatus::Done if entry.errored => {
                Some(Reason::new(message.unwrap_or("The turn ended with an error"), Look::Attention))
            }
            AgentStatus::Done => {
                let look = if entry.interrupted { Look::Quiet } else { Look::Box };
                message.map(|message| Reason::new(message, look))
            }
        };
        let badge = status_badge(entry.status, entry.errored, entry.interrupted);
        Self { entry, badge, reason }
    }
}
