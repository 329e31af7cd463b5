//! Measurements, not assertions: `#[ignore]`d, run with
//! `cargo test --test e2e -- --ignored --nocapture --test-threads=1` under Xvfb + dbus-run-session
//! (`bench/e2e-measure.sh`). They print numbers; they fail only if the app misbehaves.

use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use serde_json::{json, Value};

use crate::harness::{comm, descendants, smaps_kib, App, Notify};

const EVENTS: usize = 200;
const BENCH_ID: &str = "bench";

/// Records, in the page, when the bench node's `data-status` changes (a MutationObserver runs
/// right after the DOM change, before paint) and the next animation frame after it (≈ painted).
/// Times are `performance.timeOrigin + performance.now()`: Unix milliseconds, like the test's.
const OBSERVE: &str = r#"
const id = arguments[0];
window.__e2e = [];
let last = null;
const now = () => performance.timeOrigin + performance.now();
const look = () => {
  const node = document.querySelector(`[data-testid="session-node"][data-session-id="${id}"]`);
  const status = node ? node.dataset.status : null;
  if (status === last) return;
  last = status;
  const entry = { status, dom: now(), frame: null };
  window.__e2e.push(entry);
  requestAnimationFrame(() => { entry.frame = now(); });
};
new MutationObserver(look).observe(document.body, {
  subtree: true, childList: true, attributes: true, attributeFilter: ["data-status"],
});
look();
return true;
"#;

/// Resolves once the `n`th recorded change (0-based) exists, with its status.
const WAIT_CHANGE: &str = r#"
const [n, done] = [arguments[0], arguments[arguments.length - 1]];
const poll = () => (window.__e2e.length > n ? done(window.__e2e[n].status) : setTimeout(poll, 1));
poll();
"#;

/// How many animation frames the page gets in one second (the frame column's granularity).
const FRAME_RATE: &str = r#"
const done = arguments[arguments.length - 1];
let frames = 0;
const start = performance.now();
const tick = () => (performance.now() - start < 1000 ? (frames++, requestAnimationFrame(tick)) : done(frames));
requestAnimationFrame(tick);
"#;

fn unix_ms() -> f64 {
    SystemTime::now().duration_since(UNIX_EPOCH).expect("after 1970").as_secs_f64() * 1000.0
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    let rank = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

fn summary(name: &str, mut values: Vec<f64>) -> String {
    values.sort_by(f64::total_cmp);
    format!(
        "{name:<44} min {:>5.1}  p50 {:>6.1}  p90 {:>6.1}  p99 {:>6.1}  max {:>6.1} ms  (n={})",
        values.first().copied().unwrap_or(f64::NAN),
        percentile(&values, 50.0),
        percentile(&values, 90.0),
        percentile(&values, 99.0),
        values.last().copied().unwrap_or(f64::NAN),
        values.len()
    )
}

/// The body that moves the bench session to `status` (each one differs from the previous).
fn bench_event(status: &str, i: usize) -> Value {
    let mut body = json!({"sessionId": BENCH_ID, "title": "bench", "cwd": "/src/bench", "status": status});
    match status {
        "blocked" => body["tool"] = json!("Bash"),
        "waiting" => body["question"] = json!(format!("Question {i}?")),
        "done" => body["message"] = json!(format!("Finished turn {i}.")),
        _ => {}
    }
    body
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "a measurement: run with --ignored --nocapture"]
async fn measure_hook_to_badge_latency() {
    let app = App::start(Notify::Off).await;
    // Waiting → working is a new turn and done → waiting a plain question, so every step of this
    // cycle changes the badge (none hits the done holdoff or the question hold).
    let cycle = ["working", "blocked", "done", "waiting"];
    app.post("custom", &bench_event("done", 0));
    app.wait_node(BENCH_ID, "created", |n| n.status == "done").await;
    app.client.execute(OBSERVE, vec![json!(BENCH_ID)]).await.expect("install the observer");

    // What one WebDriver round trip costs (the overhead of "WebDriver sees it").
    let mut round_trips = Vec::new();
    for _ in 0..50 {
        let started = Instant::now();
        app.client.execute("return 1;", vec![]).await.expect("a no-op script");
        round_trips.push(started.elapsed().as_secs_f64() * 1000.0);
    }

    let fps = app.client.execute_async(FRAME_RATE, vec![]).await.expect("count frames");

    let (mut seen, mut dom, mut frame) = (Vec::new(), Vec::new(), Vec::new());
    let mut sent = Vec::new();
    for i in 0..EVENTS {
        let status = cycle[i % cycle.len()];
        let body = bench_event(status, i);
        // Spaced out, so each event is its own burst (the app coalesces a burst into one frame).
        tokio::time::sleep(Duration::from_millis(30)).await;
        let t0 = unix_ms();
        app.post("custom", &body);
        let got = app.client.execute_async(WAIT_CHANGE, vec![json!(i + 1)]).await.expect("the change shows");
        seen.push(unix_ms() - t0);
        assert_eq!(got, json!(status), "event {i}");
        sent.push(t0);
    }
    // Let the last frame callback run, then read the page's own timestamps.
    tokio::time::sleep(Duration::from_millis(200)).await;
    let entries = app.client.execute("return window.__e2e;", vec![]).await.expect("the page's record");
    let entries = entries.as_array().expect("an array");
    assert_eq!(entries.len(), EVENTS + 1, "one DOM change per event");
    for (i, t0) in sent.iter().enumerate() {
        let entry = &entries[i + 1];
        dom.push(entry["dom"].as_f64().expect("dom time") - t0);
        if let Some(t) = entry["frame"].as_f64() {
            frame.push(t - t0);
        }
    }

    println!("\nhook POST → badge, {EVENTS} events (status cycling {cycle:?}), 30 ms apart:");
    println!("{}", summary("POST → WebDriver sees new data-status", seen));
    println!("{}", summary("POST → DOM mutation (in-page observer)", dom));
    println!("{}", summary("POST → next animation frame after it", frame));
    println!("{}", summary("WebDriver no-op script round trip", round_trips));
    println!("animation frames per second in the idle page: {fps}");
    app.close().await;
}

/// Memory of the app and every process below it (WebKitWebProcess, WebKitNetworkProcess), in MiB.
struct Memory {
    pss: f64,
    uss: f64,
    rss: f64,
    parts: String,
}

const PSS: &[&str] = &["Pss"];
const USS: &[&str] = &["Private_Clean", "Private_Dirty"];
const RSS: &[&str] = &["Rss"];

fn mib(kib: u64) -> f64 {
    kib as f64 / 1024.0
}

/// The median (by PSS) of five samples a second apart, with the per-process PSS breakdown.
async fn idle_memory(app_pid: u32) -> Memory {
    let mut samples = Vec::new();
    for _ in 0..5 {
        tokio::time::sleep(Duration::from_secs(1)).await;
        let mut pids = vec![app_pid];
        pids.extend(descendants(app_pid));
        let parts = pids
            .iter()
            .map(|pid| format!("{} {:.1}", comm(*pid), mib(smaps_kib(&[*pid], PSS))))
            .collect::<Vec<_>>()
            .join(", ");
        samples.push(Memory {
            pss: mib(smaps_kib(&pids, PSS)),
            uss: mib(smaps_kib(&pids, USS)),
            rss: mib(smaps_kib(&pids, RSS)),
            parts,
        });
    }
    samples.sort_by(|a, b| a.pss.total_cmp(&b.pss));
    samples.swap_remove(2)
}

/// WebKit web processes on the machine outside this app: they share library pages with it, which
/// lowers its PSS (so PSS from different runs is only comparable on an otherwise quiet machine).
fn other_web_processes(app_pid: u32) -> usize {
    let ours = descendants(app_pid);
    std::fs::read_dir("/proc")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|entry| entry.file_name().to_str().and_then(|s| s.parse::<u32>().ok()))
        .filter(|pid| comm(*pid).starts_with("WebKitWebProces") && !ours.contains(pid))
        .count()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "a measurement: run with --ignored --nocapture"]
async fn measure_idle_memory() {
    const SETTLE: Duration = Duration::from_secs(10);
    let app = App::start(Notify::Off).await;
    tokio::time::sleep(SETTLE).await;
    let empty = idle_memory(app.pid()).await;

    let statuses = ["working", "waiting", "blocked", "done"];
    for i in 0..100 {
        let status = statuses[i % statuses.len()];
        let mut body = bench_event(status, i);
        body["sessionId"] = json!(format!("session-{i}"));
        body["title"] = json!(format!("session {i}"));
        body["cwd"] = json!(format!("/src/project-{i}"));
        app.post("custom", &body);
    }
    let started = Instant::now();
    loop {
        let count = app
            .client
            .execute(r#"return document.querySelectorAll('[data-testid="session-node"]').length;"#, vec![])
            .await
            .expect("count nodes");
        if count == json!(100) {
            break;
        }
        assert!(started.elapsed() < Duration::from_secs(30), "100 nodes never rendered: {count}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    tokio::time::sleep(SETTLE).await;
    let full = idle_memory(app.pid()).await;

    println!("\nidle memory of switchboard-app + its WebKit processes (MiB; median of 5 samples after {SETTLE:?}):");
    println!("  {:<14} {:>7} {:>7} {:>7}", "", "PSS", "USS", "RSS");
    for (name, m) in [("empty window", &empty), ("100 sessions", &full)] {
        println!("  {name:<14} {:>7.1} {:>7.1} {:>7.1}   [PSS: {}]", m.pss, m.uss, m.rss, m.parts);
    }
    println!(
        "  {:<14} {:>7.1} {:>7.1} {:>7.1}",
        "difference",
        full.pss - empty.pss,
        full.uss - empty.uss,
        full.rss - empty.rss
    );
    println!("  other WebKitWebProcess on the machine meanwhile: {}", other_web_processes(app.pid()));
    app.close().await;
}

/// Threads of a process, by name.
fn threads(pid: u32) -> Vec<String> {
    std::fs::read_dir(format!("/proc/{pid}/task"))
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|task| std::fs::read_to_string(task.path().join("comm")).ok())
        .map(|name| name.trim().to_owned())
        .collect()
}

/// Each notification the app shows keeps a thread (and its D-Bus connection) waiting for a click
/// until the daemon reports it clicked or closed: count them after 50 notifications nobody clicks.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "a measurement: run with --ignored --nocapture"]
async fn measure_threads_per_unclicked_notification() {
    const COUNT: usize = 50;
    let server = crate::notifications::NotificationServer::start().await;
    let mut app = App::start(Notify::On).await;
    app.unfocus();
    let before = threads(app.pid());
    for i in 0..COUNT {
        app.post("custom", &json!({"sessionId": format!("s-{i}"), "title": format!("s{i}"), "status": "done"}));
    }
    server.wait_for_summary(&format!("s{} — finished", COUNT - 1));
    tokio::time::sleep(Duration::from_secs(2)).await;
    let after = threads(app.pid());
    let named = |list: &[String]| list.iter().filter(|name| name.as_str() == "notification").count();
    println!(
        "\nthreads of switchboard-app: {} before, {} after {COUNT} unclicked notifications ({} → {} named \"notification\")",
        before.len(),
        after.len(),
        named(&before),
        named(&after)
    );
    app.close().await;
}
