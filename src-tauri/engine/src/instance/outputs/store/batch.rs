//! What waits for the store's writer between two commits (see `store.rs`).

use std::collections::HashSet;
use std::sync::Arc;

use switchboard_core::HistoryEntry;

use super::HISTORY_LIMIT;
use crate::instance::hub::{Changed, Update};

/// What waits for the writer: per session touched since the last commit, its latest state (or
/// that it is to be deleted) and its new history entries. Bounded by the sessions, not by the
/// flood: a burst of changes to one session is one row write, and a session that came and went
/// between two commits (never saved) costs nothing at all.
#[derive(Debug, Default)]
pub struct Batch {
    pub(super) sessions: foldhash::HashMap<String, Pending>,
    /// First-touched order, so new rows keep the canvas's arrival order.
    next: u64,
}

#[derive(Debug)]
pub(super) struct Pending {
    order: u64,
    /// Delete the saved row and its history first (a removal; then maybe a return).
    pub(super) delete: bool,
    /// The state to save (the update the hub shares with every subscriber: its session is copied
    /// out on the writer thread, once per commit, not on the hub's for every change); `None` for a
    /// removal.
    pub(super) state: Option<Arc<Changed>>,
    /// New history entries, oldest first, at most [`HISTORY_LIMIT`].
    pub(super) history: Vec<HistoryEntry>,
}

impl Batch {
    pub fn is_empty(&self) -> bool {
        self.sessions.is_empty()
    }

    /// Sessions waiting: what the writer is behind by.
    pub fn len(&self) -> usize {
        self.sessions.len()
    }

    pub(super) fn in_order(&self) -> Vec<(&String, &Pending)> {
        let mut sessions: Vec<_> = self.sessions.iter().collect();
        sessions.sort_unstable_by_key(|(_, pending)| pending.order);
        sessions
    }

    fn touch(&mut self, id: &str) -> &mut Pending {
        let order = self.next;
        self.next += 1;
        // The id is copied only for a session not waiting yet, not on every change.
        if !self.sessions.contains_key(id) {
            self.sessions.insert(id.to_owned(), Pending { order, delete: false, state: None, history: Vec::new() });
        }
        self.sessions.get_mut(id).expect("inserted above")
    }

    /// Takes in one update. `saved`: the sessions on disk once what was taken commits.
    pub(super) fn add(&mut self, update: &Update, saved: &HashSet<String>) {
        match update {
            // A remote's sessions come back from its link after a restart, not from here.
            Update::Changed(changed) if !changed.change.session.is_local() => {}
            Update::Changed(changed) => {
                let pending = self.touch(&changed.change.session.session_id);
                pending.state = Some(Arc::clone(changed));
                if let Some(entry) = &changed.history {
                    if pending.history.len() == HISTORY_LIMIT {
                        pending.history.remove(0);
                    }
                    pending.history.push(entry.clone());
                }
            }
            Update::Removed(id) => {
                let was_deleting = self.sessions.get(id).is_some_and(|pending| pending.delete);
                if saved.contains(id) || was_deleting {
                    let pending = self.touch(id);
                    *pending = Pending { order: pending.order, delete: true, state: None, history: Vec::new() };
                } else {
                    // Never saved: nothing to write, nothing to delete.
                    self.sessions.remove(id);
                }
            }
            Update::Notices(_) => {}
        }
    }

    /// A batch that failed to commit, with what came since laid over it.
    pub(super) fn then(mut self, newer: Batch) -> Batch {
        let mut later: Vec<_> = newer.sessions.into_iter().collect();
        later.sort_unstable_by_key(|(_, pending)| pending.order);
        for (id, pending) in later {
            let order = self.next;
            self.next += 1;
            match self.sessions.get_mut(&id) {
                Some(earlier) if !pending.delete => {
                    earlier.state = pending.state;
                    earlier.history.extend(pending.history);
                    let excess = earlier.history.len().saturating_sub(HISTORY_LIMIT);
                    earlier.history.drain(..excess);
                }
                Some(earlier) => *earlier = Pending { order: earlier.order, ..pending },
                None => {
                    self.sessions.insert(id, Pending { order, ..pending });
                }
            }
        }
        self
    }
}
