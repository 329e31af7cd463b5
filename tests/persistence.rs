//! docs/model.md §7 through real `serve` processes: restarts, `kill -9`, damaged and newer
//! databases.

use std::time::{Duration, Instant};

use serde_json::json;
use switchboard_engine::instance::outputs::store::{Store, DATABASE_FILE};

use crate::support::{fixture, Serve};

const CLAUDE: &str = "00893aaf-19fa-41d2-8238-13269b9b3ca0";

#[test]
fn a_restart_keeps_states_unread_and_titles() {
    let serve = Serve::start();
    let mut start = fixture("claude/SessionStart.json");
    start["session_title"] = json!("auth-refactor");
    serve.post("claude", &start);
    serve.post("claude", &fixture("claude/PermissionRequest.json"));
    serve.post("codex", &fixture("codex/PreToolUse-request_user_input.json"));
    serve.post("codex", &fixture("codex/Stop.json"));
    serve.wait_for(CLAUDE, |s| s["status"] == "blocked");
    let codex = "019fb3cc-0000-7000-8000-000000000001";
    serve.wait_for(codex, |s| s["status"] == "waiting");
    let (home, _) = serve.stop();

    let restarted = Serve::start_in(home, &[]);
    let claude = restarted.session(CLAUDE).expect("restored");
    assert_eq!(claude["status"], "blocked");
    assert_eq!(claude["unread"], true);
    assert_eq!(claude["title"], "auth-refactor");
    assert_eq!(claude["restored"], true);
    let question = restarted.session(codex).expect("restored");
    assert_eq!(question["status"], "waiting");
    assert_eq!(question["awaitingInput"], true);
    assert_eq!(question["question"], "Choose a value.");
    // It reports again: no longer "restored", and the hold still works across the restart.
    restarted.post("codex", &fixture("codex/UserPromptSubmit.json"));
    restarted.post("claude", &fixture("claude/PostToolUse.json"));
    let claude = restarted.wait_for(CLAUDE, |s| s["status"] == "working");
    assert_eq!(claude["restored"], false);
}

/// A burst over a fixed set of sessions (well under the 5,000-session cap, so no eviction however
/// fast the machine posts), each post numbered; SIGKILL mid-burst. Every session must have been
/// saved at least at the last number acknowledged more than a second before the kill.
#[test]
fn kill_9_in_a_burst_loses_no_change_acknowledged_a_second_before() {
    const SESSIONS: usize = 1_000;
    const AT_LEAST: usize = 3 * SESSIONS;
    const AT_MOST: usize = 200_000;
    let mut serve = Serve::start();
    // (session, number, acknowledged at), in posting order.
    let mut acknowledged: Vec<(usize, usize, Instant)> = Vec::new();
    let started = Instant::now();
    // Bounded by count; it also runs past 1.5 s so that some acknowledgements are over a second
    // old at the kill, whatever the machine's speed.
    while acknowledged.len() < AT_MOST
        && (acknowledged.len() < AT_LEAST || started.elapsed() < Duration::from_millis(1_500))
    {
        let n = acknowledged.len();
        let session = n % SESSIONS;
        let body = json!({"sessionId": format!("burst-{session}"), "status": "working", "message": n.to_string()});
        assert_eq!(serve.post("custom", &body), 204);
        acknowledged.push((session, n, Instant::now()));
    }
    serve.child.kill().unwrap(); // SIGKILL
    let killed_at = Instant::now();
    serve.child.wait().unwrap();
    let store = Store::open(serve.home()).unwrap().0;
    let saved: std::collections::HashMap<String, usize> = store
        .load()
        .unwrap()
        .into_iter()
        .filter_map(|s| Some((s.session.session_id, s.session.message?.parse().ok()?)))
        .collect();
    let mut due: std::collections::HashMap<usize, usize> = std::collections::HashMap::new();
    for (session, n, at) in &acknowledged {
        if killed_at.duration_since(*at) > Duration::from_secs(1) {
            due.insert(*session, *n);
        }
    }
    assert!(!due.is_empty(), "some changes were acknowledged over a second before the kill");
    let posted = acknowledged.len();
    let mut lost: Vec<String> = due
        .iter()
        .filter(|(session, n)| saved.get(&format!("burst-{session}")).is_none_or(|kept| kept < n))
        .map(|(session, n)| {
            format!("burst-{session}: acknowledged #{n}, saved {:?}", saved.get(&format!("burst-{session}")))
        })
        .collect();
    lost.sort();
    assert!(
        lost.is_empty(),
        "{} of {} sessions lost acknowledged changes ({posted} posted): {lost:?}",
        lost.len(),
        due.len()
    );
    assert!(saved.values().all(|kept| *kept < posted), "nothing saved that was never posted");
}

/// Issue 22.2: a SIGTERM in the middle of a flood of new session ids (four times the cap, so
/// the reducer evicts all along) is a clean stop: after the restart, the newest sessions
/// acknowledged are there, and none of those evicted long before comes back.
#[test]
fn sigterm_mid_flood_of_ids_keeps_the_newest_sessions_and_brings_back_none_evicted() {
    let cap = switchboard_core::MAX_SESSIONS;
    let mut serve = Serve::start();
    let total = 4 * cap;
    let body = |n: usize| json!({"sessionId": format!("id-{n}"), "status": "working"});
    // Pipelined on one keep-alive connection, at most WINDOW requests ahead of the answers: the
    // flood as fast as the server takes it, and a known bound on what it took past what it
    // answered.
    const WINDOW: usize = 256;
    let answered = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let mut stream = std::net::TcpStream::connect(serve.addr()).unwrap();
    let mut reader = std::io::BufReader::new(stream.try_clone().unwrap());
    let writer = std::thread::spawn({
        let key = serve.endpoint.key.clone();
        let answered = std::sync::Arc::clone(&answered);
        move || {
            for n in 0..total {
                loop {
                    let answered = answered.load(std::sync::atomic::Ordering::Acquire);
                    if answered == usize::MAX {
                        return;
                    }
                    if n < answered + WINDOW {
                        break;
                    }
                    std::thread::yield_now();
                }
                let body = body(n).to_string();
                let request = format!(
                    "POST /hook/custom?key={key} HTTP/1.1\r\nHost: x\r\nContent-Length: {}\r\n\r\n{body}",
                    body.len()
                );
                if std::io::Write::write_all(&mut stream, request.as_bytes()).is_err() {
                    return;
                }
            }
        }
    });
    // Count the answers; stop the server once three quarters are acknowledged (mid-flood).
    let mut acknowledged = 0;
    let mut line = String::new();
    while acknowledged < total * 3 / 4 {
        line.clear();
        if std::io::BufRead::read_line(&mut reader, &mut line).unwrap() == 0 {
            break;
        }
        if line.starts_with("HTTP/1.1 204") {
            acknowledged += 1;
            answered.store(acknowledged, std::sync::atomic::Ordering::Release);
        }
    }
    assert_eq!(acknowledged, total * 3 / 4, "the flood was answered");
    let status = serve.terminate();
    assert!(status.success(), "a clean stop: {status}");
    answered.store(usize::MAX, std::sync::atomic::Ordering::Release);
    drop(reader);
    let _ = writer.join();
    let (home, _) = serve.stop();
    let store = Store::open(home.path()).unwrap().0;
    let saved: std::collections::HashSet<usize> = store
        .load()
        .unwrap()
        .into_iter()
        .filter_map(|s| s.session.session_id.strip_prefix("id-")?.parse().ok())
        .collect();
    assert!(saved.len() <= cap, "{} saved for a cap of {cap}", saved.len());
    // The newest acknowledged sessions were live at the stop (eviction takes the oldest).
    let newest = acknowledged - switchboard_core::EVICT_TO / 2..acknowledged;
    let missing: Vec<usize> = newest.clone().filter(|n| !saved.contains(n)).collect();
    assert!(
        missing.is_empty(),
        "{} of the newest {} acknowledged were not saved: {missing:?}",
        missing.len(),
        newest.len()
    );
    // Nothing from before the last cap's worth of what it took comes back: it had been evicted.
    let oldest_live = (acknowledged + WINDOW).saturating_sub(cap);
    let back: Vec<&usize> = saved.iter().filter(|n| **n < oldest_live).collect();
    assert!(back.is_empty(), "evicted sessions came back: {back:?}");
}

#[test]
fn a_damaged_database_is_set_aside_and_a_fresh_one_started() {
    let home = tempfile::tempdir().unwrap();
    std::fs::write(home.path().join(DATABASE_FILE), b"this is not a database, just text that is long enough").unwrap();
    let serve = Serve::start_in(home, &[]);
    serve.post("custom", &json!({"sessionId": "after", "status": "done"}));
    serve.wait_for("after", |_| true);
    let (home, stderr) = serve.stop();
    assert!(stderr.contains("set aside"), "{stderr}");
    assert!(!stderr.contains('\x1b'), "no colour codes when stderr is not a terminal: {stderr:?}");
    let aside: Vec<_> = std::fs::read_dir(home.path())
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|name| name.starts_with("switchboard.db.corrupt-"))
        .collect();
    assert_eq!(aside.len(), 1, "{aside:?}");
    let kept = std::fs::read(home.path().join(&aside[0])).unwrap();
    assert!(kept.starts_with(b"this is not a database"), "the damaged file is kept as it was");
    let sessions = Store::open(home.path()).unwrap().0.load().unwrap();
    assert_eq!(sessions.len(), 1, "the fresh database works");
}

#[test]
fn a_database_from_a_newer_version_is_refused_not_wiped() {
    let home = tempfile::tempdir().unwrap();
    let path = home.path().join(DATABASE_FILE);
    {
        let conn = rusqlite::Connection::open(&path).unwrap();
        conn.execute_batch("CREATE TABLE future (x); INSERT INTO future VALUES (42); PRAGMA user_version = 99;")
            .unwrap();
    }
    let before = std::fs::read(&path).unwrap();
    let serve = Serve::start_in(home, &[]);
    serve.post("custom", &json!({"sessionId": "still-works", "status": "working"}));
    serve.wait_for("still-works", |_| true);
    let (home, stderr) = serve.stop();
    assert!(stderr.contains("newer Switchboard"), "{stderr}");
    assert_eq!(std::fs::read(home.path().join(DATABASE_FILE)).unwrap(), before, "left untouched");
}

#[test]
fn history_is_kept_per_session_and_bounded() {
    let serve = Serve::start();
    for i in 0..60 {
        let status = if i % 2 == 0 { "working" } else { "blocked" };
        serve.post("custom", &json!({"sessionId": "chatty", "status": status, "message": format!("step {i}")}));
    }
    serve.wait_for("chatty", |s| s["message"] == "step 59");
    let (home, _) = serve.stop();
    let history = Store::open(home.path()).unwrap().0.history("chatty").unwrap();
    assert_eq!(history.len(), switchboard_engine::instance::outputs::store::HISTORY_LIMIT);
    assert_eq!(history.last().unwrap().message.as_deref(), Some("step 59"));
}

#[test]
fn a_database_that_cannot_be_written_is_reported_once_in_the_snapshot_and_status() {
    let serve = Serve::start();
    serve.post("custom", &json!({"sessionId": "before", "status": "working"}));
    serve.wait_for("before", |_| true);
    let conn = rusqlite::Connection::open(serve.home().join(DATABASE_FILE)).unwrap();
    conn.execute_batch("DROP TABLE sessions;").unwrap();
    drop(conn);
    serve.post("custom", &json!({"sessionId": "after", "status": "blocked"}));
    let notices = crate::support::eventually(Duration::from_secs(5), || {
        let snapshot = serve.sessions();
        snapshot["notices"].as_array().filter(|n| !n.is_empty()).cloned()
    })
    .expect("a notice within a few seconds");
    assert_eq!(notices.len(), 1, "{notices:?}");
    let text = notices[0].as_str().unwrap();
    assert!(text.contains("not being saved") && text.contains(DATABASE_FILE), "{text}");
    // The hook path is untouched: events still arrive.
    serve.wait_for("after", |s| s["status"] == "blocked");
    let output = crate::support::run(serve.home(), &["status"], b"");
    assert!(String::from_utf8_lossy(&output.stdout).starts_with("! Sessions are not being saved"));
}

/// Issue 33.4: a session whose agent died while no instance ran comes back as exited — no pid,
/// no footprint, no End agent — and one whose agent still runs comes back as it was.
#[test]
fn a_restored_session_whose_agent_died_meanwhile_comes_back_exited() {
    let serve = Serve::start();
    let mut alive = std::process::Command::new("sleep").arg("600").spawn().unwrap();
    let mut dying = std::process::Command::new("sleep").arg("600").spawn().unwrap();
    for (id, pid) in [("lives-on", alive.id()), ("died-meanwhile", dying.id())] {
        let start = switchboard_engine::process::stat(pid).unwrap().start;
        let mut body = fixture("claude/Stop.json");
        body["session_id"] = json!(id);
        serve.post_from("claude", &body, &json!({"pid": pid, "start": start}));
        serve.wait_for(id, |s| s["status"] == "done" && s["process"]["pid"] == json!(pid));
    }
    let (home, _) = serve.stop();
    dying.kill().unwrap();
    dying.wait().unwrap();

    let restarted = Serve::start_in(home, &[]);
    let dead = restarted.session("died-meanwhile").expect("restored");
    assert_eq!(dead["exited"], true, "{dead}");
    assert_eq!(dead["footprint"], serde_json::Value::Null, "{dead}");
    let living = restarted.session("lives-on").expect("restored");
    assert_eq!(living["exited"], false, "{living}");
    assert_eq!(living["process"]["pid"], json!(alive.id()));
    let _ = alive.kill();
    let _ = alive.wait();
}
