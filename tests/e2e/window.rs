//! The window as a desktop citizen: closing it (as a window manager's close button does) hides it
//! to the tray while the app and its hook server go on, and a second launch brings it back; with
//! `SWITCHBOARD_CLOSE_TO_TRAY=0` closing it quits the app.

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use serde_json::json;

use crate::harness::{app_path, eventually, xdotool, App, Notify};

fn visible_windows(pid: u32) -> usize {
    xdotool(&["search", "--onlyvisible", "--pid", &pid.to_string(), "--name", "^Switchboard$"])
        .map_or(0, |out| out.lines().count())
}

/// WM_DELETE_WINDOW, what a window manager sends (there is none under Xvfb).
fn ask_to_close(window: &str) {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/e2e/wm_close.py");
    let status = Command::new("python3").arg(script).arg(window).status().expect("python3");
    assert!(status.success(), "wm_close.py {window}");
}

fn running(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|stat| stat.rfind(')').map(|i| !stat[i + 1..].trim_start().starts_with('Z')))
        .unwrap_or(false)
}

/// Every line the app logged to its state directory's daily files.
fn read_logs(state_dir: &Path) -> String {
    let Ok(files) = std::fs::read_dir(state_dir.join("logs")) else { return String::new() };
    files.flatten().filter_map(|file| std::fs::read_to_string(file.path()).ok()).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn closing_the_window_hides_it_to_the_tray_and_a_second_launch_brings_it_back() {
    let app = App::start(Notify::Off).await;
    let pid = app.pid();
    assert_eq!(visible_windows(pid), 1);
    // Created hidden, it was shown because the page drew its first board, not by the fallback.
    let log = read_logs(&app.state_dir());
    assert!(log.contains("the window is shown: the page drew its first board"), "{log}");
    assert!(!log.contains("has not said it drew"), "{log}");

    ask_to_close(&app.window);
    let hidden = eventually(Duration::from_secs(10), || (visible_windows(pid) == 0).then_some(()));
    assert!(hidden.is_some(), "the window never hid");
    std::thread::sleep(Duration::from_millis(300));
    assert!(running(pid), "closing the window quit the app");
    // Still listening: the hooks of the agents keep arriving while the window is away.
    app.post("custom", &json!({"sessionId": "while-hidden", "status": "blocked"}));
    app.wait_session("while-hidden", "blocked", |s| s["status"] == "blocked");

    // `switchboard` launched again asks the running app to come forward, and returns.
    let status = Command::new(app_path())
        .env("SWITCHBOARD_HOME", app.state_dir())
        .env("SWITCHBOARD_NO_NOTIFY", "1")
        .status()
        .expect("a second launch");
    assert!(status.success(), "second launch: {status}");
    let shown = eventually(Duration::from_secs(10), || (visible_windows(pid) == 1).then_some(()));
    assert!(shown.is_some(), "the window never came back");
    app.wait_node("while-hidden", "blocked", |n| n.status == "blocked").await;

    app.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_close_to_tray_off_closing_the_window_quits() {
    let app = App::start_with(Notify::Off, &[("SWITCHBOARD_CLOSE_TO_TRAY", "0")]).await;
    let pid = app.pid();
    ask_to_close(&app.window);
    let quit = eventually(Duration::from_secs(10), || (!running(pid)).then_some(()));
    assert!(quit.is_some(), "the app still runs after its window closed");
    app.close().await;
}

/// The "Start at login" checkbox of the tray menu and the web view's `set_autostart` command
/// share one implementation: an XDG autostart entry that runs this app.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn start_at_login_writes_and_removes_the_xdg_autostart_entry() {
    let home = tempfile::tempdir().expect("a temp HOME");
    let app = App::start_with(Notify::Off, &[("HOME", home.path().to_str().expect("a UTF-8 path"))]).await;
    let entry = home.path().join(".config/autostart/switchboard.desktop");
    let invoke = |command: &str, args: &str| format!("return window.__TAURI_INTERNALS__.invoke('{command}', {args});");

    let enabled = app.client.execute(&invoke("set_autostart", "{enabled: true}"), vec![]).await.expect("set_autostart");
    assert_eq!(enabled, json!(true));
    let text = std::fs::read_to_string(&entry).unwrap_or_else(|e| panic!("{}: {e}", entry.display()));
    assert!(text.contains("[Desktop Entry]"), "{text}");
    let exec = text.lines().find_map(|line| line.strip_prefix("Exec=")).expect("an Exec line");
    assert!(exec.trim().ends_with("switchboard-app"), "Exec={exec}");
    let now = app.client.execute(&invoke("autostart", "{}"), vec![]).await.expect("autostart");
    assert_eq!(now, json!(true));

    let enabled =
        app.client.execute(&invoke("set_autostart", "{enabled: false}"), vec![]).await.expect("set_autostart");
    assert_eq!(enabled, json!(false));
    assert!(!entry.exists(), "{} is still there", entry.display());

    app.close().await;
}
