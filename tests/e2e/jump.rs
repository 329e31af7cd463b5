//! Act from the board: the details panel's "Jump to terminal" focuses the agent's tmux pane or
//! its terminal window, among several, through the real app.

use std::process::{Command, Stdio};
use std::time::Duration;

use serde_json::{json, Value};

use crate::harness::{eventually, hook, xdotool, App, Notify};

fn process(pane: Option<&str>, socket: Option<&str>, window: Option<&str>) -> Value {
    // This test process plays the agent: alive, with its real start time.
    process_of(std::process::id(), pane, socket, window)
}

/// The agent `pid` (its real start time), reported from `pane`.
fn process_of(pid: u32, pane: Option<&str>, socket: Option<&str>, window: Option<&str>) -> Value {
    let start = switchboard_engine::process::stat(pid).expect("/proc/<pid>/stat").start;
    json!({"pid": pid, "start": start, "tty": null, "tmuxPane": pane, "tmuxSocket": socket,
        "windowId": window, "termProgram": null})
}

/// A private tmux server (its own socket) with one session of a sleeping pane; killed on drop.
struct TmuxServer {
    _dir: tempfile::TempDir,
    socket: std::path::PathBuf,
}

impl TmuxServer {
    fn start() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let server = Self { socket: dir.path().join("tmux.sock"), _dir: dir };
        server.run(&["-f", "/dev/null", "new-session", "-d", "-s", "agents", "sleep 120"]);
        server
    }

    /// `tmux -S <socket> <args>`, its trimmed output.
    fn run(&self, args: &[&str]) -> String {
        let out =
            Command::new("tmux").arg("-S").arg(&self.socket).args(args).output().expect("tmux (apt-get install tmux)");
        String::from_utf8_lossy(&out.stdout).trim().to_owned()
    }

    /// The agent in `pane`: the process tmux started there (Jump goes only to a pane tied to it).
    fn in_pane(&self, pane: &str, window: Option<&str>) -> Value {
        let pid: u32 = self.run(&["display", "-p", "-t", pane, "#{pane_pid}"]).parse().expect("the pane's pid");
        process_of(pid, Some(pane), Some(&self.socket_path()), window)
    }

    fn socket_path(&self) -> String {
        self.socket.to_string_lossy().into_owned()
    }
}

impl Drop for TmuxServer {
    fn drop(&mut self) {
        self.run(&["kill-server"]);
    }
}

async fn jump(app: &App, id: &str) -> String {
    app.click_node(id).await;
    app.click_test_id("jump-to-terminal").await;
    app.text_of("jump-result").await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn jump_selects_the_agents_tmux_pane_among_several() {
    let app = App::start(Notify::Off).await;
    let panes = TmuxServer::start();
    let tmux = |args: &[&str]| panes.run(args);
    let first = tmux(&["display", "-p", "#{pane_id}"]);
    let target = tmux(&["new-window", "-P", "-F", "#{pane_id}", "sleep 120"]);
    tmux(&["split-window", "-P", "-F", "#{pane_id}", "sleep 120"]);
    tmux(&["select-window", "-t", &first]);
    for (id, pane) in [("in-first", first.as_str()), ("in-target", target.as_str())] {
        app.post_from(
            "claude",
            &hook("claude/PermissionRequest.json", id, Some("/src/app")),
            &panes.in_pane(pane, None),
        );
        app.wait_node(id, "blocked", |n| n.status == "blocked").await;
    }
    let said = jump(&app, "in-target").await;
    assert!(said.contains(&format!("pane {target}")), "{said}");
    assert_eq!(tmux(&["display", "-p", "#{pane_id}"]), target, "the agent's pane is the active one");
    app.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn jump_focuses_the_agents_terminal_window_among_several() {
    let app = App::start(Notify::Off).await;
    let mut terminals = Vec::new();
    let mut windows = Vec::new();
    for n in 0..3 {
        let title = format!("sb-e2e-term-{}-{n}", std::process::id());
        let child = Command::new("xterm")
            .args(["-title", &title, "-geometry", "40x5+0+0", "-e", "sleep", "120"])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("xterm (apt-get install xterm)");
        terminals.push(child);
        let window = eventually(Duration::from_secs(10), || {
            xdotool(&["search", "--onlyvisible", "--name", &format!("^{title}$")])
                .and_then(|o| o.lines().next().map(str::to_owned))
        })
        .expect("the terminal maps");
        windows.push(window);
    }
    for (n, window) in windows.iter().enumerate() {
        let id = format!("term-{n}");
        app.post_from(
            "codex",
            &hook("codex/PermissionRequest.json", &id, Some("/src/api")),
            &process(None, None, Some(window)),
        );
        app.wait_node(&id, "blocked", |n| n.status == "blocked").await;
    }
    let said = jump(&app, "term-1").await;
    assert!(said.contains("terminal window"), "{said}");
    let focused = xdotool(&["getwindowfocus"]).map(|w| w.trim().to_owned());
    assert_eq!(focused.as_deref(), Some(windows[1].as_str()), "the second terminal has the focus");
    for mut child in terminals {
        let _ = child.kill();
        let _ = child.wait();
    }
    app.close().await;
}

/// The notification of a session whose terminal is known offers "Jump to terminal", which selects
/// the agent's tmux pane without going through the window.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_notification_jumps_to_the_agents_tmux_pane() {
    let server = crate::notifications::NotificationServer::start().await;
    let mut app = App::start(Notify::On).await;
    app.unfocus();
    let panes = TmuxServer::start();
    let tmux = |args: &[&str]| panes.run(args);
    let first = tmux(&["display", "-p", "#{pane_id}"]);
    let target = tmux(&["new-window", "-P", "-F", "#{pane_id}", "sleep 120"]);
    tmux(&["select-window", "-t", &first]);
    app.post_from(
        "claude",
        &hook("claude/PermissionRequest.json", "notified", Some("/src/shop")),
        &panes.in_pane(&target, None),
    );
    let notice = server.wait_for_summary("shop — needs permission");
    assert!(notice.actions.iter().any(|a| a == "jump"), "{:?}", notice.actions);
    // A session with no known terminal gets no such action.
    app.post("codex", &hook("codex/PermissionRequest.json", "nowhere", Some("/src/else")));
    let plain = server.wait_for_summary("else — needs permission");
    assert!(!plain.actions.iter().any(|a| a == "jump"), "{:?}", plain.actions);
    // One click, at once: the app listens for it before the notification is shown (issue 46).
    server.invoke_action(notice.id, "jump").await;
    let started = std::time::Instant::now();
    while tmux(&["display", "-p", "#{pane_id}"]) != target {
        assert!(started.elapsed() < Duration::from_secs(10), "the notification's jump was never taken");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    app.close().await;
}
