//! One target for every key, the whole command before Allow, Tab in screen order (issue 44), in
//! the real app: keys typed through WebDriver's actions land where the focus is, as a user's do.

use fantoccini::actions::{InputSource, KeyAction, KeyActions};
use fantoccini::Locator;
use serde_json::{json, Value};

use crate::decide::{held_hook_for, told_claude};
use crate::harness::{hook, wait_for, App, Notify};

pub const TAB: char = '\u{e004}';
pub const ESCAPE: char = '\u{e00c}';

/// Presses and releases each key in turn, on whatever has the focus.
pub async fn press(app: &App, keys: &[char]) {
    let mut actions = KeyActions::new("keyboard".into());
    for &key in keys {
        actions = actions.then(KeyAction::Down { value: key }).then(KeyAction::Up { value: key });
    }
    app.client.perform_actions(actions).await.expect("press keys");
}

async fn shot(app: &App, name: &str) {
    let png = app.client.screenshot().await.expect("screenshot");
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("target/e2e-shots");
    let _ = std::fs::create_dir_all(&dir);
    std::fs::write(dir.join(format!("keyboard-{name}.png")), &png).expect("save the screenshot");
}

/// The session of the card the focus is on (its node, a button in it), if any.
const FOCUSED_CARD: &str = r#"const c = document.activeElement && document.activeElement.closest('.react-flow__node-session, .session-tile');
return c ? c.getAttribute('data-id') : null;"#;

async fn focused_card(app: &App) -> Option<String> {
    app.client.execute(FOCUSED_CARD, vec![]).await.expect("read the focus").as_str().map(str::to_owned)
}

/// The session the details panel shows, if it is open.
async fn panel_card(app: &App) -> Option<String> {
    let script =
        r#"const p = document.querySelector('[data-testid="details-panel"]'); return p ? p.dataset.sessionId : null;"#;
    app.client.execute(script, vec![]).await.expect("read the panel").as_str().map(str::to_owned)
}

async fn key_hint(app: &App) -> String {
    let script = r#"const h = document.querySelector('[data-testid="key-hint"]'); return h ? h.textContent : null;"#;
    wait_for(app, "a key hint", script, vec![]).await.as_str().unwrap_or_default().to_owned()
}

/// Issue 44.1: after Tab ×N then `n`, the panel shows the held permission and `a` allows *it* —
/// not the card Tab left the focus on; and a key that cannot act says why.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn keys_act_on_the_card_the_panel_shows() {
    let app = App::start_with(Notify::Off, &[("SWITCHBOARD_DECIDE", "claude")]).await;
    app.client.set_window_size(1280, 800).await.expect("resize");
    for (i, cwd) in ["/src/api", "/src/web", "/src/docs"].iter().enumerate() {
        app.post("gemini", &hook("gemini/AfterAgent.json", &format!("done-{i}"), Some(cwd)));
    }
    let forwarder = held_hook_for(&app, "held", "npm test");
    app.wait_session("held", "offers a decision", |s| s["decision"].is_u64());
    app.wait_node("held", "blocked", |n| n.status == "blocked").await;
    for i in 0..3 {
        app.wait_node(&format!("done-{i}"), "done", |n| n.status == "done").await;
    }
    app.wait_still(".react-flow__viewport").await;

    // Tab until the focus is on a card that is not the held one.
    let mut on = None;
    for _ in 0..60 {
        press(&app, &[TAB]).await;
        if let Some(id) = focused_card(&app).await.filter(|id| id != "held") {
            on = Some(id);
            break;
        }
    }
    let on = on.expect("Tab reaches a card");
    // Reached with Tab, it is the selection: the panel shows the card the focus is on.
    wait_for(&app, "the panel shows the focused card", r#"const p = document.querySelector('[data-testid="details-panel"]'); return p && p.dataset.sessionId === arguments[0];"#, vec![json!(on)]).await;
    // A key that cannot act there says why (and answers nothing).
    press(&app, &['a']).await;
    let hint = key_hint(&app).await;
    assert!(hint.contains("is not asking for permission"), "{hint}");
    assert!(app.session("held").expect("in the snapshot")["decision"].is_u64(), "nothing answered");

    // `n`: the panel shows the held permission, and the focus went along — one target.
    press(&app, &['n']).await;
    wait_for(&app, "the panel shows the held card", r#"const p = document.querySelector('[data-testid="details-panel"]'); return p && p.dataset.sessionId === "held";"#, vec![]).await;
    assert_eq!(focused_card(&app).await.as_deref(), Some("held"), "the focus follows the selection");
    let rings = app
        .client
        .execute(
            r#"return [...document.querySelectorAll('.session-node')].filter(n => n.classList.contains('is-selected') || n.closest(':focus-visible') || n.matches(':focus-visible')).map(n => n.dataset.sessionId);"#,
            vec![],
        )
        .await
        .expect("read the rings");
    assert_eq!(rings, json!(["held"]), "one card wears the ring");
    assert_eq!(panel_card(&app).await.as_deref(), Some("held"));
    // `a` allows what the panel shows.
    press(&app, &['a']).await;
    let told = tokio::task::spawn_blocking(move || told_claude(forwarder)).await.expect("join");
    assert_eq!(told.as_deref(), Some("allow"));
    app.close().await;
}

/// A command of about 600 characters whose end is `rm -rf …`.
fn long_command() -> String {
    let tail = "&& rm -rf ./dist ./node_modules/.cache ~/.aws/cli/cache";
    let mut command = String::new();
    let steps = [
        "npm ci --prefer-offline --no-audit",
        "npm run lint -- --max-warnings=0",
        "npm run build -- --mode=production --sourcemap=false",
        "git push --force-with-lease origin release/2026-12",
    ];
    let mut i = 0;
    while command.len() + tail.len() < 590 {
        command.push_str(steps[i % steps.len()]);
        command.push_str(" && ");
        i += 1;
    }
    command.push_str(&tail[3..]);
    command
}

/// The panel's command, read in one script: inner scroll boxes around it, whether its end is in
/// the panel's view, Allow's label, and the flags a line break split.
const READ_PANEL: &str = r#"
const panel = document.querySelector('[data-testid="details-panel"]');
const cmd = panel && panel.querySelector('[data-testid="details-command"]');
if (!cmd) return null;
const end = panel.querySelector('[data-testid="details-command-end"]');
const allow = panel.querySelector('[data-testid="details-allow"]');
const boxes = [];
for (let el = cmd; el && el !== panel; el = el.parentElement) {
  const s = getComputedStyle(el);
  if (/(auto|scroll)/.test(s.overflowY + s.overflowX)) boxes.push(el.className);
  if (el.scrollHeight > el.clientHeight + 1) boxes.push('clipped ' + el.className);
}
const p = panel.getBoundingClientRect();
const e = end.getBoundingClientRect();
const line = parseFloat(getComputedStyle(cmd).lineHeight) || 16;
const split = [...cmd.querySelectorAll('.cmd-word')]
  .filter((w) => w.textContent.startsWith('-') && w.getBoundingClientRect().height > line * 1.5)
  .map((w) => w.textContent);
return { text: cmd.textContent, boxes, endInView: e.top >= p.top && e.bottom <= p.bottom, allow: allow.textContent, split };
"#;

/// Issue 44.2: a 600-character held command ending in `rm -rf …`: Allow reads "Allow…" and
/// answers nothing until the tail has been in view; the tail is reached with no inner scroll box
/// (the panel scrolls as a whole), and no flag is split by a line break.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_long_command_is_allowed_only_once_its_tail_was_in_view() {
    let app = App::start_with(Notify::Off, &[("SWITCHBOARD_DECIDE", "claude")]).await;
    // Small: the command cannot fit beside the fold.
    app.client.set_window_size(720, 460).await.expect("resize");
    let command = long_command();
    assert!((580..=620).contains(&command.len()), "{}", command.len());
    let forwarder = held_hook_for(&app, "long", &command);
    app.wait_session("long", "offers a decision", |s| s["decision"].is_u64());
    app.wait_node("long", "blocked", |n| n.status == "blocked").await;
    app.wait_still(".react-flow__viewport").await;

    // The card cannot show it whole: its Allow opens the panel first.
    let card_allow = r#"[data-testid="session-node"][data-session-id="long"] [data-testid="decide-allow"]"#;
    let label = app.client.find(Locator::Css(card_allow)).await.expect("the card's Allow").text().await.unwrap();
    assert_eq!(label, "Allow…");
    app.click_settled(card_allow).await;
    let read = wait_for(&app, "the panel's command", READ_PANEL, vec![]).await;
    assert_eq!(read["text"], json!(command), "the whole command, in the DOM: {read}");
    assert_eq!(read["boxes"], json!([]), "no inner scroll box around the command: {read}");
    assert_eq!(read["split"], json!([]), "no flag split by a line break: {read}");
    assert_eq!(read["endInView"], json!(false), "the tail starts below the fold: {read}");
    assert_eq!(read["allow"], json!("Allow…"), "not an immediate Allow beside a hidden tail: {read}");
    shot(&app, "long-command-head").await;
    assert!(app.session("long").expect("in the snapshot")["decision"].is_u64(), "the card's Allow answered nothing");

    // `a` shows the tail first, and says so; it answers nothing yet.
    press(&app, &['a']).await;
    let hint = key_hint(&app).await;
    assert!(hint.contains("Read the command to its end first"), "{hint}");
    let read = wait_for(
        &app,
        "the tail in view",
        &format!("const r = (() => {{ {READ_PANEL} }})(); return r && r.endInView && r.allow === 'Allow' ? r : null;"),
        vec![],
    )
    .await;
    assert_eq!(read["boxes"], json!([]), "{read}");
    shot(&app, "long-command-tail").await;
    assert!(
        app.session("long").expect("in the snapshot")["decision"].is_u64(),
        "`a` showed the tail and answered nothing"
    );
    // Seen whole: now Allow answers.
    app.click_settled(r#"[data-testid="details-allow"]"#).await;
    let told = tokio::task::spawn_blocking(move || told_claude(forwarder)).await.expect("join");
    assert_eq!(told.as_deref(), Some("allow"));
    app.close().await;
}

/// Each card's place on screen and the region it sits in (by its box), in one script.
const CARD_PLACES: &str = r#"
const regions = [...document.querySelectorAll('.react-flow__node-region')].map((r) => ({ id: r.dataset.id, box: r.getBoundingClientRect() }));
const out = {};
for (const c of document.querySelectorAll('.react-flow__node-session')) {
  const b = c.getBoundingClientRect();
  const r = regions.find((r) => b.left >= r.box.left - 1 && b.right <= r.box.right + 1 && b.top >= r.box.top - 1 && b.bottom <= r.box.bottom + 1);
  out[c.dataset.id] = { x: b.left, y: b.top, region: r ? r.id : null, rx: r ? r.box.left : 0, ry: r ? r.box.top : 0 };
}
return out;
"#;

/// Issue 44.4: Tab walks the cards as the screen reads — the Needs-you lane first, then each
/// region (top to bottom, left to right), each card by card in reading order — whatever order
/// the sessions arrived in.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tab_walks_the_board_in_screen_order() {
    let app = App::start(Notify::Off).await;
    app.client.set_window_size(1280, 800).await.expect("resize");
    // Arrival order unlike the screen's: the lane's cards come last.
    let mut ids = Vec::new();
    for (i, cwd) in ["/src/api", "/src/web", "/src/api", "/src/web", "/src/api"].iter().enumerate() {
        let id = format!("done-{i}");
        app.post("gemini", &hook("gemini/AfterAgent.json", &id, Some(cwd)));
        ids.push(id);
    }
    app.post("claude", &hook("claude/PermissionRequest.json", "blocked-claude", Some("/src/api")));
    app.post("gemini", &hook("gemini/Notification-ToolPermission.json", "blocked-gemini", Some("/src/web")));
    ids.extend(["blocked-claude".to_owned(), "blocked-gemini".to_owned()]);
    app.wait_for_sessions_in_view(ids.len() as u64).await;
    app.wait_node("blocked-gemini", "blocked", |n| n.status == "blocked").await;
    app.wait_still(".react-flow__viewport").await;

    let mut walked: Vec<String> = Vec::new();
    for _ in 0..80 {
        press(&app, &[TAB]).await;
        if let Some(id) = focused_card(&app).await {
            if walked.last() != Some(&id) {
                walked.push(id);
            }
        }
        if walked.len() == ids.len() {
            break;
        }
    }
    let mut sorted = walked.clone();
    sorted.sort();
    let mut all = ids.clone();
    all.sort();
    assert_eq!(sorted, all, "Tab reaches every card once: {walked:?}");
    // Where they are now (the panel Tab opened has settled).
    app.wait_still(".react-flow__viewport").await;
    let places = app.client.execute(CARD_PLACES, vec![]).await.expect("read the places");
    let key = |id: &str| {
        let p = &places[id];
        let lane = p["region"] == json!("region:needs-you");
        let f = |v: &Value| (v.as_f64().unwrap_or(0.0) / 4.0).round() as i64;
        (!lane, f(&p["ry"]), f(&p["rx"]), f(&p["y"]), f(&p["x"]))
    };
    let mut expected = walked.clone();
    expected.sort_by_key(|id| key(id));
    assert_eq!(walked, expected, "Tab follows the screen: {places}");
    assert!(walked[..2].iter().all(|id| id.starts_with("blocked-")), "the lane first: {walked:?}");
    app.close().await;
}
