//! The hub: the one reducer of a running instance, and the fan-out of its changes to the shell
//! (web view, notifications, titles, persistence).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock, PoisonError};

use switchboard_core::{
    Ages, Change, HistoryEntry, Millis, Position, Reducer, Restored, Session, Snapshot, StatusEvent,
};

use crate::store::{Source, StoreHandle};

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
    store: OnceLock<StoreHandle>,
}

impl Hub {
    /// `listener` runs on the ingest task for every update: keep it quick (queue, don't block).
    pub fn new(listener: impl Fn(Update) + Send + Sync + 'static) -> Self {
        Self {
            reducer: Mutex::new(Reducer::new()),
            window_focused: AtomicBool::new(false),
            has_window: AtomicBool::new(false),
            listener: Box::new(listener),
            store: OnceLock::new(),
        }
    }

    fn reducer(&self) -> MutexGuard<'_, Reducer> {
        // The reducer is pure and never panics mid-update; a poisoned lock still holds valid state.
        self.reducer.lock().unwrap_or_else(PoisonError::into_inner)
    }

    pub fn apply(&self, event: &StatusEvent) {
        let focused = self.window_focused.load(Ordering::Relaxed);
        let change = {
            let mut reducer = self.reducer();
            let change = reducer.apply(event, focused);
            if let Some(change) = &change {
                self.persist(&change.session.session_id, HistoryEntry::of(change));
            }
            change
        };
        if let Some(change) = change {
            (self.listener)(Update::Changed(Box::new(change)));
        }
    }

    /// Sessions saved by an earlier run; call before events flow.
    pub fn restore(&self, sessions: Vec<Restored>) {
        self.reducer().restore(sessions);
    }

    /// From now on every change is saved (write-behind: this never waits on the disk).
    pub fn attach_store(&self, store: StoreHandle) {
        let _ = self.store.set(store);
    }

    pub fn store(&self) -> Option<&StoreHandle> {
        self.store.get()
    }

    /// Hands the session's current state (and a history entry) to the store. Called with the
    /// reducer locked, so the store sees changes in the order they happened.
    fn persist(&self, session_id: &str, entry: Option<HistoryEntry>) {
        if let Some(store) = self.store.get() {
            store.save(session_id, entry);
        }
    }

    /// What the store reads when it commits: the session's current state, if it still exists.
    pub fn store_source(hub: &Arc<Self>) -> Source {
        let hub = Arc::downgrade(hub);
        Arc::new(move |session_id: &str| hub.upgrade()?.reducer().saved(session_id))
    }

    /// The session's recent status changes, oldest first (empty without a store).
    pub fn history(&self, session_id: &str) -> Vec<HistoryEntry> {
        self.store.get().map(|store| store.history(session_id)).unwrap_or_default()
    }

    pub fn set_position(&self, session_id: &str, position: Position) -> bool {
        let session = {
            let mut reducer = self.reducer();
            let session = reducer.set_position(session_id, position);
            if session.is_some() {
                self.persist(session_id, None);
            }
            session
        };
        self.announce(session)
    }

    /// Re-flags stale and archived sessions by their silence at `now`.
    pub fn mark_silence(&self, now: Millis, ages: Ages) {
        let changed = {
            let mut reducer = self.reducer();
            let changed = reducer.mark_silence(now, ages);
            for session in &changed {
                self.persist(&session.session_id, None);
            }
            changed
        };
        for session in changed {
            self.announce(Some(session));
        }
    }

    /// Removes every ended session; returns how many.
    pub fn remove_ended(&self) -> usize {
        let ended: Vec<String> =
            self.snapshot().sessions.into_iter().filter(|s| s.ended).map(|s| s.session_id).collect();
        ended.iter().filter(|id| self.remove(id)).count()
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
        let cleared = {
            let mut reducer = self.reducer();
            let cleared = reducer.clear_unread(session_id);
            if cleared.is_some() {
                self.persist(session_id, None);
            }
            cleared
        };
        self.announce(cleared)
    }

    pub fn set_agent_title(&self, session_id: &str, title: Option<String>) -> bool {
        let changed = {
            let mut reducer = self.reducer();
            let changed = reducer.set_agent_title(session_id, title);
            if changed.is_some() {
                self.persist(session_id, None);
            }
            changed
        };
        self.announce(changed)
    }

    pub fn remove(&self, session_id: &str) -> bool {
        let removed = {
            let mut reducer = self.reducer();
            let removed = reducer.remove(session_id).is_some();
            if let (true, Some(store)) = (removed, self.store.get()) {
                store.remove(session_id);
            }
            removed
        };
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
