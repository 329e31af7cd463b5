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

use crate::hub::Update;

const QUEUE: usize = 64;
const SHOW_DEADLINE: Duration = Duration::from_secs(3);
const MAX_STUCK: usize = 4;
/// Notifications whose click is still awaited (each holds a thread and a D-Bus connection until
/// it is clicked or closed); past this, new ones are shown without a click action.
const MAX_AWAITING_CLICK: usize = 16;
/// The same words for the same session this soon again are not worth a second notification.
const REPEAT_WINDOW: Duration = Duration::from_secs(5);

/// Called with the session id when the user clicks a notification.
pub type OnClick = Arc<dyn Fn(String) + Send + Sync>;

#[derive(Clone)]
pub struct Notifier {
    queue: SyncSender<(String, NotificationText)>,
}

impl Notifier {
    /// Subscribes notifications to the hub's updates: every change the notify policy picked
    /// (SPEC 2.3) raises one.
    pub fn follow(updates: std::sync::mpsc::Receiver<Update>, on_click: Option<OnClick>) {
        let notifier = Self::start(on_click);
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

    pub fn start(on_click: Option<OnClick>) -> Self {
        let (queue, jobs) = mpsc::sync_channel::<(String, NotificationText)>(QUEUE);
        std::thread::Builder::new()
            .name("notifier".into())
            .spawn(move || {
                let stuck = Arc::new(AtomicUsize::new(0));
                let awaiting = Arc::new(AtomicUsize::new(0));
                let mut recent: HashMap<String, (NotificationText, Instant)> = HashMap::new();
                for (session_id, text) in jobs {
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
                    let on_click = on_click.clone().filter(|_| awaiting.load(Ordering::Relaxed) < MAX_AWAITING_CLICK);
                    show_with_deadline(session_id, text, on_click, &stuck, &awaiting);
                }
            })
            .expect("spawn the notifier thread");
        Self { queue }
    }

    /// Queues a notification for a session that needs the user; never blocks.
    pub fn notify(&self, session: &Session) {
        let Some(text) = notification_text(session) else { return };
        match self.queue.try_send((session.session_id.clone(), text)) {
            Ok(()) => {}
            Err(TrySendError::Full(_)) => tracing::warn!("notification queue full; dropping one"),
            Err(TrySendError::Disconnected(_)) => {}
        }
    }
}

fn show_with_deadline(
    session_id: String,
    text: NotificationText,
    on_click: Option<OnClick>,
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
        }
        let result = notification.show();
        let _ = done.send(result.is_ok());
        if let (Ok(handle), Some(on_click)) = (result, on_click) {
            awaiting.fetch_add(1, Ordering::Relaxed);
            handle.wait_for_action(|action| {
                if action == "default" {
                    on_click(session_id);
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
