//! Idle is idle (issue 26): with agents working and nothing new, the page runs no animation —
//! the working ring pulses a few times after each event, then rests — and news starts it again.
//! (What idle costs in CPU is measured, not asserted: `measure_idle_cpu` in measure.rs.)

use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::harness::{App, Notify};

pub const WORKING: usize = 20;

/// Running animations in the page, by the session node they are in (`null`: not in one).
const RUNNING: &str = r#"return document.getAnimations()
  .filter((a) => a.playState === 'running' || a.playState === 'pending')
  .map((a) => {
    const target = a.effect && a.effect.target;
    const node = target && target.closest ? target.closest('[data-testid="session-node"]') : null;
    return { name: a.animationName || null, session: node ? node.dataset.sessionId : null };
  });"#;

pub fn working(i: usize, tool: &str) -> Value {
    json!({"sessionId": format!("w{i:02}"), "agent": "claude", "cwd": format!("/src/project-{}", i % 4),
        "title": format!("Task {i}"), "status": "working", "tool": tool})
}

/// The board with `WORKING` working sessions, all shown.
pub async fn working_board() -> App {
    let app = App::start(Notify::Off).await;
    app.client.set_window_size(1280, 800).await.expect("resize the window");
    for i in 0..WORKING {
        app.post("custom", &working(i, "Bash"));
    }
    app.wait_for_sessions_in_view(WORKING as u64).await;
    app
}

/// Waits (bounded) until `check` holds for the page's running animations; returns them.
pub async fn wait_animations(app: &App, what: &str, check: impl Fn(&[Value]) -> bool) -> Vec<Value> {
    let started = Instant::now();
    loop {
        let running = app.client.execute(RUNNING, vec![]).await.expect("read the animations");
        let running = running.as_array().cloned().unwrap_or_default();
        if check(&running) {
            return running;
        }
        assert!(started.elapsed() < Duration::from_secs(60), "{what}: {running:?}");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn working_rings_come_to_rest_and_pulse_again_on_news() {
    let app = working_board().await;
    // Each working node's ring pulses when it arrives…
    let pulse = |a: &Value| a["name"] == "working-pulse";
    wait_animations(&app, "the working rings pulse on arrival", |running| running.iter().any(pulse)).await;
    // …then rests: nothing runs while nothing changes.
    wait_animations(&app, "the page comes to rest", <[Value]>::is_empty).await;

    // News for one session: its ring, and only its, pulses again.
    app.post("custom", &working(7, "Edit"));
    let again = wait_animations(&app, "w07's ring pulses again", |running| running.iter().any(pulse)).await;
    assert!(
        again.iter().filter(|a| pulse(a)).all(|a| a["session"] == "w07"),
        "only the changed session's ring: {again:?}"
    );
    wait_animations(&app, "the page comes to rest again", <[Value]>::is_empty).await;
    app.close().await;
}
