//! A test notification daemon: owns `org.freedesktop.Notifications` on the (private) session bus,
//! records every `Notify`, and can play the user clicking a notification (`ActionInvoked`).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use zbus::names::BusName;
use zbus::object_server::SignalEmitter;
use zbus::OwnedVariant;

use crate::harness::eventually;

const NAME: &str = "org.freedesktop.Notifications";
const PATH: &str = "/org/freedesktop/Notifications";

/// One `Notify` call as the daemon received it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Notice {
    pub id: u32,
    pub app_name: String,
    pub replaces_id: u32,
    pub summary: String,
    pub body: String,
    pub actions: Vec<String>,
}

type Log = Arc<Mutex<Vec<Notice>>>;

struct Daemon {
    log: Log,
    next_id: u32,
}

#[zbus::interface(name = "org.freedesktop.Notifications")]
impl Daemon {
    #[allow(clippy::too_many_arguments)]
    fn notify(
        &mut self,
        app_name: String,
        replaces_id: u32,
        _app_icon: String,
        summary: String,
        body: String,
        actions: Vec<String>,
        _hints: HashMap<String, OwnedVariant>,
        _expire_timeout: i32,
    ) -> u32 {
        self.next_id += 1;
        let id = if replaces_id != 0 { replaces_id } else { self.next_id };
        let notice = Notice { id, app_name, replaces_id, summary, body, actions };
        self.log.lock().unwrap_or_else(PoisonError::into_inner).push(notice);
        id
    }

    fn get_capabilities(&self) -> Vec<String> {
        ["actions", "body"].map(String::from).to_vec()
    }

    fn get_server_information(&self) -> (String, String, String, String) {
        ("switchboard-e2e".into(), "switchboard".into(), "1.0".into(), "1.2".into())
    }

    async fn close_notification(
        &self,
        id: u32,
        #[zbus(signal_emitter)] emitter: SignalEmitter<'_>,
    ) -> zbus::fdo::Result<()> {
        // 3 = closed by a call to CloseNotification.
        Self::notification_closed(&emitter, id, 3).await?;
        Ok(())
    }

    #[zbus(signal)]
    async fn notification_closed(emitter: &SignalEmitter<'_>, id: u32, reason: u32) -> zbus::Result<()>;
}

/// The running daemon; it gives up the bus name when dropped.
pub struct NotificationServer {
    connection: zbus::Connection,
    log: Log,
}

impl NotificationServer {
    pub async fn start() -> Self {
        let log = Log::default();
        let daemon = Daemon { log: Arc::clone(&log), next_id: 0 };
        let connection = zbus::connection::Builder::session()
            .name(NAME)
            .replace_existing_names(true)
            .serve_at(PATH, daemon)
            .build()
            .await
            .expect("own org.freedesktop.Notifications on the session bus (run under dbus-run-session)");
        Self { connection, log }
    }

    pub fn notices(&self) -> Vec<Notice> {
        self.log.lock().unwrap_or_else(PoisonError::into_inner).clone()
    }

    /// The notices whose summary is exactly `summary`.
    pub fn with_summary(&self, summary: &str) -> Vec<Notice> {
        self.notices().into_iter().filter(|notice| notice.summary == summary).collect()
    }

    /// Waits (bounded) for a notice with this summary and returns the first one.
    pub fn wait_for_summary(&self, summary: &str) -> Notice {
        eventually(Duration::from_secs(10), || self.with_summary(summary).into_iter().next())
            .unwrap_or_else(|| panic!("no notification {summary:?} within 10 s; received: {:#?}", self.notices()))
    }

    /// What a notification server sends when the user clicks the notification's body.
    pub async fn invoke_action(&self, id: u32, action: &str) {
        self.connection
            .emit_signal(None::<BusName<'_>>, PATH, NAME, "ActionInvoked", &(id, action))
            .await
            .expect("emit ActionInvoked");
    }
}
