//! A hundred agents at a glance: 100 sessions over 12 projects in a 1280×800 window; at fit-view
//! every session that needs the user has a readable title (≥ 11 px on screen), checked in the DOM.

use std::time::Duration;

use serde_json::json;

use crate::harness::{App, Notify};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hundred_sessions_keep_every_needs_you_title_readable_at_fit_view() {
    let app = App::start(Notify::Off).await;
    app.client.set_window_size(1280, 800).await.expect("resize the window");
    let mut needs_you = 0;
    for i in 0..100 {
        let project = i % 12;
        let mut body = json!({"sessionId": format!("s{i:03}"), "agent": "claude", "cwd": format!("/src/project-{project}"),
            "title": format!("Task {i} in project {project}")});
        match i % 6 {
            0 => {
                body["status"] = json!("blocked");
                body["message"] = json!("rm -rf build");
                needs_you += 1;
            }
            1 => {
                body["status"] = json!("waiting");
                body["question"] = json!("Which database?");
                needs_you += 1;
            }
            2 | 3 => body["status"] = json!("working"),
            _ => body["status"] = json!("done"),
        }
        app.post("custom", &body);
    }
    crate::harness::eventually(Duration::from_secs(10), || (app.sessions().len() == 100).then_some(()))
        .expect("the 100 sessions reached the reducer");
    // Fit the view (the `f` shortcut) once, when the board holds every session; then, once the
    // canvas is still, read every needs-you title's size on screen. The fit works from the
    // layout, not from drawn nodes: one press brings all of them in. Nodes off screen are not
    // drawn (a crowded board), so the ones just brought in are waited for (bounded) — never
    // pressed for again.
    let read_sizes = r#"const scale = new DOMMatrix(getComputedStyle(document.querySelector('.react-flow__viewport')).transform).a;
        return [...document.querySelectorAll('[data-testid="session-node"][data-needs-you="true"]')].map(n => {
          const t = n.querySelector('[data-testid="node-title"]');
          const r = t.getBoundingClientRect();
          return {px: parseFloat(getComputedStyle(t).fontSize) * scale, visible: r.width > 0 && r.top >= 0 && r.bottom <= innerHeight};
        });"#;
    app.wait_for_sessions_in_view(100).await;
    app.client
        .execute("document.body.dispatchEvent(new KeyboardEvent('keydown', {key: 'f', bubbles: true}));", vec![])
        .await
        .unwrap();
    app.wait_still(".react-flow__viewport").await;
    let started = std::time::Instant::now();
    let mut sizes = app.client.execute(read_sizes, vec![]).await.unwrap();
    while sizes.as_array().is_none_or(|s| s.len() < needs_you) && started.elapsed() < Duration::from_secs(10) {
        tokio::time::sleep(Duration::from_millis(50)).await;
        sizes = app.client.execute(read_sizes, vec![]).await.unwrap();
    }
    if let Ok(path) = std::env::var("MANY_SCREENSHOT") {
        // The README's picture of a hundred sessions: MANY_SCREENSHOT=docs/screenshot-100.png
        // (the X server's picture, through ImageMagick).
        let shot = format!("xwd -root -silent | /usr/bin/convert xwd:- {path}");
        let status = std::process::Command::new("sh").args(["-c", &shot]).status().expect("run xwd");
        assert!(status.success(), "{shot}: {status}");
    }
    let sizes = sizes.as_array().unwrap();
    assert_eq!(sizes.len(), needs_you, "every needs-you session is a node");
    for size in sizes {
        let px = size["px"].as_f64().unwrap();
        assert!(px >= 11.0, "a needs-you title at {px:.1} px: {sizes:?}");
        assert_eq!(size["visible"], true, "in view at fit-view: {sizes:?}");
    }

    // The quick filter: `/` opens it; typing a project keeps its sessions and fades the rest.
    app.client
        .execute("document.body.dispatchEvent(new KeyboardEvent('keydown', {key: '/', bubbles: true}));", vec![])
        .await
        .unwrap();
    let input =
        app.client.wait().for_element(fantoccini::Locator::Css(r#"[data-testid="filter-input"]"#)).await.unwrap();
    input.send_keys("project-3").await.unwrap();
    // The filter applies as the keys arrive: wait for the whole word's result.
    let mut count = String::new();
    let started = std::time::Instant::now();
    while !count.starts_with("9 of 100") {
        assert!(started.elapsed() < Duration::from_secs(10), "project-3 holds 9 sessions (i % 12 == 3): {count}");
        tokio::time::sleep(Duration::from_millis(50)).await;
        count = app.text_of("filter-count").await;
    }
    app.wait_still(".react-flow__viewport").await;
    let undimmed = app
        .client
        .execute(
            r#"return [...document.querySelectorAll('[data-testid="session-node"][data-dimmed="false"]')].map(n => n.dataset.sessionId);"#,
            vec![],
        )
        .await
        .unwrap();
    for id in undimmed.as_array().unwrap() {
        let n: usize = id.as_str().unwrap()[1..].parse().unwrap();
        assert_eq!(n % 12, 3, "only project-3's sessions stay bright: {undimmed}");
    }
    // The rest of project-3 is painted on its region's canvas: lit there, every other tile faded.
    let lit = app
        .client
        .execute(
            r#"return [...document.querySelectorAll('[data-testid="tile-canvas"]')].reduce((n, c) => n + Number(c.dataset.lit), 0);"#,
            vec![],
        )
        .await
        .unwrap();
    assert_eq!(
        lit.as_u64().unwrap() + undimmed.as_array().unwrap().len() as u64,
        9,
        "project-3's 9 sessions lit, in the lane's elements ({undimmed}) or on the canvases ({lit})"
    );
    app.close().await;
}
