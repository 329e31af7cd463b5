//! SPEC 7 through real `serve` processes: restarts, `kill -9`, damaged and newer databases.

use std::time::{Duration, Instant};

use serde_json::json;
use switchboard_engine::instance::store::{Store, DATABASE_FILE};

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
    assert_eq!(history.len(), switchboard_engine::instance::store::HISTORY_LIMIT);
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
