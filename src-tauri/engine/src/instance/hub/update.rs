//! What the hub tells its subscribers (the mailbox carries it to each): a leaf both import, so
//! the hub and the mailbox do not import each other.

use std::sync::Arc;

use switchboard_core::{Change, HistoryEntry, Restored};

/// What every subscriber is told.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Update {
    /// Shared by every subscriber: one copy of the session per change, however many listen.
    Changed(Arc<Changed>),
    Removed(String),
    /// The instance's notices changed; the full list.
    Notices(Vec<String>),
}

/// A session after a change: what the reducer said, plus what the store needs to rebuild it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Changed {
    pub change: Change,
    pub event_title: Option<String>,
    pub agent_title: Option<String>,
    /// The history entry, when the status moved.
    pub history: Option<HistoryEntry>,
    /// When this change opened a turn: the length of the session's transcript at that moment,
    /// taken on the hub's thread as the event was applied. The agent watch reads the turn's
    /// records from there, however late it learns of the turn (a busy machine): reading from
    /// wherever the file ends when it looks would skip what was written meanwhile.
    pub transcript_from: Option<u64>,
}

impl Changed {
    pub fn saved(&self) -> Restored {
        Restored {
            session: self.change.session.clone(),
            event_title: self.event_title.clone(),
            agent_title: self.agent_title.clone(),
        }
    }
}
