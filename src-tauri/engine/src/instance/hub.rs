//! The hub: the one reducer of a running instance, between its inputs and its outputs.
//!
//! Every change is an [`Input`] on one queue that [`Hub::run`] drains: hooks and the watchers'
//! cues (bounded: dropped and counted if the reducer is wedged), the clock's tick, the window's
//! focus, and the user's own actions (open a node, drag it, remove it), which carry a reply
//! channel and are never dropped. One FIFO queue makes the order of any two changes defined.
//! Every change goes out as an [`Update`] to each subscriber's own channel, in the order the
//! reducer made them (store, notifier, web view, …), a batch at a time: what one wake of the
//! reducer changed is handed to each subscriber once. No subscriber calls back into the hub, and
//! none knows another. See docs/ARCHITECTURE.md.
//!
//! The queue itself is `inputs.rs`; what goes out, `update.rs`.

/// Light subscribers sharing one thread and one mailbox.
pub mod follow;
/// The one queue every change comes in by.
pub mod inputs;
/// The numbered updates links resume from.
pub mod journal;
/// Each subscriber's bounded mailbox.
pub mod mailbox;
/// What subscribers are told.
pub mod update;

use std::collections::{BTreeMap, VecDeque};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use foldhash::{HashMap, HashMapExt};
use switchboard_core::{AgentStatus, Change, HistoryEntry, Reducer, Restored, Session, Snapshot, StatusEvent};
use tokio_util::sync::CancellationToken;

use crate::instance::hub::mailbox::{mailbox, Updates};

/// Recent status changes kept in memory per session, for the details panel (the store's
/// commit can be up to its flush interval behind).
pub const RECENT_HISTORY: usize = 50;
/// Inputs the reducer takes under one lock when they queued up.
const BURST: usize = 256;

pub use crate::instance::hub::inputs::{inputs, Input, InputQueue, Inputs, RemoteReport, Reply};
pub use crate::instance::hub::update::{Changed, Update};

/// Takes what one batch of inputs changed, in the reducer's order; `false`: it is gone.
type Subscriber = Box<dyn Fn(&[Update]) -> bool + Send>;

/// Owns the reducer of a running instance. Nothing outside [`Hub::run`] changes it: every change
/// is an [`Input`] on the queue. Others may read (the snapshot, a session's history, notices)
/// and subscribe.
pub struct Hub {
    state: Mutex<State>,
}

struct State {
    reducer: Reducer,
    subscribers: Vec<Subscriber>,
    /// What the inputs applied since the last [`State::flush`] changed, for the subscribers.
    outbox: Vec<Update>,
    recent: HashMap<String, VecDeque<HistoryEntry>>,
    notices: BTreeMap<&'static str, String>,
    window_focused: bool,
}

impl Default for Hub {
    fn default() -> Self {
        Self::new()
    }
}

impl Hub {
    pub fn new() -> Self {
        Self::with_restored(Vec::new())
    }

    /// A hub that starts from sessions saved by an earlier run.
    pub fn with_restored(sessions: Vec<Restored>) -> Self {
        let mut reducer = Reducer::new();
        reducer.restore(sessions);
        Self {
            state: Mutex::new(State {
                reducer,
                subscribers: Vec::new(),
                outbox: Vec::new(),
                recent: HashMap::new(),
                notices: BTreeMap::new(),
                window_focused: false,
            }),
        }
    }

    fn state(&self) -> MutexGuard<'_, State> {
        // The reducer is pure and never panics mid-update; a poisoned lock still holds valid state.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Every update from now on is handed to `take`, with the hub locked (so in the reducer's
    /// order): it must be quick and never call back into the hub. Returning `false` unsubscribes.
    pub fn subscribe(&self, take: impl Fn(&Update) -> bool + Send + 'static) {
        self.subscribe_batches(move |updates| updates.iter().all(&take));
    }

    /// The same, a batch at a time: what one wake of the reducer changed, handed over once
    /// (issue 47: one lock and one wake per subscriber per batch, never one per event).
    pub fn subscribe_batches(&self, take: impl Fn(&[Update]) -> bool + Send + 'static) {
        self.state().subscribers.push(Box::new(take));
    }

    /// A new subscriber's mailbox of updates: bounded by the sessions, whatever the flood (see
    /// [`mailbox`](crate::instance::hub::mailbox)).
    pub fn updates(&self) -> Updates {
        let mut state = self.state();
        // It knows the sessions there now (it reads them from the snapshot): their removals are
        // news to it. Under the same lock as the subscription, so nothing slips in between.
        let known = state.reducer.snapshot().sessions.into_iter().map(|session| session.session_id);
        let (poster, updates) = mailbox(known);
        state.subscribers.push(Box::new(move |updates| poster.post_all(updates)));
        updates
    }

    /// The reducer stage: applies every input until `stop` is cancelled, then what is still
    /// queued (it was acknowledged), and returns.
    pub async fn run(self: Arc<Self>, mut queue: InputQueue, stop: CancellationToken) {
        loop {
            tokio::select! {
                input = queue.recv() => match input {
                    Some(input) => {
                        // What queued meanwhile goes in under the same lock: a burst costs one
                        // lock, not one per event (bounded, so readers of the snapshot get a turn).
                        let mut state = self.state();
                        state.apply(input);
                        for input in std::iter::from_fn(|| queue.try_recv()).take(BURST) {
                            state.apply(input);
                        }
                        state.flush();
                    }
                    None => return,
                },
                () = stop.cancelled() => break,
            }
        }
        while let Some(input) = queue.try_recv() {
            self.apply(input);
        }
    }

    /// Applies one input and publishes what changed.
    pub(crate) fn apply(&self, input: Input) {
        let mut state = self.state();
        state.apply(input);
        state.flush();
    }

    /// The session's recent status changes, oldest first: what `stored` (the database's
    /// committed history) has, plus what changed since and is not committed yet.
    pub fn history(&self, session_id: &str, stored: Vec<HistoryEntry>) -> Vec<HistoryEntry> {
        let mut entries = stored;
        if let Some(recent) = self.state().recent.get(session_id) {
            for entry in recent {
                if !entries.contains(entry) {
                    entries.push(entry.clone());
                }
            }
        }
        let excess = entries.len().saturating_sub(RECENT_HISTORY);
        entries.drain(..excess);
        entries
    }

    /// One session as it is now.
    /// How many of `host`'s sessions are on the board (what it holds, not what the host sent).
    pub fn count(&self, host: &str) -> usize {
        self.state().reducer.count(host)
    }

    pub fn session(&self, session_id: &str) -> Option<Session> {
        self.state().reducer.get(session_id).cloned()
    }

    pub fn snapshot(&self) -> Snapshot {
        let state = self.state();
        let notices: Vec<String> = state.notices.values().cloned().collect();
        Snapshot { notices: (!notices.is_empty()).then_some(notices), ..state.reducer.snapshot() }
    }

    /// The instance's current notices.
    pub fn notices(&self) -> Vec<String> {
        self.state().notices.values().cloned().collect()
    }
}

/// Tells the asker, if it still listens.
fn answer<T>(reply: Option<Reply<T>>, value: T) {
    if let Some(reply) = reply {
        let _ = reply.send(value);
    }
}

impl State {
    /// Applies one input and publishes what changed: the one place sessions change.
    fn apply(&mut self, input: Input) {
        match input {
            Input::Hook(event) => self.apply_event(&event),
            Input::AgentTitle { session_id, title } => {
                self.update(|reducer| reducer.set_agent_title(&session_id, title).map(|s| s.session_id));
            }
            Input::Answered { session_id, said, at, reply } => {
                let found = self.reducer.get(&session_id).and_then(|s| s.status.map(|status| (s.clone(), status)));
                let Some((session, status)) = found else {
                    answer(reply, false);
                    return;
                };
                let entry = HistoryEntry {
                    at,
                    status,
                    tool: None,
                    question: None,
                    message: Some(said),
                    interrupted: false,
                    errored: false,
                };
                self.publish_change(Change { session, previous: Some(status), notify: false }, Some(entry));
                answer(reply, true);
            }
            Input::Reading { session_id, reading } => {
                self.update(|reducer| reducer.set_reading(&session_id, reading).map(|s| s.session_id));
            }
            Input::Decided { session_id, id, allow, said, at } => {
                let focused = self.window_focused;
                let change = self.reducer.decided(&session_id, id, allow, said.as_deref(), at, focused);
                self.publish_status(change);
            }
            Input::DecisionEnded { session_id, id } => {
                self.update(|reducer| reducer.end_decision(&session_id, id).map(|s| s.session_id));
            }
            Input::Notice { source, text } => {
                let changed = match text {
                    Some(text) => self.notices.insert(source, text.clone()).as_ref() != Some(&text),
                    None => self.notices.remove(source).is_some(),
                };
                if changed {
                    let notices = self.notices.values().cloned().collect();
                    self.publish(Update::Notices(notices));
                }
            }
            Input::Tick { now, ages } => {
                for session in self.reducer.mark_silence(now, ages) {
                    self.publish_quiet(&session.session_id);
                }
            }
            Input::WindowFocused(focused) => self.window_focused = focused,
            Input::ClearUnread { session_id, reply } => {
                let changed = self.update(|reducer| reducer.clear_unread(&session_id).map(|s| s.session_id));
                answer(reply, changed);
            }
            Input::SetPosition { session_id, position, reply } => {
                let changed = self.update(|reducer| reducer.set_position(&session_id, position).map(|s| s.session_id));
                answer(reply, changed);
            }
            Input::Remove { session_id, reply } => {
                let removed = self.remove(&session_id);
                answer(reply, removed);
            }
            Input::RemoveEnded { reply } => {
                let ended: Vec<String> =
                    self.reducer.snapshot().sessions.into_iter().filter(|s| s.ended).map(|s| s.session_id).collect();
                let removed = ended.iter().filter(|id| self.remove(id)).count();
                answer(reply, removed);
            }
            Input::Remote { host, report } => self.apply_remote(&host, report),
        }
    }

    fn apply_remote(&mut self, host: &str, report: RemoteReport) {
        let focused = self.window_focused;
        match report {
            RemoteReport::Changed(session) => {
                let change = self.reducer.mirror(host, *session, focused, crate::clock::now_millis());
                self.publish_evicted();
                self.publish_status(change);
            }
            RemoteReport::Removed(session_id) => {
                if let Some(gone) = self.reducer.unmirror(host, &session_id) {
                    self.recent.remove(&gone.session_id);
                    self.publish(Update::Removed(gone.session_id));
                }
            }
            RemoteReport::Snapshot(sessions) => {
                let now = crate::clock::now_millis();
                let kept: std::collections::HashSet<String> =
                    sessions.iter().map(|session| switchboard_core::remote_id(host, &session.session_id)).collect();
                for id in self.reducer.host_sessions(host) {
                    if !kept.contains(&id) {
                        self.remove(&id);
                    }
                }
                for session in sessions {
                    let change = self.reducer.mirror(host, session, focused, now);
                    self.publish_evicted();
                    self.publish_status(change);
                }
            }
            RemoteReport::Unreachable { since } => {
                for session in self.reducer.host_unreachable(host, since) {
                    self.publish_quiet(&session.session_id);
                }
            }
            RemoteReport::Reachable => {
                for session in self.reducer.host_reachable(host) {
                    self.publish_quiet(&session.session_id);
                }
            }
            RemoteReport::Forget => {
                for id in self.reducer.host_sessions(host) {
                    self.remove(&id);
                }
            }
        }
    }

    /// Sessions evicted to keep the reducer bounded are gone for every subscriber too.
    fn publish_evicted(&mut self) {
        for id in self.reducer.take_evicted() {
            self.recent.remove(&id);
            self.publish(Update::Removed(id));
        }
    }

    fn apply_event(&mut self, event: &StatusEvent) {
        let focused = self.window_focused;
        let change = self.reducer.apply(event, focused);
        self.publish_evicted();
        self.publish_status(change);
    }

    fn publish_status(&mut self, change: Option<Change>) {
        if let Some(change) = change {
            let history = HistoryEntry::of(&change);
            self.publish_change(change, history);
        }
    }

    /// Runs a change that is not a status event (no notification, no history entry) and
    /// publishes the session if it changed.
    fn update(&mut self, change: impl FnOnce(&mut Reducer) -> Option<String>) -> bool {
        match change(&mut self.reducer) {
            Some(session_id) => {
                self.publish_quiet(&session_id);
                true
            }
            None => false,
        }
    }

    fn remove(&mut self, session_id: &str) -> bool {
        if self.reducer.remove(session_id).is_none() {
            return false;
        }
        self.recent.remove(session_id);
        self.publish(Update::Removed(session_id.to_owned()));
        true
    }

    fn publish_change(&mut self, change: Change, history: Option<HistoryEntry>) {
        let id = &change.session.session_id;
        if let Some(entry) = &history {
            match self.recent.get_mut(id) {
                Some(recent) => {
                    if recent.len() == RECENT_HISTORY {
                        recent.pop_front();
                    }
                    recent.push_back(entry.clone());
                }
                None => {
                    self.recent.insert(id.clone(), VecDeque::from([entry.clone()]));
                }
            }
        }
        let (event_title, agent_title) = self.reducer.titles(id);
        let transcript = change.session.transcript_path.as_deref().filter(|_| turn_opened(&change));
        let transcript_from = transcript.and_then(|path| crate::files::regular_length(std::path::Path::new(path)));
        let changed = Changed { change, event_title, agent_title, history, transcript_from };
        self.publish(Update::Changed(Arc::new(changed)));
    }

    fn publish_quiet(&mut self, session_id: &str) {
        if let Some(session) = self.reducer.get(session_id).cloned() {
            let previous = session.status;
            self.publish_change(Change { session, previous, notify: false }, None);
        }
    }

    /// Queued for the subscribers, who are handed it (with the rest of its batch) by `flush`.
    fn publish(&mut self, update: Update) {
        self.outbox.push(update);
    }

    /// Hands what the batch changed to every subscriber, with the state still locked, so every
    /// subscriber sees changes in the reducer's order and a new one misses none.
    fn flush(&mut self) {
        if self.outbox.is_empty() {
            return;
        }
        let outbox = std::mem::take(&mut self.outbox);
        self.subscribers.retain(|subscriber| subscriber(&outbox));
        // The buffer is kept: a batch allocates nothing once the hub has warmed up.
        self.outbox = outbox;
        self.outbox.clear();
    }
}

#[cfg(test)]
mod tests;

/// Whether this change opened a turn of a session on this machine (its transcript is here): one
/// `stat` per turn on the hub's thread, never one per event.
fn turn_opened(change: &Change) -> bool {
    let open = |status: Option<AgentStatus>| matches!(status, Some(AgentStatus::Working | AgentStatus::Blocked));
    open(change.session.status) && !open(change.previous) && change.session.is_local()
}
