//! A newcomer's first minutes (issue 37) in the real app: a blocked card says how it can be
//! answered, `?` opens the sheet of every shortcut, Settings and Diagnostics are apart, and at
//! 900 × 600 with the details panel open the lane's cards keep their title and what they ask at a
//! readable size. Screenshots land in target/e2e-shots/newcomer-*.png.

use serde_json::{json, Value};

use crate::harness::{hook, App, Notify};

const CLAUDE_BASH: &str = "claude/PermissionRequest.json";
const GEMINI_PERMISSION: &str = "gemini/Notification-ToolPermission.json";
const CODEX_QUESTION: &str = "codex/PreToolUse-request_user_input.json";
const CLAUDE_WORKING: &str = "claude/PreToolUse-Bash.json";
const CLAUDE_DONE: &str = "claude/Stop.json";

async fn shot(app: &App, name: &str) {
    let png = app.client.screenshot().await.expect("screenshot");
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("target/e2e-shots");
    let _ = std::fs::create_dir_all(&dir);
    std::fs::write(dir.join(format!("newcomer-{name}.png")), &png).expect("save the screenshot");
}

/// A key pressed on the board (not in a field), as the web view's keydown handlers see it.
async fn press(app: &App, key: &str, shift: bool) {
    let script = "document.body.dispatchEvent(new KeyboardEvent('keydown', {key: arguments[0], shiftKey: arguments[1], bubbles: true})); return true;";
    app.client.execute(script, vec![json!(key), json!(shift)]).await.expect("press a key");
}

async fn run(app: &App, script: &str) -> Value {
    app.client.execute(script, vec![]).await.expect("run a script")
}

async fn wait_for(app: &App, script: &str, what: &str) -> Value {
    crate::harness::wait_for(app, what, script, vec![]).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_blocked_card_says_how_it_can_be_answered_and_question_mark_lists_every_shortcut() {
    let app = App::start(Notify::Off).await;
    app.client.set_window_size(1280, 800).await.expect("resize");
    app.post("claude", &hook(CLAUDE_BASH, "claude-blocked", Some("/src/webapp")));
    app.post("gemini", &hook(GEMINI_PERMISSION, "gemini-blocked", Some("/src/webapp")));
    app.wait_for_sessions_in_view(2).await;

    let how = |id: &str| {
        format!(
            r#"const e = document.querySelector('[data-session-id="{id}"] [data-testid="how-to-answer"]');
               return e ? {{text: e.textContent, title: e.title}} : null;"#
        )
    };
    // Allow / Deny is off by default: Claude's card says where to answer, and how to turn it on.
    let claude = wait_for(&app, &how("claude-blocked"), "Claude's hint").await;
    assert!(claude["text"].as_str().unwrap().contains("Answer in terminal: Bash"), "{claude}");
    assert!(claude["title"].as_str().unwrap().contains("turn it on in Settings"), "{claude}");
    // Gemini CLI cannot be answered from the board at all: it says why, and no switch.
    let gemini = wait_for(&app, &how("gemini-blocked"), "Gemini's hint").await;
    assert!(gemini["title"].as_str().unwrap().contains("Gemini CLI cannot be answered from the board"), "{gemini}");
    app.wait_still(r#"[data-session-id="claude-blocked"]"#).await;
    shot(&app, "blocked-cards").await;

    // The panel says it whole, with the way to the switch.
    app.click_node("claude-blocked").await;
    let panel = wait_for(
        &app,
        r#"const e = document.querySelector('[data-testid="details-how-to-answer"]'); return e && e.textContent;"#,
        "the panel's hint",
    )
    .await;
    assert!(panel.as_str().unwrap().contains("Allow / Deny from the board is off for Claude Code"), "{panel}");
    app.click_test_id("details-open-settings").await;
    wait_for(
        &app,
        r#"return document.querySelector('[data-testid="connections-drawer"][data-tab="settings"] [data-testid="decide-setting-claude"]') !== null;"#,
        "Settings with Claude's switch",
    )
    .await;
    shot(&app, "settings").await;
    // Appearance: Dark turns the whole window dark (the root's palette), System brings it back.
    app.click_test_id("theme-dark").await;
    let bg = wait_for(
        &app,
        r#"return document.documentElement.dataset.theme === 'dark' && getComputedStyle(document.documentElement).getPropertyValue('--bg').trim();"#,
        "the dark theme",
    )
    .await;
    assert_eq!(bg, "#121418", "the dark palette's background");
    shot(&app, "settings-dark").await;
    app.click_test_id("theme-system").await;
    wait_for(&app, r#"return document.documentElement.dataset.theme === 'light';"#, "back to the system's light").await;
    app.click_test_id("drawer-tab-diagnostics").await;
    wait_for(&app, r#"return document.querySelector('[data-testid="doctor-checks"]') !== null;"#, "the checks").await;
    shot(&app, "diagnostics").await;
    app.click_test_id("connections-toggle").await;

    // `?` opens the sheet of every shortcut; Esc closes it.
    press(&app, "?", true).await;
    let rows = wait_for(
        &app,
        r#"const s = document.querySelector('[data-testid="shortcut-sheet"]'); return s && s.querySelectorAll('[data-testid="shortcut-row"]').length;"#,
        "the shortcut sheet",
    )
    .await;
    assert!(rows.as_u64().unwrap() >= 14, "{rows} rows");
    let legend = run(
        &app,
        r#"return document.querySelectorAll('[data-testid="legend-tone"], [data-testid="legend-mark"]').length;"#,
    )
    .await;
    assert!(legend.as_u64().unwrap() >= 12, "{legend} legend rows: every status colour and mark");
    shot(&app, "shortcuts").await;
    press(&app, "Escape", false).await;
    wait_for(&app, r#"return document.querySelector('[data-testid="shortcut-sheet"]') === null;"#, "the sheet closed")
        .await;

    // New agent: the popover stays where it opened when its first field is clicked (it jumped 16 px).
    app.click_test_id("new-agent-toggle").await;
    let rect = r#"const d = document.querySelector('[data-testid="new-agent-dialog"]');
                  if (!d) return null; const r = d.getBoundingClientRect(); return [r.left, r.top];"#;
    let opened = wait_for(&app, rect, "the New agent popover").await;
    app.click_test_id("new-agent-cwd").await;
    let after = wait_for(&app, rect, "the popover after a click").await;
    assert_eq!(opened, after, "the popover moved on its first click");
    shot(&app, "new-agent").await;
    press(&app, "Escape", false).await;
    wait_for(&app, r#"return document.querySelector('[data-testid="new-agent-dialog"]') === null;"#, "Esc closed it")
        .await;
    app.close().await;
}

/// Every lane card's title and ask: in the DOM, their font size, the card's form and the zoom.
const LANE_TEXT: &str = r#"
    const zoom = (() => {
        const v = document.querySelector('.react-flow__viewport');
        const m = v && getComputedStyle(v).transform.match(/matrix\(([^,]+)/);
        return m ? parseFloat(m[1]) : 1;
    })();
    const cards = [...document.querySelectorAll('.react-flow__node-session')]
        .filter((n) => n.querySelector('[data-needs-you="true"]'));
    return cards.map((n) => {
        const title = n.querySelector('[data-testid="node-title"]');
        const ask = n.querySelector('[data-testid="session-reason"], [data-testid="decide-what"], [data-testid="question-on-card"], .node-reason');
        const px = (e) => e ? parseFloat(getComputedStyle(e).fontSize) : 0;
        const shown = (e) => { if (!e) return false; const r = e.getBoundingClientRect(); return r.width > 0 && r.height > 0; };
        return {
            id: n.getAttribute('data-id'),
            form: n.querySelector('[data-testid="session-node"]').getAttribute('data-form'),
            zoom,
            title: title ? title.textContent : null,
            ask: ask ? ask.textContent : null,
            titlePx: px(title),
            askPx: px(ask),
            shown: shown(title) && shown(ask),
        };
    });
"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn at_900_by_600_with_the_panel_open_lane_cards_keep_title_and_ask_readable() {
    let app = App::start(Notify::Off).await;
    app.client.set_window_size(900, 600).await.expect("resize");
    let mut count = 0;
    for i in 0..3 {
        app.post("claude", &hook(CLAUDE_BASH, &format!("c-hello-{i}"), Some("/src/webapp")));
        count += 1;
    }
    app.post("codex", &hook(CODEX_QUESTION, "x-question", Some("/src/api")));
    count += 1;
    for i in 0..6 {
        let fixture = if i % 2 == 0 { CLAUDE_WORKING } else { CLAUDE_DONE };
        app.post("claude", &hook(fixture, &format!("busy-{i}"), Some(&format!("/src/project-{}", i % 3))));
        count += 1;
    }
    app.wait_for_sessions_in_view(count).await;
    app.wait_still(r#"[data-session-id="c-hello-0"]"#).await;
    shot(&app, "900x600").await;
    app.click_node("c-hello-1").await;
    wait_for(&app, r#"return document.querySelector('[data-testid="details-panel"]') !== null;"#, "the details panel")
        .await;
    app.wait_still(r#"[data-session-id="c-hello-1"]"#).await;
    tokio::time::sleep(std::time::Duration::from_millis(600)).await;
    shot(&app, "900x600-panel").await;

    let cards = run(&app, LANE_TEXT).await;
    let cards = cards.as_array().expect("the lane's cards");
    assert_eq!(cards.len(), 4, "{cards:?}");
    for card in cards {
        assert!(card["title"].as_str().is_some_and(|t| !t.is_empty()), "{card}");
        assert!(card["ask"].as_str().is_some_and(|t| !t.is_empty()), "{card}");
        assert!(card["titlePx"].as_f64().unwrap() >= 11.0, "title too small: {card}");
        assert!(card["askPx"].as_f64().unwrap() >= 11.0, "ask too small: {card}");
        // The full card, at no less than the zoom where cards turn compact (layout.ts ZOOM_COMPACT).
        assert_eq!(card["form"], "card", "{card}");
        assert!(card["zoom"].as_f64().unwrap() >= 0.8 - 1e-6, "the board shrank the lane: {card}");
    }
    // Two sessions in one folder never read the same.
    let titles: Vec<&str> = cards.iter().filter_map(|c| c["title"].as_str()).collect();
    let mut unique = titles.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), titles.len(), "{titles:?}");
    app.close().await;
}
