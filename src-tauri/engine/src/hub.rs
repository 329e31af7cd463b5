//! The hub: the one reducer of a running instance, between its inputs and its outputs.
//!
//! Inputs (the hook server, the title watcher, …) send typed [`Input`]s into one bounded queue
//! that [`Hub::run`] drains; the user's own actions (open a node, drag it, remove it) call the
//! hub directly since they want an answer. Every change goes out as an [`Update`] to each
//! subscriber's own channel, in the order the reducer made them (store, notifier, web view, …).
//! No subscriber calls back into the hub, and none knows another. See docs/ARCHITECTURE.md.

use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc as channel;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use switchboard_core::{Ages, Change, HistoryEntry, Millis, Position, Reducer, Restored, Snapshot, StatusEvent};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

/// Recent status changes kept in memory per session, for the details panel (the store's
/// commit can be up to its flush interval behind).
pub const RECENT_HISTORY: usize = 50;

/// Something that can change the sessions.
#[derive(Clone, Debug, PartialEq)]
pub enum Input {
    /// A normalized hook event.
    Hook(Box<StatusEvent>),
    /// The agent's own name for a session, read from its files.
    AgentTitle { session_id: String, title: Option<String> },
    /// What a part of the instance needs the user to know (`None`: resolved), by source.
    Notice { source: &'static str, text: Option<String> },
    /// The user answered the held permission `id` from Switchboard (issue "act from the board").
    Decided { session_id: String, id: u64, allow: bool },
    /// The hold `id` ended unanswered (timed out, or the CLI stopped waiting for its hook).
    DecisionEnded { session_id: String, id: u64 },
}

/// What every subscriber is told.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Update {
    Changed(Box<Changed>),
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

/// The sending side of the input queue; cheap to clone, never blocks. A full queue (the
/// reducer is wedged) drops the input and counts it rather than making an agent wait.
#[derive(Clone)]
pub struct Inputs {
    sender: mpsc::Sender<Input>,
    dropped: Arc<AtomicU64>,
}

/// The receiving side, for [`Hub::run`].
pub struct InputQueue(pub(crate) mpsc::Receiver<Input>);

/// A bounded input queue.
pub fn inputs(capacity: usize) -> (Inputs, InputQueue) {
    let (sender, receiver) = mpsc::channel(capacity);
    (Inputs { sender, dropped: Arc::new(AtomicU64::new(0)) }, InputQueue(receiver))
}

impl Inputs {
    /// Queues an input; `false` if it was dropped.
    pub fn send(&self, input: Input) -> bool {
        if self.sender.try_send(input).is_ok() {
            return true;
        }
        let dropped = self.dropped.fetch_add(1, Ordering::Relaxed) + 1;
        if dropped.is_power_of_two() {
            tracing::warn!(dropped, "the reducer queue is full; dropping inputs");
        }
        false
    }

    /// Inputs dropped because the queue was full.
    pub fn dropped(&self) -> u64 {
        self.dropped.load(Ordering::Relaxed)
    }
}

type Subscriber = Box<dyn Fn(&Update) -> bool + Send>;

pub struct Hub {
    state: Mutex<State>,
    window_focused: AtomicBool,
}

struct State {
    reducer: Reducer,
    subscribers: Vec<Subscriber>,
    recent: HashMap<String, VecDeque<HistoryEntry>>,
    notices: std::collections::BTreeMap<&'static str, String>,
}

impl Default for Hub {
    fn default() -> Self {
        Self::new()
    }
}

impl Hub {
    pub fn new() -> Self {
        Self {
            state: Mutex::new(State {
                reducer: Reducer::new(),
                subscribers: Vec::new(),
                recent: HashMap::new(),
                notices: std::collections::BTreeMap::new(),
            }),
            window_focused: AtomicBool::new(false),
        }
    }

    fn state(&self) -> MutexGuard<'_, State> {
        // The reducer is pure and never panics mid-update; a poisoned lock still holds valid state.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Every update from now on goes to `sender`, converted to the subscriber's own message
    /// type; a subscriber whose receiver is gone is dropped.
    pub fn subscribe<T: From<Update> + Send + 'static>(&self, sender: channel::Sender<T>) {
        self.state().subscribers.push(Box::new(move |update| sender.send(T::from(update.clone())).is_ok()));
    }

    /// A new subscriber's receiver of plain updates.
    pub fn updates(&self) -> channel::Receiver<Update> {
        let (sender, receiver) = channel::channel();
        self.subscribe(sender);
        receiver
    }

    /// The reducer stage: applies every input until `stop` is cancelled, then what is still
    /// queued (it was acknowledged), and returns.
    pub async fn run(self: Arc<Self>, mut queue: InputQueue, stop: CancellationToken) {
        loop {
            tokio::select! {
                input = queue.0.recv() => match input {
                    Some(input) => self.apply(input),
                    None => return,
                },
                () = stop.cancelled() => break,
            }
        }
        while let Ok(input) = queue.0.try_recv() {
            self.apply(input);
        }
    }

    pub fn apply(&self, input: Input) {
        match input {
            Input::Hook(event) => self.apply_event(&event),
            Input::AgentTitle { session_id, title } => {
                self.update(|reducer| reducer.set_agent_title(&session_id, title).map(|s| s.session_id));
            }
            Input::Decided { session_id, id, allow } => self.apply_decided(&session_id, id, allow),
            Input::DecisionEnded { session_id, id } => {
                self.update(|reducer| reducer.end_decision(&session_id, id).map(|s| s.session_id));
            }
            Input::Notice { source, text } => {
                let mut state = self.state();
                let changed = match text {
                    Some(text) => state.notices.insert(source, text.clone()).as_ref() != Some(&text),
                    None => state.notices.remove(source).is_some(),
                };
                if changed {
                    let notices = state.notices.values().cloned().collect();
                    state.publish(&Update::Notices(notices));
                }
            }
        }
    }

    pub fn apply_event(&self, event: &StatusEvent) {
        let focused = self.window_focused.load(Ordering::Relaxed);
        let mut state = self.state();
        let change = state.reducer.apply(event, focused);
        // Sessions evicted to keep the reducer bounded are gone for every subscriber too.
        for id in state.reducer.take_evicted() {
            state.recent.remove(&id);
            state.publish(&Update::Removed(id));
        }
        if let Some(change) = change {
            let history = HistoryEntry::of(&change);
            state.publish_change(change, history);
        }
    }

    /// An answer from the board lets the agent go on (a refused tool goes back to the model too):
    /// `working`, with what was decided in the message and the history. Only for the hold still
    /// on offer: an answer that lost the race to the terminal changes nothing.
    fn apply_decided(&self, session_id: &str, id: u64, allow: bool) {
        let event = {
            let state = self.state();
            let Some(session) = state.reducer.get(session_id).filter(|s| s.decision == Some(id)) else { return };
            let verb = if allow { "Allowed" } else { "Denied" };
            let message = match &session.message {
                Some(what) => format!("{verb} from Switchboard: {what}"),
                None => format!("{verb} from Switchboard"),
            };
            StatusEvent {
                agent: session.agent.clone(),
                session_id: session_id.to_owned(),
                status: Some(switchboard_core::AgentStatus::Working),
                cue: switchboard_core::Cue::Approved,
                message: Some(message),
                ts: crate::server::now_millis(),
                ..StatusEvent::default()
            }
        };
        self.apply_event(&event);
    }

    /// Sessions saved by an earlier run; call before inputs flow.
    pub fn restore(&self, sessions: Vec<Restored>) {
        self.state().reducer.restore(sessions);
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

    pub fn set_position(&self, session_id: &str, position: Position) -> bool {
        self.update(|reducer| reducer.set_position(session_id, position).map(|s| s.session_id))
    }

    /// Re-flags stale and archived sessions by their silence at `now`.
    pub fn mark_silence(&self, now: Millis, ages: Ages) {
        let mut state = self.state();
        let changed = state.reducer.mark_silence(now, ages);
        for session in changed {
            state.publish_quiet(&session.session_id);
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

    /// The user opened the node. `false` for an unknown session.
    pub fn clear_unread(&self, session_id: &str) -> bool {
        self.update(|reducer| reducer.clear_unread(session_id).map(|s| s.session_id))
    }

    pub fn remove(&self, session_id: &str) -> bool {
        let mut state = self.state();
        if state.reducer.remove(session_id).is_none() {
            return false;
        }
        state.recent.remove(session_id);
        state.publish(&Update::Removed(session_id.to_owned()));
        true
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

    /// Runs a change that is not a status event (no notification, no history entry) and
    /// publishes the session if it changed.
    fn update(&self, change: impl FnOnce(&mut Reducer) -> Option<String>) -> bool {
        let mut state = self.state();
        match change(&mut state.reducer) {
            Some(session_id) => {
                state.publish_quiet(&session_id);
                true
            }
            None => false,
        }
    }
}

impl State {
    fn publish_change(&mut self, change: Change, history: Option<HistoryEntry>) {
        let id = change.session.session_id.clone();
        if let Some(entry) = &history {
            let recent = self.recent.entry(id.clone()).or_default();
            if recent.len() == RECENT_HISTORY {
                recent.pop_front();
            }
            recent.push_back(entry.clone());
        }
        let saved = self.reducer.saved(&id);
        let (event_title, agent_title) = saved.map(|s| (s.event_title, s.agent_title)).unwrap_or_default();
        self.publish(&Update::Changed(Box::new(Changed { change, event_title, agent_title, history })));
    }

    fn publish_quiet(&mut self, session_id: &str) {
        if let Some(session) = self.reducer.get(session_id).cloned() {
            let previous = session.status;
            self.publish_change(Change { session, previous, notify: false }, None);
        }
    }

    /// Sent with the state locked, so every subscriber sees changes in the reducer's order.
    fn publish(&mut self, update: &Update) {
        self.subscribers.retain(|subscriber| subscriber(update));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use switchboard_core::{normalize, AgentStatus};

    fn event(id: &str, status: &str, at: Millis) -> Input {
        Input::Hook(Box::new(normalize("custom", &json!({"sessionId": id, "status": status}), at).unwrap()))
    }

    #[test]
    fn every_subscriber_gets_every_update_in_order() {
        let hub = Hub::new();
        let (first, second) = (hub.updates(), hub.updates());
        hub.apply(event("a", "working", 1));
        hub.apply(event("a", "blocked", 2));
        assert!(hub.remove("a"));
        for updates in [first, second] {
            let got: Vec<Update> = updates.try_iter().collect();
            assert_eq!(got.len(), 3);
            let Update::Changed(blocked) = &got[1] else { panic!("{got:?}") };
            assert_eq!(blocked.change.session.status, Some(AgentStatus::Blocked));
            assert!(blocked.change.notify);
            assert_eq!(got[2], Update::Removed("a".into()));
        }
    }

    #[test]
    fn a_subscriber_that_went_away_is_dropped_and_the_others_go_on() {
        let hub = Hub::new();
        drop(hub.updates());
        let kept = hub.updates();
        hub.apply(event("a", "working", 1));
        hub.apply(event("b", "working", 1));
        assert_eq!(kept.try_iter().count(), 2);
        assert_eq!(hub.state().subscribers.len(), 1);
    }

    #[test]
    fn history_includes_the_change_just_made_before_the_store_has_it() {
        let hub = Hub::new();
        hub.apply(event("a", "working", 1));
        hub.apply(event("a", "done", 2));
        let history = hub.history("a", Vec::new());
        assert_eq!(history.iter().map(|e| e.status).collect::<Vec<_>>(), [AgentStatus::Working, AgentStatus::Done]);
        // Entries the store already committed are not listed twice.
        let stored = history[..1].to_vec();
        assert_eq!(hub.history("a", stored).len(), 2);
    }

    #[test]
    fn a_full_queue_drops_inputs_and_counts_them() {
        let (inputs, _queue) = inputs(4);
        let sent = (0..20).filter(|i| inputs.send(event(&format!("q{i}"), "working", 1))).count();
        assert_eq!((sent, inputs.dropped()), (4, 16));
    }
}
