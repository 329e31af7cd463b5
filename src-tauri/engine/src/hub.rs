//! The hub: the one reducer of a running instance, and the fan-out of its changes to the shell
//! (web view, notifications, titles, persistence).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, MutexGuard, PoisonError};

use switchboard_core::{Change, Reducer, Session, Snapshot, StatusEvent};

/// What the shell is told.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Update {
    /// A session changed; `notify` says whether it now needs the user (SPEC 2.3).
    Changed(Box<Change>),
    Removed(String),
    /// Another launch of the app asked this one to come forward.
    FocusRequested,
}

type Listener = Box<dyn Fn(Update) + Send + Sync>;

pub struct Hub {
    reducer: Mutex<Reducer>,
    window_focused: AtomicBool,
    has_window: AtomicBool,
    listener: Listener,
}

impl Hub {
    /// `listener` runs on the ingest task for every update: keep it quick (queue, don't block).
    pub fn new(listener: impl Fn(Update) + Send + Sync + 'static) -> Self {
        Self {
            reducer: Mutex::new(Reducer::new()),
            window_focused: AtomicBool::new(false),
            has_window: AtomicBool::new(false),
            listener: Box::new(listener),
        }
    }

    fn reducer(&self) -> MutexGuard<'_, Reducer> {
        // The reducer is pure and never panics mid-update; a poisoned lock still holds valid state.
        self.reducer.lock().unwrap_or_else(PoisonError::into_inner)
    }

    pub fn apply(&self, event: &StatusEvent) {
        let focused = self.window_focused.load(Ordering::Relaxed);
        let change = self.reducer().apply(event, focused);
        if let Some(change) = change {
            (self.listener)(Update::Changed(Box::new(change)));
        }
    }

    pub fn set_window_focused(&self, focused: bool) {
        self.window_focused.store(focused, Ordering::Relaxed);
    }

    /// The desktop app has a window to bring forward (`serve` has none).
    pub fn set_has_window(&self, has_window: bool) {
        self.has_window.store(has_window, Ordering::Relaxed);
    }

    pub fn has_window(&self) -> bool {
        self.has_window.load(Ordering::Relaxed)
    }

    pub fn window_focused(&self) -> bool {
        self.window_focused.load(Ordering::Relaxed)
    }

    /// The user opened the node. `false` for an unknown session.
    pub fn clear_unread(&self, session_id: &str) -> bool {
        let cleared = self.reducer().clear_unread(session_id);
        self.announce(cleared)
    }

    pub fn set_agent_title(&self, session_id: &str, title: Option<String>) -> bool {
        let changed = self.reducer().set_agent_title(session_id, title);
        self.announce(changed)
    }

    pub fn remove(&self, session_id: &str) -> bool {
        let removed = self.reducer().remove(session_id).is_some();
        if removed {
            (self.listener)(Update::Removed(session_id.to_owned()));
        }
        removed
    }

    pub fn request_focus(&self) {
        (self.listener)(Update::FocusRequested);
    }

    pub fn snapshot(&self) -> Snapshot {
        self.reducer().snapshot()
    }

    pub fn session(&self, session_id: &str) -> Option<Session> {
        self.reducer().get(session_id).cloned()
    }

    fn announce(&self, session: Option<Session>) -> bool {
        match session {
            Some(session) => {
                let previous = session.status;
                (self.listener)(Update::Changed(Box::new(Change { session, previous, notify: false })));
                true
            }
            None => false,
        }
    }
}
