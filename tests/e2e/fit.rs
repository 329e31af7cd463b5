//! The board fits (issue 21.2): on first arrival, after the window is resized and when the details
//! panel opens, every node's box lies inside the canvas, clear of the minimap and the zoom
//! controls — at 1280×800, with 12 and with 40 sessions, and nobody pressing `f`. Unless fitting
//! it whole would shrink the "Needs you" lane's cards below the readable zoom (issue 37): then the
//! view holds at that zoom with the lane at the top left, and the rest of the board scrolls.

use serde_json::{json, Value};

use crate::harness::{App, Notify};

/// Every session node's (or tile's) and region's box against the canvas and the overlays on it.
const READ_BOXES: &str = r#"
const pane = document.querySelector('.react-flow').getBoundingClientRect();
const covers = [...document.querySelectorAll('.react-flow__minimap, .react-flow__controls')].map(e => e.getBoundingClientRect());
const boxes = [...document.querySelectorAll('[data-testid="session-node"], .session-tile, .react-flow__node-region')];
const out = [];
for (const e of boxes) {
  const r = e.getBoundingClientRect();
  const inside = r.left >= pane.left - 0.5 && r.top >= pane.top - 0.5 && r.right <= pane.right + 0.5 && r.bottom <= pane.bottom + 0.5;
  const session = e.dataset.sessionId || (e.classList.contains('session-tile') ? e.dataset.id : null);
  // A region's box may pass under the minimap's corner; a session's may not.
  const covered = session != null && covers.some(c => r.left < c.right && r.right > c.left && r.top < c.bottom && r.bottom > c.top);
  const needsYou = e.dataset.needsYou === 'true' || e.querySelector('[data-needs-you="true"]') !== null;
  out.push({ id: session || e.dataset.id, needsYou, left: Math.round(r.left), top: Math.round(r.top), right: Math.round(r.right), bottom: Math.round(r.bottom), inside, covered });
}
const zoom = new DOMMatrix(getComputedStyle(document.querySelector('.react-flow__viewport')).transform).a;
return { pane: [Math.round(pane.left), Math.round(pane.top), Math.round(pane.right), Math.round(pane.bottom)], boxes: out, zoom, sessions: document.querySelectorAll('[data-testid="session-node"], .session-tile').length };
"#;

/// `FIT_SCREENSHOT=DIR` keeps a picture of each step (the X server's, through ImageMagick).
fn picture(sessions: usize, step: &str) {
    let Ok(dir) = std::env::var("FIT_SCREENSHOT") else { return };
    let shot = format!("xwd -root -silent | /usr/bin/convert xwd:- {dir}/fit-{sessions}-{step}.png");
    let status = std::process::Command::new("sh").args(["-c", &shot]).status().expect("run xwd");
    assert!(status.success(), "{shot}: {status}");
}

async fn assert_all_in_view(app: &App, sessions: usize, when: &str) {
    app.wait_still(".react-flow__viewport").await;
    // The viewport may take one more still step after a resize (the layout follows the window
    // 200 ms later): read again until two reads agree or every box is in, bounded.
    let mut last = Value::Null;
    for _ in 0..20 {
        let seen = app.client.execute(READ_BOXES, vec![]).await.expect("read the boxes");
        let boxes = seen["boxes"].as_array();
        let whole = boxes.is_some_and(|b| b.iter().all(|b| b["inside"] == true && b["covered"] == false));
        // Held at the readable zoom (layout.ts ZOOM_COMPACT): the lane's cards start inside the
        // pane (from its top left), the rest of the board scrolls.
        let held = seen["zoom"].as_f64().is_some_and(|zoom| zoom <= 0.8 + 1e-3)
            && boxes.is_some_and(|b| {
                let top = seen["pane"][1].as_i64().unwrap_or(0);
                let left = seen["pane"][0].as_i64().unwrap_or(0);
                b.iter()
                    .filter(|b| b["needsYou"] == true && b["id"] != "region:needs-you")
                    .all(|b| b["top"].as_i64().unwrap_or(-1) >= top && b["left"].as_i64().unwrap_or(-1) >= left)
            });
        let fine = seen["sessions"].as_u64() == Some(sessions as u64) && (whole || held);
        if fine {
            picture(sessions, &when.replace(' ', "-").replace('×', "x"));
            return;
        }
        if seen == last {
            break;
        }
        last = seen;
        app.wait_still(".react-flow__viewport").await;
    }
    let bad: Vec<&Value> = last["boxes"]
        .as_array()
        .map(|b| b.iter().filter(|b| b["inside"] != true || b["covered"] != false).collect())
        .unwrap_or_default();
    panic!(
        "{when}: {} of {sessions} sessions drawn, pane {}, boxes out of view or under the minimap/controls: {bad:#?}",
        last["sessions"], last["pane"]
    );
}

async fn fits_with(count: usize) {
    let app = App::start(Notify::Off).await;
    app.client.set_window_size(1280, 800).await.expect("resize the window");
    // Arriving all at once, over five projects, in every state: the lane fills too.
    for i in 0..count {
        let mut body = json!({"sessionId": format!("fit{i:02}"), "agent": "claude",
            "cwd": format!("/src/project-{}", i % 5), "title": format!("Task {i}")});
        match i % 5 {
            0 => body["status"] = json!("blocked"),
            1 => body["status"] = json!("waiting"),
            2 => body["status"] = json!("working"),
            _ => body["status"] = json!("done"),
        }
        app.post("custom", &body);
    }
    app.wait_for_sessions_in_view(count as u64).await;
    assert_all_in_view(&app, count, "first arrival").await;

    app.client.set_window_size(1000, 700).await.expect("shrink the window");
    assert_all_in_view(&app, count, "after the window shrank to 1000×700").await;
    app.client.set_window_size(1280, 800).await.expect("grow the window");
    assert_all_in_view(&app, count, "after the window grew back to 1280×800").await;

    // The details panel takes the right of the window: the board moves out from under it.
    app.click_node("fit02").await;
    app.text_of("details-panel").await;
    assert_all_in_view(&app, count, "with the details panel open").await;
    app.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn twelve_sessions_fit_on_arrival_resize_and_panel() {
    fits_with(12).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn forty_sessions_fit_on_arrival_resize_and_panel() {
    fits_with(40).await;
}
