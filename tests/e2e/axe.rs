//! axe-core in the real web view (issue 44.6): every view — the empty board, a board of twelve
//! sessions, the panel with a held command and with a question, Settings, Diagnostics, the `?`
//! sheet, New agent — in light and in dark, with no serious or critical violation.

use serde_json::{json, Value};

use crate::decide::held_hook_for;
use crate::harness::wait_for;
use crate::harness::{hook, App, Notify};
use crate::keyboard::{press, ESCAPE};

/// axe-core's own build, from the UI's dev dependencies (`npm --prefix ui ci`).
fn axe_source() -> String {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("ui/node_modules/axe-core/axe.min.js");
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e} (run npm --prefix ui ci)", path.display()))
}

/// Runs axe on the whole document; each serious or critical violation as one line.
const RUN_AXE: &str = r#"
const done = arguments[arguments.length - 1];
if (!window.axe) { done(['axe-core is not loaded']); return; }
window.axe
  .run(document, { resultTypes: ['violations'] })
  .then((r) => done(r.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.help} — ` + v.nodes.slice(0, 4)
      .map((n) => `${n.target.join(' ')} [${(n.failureSummary || '').replace(/\s+/g, ' ').slice(0, 240)}]`).join('; '))))
  .catch((e) => done([`axe failed: ${e}`]));
"#;

async fn audit(app: &App, theme: &str, view: &str, found: &mut Vec<String>) {
    // Nothing gliding or fading while axe reads colours.
    app.wait_still(".app").await;
    let loaded = app.client.execute("return !!window.axe;", vec![]).await.expect("look for axe");
    if loaded != Value::Bool(true) {
        app.client.execute(&format!("{}\nreturn !!window.axe;", axe_source()), vec![]).await.expect("load axe-core");
    }
    let violations = app.client.execute_async(RUN_AXE, vec![]).await.expect("run axe");
    shot(app, &format!("{theme}-{}", view.replace(['?', ' '], "-").replace("--", "-").trim_matches('-'))).await;
    for line in violations.as_array().cloned().unwrap_or_default() {
        let line = format!("{theme} · {view}: {}", line.as_str().unwrap_or_default());
        eprintln!("{line}");
        found.push(line);
    }
}

/// Saves what axe read as `target/e2e-shots/view-<theme>-<view>.png`, and in `$VIEWS_SCREENSHOT`
/// when set (`make screenshot`): every view in both themes, to look at.
async fn shot(app: &App, name: &str) {
    let png = app.client.screenshot().await.expect("screenshot");
    let dirs = [
        Some(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("target/e2e-shots")),
        std::env::var_os("VIEWS_SCREENSHOT").map(Into::into),
    ];
    for dir in dirs.into_iter().flatten() {
        let _ = std::fs::create_dir_all(&dir);
        std::fs::write(dir.join(format!("view-{name}.png")), &png).expect("save the screenshot");
    }
}

/// Chooses the theme in Settings (the real control), then closes the drawer with Esc.
async fn set_theme(app: &App, theme: &str) {
    app.click_test_id("connections-toggle").await;
    app.click_settled(&format!(r#"[data-testid="theme-{theme}"]"#)).await;
    wait_for(app, "the theme", "return document.documentElement.dataset.theme === arguments[0];", vec![json!(theme)])
        .await;
    press(app, &[ESCAPE]).await;
    wait_for(
        app,
        "the drawer closed",
        r#"return !document.querySelector('[data-testid="connections-drawer"]');"#,
        vec![],
    )
    .await;
}

async fn closed(app: &App, test_id: &str) {
    let script = format!(r#"return !document.querySelector('[data-testid="{test_id}"]');"#);
    wait_for(app, &format!("{test_id} closed"), &script, vec![]).await;
}

async fn shown(app: &App, test_id: &str) {
    let script = format!(r#"return !!document.querySelector('[data-testid="{test_id}"]');"#);
    wait_for(app, &format!("{test_id} shown"), &script, vec![]).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn axe_finds_nothing_serious_in_any_view_in_either_theme() {
    // Allow / Deny on for Claude, and a hold long enough to outlast both themes' passes.
    let app = App::start_seeded(Notify::Off, &[], |state| {
        std::fs::create_dir_all(state).expect("the state dir");
        std::fs::write(state.join("settings.json"), r#"{"decide":["claude"],"holdSeconds":120}"#)
            .expect("settings.json");
    })
    .await;
    app.wait_for_ui().await;
    app.client.set_window_size(1440, 900).await.expect("resize");
    let mut found = Vec::new();
    for theme in ["light", "dark"] {
        set_theme(&app, theme).await;
        audit(&app, theme, "empty board", &mut found).await;
    }

    // Twelve sessions of three projects: done, working, a question, a held command.
    let projects = ["/src/billing", "/src/webapp", "/src/infra"];
    for i in 0..9 {
        let (agent, fixture) = [
            ("gemini", "gemini/AfterAgent.json"),
            ("claude", "claude/UserPromptSubmit.json"),
            ("codex", "codex/Stop.json"),
        ][i % 3];
        app.post(agent, &hook(fixture, &format!("s-{i}"), Some(projects[i % 3])));
    }
    app.post("codex", &hook("codex/PreToolUse-request_user_input.json", "question", Some("/src/billing")));
    app.post("gemini", &hook("gemini/Notification-ToolPermission.json", "not-held", Some("/src/infra")));
    let forwarder = held_hook_for(&app, "held", "rm -rf ./dist && npm run build -- --mode=production");
    app.wait_session("held", "offers a decision", |s| s["decision"].is_u64());
    app.wait_for_sessions_in_view(12).await;
    app.wait_node("question", "waiting", |n| n.status == "waiting").await;

    for theme in ["light", "dark"] {
        set_theme(&app, theme).await;
        audit(&app, theme, "board of 12 sessions", &mut found).await;
        app.click_node("held").await;
        shown(&app, "details-command").await;
        audit(&app, theme, "panel with a held command", &mut found).await;
        app.click_node("question").await;
        wait_for(&app, "the question's panel", r#"const p = document.querySelector('[data-testid="details-panel"]'); return p && p.dataset.sessionId === 'question';"#, vec![]).await;
        audit(&app, theme, "panel with a question", &mut found).await;
        press(&app, &[ESCAPE]).await;
        closed(&app, "details-panel").await;

        app.click_test_id("connections-toggle").await;
        shown(&app, "appearance-settings").await;
        audit(&app, theme, "Settings", &mut found).await;
        app.click_test_id("drawer-tab-diagnostics").await;
        shown(&app, "diagnostics").await;
        wait_for(&app, "the checks", r#"const d = document.querySelector('[data-testid="diagnostics"]'); return d && d.getAttribute('aria-busy') === 'false';"#, vec![]).await;
        audit(&app, theme, "Diagnostics", &mut found).await;
        press(&app, &[ESCAPE]).await;
        closed(&app, "connections-drawer").await;

        press(&app, &['?']).await;
        shown(&app, "shortcut-backdrop").await;
        audit(&app, theme, "the ? sheet", &mut found).await;
        press(&app, &[ESCAPE]).await;
        closed(&app, "shortcut-backdrop").await;

        app.click_test_id("new-agent-toggle").await;
        shown(&app, "new-agent-dialog").await;
        audit(&app, theme, "New agent", &mut found).await;
        press(&app, &[ESCAPE]).await;
        closed(&app, "new-agent-dialog").await;

        // The smaller windows the review used: the board, and the panel beside a held command.
        for (width, height) in [(1200, 780), (900, 600)] {
            app.client.set_window_size(width, height).await.expect("resize");
            wait_for(&app, "the resize", "return Math.abs(window.innerWidth - arguments[0]) < 40;", vec![json!(width)])
                .await;
            audit(&app, theme, &format!("board {width}x{height}"), &mut found).await;
            app.click_node("held").await;
            shown(&app, "details-command").await;
            audit(&app, theme, &format!("held command {width}x{height}"), &mut found).await;
            press(&app, &[ESCAPE]).await;
            closed(&app, "details-panel").await;
        }
        app.client.set_window_size(1440, 900).await.expect("resize");
    }
    let mut forwarder = forwarder;
    let _ = forwarder.kill();
    let _ = forwarder.wait();
    assert!(found.is_empty(), "axe-core found {} serious or critical violations:\n{}", found.len(), found.join("\n"));
    app.close().await;
}
