//! A subscriber's mailbox: the hub's updates for one subscriber, bounded by the sessions rather
//! than by time. A subscriber that keeps up — fewer than [`MERGE_AFTER`] waiting — gets every
//! update, in order (the agent watch follows each turn opening and closing). One that falls far
//! behind (a flood of hooks, a slow disk, a busy web view) finds each session's further changes
//! merged into its latest waiting one — the latest state, where the run started, and whether any
//! of it asked to notify — so what waits stays under [`MERGE_AFTER`] plus one change per session
//! and one removal per session it has seen, however long the flood. Every session's updates stay
//! in their order; only the interleaving between sessions may change.

use std::collections::VecDeque;
use std::sync::mpsc::{RecvError, RecvTimeoutError, TryRecvError};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use foldhash::{HashMap, HashSet};

use crate::instance::hub::update::{Changed, Update};

/// Waiting updates past which a session's new change merges into its waiting one.
pub const MERGE_AFTER: usize = 4_096;
/// A subscriber woken again sooner than this after its last wake waits out the rest of it
/// before it takes what came, so under a flood it wakes at most 50 times a second and takes
/// what queued meanwhile in one go — a coalesced change set — instead of a thread switch per
/// update (issues 39, 47: the subscriber threads woken for every hook cost more CPU than the
/// hook itself). An update after a quiet spell is taken at once; one close behind another waits
/// at most this long, below what a person notices on a card or a notification.
pub const PACE: Duration = Duration::from_millis(20);

/// Updates [`Updates::try_iter`] takes under one lock.
const TAKE_AT_ONCE: usize = 256;

/// A session's waiting changes, by absolute position, oldest first.
type Waiting = VecDeque<u64>;

#[derive(Default)]
struct Queue {
    /// Waiting updates; a `None` is a change merged away (taken out of the middle).
    waiting: VecDeque<Option<Update>>,
    /// The absolute position of `waiting[0]`.
    head: u64,
    /// The `Some` slots in `waiting`.
    live: usize,
    /// Each session's waiting changes, kept only from when the subscriber falls [`MERGE_AFTER`]
    /// behind or a removal is posted to a non-empty queue until it has taken everything: one
    /// that keeps up pays no map update per change (issue 47).
    changed_at: Option<HashMap<String, Waiting>>,
    /// Sessions this subscriber has been told of and not told are gone: only those need a
    /// removal (a session that came and went while it was behind is not news).
    known: HashSet<String>,
    /// Sessions whose removal waits: far behind, a second one (after a return merged away) is
    /// not posted again.
    removal_waiting: HashMap<String, u64>,
    /// The hub is gone: nothing more will come.
    closed: bool,
    /// The subscriber is gone: the hub stops publishing to it.
    dropped: bool,
    /// When the subscriber last woke for an update (see [`PACE`]).
    woke_at: Option<Instant>,
}

struct Shared {
    queue: Mutex<Queue>,
    ready: Condvar,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, Queue> {
        // Nothing panics while holding it; a poisoned lock still holds a valid queue.
        self.queue.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Called when a waiting subscriber was woken with an update: if it woke less than [`PACE`]
    /// ago already (but not past `deadline`), it lets what is on its way queue up first.
    fn paced<'a>(&'a self, mut queue: MutexGuard<'a, Queue>, deadline: Option<Instant>) -> MutexGuard<'a, Queue> {
        let now = Instant::now();
        let Some(last) = queue.woke_at.replace(now) else { return queue };
        let mut until = last + PACE;
        if let Some(deadline) = deadline {
            until = until.min(deadline);
        }
        if until <= now || queue.live == 0 {
            return queue;
        }
        drop(queue);
        std::thread::sleep(until - now);
        let mut queue = self.lock();
        queue.woke_at = Some(Instant::now());
        queue
    }
}

/// The hub's end of one mailbox. Dropping it (the hub is gone) ends the subscriber's loop.
pub(crate) struct Poster(Arc<Shared>);

/// The subscriber's end: `recv`, `recv_timeout`, `try_recv`, `try_iter` and a blocking
/// iterator, with the errors of `std::sync::mpsc`.
pub struct Updates(Arc<Shared>);

/// A new mailbox: the hub posts, the subscriber receives. `known`: the sessions the subscriber
/// already knows of (the hub's, as it subscribes): a removal of one of them is news to it.
pub(crate) fn mailbox(known: impl IntoIterator<Item = String>) -> (Poster, Updates) {
    let queue = Queue { known: known.into_iter().collect(), ..Queue::default() };
    let shared = Arc::new(Shared { queue: Mutex::new(queue), ready: Condvar::new() });
    (Poster(Arc::clone(&shared)), Updates(shared))
}

impl Poster {
    /// Posts one update; `false` once the subscriber is gone.
    #[cfg(test)]
    pub(crate) fn post(&self, update: &Update) -> bool {
        self.post_all(std::slice::from_ref(update))
    }

    /// Posts a batch under one lock, with at most one wake; `false` once the subscriber is gone.
    pub(crate) fn post_all(&self, updates: &[Update]) -> bool {
        let mut queue = self.0.lock();
        if queue.dropped {
            return false;
        }
        let was_empty = queue.live == 0;
        for update in updates {
            queue.post(update);
        }
        let woken = was_empty && queue.live > 0;
        drop(queue);
        if woken {
            self.0.ready.notify_one();
        }
        true
    }
}

impl Drop for Poster {
    fn drop(&mut self) {
        self.0.lock().closed = true;
        self.0.ready.notify_all();
    }
}

impl Queue {
    fn post(&mut self, update: &Update) {
        match update {
            Update::Changed(changed) => {
                let id = &changed.change.session.session_id;
                let behind = self.live >= MERGE_AFTER;
                let at = self.head + self.waiting.len() as u64;
                if behind || self.changed_at.is_some() {
                    // Never into a change before a waiting removal: the session came back since.
                    let removed_at = self.removal_waiting.get(id).copied();
                    let changed_at = index(&mut self.changed_at, &self.waiting, self.head);
                    let newest = changed_at.get(id).and_then(|waiting| waiting.back().copied());
                    if let Some(merge_at) = newest.filter(|at| behind && removed_at.is_none_or(|removed| *at > removed))
                    {
                        if let Some(Update::Changed(waiting)) = &mut self.waiting[(merge_at - self.head) as usize] {
                            *waiting = Arc::new(merged(waiting, changed));
                            return;
                        }
                    }
                    // The id is copied only for a session with nothing waiting (not on every post).
                    match changed_at.get_mut(id) {
                        Some(waiting) => waiting.push_back(at),
                        None => {
                            changed_at.insert(id.clone(), VecDeque::from([at]));
                        }
                    }
                }
                self.push(update);
            }
            Update::Removed(id) => {
                let behind = self.live >= MERGE_AFTER;
                // Whether a change of it waits is asked of the index, built now if it is not kept
                // (in an empty queue none can wait).
                let mut waiting_change = false;
                if self.live > 0 {
                    let changed_at = index(&mut self.changed_at, &self.waiting, self.head);
                    // Far behind: the waiting changes of a session now gone are not news.
                    if behind {
                        for at in changed_at.remove(id).unwrap_or_default() {
                            self.waiting[(at - self.head) as usize] = None;
                            self.live -= 1;
                        }
                    }
                    waiting_change = changed_at.contains_key(id);
                }
                // Told of it (or about to be, by a change still waiting): it must hear it is gone
                // — once, if nothing came between.
                let already = !waiting_change && self.removal_waiting.contains_key(id);
                if (self.known.contains(id) || waiting_change) && !already {
                    self.removal_waiting.insert(id.clone(), self.head + self.waiting.len() as u64);
                    self.push(update);
                }
            }
            Update::Notices(_) => self.push(update),
        }
    }

    fn push(&mut self, update: &Update) {
        self.waiting.push_back(Some(update.clone()));
        self.live += 1;
    }

    fn take(&mut self) -> Option<Update> {
        while let Some(slot) = self.waiting.pop_front() {
            self.head += 1;
            let Some(update) = slot else { continue };
            self.live -= 1;
            match &update {
                Update::Changed(changed) => {
                    let id = &changed.change.session.session_id;
                    if let Some(changed_at) = &mut self.changed_at {
                        if let Some(waiting) = changed_at.get_mut(id) {
                            waiting.pop_front();
                            if waiting.is_empty() {
                                changed_at.remove(id);
                            }
                        }
                    }
                    if !self.known.contains(id) {
                        self.known.insert(id.clone());
                    }
                }
                Update::Removed(id) => {
                    self.known.remove(id);
                    if self.removal_waiting.get(id) == Some(&(self.head - 1)) {
                        self.removal_waiting.remove(id);
                    }
                }
                Update::Notices(_) => {}
            }
            if self.live == 0 {
                // Caught up: nothing to merge into, nothing to look up.
                self.changed_at = None;
            }
            return Some(update);
        }
        None
    }
}

/// Each session's waiting changes (`Queue::changed_at`), read off the queue if not kept yet.
fn index<'a>(
    changed_at: &'a mut Option<HashMap<String, Waiting>>,
    waiting: &VecDeque<Option<Update>>,
    head: u64,
) -> &'a mut HashMap<String, Waiting> {
    changed_at.get_or_insert_with(|| {
        let mut changed_at: HashMap<String, Waiting> = HashMap::default();
        for (offset, slot) in waiting.iter().enumerate() {
            if let Some(Update::Changed(changed)) = slot {
                let id = &changed.change.session.session_id;
                changed_at.entry(id.clone()).or_default().push_back(head + offset as u64);
            }
        }
        changed_at
    })
}

/// Two changes of one session as one: the later state, from where the earlier started; it asks
/// to notify if the later does, or the earlier did and the status has not moved on since.
fn merged(earlier: &Changed, later: &Changed) -> Changed {
    let mut change = later.change.clone();
    change.previous = earlier.change.previous;
    change.notify =
        later.change.notify || (earlier.change.notify && later.change.session.status == earlier.change.session.status);
    Changed {
        change,
        event_title: later.event_title.clone(),
        agent_title: later.agent_title.clone(),
        history: later.history.clone().or_else(|| earlier.history.clone()),
        transcript_from: earlier.transcript_from.or(later.transcript_from),
    }
}

impl Updates {
    /// The next update, waiting for one; `Err` once the hub is gone and nothing is left.
    pub fn recv(&self) -> Result<Update, RecvError> {
        let mut queue = self.0.lock();
        loop {
            if let Some(update) = queue.take() {
                return Ok(update);
            }
            if queue.closed {
                return Err(RecvError);
            }
            queue = self.0.ready.wait(queue).unwrap_or_else(PoisonError::into_inner);
            queue = self.0.paced(queue, None);
        }
    }

    /// The next update, waiting at most `timeout`.
    pub fn recv_timeout(&self, timeout: Duration) -> Result<Update, RecvTimeoutError> {
        let deadline = Instant::now() + timeout;
        let mut queue = self.0.lock();
        loop {
            if let Some(update) = queue.take() {
                return Ok(update);
            }
            if queue.closed {
                return Err(RecvTimeoutError::Disconnected);
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Err(RecvTimeoutError::Timeout);
            }
            queue = self.0.ready.wait_timeout(queue, left).unwrap_or_else(PoisonError::into_inner).0;
            queue = self.0.paced(queue, Some(deadline));
        }
    }

    /// The next update if one waits.
    pub fn try_recv(&self) -> Result<Update, TryRecvError> {
        let mut queue = self.0.lock();
        match queue.take() {
            Some(update) => Ok(update),
            None if queue.closed => Err(TryRecvError::Disconnected),
            None => Err(TryRecvError::Empty),
        }
    }

    /// Every update waiting now, without blocking: taken [`TAKE_AT_ONCE`] at a time under one
    /// lock (not a lock per update, nor a second copy of a long queue).
    pub fn try_iter(&self) -> impl Iterator<Item = Update> + '_ {
        let mut taken = Vec::new().into_iter();
        std::iter::from_fn(move || {
            if taken.len() == 0 {
                let mut queue = self.0.lock();
                taken = std::iter::from_fn(|| queue.take()).take(TAKE_AT_ONCE).collect::<Vec<_>>().into_iter();
            }
            taken.next()
        })
    }

    /// Updates waiting (merged ones counted once): what a subscriber is behind by.
    pub fn waiting(&self) -> usize {
        self.0.lock().live
    }
}

impl Drop for Updates {
    fn drop(&mut self) {
        let mut queue = self.0.lock();
        queue.dropped = true;
        queue.waiting.clear();
        queue.changed_at = None;
        queue.removal_waiting.clear();
        queue.live = 0;
    }
}

/// Blocks for each update until the hub is gone.
impl Iterator for Updates {
    type Item = Update;

    fn next(&mut self) -> Option<Update> {
        self.recv().ok()
    }
}

#[cfg(test)]
mod tests;
