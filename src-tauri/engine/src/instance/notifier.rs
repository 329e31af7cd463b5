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

use crate::instance::hub::Update;
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
    /// (SPEC 2.3) raises one.
    pub fn follow(updates: std::sync::mpsc::Receiver<Update>, on_action: Option<OnAction>) {
        let notifier = Self::start(on_action);
        let spawned = std::thread::Builder::new().name("notify-updates".into()).spawn(move || {
            for update in updates {
                if let Update::Changed(changed) = update {
                    if changed.change.notify {
                        notifier.notify(&changed.change.session);
                    }
                }
            }
        });
        if let Err(error) = spawned {
            tracing::warn!(%error, "cannot start notifications");
        }
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
        let job = Job {
            session_id: session.session_id.clone(),
            text,
            decision: session.decision,
            jumpable: session.process.is_some(),
        };
        match self.queue.try_send(job) {
            Ok(()) => {}
            Err(TrySendError::Full(_)) => tracing::warn!("notification queue full; dropping one"),
            Err(TrySendError::Disconnected(_)) => {}
        }
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
        let mut notification = notify_rust::Notification::new();
        notification.appname("Switchboard").summary(&text.summary).body(&text.body);
        if on_click.is_some() {
            notification.action("default", "Show");
            // A held permission can be answered from the notification; never "always allow".
            if decision.is_some() {
                notification.action("allow", "Allow").action("deny", "Deny");
            }
            if jumpable {
                notification.action("jump", "Jump to terminal");
            }
        }
        let result = notification.show();
        let _ = done.send(result.is_ok());
        if let (Ok(handle), Some(on_click)) = (result, on_click) {
            awaiting.fetch_add(1, Ordering::Relaxed);
            handle.wait_for_action(|action| {
                let action = match (action, decision) {
                    ("default", _) => Some(Action::Show),
                    ("jump", _) => Some(Action::Jump),
                    ("allow", Some(decision)) => Some(Action::Decide { decision, verdict: Verdict::Allow }),
                    ("deny", Some(decision)) => Some(Action::Decide { decision, verdict: Verdict::Deny }),
                    _ => None,
                };
                if let Some(action) = action {
                    on_click(session_id, action);
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
