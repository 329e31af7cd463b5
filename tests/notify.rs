//! Issue 46: a notification's click is heard however soon it comes. A notification server on a
//! private D-Bus (a real `dbus-daemon`) that sends `ActionInvoked` before it even answers
//! `Notify` — the fastest click there can be: the app must already be listening.

use std::collections::HashMap;
use std::io::BufRead;
use std::process::{Command, Stdio};
use std::time::Duration;

use zbus::object_server::SignalEmitter;
use zbus::OwnedVariant;

struct ClicksAtOnce;

#[zbus::interface(name = "org.freedesktop.Notifications")]
impl ClicksAtOnce {
    #[allow(clippy::too_many_arguments)]
    async fn notify(
        &self,
        _app_name: String,
        _replaces_id: u32,
        _app_icon: String,
        _summary: String,
        _body: String,
        _actions: Vec<String>,
        _hints: HashMap<String, OwnedVariant>,
        _expire_timeout: i32,
        #[zbus(signal_emitter)] emitter: SignalEmitter<'_>,
    ) -> zbus::fdo::Result<u32> {
        Self::action_invoked(&emitter, 7, "allow").await?;
        Ok(7)
    }

    #[zbus(signal)]
    async fn action_invoked(emitter: &SignalEmitter<'_>, id: u32, action_key: &str) -> zbus::Result<()>;
}

#[test]
fn a_click_sent_before_notify_returns_is_heard() {
    let mut daemon = Command::new("dbus-daemon")
        .args(["--session", "--nofork", "--print-address=1"])
        .stdout(Stdio::piped())
        .spawn()
        .expect("dbus-daemon (package dbus)");
    let mut address = String::new();
    std::io::BufReader::new(daemon.stdout.take().unwrap()).read_line(&mut address).unwrap();
    let address = address.trim().to_owned();
    let (heard, hear) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let (_server, shown) = zbus::block_on(async move {
            let server = zbus::connection::Builder::address(address.as_str())
                .name("org.freedesktop.Notifications")
                .serve_at("/org/freedesktop/Notifications", ClicksAtOnce)
                .build()
                .await
                .unwrap();
            let app = zbus::connection::Builder::address(address.as_str()).build().await.unwrap();
            let actions = [("allow", "Allow"), ("deny", "Deny")];
            let shown =
                switchboard_engine::platform::notify::show_on(app, "api — needs permission", "rm -rf", &actions);
            (server, shown.await.unwrap())
        });
        // As the app does: the wait runs on a thread of its own once Notify has returned.
        let wait = shown.expect("actions are heard on Linux");
        let mut clicked = None;
        wait(&mut |action| clicked = Some(action.to_owned()));
        let _ = heard.send(clicked);
    });
    let clicked = hear.recv_timeout(Duration::from_secs(20));
    let _ = daemon.kill();
    let _ = daemon.wait();
    assert_eq!(clicked, Ok(Some("allow".to_owned())), "the click that came before Notify's answer was lost");
}
