//! Measurements, not assertions: `#[ignore]`d, run with
//! `cargo test --test e2e -- --ignored --nocapture --test-threads=1` under Xvfb + dbus-run-session
//! (`bench/e2e-measure.sh`). They print numbers; they fail only if the app misbehaves.

use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use serde_json::{json, Value};

use crate::harness::{
    app_path, comm, descendants, post_hook, process_started_unix_ms, seed_sessions, smaps_kib, App, Notify,
};

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

// ---- a hundred agents at a glance: 100, 300 and 1,000 sessions ----

/// Projects (cwds) the scale sessions are spread over.
const PROJECTS: usize = 12;
/// Status changes per second while the frame rate is counted, and for how long.
const CHANGES_PER_SECOND: u64 = 50;
const CHANGE_SECONDS: u64 = 5;

/// Session `i` of a scale run: one of 12 projects, blocked / waiting / working ×2 / done ×2.
fn scale_session(i: usize) -> Value {
    let project = i % PROJECTS;
    let mut body = json!({"sessionId": format!("s{i:04}"), "agent": "claude", "cwd": format!("/src/project-{project}"),
        "title": format!("Task {i} in project {project}")});
    let status = match i % 6 {
        0 => "blocked",
        1 => "waiting",
        2 | 3 => "working",
        _ => "done",
    };
    scale_status(&mut body, status, i);
    body
}

/// Session `i` moved to `status` (turn `turn`): its body without the last status's details.
fn scale_change(i: usize, status: &str, turn: usize) -> Value {
    let mut body = scale_session(i);
    for key in ["tool", "question", "message"] {
        body.as_object_mut().expect("an object").remove(key);
    }
    scale_status(&mut body, status, turn);
    body
}

fn scale_status(body: &mut Value, status: &str, turn: usize) {
    body["status"] = json!(status);
    match status {
        "blocked" => body["tool"] = json!("Bash"),
        "waiting" => body["question"] = json!(format!("Which database, {turn}?")),
        "done" => body["message"] = json!(format!("Finished turn {turn}.")),
        _ => {}
    }
}

/// Installed in the page as early as WebDriver allows (idempotent): records the first moment the
/// page shows all `n` sessions — the header's counts add up to `n`, the minimap draws `n`
/// session nodes, and every session node in the DOM (React Flow renders only those in view above
/// 60) has been measured and is visible — and the next animation frame after it (≈ painted).
/// For `n` = 0: the header and the empty state. Times in Unix ms, like the test's.
const WATCH_PAINT: &str = r#"
const n = arguments[0];
const now = () => performance.timeOrigin + performance.now();
if (!window.__paint) {
  const p = window.__paint = { installed: now(), origin: performance.timeOrigin, shown: null, frame: null, already: false };
  const count = (c) => { const e = document.querySelector(`[data-testid="count-${c}"]`); return e ? Number(e.dataset.count) : null; };
  const shown = () => {
    const counts = ["needs", "working", "done"].map(count);
    if (counts.includes(null) || counts.reduce((a, b) => a + b, 0) !== n) return false;
    if (n === 0) return document.querySelector('[data-testid="empty-state"]') !== null;
    // The minimap (shown while part of the board is out of view): a rectangle per node, or a
    // path per look holding `data-count` tiles.
    const mini = [...document.querySelectorAll(".react-flow__minimap .minimap-node")]
      .reduce((sum, e) => sum + (e.dataset.count ? Number(e.dataset.count) : 1), 0);
    if (document.querySelector(".react-flow__minimap") && mini !== n) return false;
    // React Flow nodes, or (a crowded canvas) tiles drawn by their regions: elements, or painted
    // on a region's canvas (each canvas has painted every tile it holds).
    const nodes = [...document.querySelectorAll(".react-flow__node-session, .session-tile, .tile-canvas")];
    const painted = [...document.querySelectorAll(".tile-canvas")].every((c) => c.dataset.painted === c.dataset.count);
    return painted && nodes.length > 0 && nodes.every((el) => getComputedStyle(el).visibility !== "hidden" && el.offsetWidth > 0);
  };
  const check = () => {
    if (p.shown !== null || !shown()) return;
    p.shown = now();
    observer.disconnect();
    requestAnimationFrame(() => {
      p.frame = now();
      p.rendered = document.querySelectorAll('[data-testid="session-node"]').length;
      p.painted = [...document.querySelectorAll(".tile-canvas")].reduce((n, c) => n + Number(c.dataset.painted || 0), 0);
      p.canvases = document.querySelectorAll(".tile-canvas").length;
      const viewport = document.querySelector(".react-flow__viewport");
      p.zoom = viewport ? new DOMMatrix(getComputedStyle(viewport).transform).a : null;
    });
  };
  const observer = new MutationObserver(check);
  observer.observe(document.documentElement, { subtree: true, childList: true, attributes: true, characterData: true });
  check();
  p.already = p.shown !== null;
}
return window.__paint;
"#;

/// What [`WATCH_PAINT`] looks at, for a page that never showed its sessions.
const PAINT_STATE: &str = r#"
const count = (c) => { const e = document.querySelector(`[data-testid="count-${c}"]`); return e ? Number(e.dataset.count) : null; };
return {
  counts: ["needs", "working", "done"].map(count),
  minimap: [...document.querySelectorAll(".react-flow__minimap .minimap-node")].reduce((sum, e) => sum + (e.dataset.count ? Number(e.dataset.count) : 1), 0),
  hidden: [...document.querySelectorAll(".react-flow__node-session, .session-tile")].filter((el) => !(getComputedStyle(el).visibility !== "hidden" && el.offsetWidth > 0)).length,
  canvases: [...document.querySelectorAll(".tile-canvas")].map((c) => [c.dataset.count, c.dataset.painted, c.offsetWidth, getComputedStyle(c).visibility]),
};
"#;

/// Starts recording the time of every animation frame (Unix ms).
const RECORD_FRAMES: &str = r#"
window.__frames = [];
window.__recording = true;
const tick = () => {
  if (!window.__recording) return;
  window.__frames.push(performance.timeOrigin + performance.now());
  requestAnimationFrame(tick);
};
requestAnimationFrame(tick);
// And the main thread's longest stall: the largest gap between chained zero-delay timers.
window.__stall = 0;
let last = performance.now();
const spin = () => {
  if (!window.__recording) return;
  const t = performance.now();
  window.__stall = Math.max(window.__stall, t - last);
  last = t;
  setTimeout(spin, 0);
};
setTimeout(spin, 0);
// And the JavaScript time of each `sessions-changed` event: its listener plus the React render
// it queued (a microtask queued after the listener runs after React's).
const events = window.__events = { count: 0, changed: 0, ms: 0, max: 0, last: null };
window.__handled = [];
// The page's own probe (sync.ts): each applied batch's store update + React render + effects,
// and the tile canvases' painting alone (TileCanvas.tsx).
const applied = window.__applied = { count: 0, ms: 0, max: 0, paint: 0 };
window.__switchboardTiming = {
  record(ms) { if (!window.__recording) return; applied.count++; applied.ms += ms; applied.max = Math.max(applied.max, ms); },
  paint(ms) { if (window.__recording) applied.paint += ms; },
};
const callbacks = window.__TAURI_INTERNALS__ && window.__TAURI_INTERNALS__.callbacks;
if (callbacks && !callbacks.__timed) {
  callbacks.__timed = true;
  for (const [id, callback] of callbacks) {
    callbacks.set(id, (data) => {
      if (!window.__recording || !data || data.event !== "sessions-changed") return callback(data);
      const t0 = performance.now();
      const out = callback(data);
      queueMicrotask(() => {
        const ms = performance.now() - t0;
        const e = window.__events;
        e.count++; e.ms += ms; e.max = Math.max(e.max, ms); e.last = performance.timeOrigin + performance.now();
        e.changed += (data.payload && data.payload.changed ? data.payload.changed.length : 0);
        // Which sessions it carried, and the next frame after it was handled (≈ painted).
        const entry = { ids: (data.payload && data.payload.changed || []).map((c) => c.sessionId), frame: null };
        window.__handled.push(entry);
        requestAnimationFrame(() => { entry.frame = performance.timeOrigin + performance.now(); });
      });
      return out;
    });
  }
}
return true;
"#;

const STOP_FRAMES: &str =
    "window.__recording = false; return [window.__frames, window.__stall, window.__events, window.__handled, window.__applied];";

/// Frames in each whole second of [from, to): the per-second frame rates.
fn frames_per_second(frames: &[f64], from: f64, to: f64) -> Vec<usize> {
    let seconds = ((to - from) / 1000.0).floor() as usize;
    (0..seconds)
        .map(|s| {
            let (a, b) = (from + s as f64 * 1000.0, from + (s + 1) as f64 * 1000.0);
            frames.iter().filter(|t| **t >= a && **t < b).count()
        })
        .collect()
}

/// Counts frames in the page for `seconds` whole seconds while `during` runs beside it; returns
/// frames per second and the main thread's longest stall.
async fn frame_rate(app: &App, seconds: u64, during: impl FnOnce() -> std::thread::JoinHandle<()>) -> FrameRate {
    app.client.execute(RECORD_FRAMES, vec![]).await.expect("record frames");
    let from = unix_ms();
    let load = during();
    tokio::time::sleep(Duration::from_millis(seconds * 1000 + 50)).await;
    let to = from + seconds as f64 * 1000.0;
    load.join().expect("the load thread");
    let record = app.client.execute(STOP_FRAMES, vec![]).await.expect("the frames");
    let frames: Vec<f64> = record[0].as_array().expect("an array").iter().filter_map(Value::as_f64).collect();
    let windows = frames_per_second(&frames, from, to);
    let handled = record[3]
        .as_array()
        .map(|list| {
            list.iter()
                .filter_map(|e| {
                    let ids = e["ids"].as_array()?.iter().filter_map(|i| i.as_str().map(str::to_owned)).collect();
                    Some((ids, e["frame"].as_f64()?))
                })
                .collect()
        })
        .unwrap_or_default();
    let total: usize = windows.iter().sum();
    FrameRate {
        mean: total as f64 / seconds as f64,
        worst: windows.iter().copied().min().unwrap_or(0),
        windows,
        stall: record[1].as_f64().unwrap_or(f64::NAN),
        events: format!(
            "{} sessions-changed events ({} sessions in them), {:.0} ms of JavaScript for them (longest {:.0} ms); \
             the last one handled {:.1} s after the load ended\n  \
             {} batches applied: {:.0} ms of store update + React render + canvas painting in the {} s (longest {:.0} ms; \
             the canvases' painting alone {:.0} ms)",
            record[2]["count"],
            record[2]["changed"],
            record[2]["ms"].as_f64().unwrap_or(f64::NAN),
            record[2]["max"].as_f64().unwrap_or(f64::NAN),
            record[2]["last"].as_f64().map_or(f64::NAN, |last| (last - to) / 1000.0),
            record[4]["count"],
            record[4]["ms"].as_f64().unwrap_or(f64::NAN),
            seconds,
            record[4]["max"].as_f64().unwrap_or(f64::NAN),
            record[4]["paint"].as_f64().unwrap_or(f64::NAN),
        ),
        handled,
    }
}

struct FrameRate {
    mean: f64,
    /// Frames in the worst whole second.
    worst: usize,
    windows: Vec<usize>,
    /// The main thread's longest stall (ms).
    stall: f64,
    /// What the page's `sessions-changed` listener took meanwhile.
    events: String,
    /// Each `sessions-changed` event handled: the sessions in it and the next frame after it (Unix ms).
    handled: Vec<(Vec<String>, f64)>,
}

/// Hook POST → the next frame after the page handled the change, per POST (`sent`: session id and
/// the POST's start, Unix ms): the first handled event after it that carried that session.
fn hook_to_frame(sent: &[(String, f64)], handled: &[(Vec<String>, f64)]) -> Vec<f64> {
    sent.iter()
        .filter_map(|(id, t0)| {
            handled
                .iter()
                .find(|(ids, frame)| *frame >= *t0 && ids.iter().any(|i| i == id))
                .map(|(_, frame)| frame - t0)
        })
        .collect()
}

/// CPU time (user + system, ms) of the app and each process below it, by name.
fn cpu_ms(app_pid: u32) -> Vec<(String, f64)> {
    // SAFETY: sysconf(3) only.
    let hz = unsafe { libc::sysconf(libc::_SC_CLK_TCK) } as f64;
    let mut pids = vec![app_pid];
    pids.extend(descendants(app_pid));
    pids.iter()
        .filter_map(|pid| {
            let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
            let rest: Vec<&str> = stat[stat.rfind(')')? + 1..].split_whitespace().collect();
            // utime and stime are fields 14 and 15; `rest` starts at field 3.
            let ticks: f64 = rest.get(11)?.parse::<f64>().ok()? + rest.get(12)?.parse::<f64>().ok()?;
            Some((comm(*pid), ticks / hz * 1000.0))
        })
        .collect()
}

/// CPU time (ms) of each thread of the app and the processes below it, as "process/thread".
fn thread_cpu_ms(app_pid: u32) -> Vec<(String, f64)> {
    // SAFETY: sysconf(3) only.
    let hz = unsafe { libc::sysconf(libc::_SC_CLK_TCK) } as f64;
    let mut pids = vec![app_pid];
    pids.extend(descendants(app_pid));
    let mut out: Vec<(String, f64)> = Vec::new();
    for pid in pids {
        let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else { continue };
        for task in tasks.flatten() {
            let Ok(stat) = std::fs::read_to_string(task.path().join("stat")) else { continue };
            let (Some(open), Some(close)) = (stat.find('('), stat.rfind(')')) else { continue };
            let rest: Vec<&str> = stat[close + 1..].split_whitespace().collect();
            let ticks = rest.get(11).and_then(|t| t.parse::<f64>().ok()).unwrap_or(0.0)
                + rest.get(12).and_then(|t| t.parse::<f64>().ok()).unwrap_or(0.0);
            let name = format!("{}/{}", comm(pid), &stat[open + 1..close]);
            match out.iter_mut().find(|(n, _)| *n == name) {
                Some(entry) => entry.1 += ticks / hz * 1000.0,
                None => out.push((name, ticks / hz * 1000.0)),
            }
        }
    }
    out
}

/// The threads that used the most CPU between two [`thread_cpu_ms`] readings `ms` apart.
fn busiest_threads(before: &[(String, f64)], after: &[(String, f64)], ms: f64) -> String {
    let mut used: Vec<(String, f64)> = after
        .iter()
        .map(|(name, t)| (name.clone(), t - before.iter().find(|(n, _)| n == name).map_or(0.0, |(_, t)| *t)))
        .filter(|(_, t)| *t > 0.0)
        .collect();
    used.sort_by(|a, b| b.1.total_cmp(&a.1));
    used.iter().take(8).map(|(name, t)| format!("{name} {:.1} %", t / ms * 100.0)).collect::<Vec<_>>().join(", ")
}

/// The machine's CPU ticks from /proc/stat: (busy, steal, all), every core together.
fn machine_ticks() -> (f64, f64, f64) {
    let stat = std::fs::read_to_string("/proc/stat").unwrap_or_default();
    let fields: Vec<f64> =
        stat.lines().next().unwrap_or("").split_whitespace().skip(1).filter_map(|f| f.parse().ok()).collect();
    let at = |i: usize| fields.get(i).copied().unwrap_or(0.0);
    // user nice system idle iowait irq softirq steal
    let busy = at(0) + at(1) + at(2) + at(5) + at(6);
    (busy, at(7), busy + at(3) + at(4) + at(7))
}

/// What the rest of the machine did between two [`machine_ticks`] readings while the app used
/// `ours_ms` of CPU in `ms`: the other processes' share and the hypervisor's steal, in % of a core.
fn machine_share(before: (f64, f64, f64), after: (f64, f64, f64), ours_ms: f64, ms: f64) -> String {
    // SAFETY: sysconf(3) only.
    let hz = unsafe { libc::sysconf(libc::_SC_CLK_TCK) } as f64;
    let busy_ms = (after.0 - before.0) / hz * 1000.0;
    let steal_ms = (after.1 - before.1) / hz * 1000.0;
    format!(
        "the machine: other processes (the harness, WebDriver, Xvfb, anything else) {:.0} % of a core, \
         stolen by the hypervisor {:.1} %",
        ((busy_ms - ours_ms) / ms * 100.0).max(0.0),
        steal_ms / ms * 100.0
    )
}

/// The share of one core each process used between two [`cpu_ms`] readings `ms` apart.
fn cpu_share(before: &[(String, f64)], after: &[(String, f64)], ms: f64) -> String {
    after
        .iter()
        .map(|(name, t)| {
            let was = before.iter().find(|(n, _)| n == name).map_or(0.0, |(_, t)| *t);
            format!("{name} {:.1} %", (t - was) / ms * 100.0)
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// `seconds` of 50 status changes a second, each session taken round the whole cycle (four
/// changes) so that it ends where it started.
fn warm_up_load(endpoint: &switchboard_engine::endpoint::Endpoint, n: usize, seconds: u64) {
    let cycle = ["working", "blocked", "done", "waiting"];
    let start = Instant::now();
    let total = (CHANGES_PER_SECOND * seconds) as usize / cycle.len() * cycle.len();
    for k in 0..total {
        let due = start + Duration::from_micros(k as u64 * 1_000_000 / CHANGES_PER_SECOND);
        if let Some(wait) = due.checked_duration_since(Instant::now()) {
            std::thread::sleep(wait);
        }
        let i = (k / cycle.len() * 37) % n;
        let first = cycle.iter().position(|c| *c == scale_session(i)["status"]).expect("in the cycle");
        post_hook(endpoint, "custom", &scale_change(i, cycle[(first + 1 + k % cycle.len()) % cycle.len()], k));
    }
}

/// One scale run's numbers.
struct Scale {
    sessions: usize,
    first_paint: f64,
    already: bool,
    breakdown: String,
    memory: Memory,
    idle_fps: FrameRate,
    busy_fps: Option<FrameRate>,
    changes: String,
    idle_cpu: String,
    busy_cpu: String,
    /// WebKitWebProcess on the machine outside this app while its memory was read.
    others: usize,
}

async fn scale_run(n: usize) -> Scale {
    let hooks: Vec<(&str, Value)> = (0..n).map(|i| ("custom", scale_session(i))).collect();
    let mut seeded = 0;
    let app = App::start_seeded(Notify::Off, &[], |state| seeded = seed_sessions(state, &hooks)).await;
    assert_eq!(seeded, n, "the store was seeded with {n} sessions");
    let spawned = process_started_unix_ms(app.pid()).expect("the app's start time");

    // Poll until the page has shown them (the watcher keeps the first moment).
    let started = Instant::now();
    let paint = loop {
        let paint = app.client.execute(WATCH_PAINT, vec![json!(n)]).await.expect("watch the page");
        if paint["frame"].is_number() {
            break paint;
        }
        if started.elapsed() > Duration::from_secs(120) {
            let page = app.client.execute(PAINT_STATE, vec![]).await.expect("read the page");
            panic!("{n} sessions never shown: {paint}; the page: {page}");
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    let at = |key: &str| paint[key].as_f64().map_or("-".to_owned(), |t| format!("{:.0}", t - spawned));
    // Shown before WebDriver got in (the window shows itself once the page drew its board, and
    // the session comes up after that): the page's own record of that board's first frame.
    let own = app.client.execute("return window.__firstBoardFrame ?? null;", vec![]).await.expect("read the page");
    let first_paint = match (paint["already"].as_bool(), own.as_f64()) {
        (Some(true), Some(frame)) => frame - spawned,
        _ => paint["frame"].as_f64().expect("frame") - spawned,
    };
    let breakdown = format!(
        "spawn → page navigation {} ms, → watcher installed {} ms, → all shown {} ms, \
         → first frame of the board {first_paint:.0} ms ({} session nodes in the DOM, {} painted on {} canvases, zoom {})",
        at("origin"),
        at("installed"),
        at("shown"),
        paint["rendered"],
        paint["painted"],
        paint["canvases"],
        paint["zoom"].as_f64().map_or("-".into(), |z| format!("{z:.2}")),
    );

    if let Ok(css) = std::env::var("SCALE_INJECT_CSS") {
        // A diagnostic, before memory and frames are measured: e.g. `.react-flow__node-session { transition: none !important }`.
        let script =
            "const s = document.createElement('style'); s.textContent = arguments[0]; document.head.append(s);";
        app.client.execute(script, vec![json!(css)]).await.expect("inject CSS");
    }
    tokio::time::sleep(Duration::from_secs(10)).await;
    let memory = idle_memory(app.pid()).await;
    let others = other_web_processes(app.pid());
    if let Ok(dir) = std::env::var("SCALE_SCREENSHOT") {
        // What the user sees once settled: SCALE_SCREENSHOT=/tmp/shots writes <dir>/scale-<n>.png.
        // The X server's picture (WebDriver's screenshot hung on a busy page): needs ImageMagick.
        let shot = format!("xwd -root -silent | /usr/bin/convert xwd:- {dir}/scale-{n}.png");
        let status = std::process::Command::new("sh").args(["-c", &shot]).status().expect("run xwd");
        assert!(status.success(), "{shot}: {status}");
    }

    let (cpu, since) = (cpu_ms(app.pid()), Instant::now());
    let idle_fps = frame_rate(&app, 3, || std::thread::spawn(|| {})).await;
    let idle_cpu = cpu_share(&cpu, &cpu_ms(app.pid()), since.elapsed().as_secs_f64() * 1000.0);
    let (cpu, since) = (cpu_ms(app.pid()), Instant::now());
    let threads_before = thread_cpu_ms(app.pid());
    let machine_before = machine_ticks();
    // SCALE_PERF=dir: a `perf record` of the web process while the load runs (dir/perf-<n>.data).
    let perf = std::env::var("SCALE_PERF").ok().filter(|_| n > 0).and_then(|dir| {
        let web = descendants(app.pid()).into_iter().find(|pid| comm(*pid).starts_with("WebKitWebProces"))?;
        std::process::Command::new("perf")
            .args(["record", "-F", "499", "-g", "-q", "-o", &format!("{dir}/perf-{n}.data"), "-p", &web.to_string()])
            .args(["--", "sleep", &(CHANGE_SECONDS + 1).to_string()])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .ok()
    });
    let (busy_fps, changes) = if n == 0 {
        (None, String::new())
    } else {
        let endpoint = app.endpoint.clone();
        // SCALE_WARMUP_SECONDS: the same load first, unmeasured (the page's code warmed up, as in
        // an app that has been running); each session goes round the cycle back to where it was.
        let warm_up: u64 = std::env::var("SCALE_WARMUP_SECONDS").ok().and_then(|s| s.parse().ok()).unwrap_or(0);
        if warm_up > 0 {
            let endpoint = endpoint.clone();
            tokio::task::spawn_blocking(move || warm_up_load(&endpoint, n, warm_up)).await.expect("the warm-up");
            app.wait_still(".react-flow__viewport").await;
        }
        let sent = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let late = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let (sent2, late2) = (sent.clone(), late.clone());
        // Each POST's session and start (Unix ms), for hook → frame.
        let posts = std::sync::Arc::new(std::sync::Mutex::new(Vec::<(String, f64)>::new()));
        let posts2 = posts.clone();
        let cycle = ["working", "blocked", "done", "waiting"];
        let busy = frame_rate(&app, CHANGE_SECONDS, move || {
            std::thread::spawn(move || {
                let mut current: Vec<usize> = (0..n)
                    .map(|i| ["blocked", "waiting", "working", "working", "done", "done"][i % 6])
                    .map(|s| cycle.iter().position(|c| *c == s).expect("in the cycle"))
                    .collect();
                let start = Instant::now();
                let total = (CHANGES_PER_SECOND * CHANGE_SECONDS) as usize;
                for k in 0..total {
                    let due = start + Duration::from_micros(k as u64 * 1_000_000 / CHANGES_PER_SECOND);
                    match due.checked_duration_since(Instant::now()) {
                        Some(wait) => std::thread::sleep(wait),
                        None if Instant::now() - due > Duration::from_millis(20) => {
                            late2.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        }
                        None => {}
                    }
                    // Spread over the board: a different session each time.
                    let i = (k * 37) % n;
                    current[i] = (current[i] + 1) % cycle.len();
                    let body = scale_change(i, cycle[current[i]], k);
                    posts2.lock().expect("the posts").push((format!("s{i:04}"), unix_ms()));
                    post_hook(&endpoint, "custom", &body);
                    sent2.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                }
            })
        })
        .await;
        // The last change reached the reducer, and the page still answers.
        let last = (CHANGES_PER_SECOND * CHANGE_SECONDS) as usize - 1;
        let id = format!("s{:04}", (last * 37) % n);
        app.wait_session(&id, "changed", |s| s["status"].is_string());
        let latency = hook_to_frame(&posts.lock().expect("the posts"), &busy.handled);
        let changes = format!(
            "{} status changes POSTed ({} more than 20 ms behind schedule)\n  {}",
            sent.load(std::sync::atomic::Ordering::Relaxed),
            late.load(std::sync::atomic::Ordering::Relaxed),
            summary("hook POST → next frame after the page took it", latency)
        );
        (Some(busy), changes)
    };
    let busy_cpu = if n == 0 {
        String::new()
    } else {
        let ms = since.elapsed().as_secs_f64() * 1000.0;
        let after = cpu_ms(app.pid());
        let ours: f64 =
            after.iter().map(|(name, t)| t - cpu.iter().find(|(n, _)| n == name).map_or(0.0, |(_, t)| *t)).sum();
        format!(
            "{}\n  busiest threads: {}\n  {}",
            cpu_share(&cpu, &after, ms),
            busiest_threads(&threads_before, &thread_cpu_ms(app.pid()), ms),
            machine_share(machine_before, machine_ticks(), ours, ms)
        )
    };
    if let Some(mut perf) = perf {
        let _ = perf.wait();
    }
    app.close().await;
    Scale {
        sessions: n,
        first_paint,
        // An upper bound only if the page kept no record of its own.
        already: paint["already"] == json!(true) && own.is_null(),
        breakdown,
        memory,
        idle_fps,
        busy_fps,
        changes,
        idle_cpu,
        busy_cpu,
        others,
    }
}

/// A hundred agents at a glance (issue 13): the app started on a store of 0, 100, 300 and 1,000
/// sessions (12 projects, mixed statuses, seeded through a headless `serve`): time to the first
/// frame that shows them all, frame rate while 50 sessions a second change status, idle PSS.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "a measurement: run with --ignored --nocapture"]
async fn measure_scale() {
    let build =
        if app_path().contains("/release/") { "release" } else { "debug (set SWITCHBOARD_E2E_APP or RELEASE=1)" };
    let mut runs = Vec::new();
    // SCALE_SIZES="0 100" measures only those (0, the empty window, is the memory baseline).
    let sizes: Vec<usize> = std::env::var("SCALE_SIZES")
        .map(|s| s.split_whitespace().map(|n| n.parse().expect("SCALE_SIZES: numbers")).collect())
        .unwrap_or_else(|_| vec![0, 100, 300, 1_000]);
    for n in sizes {
        let run = scale_run(n).await;
        println!("\n{n} sessions: {}", run.breakdown);
        println!(
            "  PSS {:.1} MiB [{}]; other WebKitWebProcess on the machine: {}",
            run.memory.pss, run.memory.parts, run.others
        );
        println!("  CPU idle (3 s, one core = 100 %): {}", run.idle_cpu);
        println!(
            "  idle: frames in each second {:?}, longest main-thread stall {:.0} ms",
            run.idle_fps.windows, run.idle_fps.stall
        );
        if let Some(busy) = &run.busy_fps {
            println!(
                "  {}; frames in each second {:?}, longest main-thread stall {:.0} ms",
                run.changes, busy.windows, busy.stall
            );
            println!("  {}", busy.events);
            println!("  CPU under load: {}", run.busy_cpu);
        }
        runs.push(run);
    }
    let empty = runs.iter().find(|run| run.sessions == 0).map_or(f64::NAN, |run| run.memory.pss);
    println!(
        "\nscale: switchboard-app ({build} build: {}) under Xvfb 1280x800 (software rendering, no GPU), window 1200x780;",
        app_path()
    );
    println!("first paint = app process start (/proc starttime) → the first animation frame after the page shows every session");
    println!("  (the window shows itself once the page drew its board, before WebDriver can get in: then the page's own record of that frame)");
    println!("fps = requestAnimationFrame callbacks per second in the page; load = {CHANGES_PER_SECOND} status changes/s for {CHANGE_SECONDS} s");
    println!("PSS = switchboard-app + WebKit processes, median of 5 samples 10 s after first paint\n");
    println!("| sessions | first paint | fps idle mean / worst | fps under {CHANGES_PER_SECOND} changes/s mean / worst | PSS | over the empty window |");
    println!("|---|---|---|---|---|---|");
    for run in &runs {
        let busy = run.busy_fps.as_ref().map_or("—".to_owned(), |f| format!("{:.1} / {}", f.mean, f.worst));
        println!(
            "| {} | {}{:.2} s | {:.1} / {} | {busy} | {:.0} MiB | {} |",
            run.sessions,
            if run.already { "≤ " } else { "" },
            run.first_paint / 1000.0,
            run.idle_fps.mean,
            run.idle_fps.worst,
            run.memory.pss,
            if run.sessions == 0 || empty.is_nan() {
                "—".to_owned()
            } else {
                format!("+{:.0} MiB", run.memory.pss - empty)
            },
        );
    }
    if runs.iter().any(|run| run.already) {
        println!("(≤: the page already showed them when WebDriver first got in)");
    }
}

/// Counts DOM changes in the page from now on (`window.__mutations`).
const COUNT_MUTATIONS: &str = r#"
window.__mutations = 0;
new MutationObserver((list) => { window.__mutations += list.length; })
  .observe(document.documentElement, { subtree: true, childList: true, attributes: true, characterData: true });
return true;
"#;

/// Idle is idle (issue 26): 20 working sessions on screen and nothing new — the app's and WebKit's
/// CPU over 60 s (IDLE_SECONDS), and what the page changed meanwhile. Budget: < 0.5 % of a core.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "a measurement: run with --ignored --nocapture"]
async fn measure_idle_cpu() {
    let seconds: u64 = std::env::var("IDLE_SECONDS").ok().and_then(|s| s.parse().ok()).unwrap_or(60);
    let app = crate::idle::working_board().await;
    // The rings' pulses after arrival are over, and the board has been fitted.
    crate::idle::wait_animations(&app, "the page comes to rest", <[Value]>::is_empty).await;
    app.wait_still(".react-flow__viewport").await;
    app.client.execute(COUNT_MUTATIONS, vec![]).await.expect("count mutations");
    let (before, since) = (cpu_ms(app.pid()), Instant::now());
    let threads_before = thread_cpu_ms(app.pid());
    tokio::time::sleep(Duration::from_secs(seconds)).await;
    let after = cpu_ms(app.pid());
    let ms = since.elapsed().as_secs_f64() * 1000.0;
    let mutations = app.client.execute("return window.__mutations;", vec![]).await.expect("the mutations");
    let running = app.client.execute("return document.getAnimations().length;", vec![]).await.expect("animations");
    let total: f64 =
        after.iter().map(|(name, t)| t - before.iter().find(|(n, _)| n == name).map_or(0.0, |(_, t)| *t)).sum();
    println!(
        "\nidle, {} working sessions on screen, {seconds} s ({} build): app + WebKit {:.2} % of a core ({:.0} ms of CPU) — {}",
        crate::idle::WORKING,
        if app_path().contains("/release/") { "release" } else { "debug" },
        total / ms * 100.0,
        total,
        cpu_share(&before, &after, ms)
    );
    println!("  busiest threads: {}", busiest_threads(&threads_before, &thread_cpu_ms(app.pid()), ms));
    println!("  DOM changes meanwhile: {mutations}; animations running at the end: {running}");
    app.close().await;
}
