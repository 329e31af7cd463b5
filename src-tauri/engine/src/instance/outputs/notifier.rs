//! OS notifications through notify-rust (D-Bus on Linux), kept off the async runtime: a daemon
//! that owns the bus name but never answers makes `show()` block forever, so each notification
//! gets its own thread with a deadline, and a wedged daemon turns notifications off instead of
//! piling up threads. Ingestion never waits on any of it.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{self, SyncSender, TrySendError};
use std::sync::Arc;
use std::time::{Duration, Instant};

use switchboard_core::{notification_text, NotificationText, Session};

use crate::instance::hub::follow::{together, Follower, Priority};
use crate::instance::hub::{Changed, Update};
use crate::protocol::Verdict;

const QUEUE: usize = 64;

/// One notification to show: the session, its words, and the held permission it can answer.
struct Job {
    session_id: String,
    text: NotificationText,
    decision: Option<u64>,
    /// The forwarder told where the agent runs, so there is a terminal to jump to.
    jumpable: bool,
}
const SHOW_DEADLINE: Duration = Duration::from_secs(3);
const MAX_STUCK: usize = 4;
/// Notifications whose click is still awaited (each holds a thread and a D-Bus connection until
/// it is clicked or closed); past this, new ones are shown without a click action.
const MAX_AWAITING_CLICK: usize = 16;
/// The same words for the same session this soon again are not worth a second notification.
const REPEAT_WINDOW: Duration = Duration::from_secs(5);

/// What the user did with a notification.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    /// Clicked it: show the session.
    Show,
    /// Allow / Deny on a held permission (issue 14): the hold's id and the answer.
    Decide { decision: u64, verdict: Verdict },
    /// "Jump to terminal": bring the agent's tmux pane or terminal window forward.
    Jump,
}

/// Called with the session id and the action when the user acts on a notification.
pub type OnAction = Arc<dyn Fn(String, Action) + Send + Sync>;

#[derive(Clone)]
pub struct Notifier {
    queue: SyncSender<Job>,
}

impl Notifier {
    /// Subscribes notifications to the hub's updates: every change the notify policy picked
    /// (docs/model.md §2.3) raises one — a "finished" of a CLI whose turn end hides an Esc (Gemini)
    /// after [`FINISHED_CONFIRM`], unless the turn turned out to be the user's interrupt by then.
    pub fn follow(updates: crate::instance::hub::mailbox::Updates, on_action: Option<OnAction>) {
        let notifier = Self::start(on_action);
        let held = Held::new(|change| change.notify, move |session: &Session| notifier.notify(session));
        // A thread of its own: showing one may wait on a wedged bus (see `show_with_deadline`).
        together("notify-updates", Priority::Background, updates, vec![Box::new(held)]);
    }

    pub fn start(on_action: Option<OnAction>) -> Self {
        let (queue, jobs) = mpsc::sync_channel::<Job>(QUEUE);
        std::thread::Builder::new()
            .name("notifier".into())
            .spawn(move || {
                let stuck = Arc::new(AtomicUsize::new(0));
                let awaiting = Arc::new(AtomicUsize::new(0));
                let mut recent: HashMap<String, (NotificationText, Instant)> = HashMap::new();
                for Job { session_id, text, decision, jumpable } in jobs {
                    if recent.get(&session_id).is_some_and(|(last, at)| *last == text && at.elapsed() < REPEAT_WINDOW) {
                        continue;
                    }
                    recent.insert(session_id.clone(), (text.clone(), Instant::now()));
                    // Only recent notifications matter: forget the rest, so a long run with many
                    // sessions does not keep one entry per session ever seen.
                    if recent.len() > 1024 {
                        recent.retain(|_, (_, at)| at.elapsed() < REPEAT_WINDOW);
                    }
                    if stuck.load(Ordering::Relaxed) >= MAX_STUCK {
                        continue;
                    }
                    let on_action = on_action.clone().filter(|_| awaiting.load(Ordering::Relaxed) < MAX_AWAITING_CLICK);
                    show_with_deadline(Job { session_id, text, decision, jumpable }, on_action, &stuck, &awaiting);
                }
            })
            .expect("spawn the notifier thread");
        Self { queue }
    }

    /// Queues a notification for a session that needs the user; never blocks.
    pub fn notify(&self, session: &Session) {
        let Some(text) = notification_text(session) else { return };
        // Allow only on what the user can read (issue 33.3): its body shows the whole command.
        let decision = session.decision.filter(|_| switchboard_core::notify::body_shows_command(session, &text.body));
        let job = Job { session_id: session.session_id.clone(), text, decision, jumpable: session.process.is_some() };
        match self.queue.try_send(job) {
            Ok(()) => {}
            Err(TrySendError::Full(_)) => tracing::warn!("notification queue full; dropping one"),
            Err(TrySendError::Disconnected(_)) => {}
        }
    }
}

/// How long a "finished" waits when the CLI's turn end looks the same as an Esc: the chat file's
/// "Request cancelled." is read within a watch tick or two of it.
pub const FINISHED_CONFIRM: Duration = Duration::from_secs(1);

/// A follower of the hub's updates (`hub::follow`): `act` runs for each session whose change
/// `picks` chose — at once, or after [`FINISHED_CONFIRM`] for a "finished" that may yet turn out
/// to be the user's interrupt (see [`Waiting`]). The OS notifications and push share it.
pub(super) struct Held<A> {
    waiting: Waiting,
    act: A,
}

impl<A: FnMut(&Session) + Send> Held<A> {
    pub(super) fn new(picks: fn(&switchboard_core::Change) -> bool, act: A) -> Self {
        Self { waiting: Waiting::new(picks), act }
    }
}

impl<A: FnMut(&Session) + Send> Follower for Held<A> {
    fn see(&mut self, update: &Update, now: Instant) {
        if let Some(changed) = self.waiting.see(update, now) {
            (self.act)(&changed.change.session);
        }
    }

    fn run(&mut self, now: Instant) -> Option<Instant> {
        for changed in self.waiting.due(now) {
            (self.act)(&changed.change.session);
        }
        self.waiting.next_due()
    }
}

/// Notifications (or pushes) held back for [`FINISHED_CONFIRM`], by session.
struct Waiting {
    /// The update itself, shared with the hub: a session is a large copy, and under a stream of
    /// changes most of them need none.
    held: HashMap<String, (Arc<Changed>, Instant)>,
    /// Which changes call for one: the notify policy's pick, or push's (any focus).
    picks: fn(&switchboard_core::Change) -> bool,
}

impl Default for Waiting {
    fn default() -> Self {
        Self::new(|change| change.notify)
    }
}

impl Waiting {
    fn new(picks: fn(&switchboard_core::Change) -> bool) -> Self {
        Self { held: HashMap::new(), picks }
    }

    /// The session to notify about now, if this update calls for one at once.
    fn see(&mut self, update: &Update, now: Instant) -> Option<Arc<Changed>> {
        let changed = match update {
            Update::Changed(changed) => changed,
            Update::Removed(id) => {
                self.held.remove(id);
                return None;
            }
            Update::Notices(_) => return None,
        };
        // Borrowed: most changes call for nothing, and a session is a large copy.
        let session = &changed.change.session;
        if !(self.picks)(&changed.change) {
            // Anything that changed the held session's done (the interrupt, a read, a new turn)
            // withdraws its "finished". (A done seen with the window focused was never unread.)
            let still = self.held.get(&session.session_id).is_some_and(|(held, _)| {
                let held = &held.change.session;
                session.status == held.status && !session.interrupted && (session.unread || !held.unread)
            });
            if !still {
                self.held.remove(&session.session_id);
            }
            return None;
        }
        self.held.remove(&session.session_id);
        let hides_interrupts =
            switchboard_core::agent(&session.agent).is_some_and(|agent| agent.turn_end_hides_interrupts);
        let finished = session.status == Some(switchboard_core::AgentStatus::Done) && !session.errored;
        if hides_interrupts && finished {
            self.held.insert(session.session_id.clone(), (Arc::clone(changed), now + FINISHED_CONFIRM));
            return None;
        }
        Some(Arc::clone(changed))
    }

    fn next_due(&self) -> Option<Instant> {
        self.held.values().map(|(_, due)| *due).min()
    }

    fn due(&mut self, now: Instant) -> Vec<Arc<Changed>> {
        let ids: Vec<String> = self.held.iter().filter(|(_, (_, due))| *due <= now).map(|(id, _)| id.clone()).collect();
        ids.into_iter().filter_map(|id| self.held.remove(&id)).map(|(changed, _)| changed).collect()
    }
}

fn show_with_deadline(
    Job { session_id, text, decision, jumpable }: Job,
    on_click: Option<OnAction>,
    stuck: &Arc<AtomicUsize>,
    awaiting: &Arc<AtomicUsize>,
) {
    let (done, shown) = mpsc::channel();
    let awaiting = Arc::clone(awaiting);
    let spawned = std::thread::Builder::new().name("notification".into()).spawn(move || {
        let mut actions = Vec::new();
        if on_click.is_some() {
            actions.push(("default", "Show"));
            // A held permission can be answered from the notification; never "always allow".
            if decision.is_some() {
                actions.extend([("allow", "Allow"), ("deny", "Deny")]);
            }
            if jumpable {
                actions.push(("jump", "Jump to terminal"));
            }
        }
        let result = crate::platform::notify::show(&text.summary, &text.body, &actions);
        let _ = done.send(result.is_ok());
        if let (Ok(Some(wait)), Some(on_click)) = (result, on_click) {
            awaiting.fetch_add(1, Ordering::Relaxed);
            wait(&mut |action| {
                let action = match (action, decision) {
                    ("default", _) => Some(Action::Show),
                    ("jump", _) => Some(Action::Jump),
                    ("allow", Some(decision)) => Some(Action::Decide { decision, verdict: Verdict::Allow }),
                    ("deny", Some(decision)) => Some(Action::Decide { decision, verdict: Verdict::Deny }),
                    _ => None,
                };
                if let Some(action) = action {
                    on_click(session_id.clone(), action);
                }
            });
            awaiting.fetch_sub(1, Ordering::Relaxed);
        }
    });
    if spawned.is_err() {
        return;
    }
    match shown.recv_timeout(SHOW_DEADLINE) {
        Ok(true) => {}
        Ok(false) => tracing::debug!("no notification daemon answered"),
        Err(_) => {
            let stuck = stuck.fetch_add(1, Ordering::Relaxed) + 1;
            tracing::warn!(stuck, "the notification daemon does not answer");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use switchboard_core::{normalize, Reducer};

    fn changes(agent: &str, bodies: &[serde_json::Value]) -> Vec<Update> {
        let mut reducer = Reducer::new();
        bodies
            .iter()
            .enumerate()
            .filter_map(|(n, body)| {
                let event = normalize(agent, body, 1_000 + n as u64 * 100)?;
                let change = reducer.apply(&event, false)?;
                Some(Update::Changed(std::sync::Arc::new(crate::instance::hub::Changed {
                    change,
                    event_title: None,
                    agent_title: None,
                    history: None,
                    transcript_from: None,
                })))
            })
            .collect()
    }

    /// Issue 20.4: Gemini's "finished" waits a moment; the interrupt that follows (Esc while the
    /// answer streamed) withdraws it. Other CLIs' and other reasons' notifications go at once.
    #[test]
    fn a_gemini_finished_waits_and_an_interrupt_withdraws_it() {
        let gemini = |event: &str| json!({"hook_event_name": event, "session_id": "g", "prompt_response": "Let me"});
        let mut turn = changes("gemini", &[gemini("BeforeAgent"), gemini("AfterAgent")]);
        let t0 = Instant::now();
        let mut waiting = Waiting::default();
        let done = turn.pop().unwrap();
        assert!(waiting.see(&turn.pop().unwrap(), t0).is_none(), "working: nothing to say");
        assert!(waiting.see(&done, t0).is_none(), "held");
        assert_eq!(waiting.next_due(), Some(t0 + FINISHED_CONFIRM));
        // Unchallenged, it goes out when due.
        let mut alone = Waiting::default();
        alone.see(&done, t0);
        assert!(alone.due(t0).is_empty());
        assert_eq!(alone.due(t0 + FINISHED_CONFIRM).len(), 1);
        // The interrupt comes: withdrawn.
        let Update::Changed(interrupted) = done else { unreachable!() };
        let mut interrupted = std::sync::Arc::unwrap_or_clone(interrupted);
        interrupted.change.notify = false;
        interrupted.change.session.interrupted = true;
        interrupted.change.session.unread = false;
        assert!(waiting.see(&Update::Changed(std::sync::Arc::new(interrupted)), t0).is_none());
        assert!(waiting.due(t0 + FINISHED_CONFIRM).is_empty());
        // Claude's finished, and a Gemini permission, go at once.
        let claude = changes("custom", &[json!({"sessionId": "c", "agent": "claude", "status": "done"})]);
        assert!(waiting.see(&claude[0], t0).is_some());
        let asks = changes(
            "gemini",
            &[json!({"hook_event_name": "Notification", "session_id": "p", "notification_type": "ToolPermission",
                "message": "Allow?", "details": {"type": "exec"}})],
        );
        assert!(waiting.see(&asks[0], t0).is_some());
    }
}
