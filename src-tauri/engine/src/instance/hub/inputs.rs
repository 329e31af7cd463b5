//! The hub's one input queue: every change to the sessions is an [`Input`] on it — hooks and the
//! watchers' cues (bounded), the clock, the window's focus, the user's actions (never dropped) and
//! a remote's reports. Its own module, so whoever sends needs nothing else of the hub.

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;

use switchboard_core::{Ages, Millis, Position, Session, StatusEvent};
use tokio::sync::{mpsc, oneshot};

/// Where the hub answers a user's action: whether it changed anything, or how many.
pub type Reply<T> = oneshot::Sender<T>;

/// Something that can change the sessions: the only way anything does.
#[derive(Debug)]
pub enum Input {
    /// A normalized hook event (or the agent watch's cue).
    Hook(Box<StatusEvent>),
    /// The agent's own name for a session, read from its files.
    AgentTitle { session_id: String, title: Option<String> },
    /// An answer or reply given from the board (issue 24) or the phone (issue 49): an entry in
    /// its history, its status untouched (the CLI's own next events move it). The reply says
    /// whether it was written (`false`: the session is gone), so whoever reports "done" does so
    /// once the history shows it.
    Answered { session_id: String, said: String, at: Millis, reply: Option<Reply<bool>> },
    /// What the meter read about a session: its tokens, footprint or git state (issue 25).
    Reading { session_id: String, reading: switchboard_core::usage::Reading },
    /// What a part of the instance needs the user to know (`None`: resolved), by source.
    Notice { source: &'static str, text: Option<String> },
    /// The user answered the held permission `id` from Switchboard (issue "act from the board").
    /// `said`: what was answered, for a held question.
    Decided { session_id: String, id: u64, allow: bool, said: Option<String>, at: Millis },
    /// The hold `id` ended unanswered (timed out, or the CLI stopped waiting for its hook).
    DecisionEnded { session_id: String, id: u64 },
    /// The clock: stale and archived flags are recomputed for the silence at `now`.
    Tick { now: Millis, ages: Ages },
    /// The app's window gained or lost the focus (`should_notify` reads it).
    WindowFocused(bool),
    /// The user opened the node (click, keyboard, tray or notification): `false` if unknown.
    ClearUnread { session_id: String, reply: Option<Reply<bool>> },
    /// The user put the node somewhere: `false` if unknown or unchanged.
    SetPosition { session_id: String, position: Position, reply: Option<Reply<bool>> },
    /// The user (or `doctor`, for its test event) took the session off the board.
    Remove { session_id: String, reply: Option<Reply<bool>> },
    /// The user cleared every ended session: how many went.
    RemoveEnded { reply: Option<Reply<usize>> },
    /// What remote `host`'s link said (issue 23). Queued with `send`: bounded like hooks, so a
    /// flooding remote cannot crowd out this machine's agents (its link resyncs when one drops).
    Remote { host: String, report: RemoteReport },
}

/// A remote's sessions, as its own instance reduced them.
#[derive(Debug)]
pub enum RemoteReport {
    Changed(Box<Session>),
    Removed(String),
    /// All its sessions now (a fresh snapshot): those not in it are gone.
    Snapshot(Vec<Session>),
    /// Its link is down since then: its sessions say so.
    Unreachable {
        since: Millis,
    },
    /// Its link is back and current.
    Reachable,
    /// It is no longer followed: its sessions leave the board.
    Forget,
}

/// One queued input, and whether it counts against the bound.
struct Queued {
    input: Input,
    bounded: bool,
}

/// The sending side of the input queue; cheap to clone, never blocks. Inputs from the agents
/// (hooks, watchers) are bounded: past `capacity` waiting (the reducer is wedged) they are
/// dropped and counted rather than making an agent wait. The user's actions are never dropped.
/// One queue for both keeps their order: whatever was acknowledged before an action is applied
/// before it.
#[derive(Clone)]
pub struct Inputs {
    sender: mpsc::UnboundedSender<Queued>,
    waiting: Arc<AtomicUsize>,
    capacity: usize,
    dropped: Arc<AtomicU64>,
}

/// The receiving side, for [`Hub::run`].
pub struct InputQueue {
    receiver: mpsc::UnboundedReceiver<Queued>,
    waiting: Arc<AtomicUsize>,
}

impl InputQueue {
    /// The next input already queued, if any (tests look at what a part sent).
    pub fn try_recv(&mut self) -> Option<Input> {
        let queued = self.receiver.try_recv().ok()?;
        Some(self.taken(queued))
    }

    pub(super) async fn recv(&mut self) -> Option<Input> {
        let queued = self.receiver.recv().await?;
        Some(self.taken(queued))
    }

    fn taken(&self, queued: Queued) -> Input {
        if queued.bounded {
            self.waiting.fetch_sub(1, Ordering::Relaxed);
        }
        queued.input
    }
}

/// An input queue that holds at most `capacity` inputs from the agents.
pub fn inputs(capacity: usize) -> (Inputs, InputQueue) {
    let (sender, receiver) = mpsc::unbounded_channel();
    let waiting = Arc::new(AtomicUsize::new(0));
    let inputs = Inputs { sender, waiting: Arc::clone(&waiting), capacity, dropped: Arc::new(AtomicU64::new(0)) };
    (inputs, InputQueue { receiver, waiting })
}

impl Inputs {
    /// Queues an input from the agents; `false` if it was dropped (the queue is full, or the
    /// instance is stopping).
    pub fn send(&self, input: Input) -> bool {
        if self.waiting.fetch_add(1, Ordering::Relaxed) >= self.capacity {
            self.waiting.fetch_sub(1, Ordering::Relaxed);
            let dropped = self.dropped.fetch_add(1, Ordering::Relaxed) + 1;
            if dropped.is_power_of_two() {
                tracing::warn!(dropped, "the reducer queue is full; dropping inputs");
            }
            return false;
        }
        if self.sender.send(Queued { input, bounded: true }).is_err() {
            self.waiting.fetch_sub(1, Ordering::Relaxed);
            return false;
        }
        true
    }

    /// Queues an input that must not be lost (the user's, the clock's); `false` only when the
    /// instance is stopping.
    pub fn push(&self, input: Input) -> bool {
        self.sender.send(Queued { input, bounded: false }).is_ok()
    }

    /// Queues a user's action and waits for the hub's answer (`None`: the instance stopped).
    pub async fn ask<T>(&self, action: impl FnOnce(Option<Reply<T>>) -> Input) -> Option<T> {
        let (reply, answer) = oneshot::channel();
        self.push(action(Some(reply))).then_some(())?;
        answer.await.ok()
    }

    /// [`ask`](Self::ask) for a thread outside the async runtime (a notification's click, the
    /// tray, a blocking task). Panics if called on an async worker.
    pub fn ask_blocking<T>(&self, action: impl FnOnce(Option<Reply<T>>) -> Input) -> Option<T> {
        let (reply, answer) = oneshot::channel();
        self.push(action(Some(reply))).then_some(())?;
        answer.blocking_recv().ok()
    }

    /// Inputs dropped because the queue was full.
    pub fn dropped(&self) -> u64 {
        self.dropped.load(Ordering::Relaxed)
    }
}
