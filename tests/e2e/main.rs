//! End-to-end tests of the desktop app: the real `switchboard-app` binary in a real web view,
//! driven through `tauri-driver` + `WebKitWebDriver`, hooks POSTed to its hook server, and a test
//! notification daemon on a private session bus. Run them under a private X server and bus:
//!
//! ```text
//! xvfb-run -a -s "-screen 0 1280x800x24 -nolisten tcp" dbus-run-session -- \
//!     cargo test --test e2e -- --test-threads=1
//! ```
//!
//! The measurements (hook → badge latency, memory) are `#[ignore]`d tests in `measure.rs`:
//! add `--ignored --nocapture` (see `bench/e2e-measure.sh`).

mod answer;
mod axe;
mod decide;
mod firstrun;
mod fit;
mod harness;
mod idle;
mod jump;
mod keyboard;
mod many;
mod measure;
mod newcomer;
mod notifications;
mod reach;
mod remote;
mod restored;
mod terminal;
mod usage;
mod window;

use std::time::{Duration, Instant};

use serde_json::json;

use harness::{hook, App, Notify};
use notifications::NotificationServer;

const CLAUDE_BASH: &str = "claude/PermissionRequest.json";
const CODEX_QUESTION: &str = "codex/PreToolUse-request_user_input.json";
const GEMINI_DONE: &str = "gemini/AfterAgent.json";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hook_sequences_make_nodes_with_the_right_badge_and_question() {
    let app = App::start(Notify::Off).await;

    // Claude asks leave to run a Bash command.
    app.post("claude", &hook(CLAUDE_BASH, "claude-1", Some("/src/auth-refactor")));
    let claude = app.wait_node("claude-1", "blocked", |n| n.status == "blocked").await;
    assert_eq!(claude.badge, "Needs permission");
    // Not held by the board (Allow / Deny is off): the card says where to answer it (issue 37).
    assert!(claude.reason.contains("Answer in terminal: Bash"), "reason: {:?}", claude.reason);
    assert!(claude.reason.contains("rm -rf node_modules"), "reason: {:?}", claude.reason);

    // Codex asks a question, gets the tool's immediate PostToolUse, then ends its turn: the
    // question is still open, so the node must stay "waiting" with it.
    app.post("codex", &hook(CODEX_QUESTION, "codex-1", Some("/src/billing")));
    let asked = app.wait_node("codex-1", "waiting", |n| n.status == "waiting").await;
    assert!(asked.reason.contains("Choose a value."), "reason: {:?}", asked.reason);
    app.post("codex", &hook("codex/PostToolUse-request_user_input.json", "codex-1", Some("/src/billing")));
    app.post("codex", &hook("codex/Stop.json", "codex-1", Some("/src/billing")));
    let reduced =
        app.wait_session("codex-1", "reduced the Stop", |s| s["message"] == "Would you like me to run the migration?");
    assert_eq!(reduced["status"], "waiting", "the question's hold survives Stop: {reduced:#}");

    // Gemini finishes a turn. Changes reach the web view in order, so once this node is there,
    // the Stop above has been rendered too.
    app.post("gemini", &hook(GEMINI_DONE, "gemini-1", Some("/src/docs")));
    let gemini = app.wait_node("gemini-1", "done", |n| n.status == "done").await;
    assert_eq!(gemini.badge, "Done");
    assert!(gemini.reason.contains("Fixed the token refresh logic"), "reason: {:?}", gemini.reason);
    let codex = app.node("codex-1").await.expect("the codex node");
    assert_eq!((codex.status.as_str(), codex.badge.as_str()), ("waiting", "Has a question"));
    assert!(codex.reason.contains("Choose a value."), "reason: {:?}", codex.reason);

    assert_eq!(app.count("needs").await, 2);
    assert_eq!(app.count("working").await, 0);
    assert_eq!(app.count("done").await, 1);

    // The answer comes as a new turn: the question goes, the node works again.
    app.post("codex", &hook("codex/UserPromptSubmit.json", "codex-1", Some("/src/billing")));
    let working = app.wait_node("codex-1", "working", |n| n.status == "working").await;
    assert_eq!(working.badge, "Working");
    assert!(!working.reason.contains("Choose a value."), "reason: {:?}", working.reason);
    assert_eq!(app.count("needs").await, 1);
    assert_eq!(app.count("working").await, 1);

    app.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unfocused_window_shows_the_unread_dot_and_notifies_why() {
    let server = NotificationServer::start().await;
    let mut app = App::start(Notify::On).await;
    app.unfocus();

    let cases = [
        (
            "claude",
            CLAUDE_BASH,
            "claude-1",
            "/src/auth-refactor",
            "auth-refactor — needs permission",
            "Bash: rm -rf node_modules",
        ),
        ("codex", CODEX_QUESTION, "codex-1", "/src/billing", "billing — has a question", "Choose a value."),
        (
            "gemini",
            GEMINI_DONE,
            "gemini-1",
            "/src/docs",
            "docs — finished",
            "Fixed the token refresh logic and added a test.",
        ),
    ];
    for (agent, fixture, id, cwd, summary, body) in cases {
        app.post(agent, &hook(fixture, id, Some(cwd)));
        let node = app.wait_node(id, "unread with its dot", |n| n.unread && n.dot).await;
        assert_ne!(node.status, "working");
        let notice = server.wait_for_summary(summary);
        assert_eq!(notice.body, body, "{summary}");
        assert_eq!(notice.app_name, "Switchboard");
        assert!(notice.actions.iter().any(|a| a == "default"), "clickable: {:?}", notice.actions);
        assert_eq!(app.session(id).expect("in the snapshot")["unread"], true);
    }
    for (_, _, _, _, summary, _) in cases {
        assert_eq!(server.with_summary(summary).len(), 1, "one notification for {summary:?}");
    }

    app.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn focused_window_gets_neither_dot_nor_notification() {
    let server = NotificationServer::start().await;
    let mut app = App::start(Notify::On).await;
    // The window takes the focus when it maps; wait until the app has seen that.
    app.wait_focus_seen(true);

    app.post("claude", &hook(CLAUDE_BASH, "claude-1", Some("/src/auth-refactor")));
    app.post("gemini", &hook(GEMINI_DONE, "gemini-1", Some("/src/docs")));
    for (id, status) in [("claude-1", "blocked"), ("gemini-1", "done")] {
        let node = app.wait_node(id, status, |n| n.status == status).await;
        assert!(!node.unread && !node.dot, "{id}: {node:?}");
        assert_eq!(app.session(id).expect("in the snapshot")["unread"], false);
    }

    // A barrier instead of a sleep: notifications go out one at a time, in order, and web view
    // updates arrive in order. Once a later event (the probe, sent unfocused) has notified and
    // shows its dot, anything the two events above raised would be visible already.
    let probe = app.unfocus();
    server.wait_for_summary(&format!("{probe} — finished"));
    let probe_id = probe.replace(' ', "-");
    app.wait_node(&probe_id, "unread", |n| n.dot).await;
    let raised: Vec<_> = server.notices().into_iter().filter(|n| !n.summary.starts_with("focus probe")).collect();
    assert!(raised.is_empty(), "no notification while focused, got {raised:#?}");
    for id in ["claude-1", "gemini-1"] {
        let node = app.node(id).await.expect("still there");
        assert!(!node.unread && !node.dot, "{id}: {node:?}");
    }

    // Focused again: a new terminal status leaves no dot either.
    app.focus();
    app.post("claude", &hook("claude/Stop.json", "claude-1", Some("/src/auth-refactor")));
    let node = app.wait_node("claude-1", "done", |n| n.status == "done").await;
    assert!(!node.unread && !node.dot, "claude-1: {node:?}");

    app.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn clicking_a_node_clears_its_unread_dot() {
    let mut app = App::start(Notify::Off).await;
    app.unfocus();

    app.post("claude", &hook("claude/Stop.json", "claude-1", Some("/src/auth-refactor")));
    app.post("gemini", &hook(GEMINI_DONE, "gemini-1", Some("/src/docs")));
    app.wait_node("claude-1", "unread", |n| n.status == "done" && n.dot).await;
    app.wait_node("gemini-1", "unread", |n| n.status == "done" && n.dot).await;

    app.click_node("claude-1").await;
    let node = app.wait_node("claude-1", "read", |n| !n.unread && !n.dot).await;
    assert_eq!(node.status, "done", "reading a node does not change its status");
    assert_eq!(app.session("claude-1").expect("in the snapshot")["unread"], false);
    // Only the clicked node.
    let other = app.node("gemini-1").await.expect("still there");
    assert!(other.unread && other.dot, "gemini-1: {other:?}");
    assert_eq!(app.session("gemini-1").expect("in the snapshot")["unread"], true);

    app.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_repeated_terminal_status_does_not_notify_again() {
    let server = NotificationServer::start().await;
    let mut app = App::start(Notify::On).await;
    app.unfocus();
    let (blocked, finished) = ("auth-refactor — needs permission", "auth-refactor — finished");

    app.post("claude", &hook(CLAUDE_BASH, "claude-1", Some("/src/auth-refactor")));
    server.wait_for_summary(blocked);

    // The same status again, for another command: different words, so only the notify policy
    // (not a filter of identical notifications) can keep this one quiet.
    let mut again = hook(CLAUDE_BASH, "claude-1", Some("/src/auth-refactor"));
    again["tool_input"]["command"] = json!("npm run deploy");
    app.post("claude", &again);
    app.wait_session("claude-1", "reduced the repeat", |s| {
        s["message"].as_str().unwrap_or("").contains("npm run deploy")
    });
    app.wait_node("claude-1", "showing the new command", |n| n.reason.contains("npm run deploy")).await;

    // A different terminal status does notify; notifications go out in order, so once this one
    // is here, any notification for the repeat would be here too.
    let mut stop = hook("claude/Stop.json", "claude-1", Some("/src/auth-refactor"));
    stop["last_assistant_message"] = json!("Deployed.");
    app.post("claude", &stop);
    let notice = server.wait_for_summary(finished);
    assert_eq!(notice.body, "Deployed.");
    assert_eq!(server.with_summary(blocked).len(), 1, "blocked twice, notified once: {:#?}", server.notices());

    // And done twice: the second Stop (another message) is reduced but raises nothing.
    stop["last_assistant_message"] = json!("Deployed again.");
    app.post("claude", &stop);
    app.wait_session("claude-1", "reduced the second Stop", |s| s["message"] == "Deployed again.");
    app.post("custom", &json!({"sessionId": "barrier", "title": "barrier", "status": "done"}));
    server.wait_for_summary("barrier — finished");
    assert_eq!(server.with_summary(finished).len(), 1, "done twice, notified once: {:#?}", server.notices());
    let node = app.node("claude-1").await.expect("the node");
    assert!(node.unread && node.dot, "still unread: {node:?}");

    app.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn clicking_the_notification_clears_the_dot_and_focuses_the_window() {
    let server = NotificationServer::start().await;
    let mut app = App::start(Notify::On).await;
    app.unfocus();

    app.post("codex", &hook(CODEX_QUESTION, "codex-1", Some("/src/billing")));
    app.post("gemini", &hook(GEMINI_DONE, "gemini-1", Some("/src/docs")));
    app.wait_node("codex-1", "unread", |n| n.status == "waiting" && n.dot).await;
    app.wait_node("gemini-1", "unread", |n| n.status == "done" && n.dot).await;
    let notice = server.wait_for_summary("billing — has a question");
    server.wait_for_summary("docs — finished");

    // One click, at once: the app listens for it before the notification is shown (issue 46).
    server.invoke_action(notice.id, "default").await;
    let started = Instant::now();
    while app.session("codex-1").expect("in the snapshot")["unread"] != false {
        assert!(started.elapsed() < Duration::from_secs(10), "the notification click was never handled");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let node = app.wait_node("codex-1", "read and selected", |n| !n.unread && !n.dot && n.selected).await;
    assert_eq!(node.status, "waiting");
    let other = app.node("gemini-1").await.expect("still there");
    assert!(other.unread && other.dot, "only the clicked notification's session is read: {other:?}");
    // The click brought the window forward: the app acts focused again.
    app.wait_focus_seen(true);

    app.close().await;
}
