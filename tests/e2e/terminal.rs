//! The one live terminal (issue 24): a session whose agent — the stand-in, in a real tmux pane
//! that records every key — is opened in the details panel's Terminal section. xterm.js (its DOM
//! renderer) shows the pane's screen, a key typed into it reaches the agent, and closing the
//! section or the panel ends the tmux client (attached with `-f ignore-size`).
//!
//! `TERMINAL_SCREENSHOT=DIR` keeps a picture of the panel with the terminal open
//! (`DIR/live-terminal.png`). `measure_live_terminal_memory` (ignored; `--ignored --nocapture`)
//! prints the app's memory with the terminal closed and open.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::harness::{comm, descendants, eventually, fixture, smaps_kib, App, Notify};

const AGENT: &str = include_str!("../fixtures/stand-in-agent.py");

struct Tmux(PathBuf);

impl Tmux {
    fn run(&self, args: &[&str]) -> String {
        let output = Command::new("tmux").arg("-S").arg(&self.0).args(args).output().expect("tmux");
        assert!(output.status.success(), "tmux {args:?}");
        String::from_utf8_lossy(&output.stdout).trim().to_owned()
    }

    /// `pid flags` of each attached client.
    fn clients(&self) -> Vec<String> {
        self.run(&["list-clients", "-F", "#{client_pid} #{client_flags}"]).lines().map(str::to_owned).collect()
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = Command::new("tmux").arg("-S").arg(&self.0).arg("kill-server").output();
    }
}

fn start_time(pid: u32) -> u64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
    stat[stat.rfind(')').unwrap() + 2..].split(' ').nth(19).unwrap().parse().unwrap()
}

fn keys(file: &Path) -> String {
    String::from_utf8_lossy(&std::fs::read(file).unwrap_or_default()).into_owned()
}

/// The stand-in agent in a 100×20 tmux pane of a private server, and the app with its session.
struct Setup {
    app: App,
    tmux: Tmux,
    pane: String,
    got: PathBuf,
    _dir: tempfile::TempDir,
}

async fn setup() -> Setup {
    let dir = tempfile::tempdir().unwrap();
    let tmux = Tmux(dir.path().join("tmux.sock"));
    let script = dir.path().join("agent.py");
    std::fs::write(&script, AGENT).unwrap();
    let got = dir.path().join("keys");
    let run = format!("exec python3 '{}' '{}'", script.display(), got.display());
    tmux.run(&["new-session", "-d", "-x", "100", "-y", "20", "-s", "agents", &run]);
    let pane = tmux.run(&["display-message", "-p", "-t", "agents", "#{pane_id}"]);
    let pid: u32 = tmux.run(&["display-message", "-p", "-t", &pane, "#{pane_pid}"]).parse().unwrap();
    eventually(Duration::from_secs(30), || {
        Some(()).filter(|()| tmux.run(&["capture-pane", "-p", "-t", &pane]).contains("STAND-IN AGENT"))
    })
    .expect("the stand-in agent is up");
    let process =
        json!({"pid": pid, "start": start_time(pid), "tmuxPane": pane, "tmuxSocket": tmux.0.display().to_string()});

    let app = App::start(Notify::Off).await;
    app.client.set_window_size(1280, 800).await.expect("resize");
    let mut done = fixture("claude/Stop.json");
    done["session_id"] = json!("live");
    done["cwd"] = json!("/src/live-terminal");
    app.post_from("claude", &done, &process);
    app.wait_node("live", "done", |n| n.status == "done").await;
    app.click_node("live").await;
    Setup { app, tmux, pane, got, _dir: dir }
}

/// The text xterm's DOM renderer shows, row by row.
async fn terminal_rows(app: &App) -> String {
    let script = r#"const rows = document.querySelector('[data-testid="terminal-host"] .xterm-rows');
        return rows ? [...rows.children].map((row) => row.textContent).join('\n') : '';"#;
    app.client.execute(script, vec![]).await.expect("read the terminal").as_str().unwrap_or_default().to_owned()
}

async fn wait_rows(app: &App, text: &str) -> String {
    let started = Instant::now();
    loop {
        let rows = terminal_rows(app).await;
        if rows.contains(text) {
            return rows;
        }
        assert!(started.elapsed() < Duration::from_secs(20), "the terminal never showed {text:?}; it shows:\n{rows}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Opens the Terminal section and waits until xterm shows the agent's screen.
async fn open_terminal(app: &App) -> String {
    app.click_settled(r#"[data-testid="terminal-toggle"]"#).await;
    wait_rows(app, "STAND-IN AGENT").await
}

fn wait_no_client(tmux: &Tmux, what: &str) {
    eventually(Duration::from_secs(20), || Some(()).filter(|()| tmux.clients().is_empty()))
        .unwrap_or_else(|| panic!("{what}: the tmux client is still attached: {:?}", tmux.clients()));
}

fn picture() {
    let Ok(dir) = std::env::var("TERMINAL_SCREENSHOT") else { return };
    let shot = format!("xwd -root -silent | /usr/bin/convert xwd:- {dir}/live-terminal.png");
    assert!(Command::new("sh").args(["-c", &shot]).status().unwrap().success());
}

#[tokio::test]
async fn the_live_terminal_shows_the_agents_screen_and_takes_a_keystroke() {
    let Setup { app, tmux, pane, got, _dir } = setup().await;
    assert!(tmux.clients().is_empty(), "nothing attached before the section opens");

    let rows = open_terminal(&app).await;
    assert!(rows.contains("2. Vue"), "the whole question is drawn:\n{rows}");
    let clients = tmux.clients();
    assert_eq!(clients.len(), 1, "one client: {clients:?}");
    // A user's own client keeps its size (the unit test attaches one); none is attached here.
    assert!(clients[0].contains("ignore-size"), "it never resizes the user's view: {clients:?}");
    let live = app.text_of("terminal-live").await;
    assert!(live.contains(&pane), "{live}");

    // A keystroke into xterm's input reaches the agent, raw.
    let input = app
        .client
        .find(fantoccini::Locator::Css(r#"[data-testid="terminal-host"] .xterm-helper-textarea"#))
        .await
        .expect("xterm's input");
    input.send_keys("q").await.expect("type into the terminal");
    eventually(Duration::from_secs(20), || Some(()).filter(|()| keys(&got) == "q"))
        .unwrap_or_else(|| panic!("the agent got the key q: {:?}", keys(&got)));
    app.wait_still(".details-terminal").await;
    picture();

    // Closing the section ends the client, and types nothing on the way out.
    app.click_settled(r#"[data-testid="terminal-close"]"#).await;
    wait_no_client(&tmux, "closed with its button");
    assert_eq!(keys(&got), "q");

    // Open again, then close the whole panel: the client ends with it.
    open_terminal(&app).await;
    assert_eq!(tmux.clients().len(), 1);
    app.click_settled(r#"[aria-label="Close details"]"#).await;
    wait_no_client(&tmux, "closed with the panel");
    assert_eq!(keys(&got), "q", "nothing typed by attaching or detaching");
    app.close().await;
}

#[tokio::test]
async fn a_pane_that_runs_something_else_is_refused_with_the_reason() {
    let dir = tempfile::tempdir().unwrap();
    let tmux = Tmux(dir.path().join("tmux.sock"));
    tmux.run(&["new-session", "-d", "-x", "80", "-y", "20", "-s", "other", "exec sleep 600"]);
    let pane = tmux.run(&["display-message", "-p", "-t", "other", "#{pane_id}"]);
    // The agent: a live process, but not in that pane.
    let mut agent = Command::new("sleep").arg("600").spawn().unwrap();
    let process = json!({"pid": agent.id(), "start": start_time(agent.id()), "tmuxPane": pane,
        "tmuxSocket": tmux.0.display().to_string()});

    let app = App::start(Notify::Off).await;
    app.client.set_window_size(1280, 800).await.expect("resize");
    let mut done = fixture("claude/Stop.json");
    done["session_id"] = json!("elsewhere");
    app.post_from("claude", &done, &process);
    app.wait_node("elsewhere", "done", |n| n.status == "done").await;
    app.click_node("elsewhere").await;
    app.click_settled(r#"[data-testid="terminal-toggle"]"#).await;
    let reason = app.text_of("terminal-reason").await;
    assert!(reason.contains(&format!("its tmux pane {pane} runs something else")), "{reason}");
    assert!(tmux.clients().is_empty(), "never attached: {:?}", tmux.clients());
    app.text_of("terminal-jump").await;
    let _ = agent.kill();
    let _ = agent.wait();
    app.close().await;
}

// ---- the measurement ----

fn mib(kib: u64) -> f64 {
    kib as f64 / 1024.0
}

/// PSS and RSS (MiB) of the app and its WebKit processes (the tmux client apart), and of the
/// tmux client alone; the median of five samples a second apart.
async fn memory(app_pid: u32) -> (Value, String) {
    let mut samples = Vec::new();
    for _ in 0..5 {
        tokio::time::sleep(Duration::from_secs(1)).await;
        let mut app = vec![app_pid];
        let mut client = Vec::new();
        for pid in descendants(app_pid) {
            if comm(pid) == "tmux: client" || comm(pid) == "tmux" {
                client.push(pid);
            } else {
                app.push(pid);
            }
        }
        let parts = app.iter().map(|pid| format!("{} {:.1}", comm(*pid), mib(smaps_kib(&[*pid], &["Pss"])))).collect();
        samples.push((
            json!({
                "app_pss": mib(smaps_kib(&app, &["Pss"])),
                "app_rss": mib(smaps_kib(&app, &["Rss"])),
                "client_pss": mib(smaps_kib(&client, &["Pss"])),
                "client_rss": mib(smaps_kib(&client, &["Rss"])),
                "clients": client.len(),
            }),
            parts,
        ));
    }
    samples.sort_by(|a, b| a.0["app_pss"].as_f64().unwrap().total_cmp(&b.0["app_pss"].as_f64().unwrap()));
    let (numbers, parts): (Value, Vec<String>) = samples.swap_remove(2);
    (numbers, parts.join(", "))
}

#[tokio::test]
#[ignore = "a measurement: run with --ignored --nocapture"]
async fn measure_live_terminal_memory() {
    const SETTLE: Duration = Duration::from_secs(10);
    let Setup { app, tmux, pane: _, got: _, _dir } = setup().await;
    tokio::time::sleep(SETTLE).await;
    let closed = memory(app.pid()).await;
    open_terminal(&app).await;
    tokio::time::sleep(SETTLE).await;
    let open = memory(app.pid()).await;
    app.click_settled(r#"[data-testid="terminal-close"]"#).await;
    wait_no_client(&tmux, "closed");
    tokio::time::sleep(SETTLE).await;
    let again = memory(app.pid()).await;
    println!("\nlive terminal memory (MiB; median of 5 samples after {SETTLE:?}), details panel open:");
    for (name, (numbers, parts)) in [("closed", &closed), ("open", &open), ("closed again", &again)] {
        println!("  {name:<13} {numbers}   [app PSS: {parts}]");
    }
    app.close().await;
}
