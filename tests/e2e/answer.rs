//! Read and answer from the board (issue 24): a session whose question tool waits, its agent a
//! stand-in in a real tmux pane that records every key. The details panel shows the question and
//! its numbered options; clicking option 2 types `2` into that pane (and nowhere else); the
//! Screen section shows the pane while it is open; a reply to the done agent is its next prompt.
//!
//! `ANSWER_SCREENSHOT=DIR` keeps a picture of the panel with its options.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use serde_json::json;

use crate::harness::{eventually, fixture, App, Notify};

/// Draws its question, then records each byte its terminal sends, raw (no line editing).
const AGENT: &str = include_str!("../fixtures/stand-in-agent.py");

struct Tmux(PathBuf);

impl Tmux {
    fn run(&self, args: &[&str]) -> String {
        let output = Command::new("tmux").arg("-S").arg(&self.0).args(args).output().expect("tmux");
        assert!(output.status.success(), "tmux {args:?}");
        String::from_utf8_lossy(&output.stdout).trim().to_owned()
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = Command::new("tmux").arg("-S").arg(&self.0).arg("kill-server").output();
    }
}

fn picture(step: &str) {
    let Ok(dir) = std::env::var("ANSWER_SCREENSHOT") else { return };
    let shot = format!("xwd -root -silent | /usr/bin/convert xwd:- {dir}/answer-{step}.png");
    assert!(Command::new("sh").args(["-c", &shot]).status().unwrap().success());
}

fn start_time(pid: u32) -> u64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
    stat[stat.rfind(')').unwrap() + 2..].split(' ').nth(19).unwrap().parse().unwrap()
}

fn keys(file: &Path) -> String {
    String::from_utf8_lossy(&std::fs::read(file).unwrap_or_default()).into_owned()
}

#[tokio::test]
async fn the_question_is_read_and_answered_from_the_details_panel() {
    let dir = tempfile::tempdir().unwrap();
    let tmux = Tmux(dir.path().join("tmux.sock"));
    let script = dir.path().join("agent.py");
    std::fs::write(&script, AGENT).unwrap();
    let got = dir.path().join("keys");
    tmux.run(&[
        "new-session",
        "-d",
        "-x",
        "100",
        "-y",
        "20",
        "-s",
        "agents",
        &format!("exec python3 '{}' '{}'", script.display(), got.display()),
    ]);
    let pane = tmux.run(&["display-message", "-p", "-t", "agents", "#{pane_id}"]);
    let pid: u32 = tmux.run(&["display-message", "-p", "-t", &pane, "#{pane_pid}"]).parse().unwrap();
    eventually(Duration::from_secs(30), || {
        Some(()).filter(|()| tmux.run(&["capture-pane", "-p", "-t", &pane]).contains("STAND-IN AGENT"))
    })
    .expect("the stand-in agent is up");
    let process = json!({"pid": pid, "start": start_time(pid), "tmuxPane": pane,
        "tmuxSocket": tmux.0.display().to_string()});

    let app = App::start(Notify::Off).await;
    app.client.set_window_size(1280, 800).await.expect("resize");
    let mut asks = fixture("claude/PreToolUse-AskUserQuestion.json");
    asks["session_id"] = json!("asks");
    app.post_from("claude", &asks, &process);
    app.wait_node("asks", "waiting", |n| n.status == "waiting").await;
    app.click_node("asks").await;

    let panel = app.text_of("details-question").await;
    assert!(panel.contains("Which framework?"), "{panel}");
    assert!(panel.contains("React") && panel.contains("Vue") && panel.contains("Use Vue"), "{panel}");
    app.click_settled(r#"[data-testid="screen-toggle"]"#).await;
    let mut seen = String::new();
    for _ in 0..100 {
        seen = app.text_of("details-screen").await;
        if seen.contains("STAND-IN AGENT") {
            break;
        }
        app.wait_still(".details-screen").await;
    }
    assert!(seen.contains("STAND-IN AGENT"), "the Screen section shows its pane: {seen}");
    app.wait_still(".react-flow__viewport").await;
    picture("options");

    app.click_settled(r#"[data-testid="details-option-2"]"#).await;
    eventually(Duration::from_secs(20), || Some(()).filter(|()| keys(&got) == "2"))
        .unwrap_or_else(|| panic!("the agent got the key 2: {:?}", keys(&got)));
    // The CLI goes on with the answer (its tool returns): that is what makes the answer count.
    let mut went_on = fixture("claude/PostToolUse.json");
    went_on["session_id"] = json!("asks");
    app.post_from("claude", &went_on, &process);
    let mut note = String::new();
    for _ in 0..100 {
        note = app.text_of("details-answer-note").await;
        if note.contains(&pane) {
            break;
        }
        app.wait_still(".details-question").await;
    }
    assert!(note.contains(&format!("pane {pane}")), "{note}");
    // The answer is in its history.
    let mut history = String::new();
    for _ in 0..100 {
        history = app.text_of("history-list").await;
        if history.contains("Answered from Switchboard: 2 (Vue)") {
            break;
        }
        app.wait_still(".details-panel").await;
    }
    assert!(history.contains(&format!("Answered from Switchboard: 2 (Vue), typed into pane {pane}")), "{history}");

    // The CLI finishes: a reply is its next prompt.
    let mut stop = fixture("claude/Stop.json");
    stop["session_id"] = json!("asks");
    app.post_from("claude", &stop, &process);
    app.wait_node("asks", "done", |n| n.status == "done").await;
    let input =
        app.client.find(fantoccini::Locator::Css(r#"[data-testid="reply-input"]"#)).await.expect("the reply box");
    input.send_keys("now the tests").await.expect("type the reply");
    app.click_settled(r#"[data-testid="reply-send"]"#).await;
    eventually(Duration::from_secs(20), || Some(()).filter(|()| keys(&got) == "2now the tests\r"))
        .unwrap_or_else(|| panic!("the agent got the reply and Enter: {:?}", keys(&got)));
    // Sent once the CLI's prompt event says it took it.
    let mut took = fixture("claude/UserPromptSubmit.json");
    took["session_id"] = json!("asks");
    app.post_from("claude", &took, &process);
    let mut history = String::new();
    let asked = std::time::Instant::now();
    while asked.elapsed() < Duration::from_secs(30) {
        history = app.text_of("history-list").await;
        if history.contains("Replied from Switchboard") {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let reply = format!("Replied from Switchboard: now the tests, typed into pane {pane}; Claude Code took it");
    assert!(history.contains(&reply), "{history}");
    app.close().await;
}
