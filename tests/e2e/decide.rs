//! Act from the board (issue 14) in the real app: the real `switchboard hook claude` holds a
//! permission; Allow / Deny on the node, or on the notification, answers it in Claude's words.

use std::io::Write;
use std::process::{Child, Command, Stdio};

use fantoccini::Locator;
use serde_json::Value;

use crate::harness::{hook, App, Notify};
use crate::notifications::NotificationServer;

const HOOK_BIN: &str = env!("CARGO_BIN_EXE_switchboard");
const CLAUDE_BASH: &str = "claude/PermissionRequest.json";
/// Far longer than a card's line, with a newline: what Allow lets through must be shown whole.
const LONG_COMMAND: &str = "rm -rf node_modules && git push --force origin main && \\\n  psql \"$PROD_URL\" -c 'DROP TABLE sessions; DROP TABLE users;' && echo done with the migration";

/// `switchboard hook claude` for the app's state directory, holding the permission.
fn held_hook(app: &App, session_id: &str) -> Child {
    held_hook_for(app, session_id, LONG_COMMAND)
}

/// The same, for `command`.
pub(crate) fn held_hook_for(app: &App, session_id: &str, command: &str) -> Child {
    // Under `timeout`: the agent the forwarder reports (past the shell) then has no other children
    // (this test binary's would look like the approved tool running). Like a real CLI, the agent
    // outlives its hook (`sleep`): else the watcher could end the session before a test looks.
    let mut child = Command::new("timeout")
        .args(["120", "sh", "-c", r#""$0" hook claude; exec sleep 30 >/dev/null 2>&1"#, HOOK_BIN])
        .env("SWITCHBOARD_HOME", app.state_dir())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start the forwarder");
    let mut payload = hook(CLAUDE_BASH, session_id, Some("/src/auth-refactor"));
    payload["tool_input"]["command"] = serde_json::json!(command);
    let payload = payload.to_string();
    child.stdin.take().expect("stdin").write_all(payload.as_bytes()).expect("write the payload");
    child
}

/// What the forwarder told Claude: the `behavior` of its decision, `None` for nothing said. Read
/// until what it printed is a whole JSON value (or its output ends); then the stand-in agent,
/// which outlives its hook, is ended.
pub(crate) fn told_claude(mut child: Child) -> Option<String> {
    let told = told_claude_so_far(&mut child);
    end_agent(child);
    told
}

/// [`told_claude`] with the stand-in agent left running, as a real CLI goes on after its answer:
/// ended, the watcher rightly ends its session ("exited without ending its session"), which a
/// test looking at the session after the answer would race.
pub(crate) fn told_claude_so_far(child: &mut Child) -> Option<String> {
    use std::io::Read;
    let mut stdout = child.stdout.take().expect("stdout");
    let (mut out, mut chunk) = (Vec::new(), [0u8; 4096]);
    while serde_json::from_slice::<Value>(&out).is_err() {
        match stdout.read(&mut chunk) {
            Ok(0) | Err(_) => break,
            Ok(n) => out.extend_from_slice(&chunk[..n]),
        }
    }
    let said: Value = serde_json::from_slice(&out).ok()?;
    said["hookSpecificOutput"]["decision"]["behavior"].as_str().map(str::to_owned)
}

/// Ends the stand-in agent of [`held_hook_for`].
pub(crate) fn end_agent(mut child: Child) {
    let _ = child.kill();
    let _ = child.wait();
}

async fn lane_shown(app: &App) -> bool {
    let script = r#"return document.querySelector('.react-flow__node-region[data-id="region:needs-you"]') !== null;"#;
    app.client.execute(script, vec![]).await.expect("look for the lane") == Value::Bool(true)
}

async fn click_in_node(app: &App, session_id: &str, test_id: &str) {
    let selector = format!(r#"[data-testid="session-node"][data-session-id="{session_id}"] [data-testid="{test_id}"]"#);
    app.click_settled(&selector).await;
}

/// The session's history entries as the app's store has them (committed within 500 ms), once one
/// contains `wanted`; all of them, joined.
fn history_of(app: &App, id: &str, wanted: &str) -> String {
    let path = app.state_dir().join(switchboard_engine::instance::outputs::store::DATABASE_FILE);
    let read = || -> Option<String> {
        let conn = rusqlite::Connection::open_with_flags(&path, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY).ok()?;
        let mut query = conn.prepare("SELECT entry FROM history WHERE session_id = ?1 ORDER BY id").ok()?;
        let rows = query.query_map([id], |row| row.get::<_, String>(0)).ok()?;
        Some(rows.flatten().collect::<Vec<_>>().join("\n"))
    };
    crate::harness::eventually(std::time::Duration::from_secs(20), || read().filter(|all| all.contains(wanted)))
        .unwrap_or_else(|| read().unwrap_or_default())
}

/// Whether the card's command box shows its text whole (nothing scrolled out of sight).
async fn command_shown_whole(app: &App, id: &str) -> Value {
    let selector = format!(r#"[data-testid="session-node"][data-session-id="{id}"] [data-testid="decide-what"]"#);
    app.client
        .execute(
            "const p = document.querySelector(arguments[0]); return p && p.scrollHeight <= p.clientHeight + 1 && p.scrollWidth <= p.clientWidth + 1;",
            vec![serde_json::json!(selector)],
        )
        .await
        .expect("measure the command box")
}

/// Saves the screen (WebDriver's screenshot) as `target/e2e-shots/<name>.png`, and to
/// `$DECIDE_SCREENSHOT/<name>.png` when set (the README's pictures).
async fn shot(app: &App, name: &str) {
    let png = app.client.screenshot().await.expect("screenshot");
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("target/e2e-shots");
    let _ = std::fs::create_dir_all(&dir);
    std::fs::write(dir.join(format!("{name}.png")), &png).expect("save the screenshot");
    if let Ok(docs) = std::env::var("DECIDE_SCREENSHOT") {
        std::fs::write(std::path::Path::new(&docs).join(format!("{name}.png")), &png).expect("save the screenshot");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn allow_and_deny_on_the_node_answer_the_held_permission() {
    let app = App::start_with(Notify::Off, &[("SWITCHBOARD_DECIDE", "claude")]).await;
    app.client.set_window_size(1280, 800).await.expect("resize");
    for (id, command, button, behavior, said) in [
        ("held-1", "npm test", "decide-allow", "allow", "Allowed"),
        ("held-2", LONG_COMMAND, "decide-deny", "deny", "Denied"),
    ] {
        let forwarder = held_hook_for(&app, id, command);
        app.wait_session(id, "offers a decision", |s| s["decision"].is_u64());
        app.wait_node(id, "blocked", |n| n.status == "blocked").await;
        // The whole command is in the DOM beside the buttons, and the hold counts down.
        let beside = format!(r#"[data-testid="session-node"][data-session-id="{id}"] .node-decide"#);
        let shown = app
            .client
            .execute(
                "const d = document.querySelector(arguments[0]); return d && [d.querySelector('[data-testid=decide-command]')?.textContent, !!d.querySelector('[data-testid=decide-allow]'), d.querySelector('[data-testid=decide-countdown]')?.textContent];",
                vec![serde_json::json!(beside)],
            )
            .await
            .expect("read the node");
        assert_eq!(shown[0], command, "the command beside Allow, whole: {shown}");
        assert_eq!(shown[1], true, "{shown}");
        assert!(shown[2].as_str().is_some_and(|t| t.contains("waits here")), "a countdown: {shown}");
        click_in_node(&app, id, button).await;
        let clicked = std::time::Instant::now();
        // The agent goes on after its answer until this one is checked (then it is ended).
        let (told, agent) = tokio::task::spawn_blocking(move || {
            let mut forwarder = forwarder;
            (told_claude_so_far(&mut forwarder), forwarder)
        })
        .await
        .expect("join");
        assert_eq!(told.as_deref(), Some(behavior), "{button}");
        app.wait_node(id, "working after the answer", |n| n.status == "working").await;
        let session = app.session(id).expect("in the snapshot");
        let message = session["message"].as_str().unwrap_or_default();
        let head = command.split_whitespace().next().unwrap_or_default();
        assert!(message.starts_with(&format!("{said} from Switchboard: {head}")), "{said}: {message:?}");
        assert_eq!(session["decision"], Value::Null, "nothing left to answer");
        // Answered, it leaves the Needs you lane (the only one there) within 5 s — with the
        // pointer still on it (issue 33.5: it once stayed for minutes until the pointer moved).
        while lane_shown(&app).await {
            if clicked.elapsed() > std::time::Duration::from_secs(5) {
                let hovered = app.client.execute("return [...document.querySelectorAll(':hover')].map(e => e.className + '|' + (e.dataset.sessionId || '')).join(' > ');", vec![]).await.unwrap();
                panic!("{id}: the answered node is still in the lane 5 s after the answer (hovered: {hovered})");
            }
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        }
        end_agent(agent);
    }
    // A permission that is not held (a CLI not opted in) shows no buttons.
    app.post("codex", &hook("codex/PermissionRequest.json", "not-held", Some("/src/billing")));
    app.wait_node("not-held", "blocked", |n| n.status == "blocked").await;
    let selector = r#"[data-testid="session-node"][data-session-id="not-held"] [data-testid="decide-allow"]"#;
    assert!(app.client.find(Locator::Css(selector)).await.is_err(), "no Allow without a held hook");
    app.close().await;
}

/// Issue 33.3: a held command of three lines whose dangerous end the card cannot show — Allow on
/// the card never answers it: it opens the panel, which shows it whole, and Allow there does.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn allow_never_acts_on_a_command_the_card_hides() {
    let app = App::start_with(Notify::Off, &[("SWITCHBOARD_DECIDE", "claude")]).await;
    app.client.set_window_size(1280, 800).await.expect("resize");
    let command = "rm -rf build &&\n  make release &&\n  psql \"$PROD_URL\" -c \"DROP TABLE users\"";
    let forwarder = held_hook_for(&app, "hidden-end", command);
    app.wait_session("hidden-end", "offers a decision", |s| s["decision"].is_u64());
    app.wait_node("hidden-end", "blocked", |n| n.status == "blocked").await;
    app.wait_still(".react-flow__viewport").await;
    let whole = command_shown_whole(&app, "hidden-end").await;
    let allow = r#"[data-testid="session-node"][data-session-id="hidden-end"] [data-testid="decide-allow"]"#;
    let label = app.client.find(Locator::Css(allow)).await.expect("the card's Allow").text().await.unwrap();
    shot(&app, "held-command-card").await;
    // The card's command box holds about two lines: three do not show whole.
    assert_eq!(whole, Value::Bool(false), "the card scrolls the three-line command");
    assert_eq!(label, "Allow…", "the card hides part of the command: its Allow says so");
    click_in_node(&app, "hidden-end", "decide-allow").await;
    {
        // Nothing answered: the panel shows the command whole, and its Allow answers.
        let panel = app.text_of("details-command").await;
        assert!(panel.contains("DROP TABLE users"), "the panel shows the dangerous end: {panel}");
        assert!(app.session("hidden-end").expect("in the snapshot")["decision"].is_u64(), "not answered by the card");
        shot(&app, "held-command-panel").await;
        app.click_settled(r#"[data-testid="details-allow"]"#).await;
    }
    let told = tokio::task::spawn_blocking(move || told_claude(forwarder)).await.expect("join");
    assert_eq!(told.as_deref(), Some("allow"));
    app.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_notification_of_a_held_permission_can_allow_or_deny_it() {
    let server = NotificationServer::start().await;
    let mut app = App::start_with(Notify::On, &[("SWITCHBOARD_DECIDE", "claude")]).await;
    app.unfocus();
    let forwarder = held_hook(&app, "held-n");
    let notice = server.wait_for_summary("auth-refactor — needs permission");
    for action in ["default", "allow", "deny"] {
        assert!(notice.actions.iter().any(|a| a == action), "{action} in {:?}", notice.actions);
    }
    assert!(!notice.actions.iter().any(|a| a.contains("always")), "never 'always allow': {:?}", notice.actions);
    // One click, at once: the app listens for it before the notification is shown (issue 46).
    server.invoke_action(notice.id, "deny").await;
    let started = std::time::Instant::now();
    while app.session("held-n").expect("in the snapshot")["decision"].is_u64() {
        assert!(started.elapsed() < std::time::Duration::from_secs(10), "Deny on the notification never taken");
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    let told = tokio::task::spawn_blocking(move || told_claude(forwarder)).await.expect("join");
    assert_eq!(told.as_deref(), Some("deny"));
    // The answer is in the session's history (the session itself may have moved on by now: the
    // stand-in agent, `timeout`, exits with its hook, and the watcher ends the session).
    let history = history_of(&app, "held-n", "Denied from Switchboard");
    assert!(history.contains("Denied from Switchboard"), "{history}");
    // A plain notification (nothing held) offers no answer.
    app.post("codex", &hook("codex/PermissionRequest.json", "plain-n", Some("/src/billing")));
    let plain = server.wait_for_summary("billing — needs permission");
    assert!(!plain.actions.iter().any(|a| a == "allow"), "{:?}", plain.actions);
    app.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_switch_in_connections_opts_a_cli_in_for_the_forwarders_at_once() {
    let app = App::start(Notify::Off).await;
    let endpoint = || switchboard_engine::endpoint::Endpoint::read(&app.state_dir()).expect("endpoint.json");
    assert!(endpoint().decide.is_empty(), "off by default");
    app.click_test_id("connections-toggle").await;
    let gemini = app.client.find(Locator::Css(r#"[data-testid="decide-setting-gemini"]"#)).await.expect("gemini");
    assert!(!gemini.is_enabled().await.expect("enabled?"), "Gemini CLI cannot be approved from a hook");
    // Enabled once the saved settings are loaded.
    // Enabled once the saved settings are loaded: the click waits for that (`SETTLE`).
    app.click_settled(r#"[data-testid="decide-setting-claude"]"#).await;
    let on = crate::harness::eventually(std::time::Duration::from_secs(10), || {
        let endpoint = endpoint();
        (endpoint.decide == ["claude"]).then_some(endpoint)
    })
    .expect("the forwarders are told at once (endpoint.json)");
    assert_eq!(on.hold_ms, 30_000);
    let saved: Value =
        serde_json::from_slice(&std::fs::read(app.state_dir().join("settings.json")).expect("settings.json")).unwrap();
    assert_eq!(saved["decide"], serde_json::json!(["claude"]), "and kept for the next start");
    // Every CLI of the table has its switch, Qwen Code's and Copilot CLI's included — each off
    // while a save is under way, so read them once the save has come back.
    crate::harness::wait_for(
        &app,
        "the save has come back",
        r#"const s = document.querySelector('[data-testid="decide-settings"]'); return s && s.getAttribute('aria-busy') === 'false';"#,
        vec![],
    )
    .await;
    for cli in ["qwen", "copilot"] {
        let switch = app.client.find(Locator::Css(&format!(r#"[data-testid="decide-setting-{cli}"]"#))).await;
        assert!(switch.expect(cli).is_enabled().await.expect("enabled?"), "{cli} can be approved from its hook");
    }
    shot(&app, "connections").await;
    app.close().await;
}
