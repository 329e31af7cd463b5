use super::*;
use crate::instance::hub::{Hub, Input, Update};
use serde_json::json;
use switchboard_core::{normalize, Position};

fn hub_with_store(dir: &Path) -> (Hub, StoreHandle) {
    let (store, notice) = Store::open(dir).unwrap();
    assert_eq!(notice, None);
    let hub = Hub::with_restored(store.load().unwrap());
    let handle = StoreHandle::start(store, &hub, None).unwrap();
    (hub, handle)
}

fn apply(hub: &Hub, id: &str, status: &str, at: u64) {
    hub.apply(Input::Hook(Box::new(normalize("custom", &json!({"sessionId": id, "status": status}), at).unwrap())));
}

/// Issue 12 items 8 and 9: the database and its WAL and shared-memory files are private from
/// the first write, whatever the umask; a directory that cannot hold it is not called damage.
#[test]
fn the_database_files_are_0600_and_a_bad_directory_is_not_called_damage() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    // SAFETY: umask only changes this process's file creation mask.
    let old = unsafe { libc::umask(0) };
    let opened = Store::open(dir.path());
    unsafe { libc::umask(old) };
    let (mut store, _) = opened.unwrap();
    store.write(&Batch::default()).unwrap();
    for name in [DATABASE_FILE, "switchboard.db-wal", "switchboard.db-shm"] {
        let mode = std::fs::metadata(dir.path().join(name)).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600, "{name}");
    }
    let file = dir.path().join("plain-file");
    std::fs::write(&file, "").unwrap();
    let error = Store::open(&file.join("state")).err().expect("cannot open under a file");
    let text = crate::error_text(&error);
    assert!(text.starts_with("cannot create the session database in"), "{text}");
    assert!(!text.contains("damaged") && text.matches("Not a directory").count() == 1, "{text}");
}

#[test]
fn positions_unread_and_removals_survive_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    {
        let (hub, store) = hub_with_store(dir.path());
        for (id, status) in [("kept", "blocked"), ("read", "done"), ("gone", "done")] {
            apply(&hub, id, status, 1_000);
        }
        hub.apply(Input::SetPosition { session_id: "kept".into(), position: Position { x: 12, y: -40 }, reply: None });
        hub.apply(Input::ClearUnread { session_id: "read".into(), reply: None });
        hub.apply(Input::Remove { session_id: "gone".into(), reply: None });
        assert!(store.flush(Duration::from_secs(5)));
    }
    let (hub, store) = hub_with_store(dir.path());
    let snapshot = hub.snapshot();
    let ids: Vec<&str> = snapshot.sessions.iter().map(|s| s.session_id.as_str()).collect();
    assert_eq!(ids, ["kept", "read"], "arrival order kept, removed session gone");
    let kept = &snapshot.sessions[0];
    assert_eq!(kept.position, Some(Position { x: 12, y: -40 }));
    assert!(kept.unread && kept.restored);
    assert!(!snapshot.sessions[1].unread);
    assert_eq!(store.history("kept").len(), 1);
    assert!(store.history("gone").is_empty());
}

#[test]
fn stored_history_stays_bounded_however_long_a_session_runs() {
    let dir = tempfile::tempdir().unwrap();
    let (hub, store) = hub_with_store(dir.path());
    for i in 0..400u64 {
        let status = if i % 2 == 0 { "working" } else { "blocked" };
        apply(&hub, "long", status, i);
        if i % 37 == 0 {
            store.flush(Duration::from_secs(5));
        }
    }
    store.flush(Duration::from_secs(5));
    let conn = Connection::open(Store::path(dir.path())).unwrap();
    let (rows, entries): (usize, usize) =
        conn.query_row("SELECT COUNT(*), SUM(entries) FROM history", [], |row| Ok((row.get(0)?, row.get(1)?))).unwrap();
    // Trimmed to the newest rows that hold the limit, the oldest of which may hold up to 37.
    assert!(entries <= HISTORY_LIMIT + HISTORY_SLACK + 37, "{entries} entries stored in {rows} rows");
    assert!(rows < entries, "a commit's entries share a row: {rows} rows for {entries}");
    let history = store.history("long");
    assert_eq!(history.len(), HISTORY_LIMIT);
    assert_eq!(history.last().unwrap().status, switchboard_core::AgentStatus::Blocked);
    let ats: Vec<u64> = history.iter().map(|entry| entry.at).collect();
    assert_eq!(ats, (350..400).collect::<Vec<_>>(), "the newest, oldest first");
}

/// Issue 47: what one commit brings of a session's history is one row (a row insert, its index
/// entry and its later trim per change were the store's largest cost), read back entry by entry
/// in order, beside the single-entry rows of a schema-1 database, which migrates in place — to
/// schema 3, whose history table appends without `AUTOINCREMENT`.
#[test]
fn a_commits_entries_share_one_row_and_read_back_in_order_beside_schema_1_rows() {
    let dir = tempfile::tempdir().unwrap();
    {
        let conn = Connection::open(Store::path(dir.path())).unwrap();
        conn.execute_batch(MIGRATIONS[0]).unwrap();
        conn.pragma_update(None, "user_version", 1).unwrap();
        for at in [1u64, 2] {
            let entry = json!({"at": at, "status": "working", "tool": null, "question": null, "message": null,
                               "interrupted": false, "errored": false});
            conn.execute(
                "INSERT INTO history (session_id, at, entry) VALUES ('s', ?1, ?2)",
                rusqlite::params![at, entry.to_string()],
            )
            .unwrap();
        }
    }
    // Two commits made here, on this thread: the first of five changes, the second of one.
    let (mut store, _) = Store::open(dir.path()).unwrap();
    let hub = Hub::new();
    let updates = hub.updates();
    for changes in [3..=7u64, 8..=8] {
        let mut batch = Batch::default();
        for at in changes {
            apply(&hub, "s", if at % 2 == 0 { "working" } else { "blocked" }, at);
        }
        for update in updates.try_iter() {
            batch.add(&update, &HashSet::new());
        }
        store.write(&batch).unwrap();
    }
    let conn = Connection::open(Store::path(dir.path())).unwrap();
    let version: i64 = conn.pragma_query_value(None, "user_version", |row| row.get(0)).unwrap();
    assert_eq!(version, SCHEMA_VERSION);
    let mut query = conn.prepare("SELECT entries FROM history WHERE session_id = 's' ORDER BY id").unwrap();
    let rows: Vec<usize> = query.query_map([], |row| row.get(0)).unwrap().map(Result::unwrap).collect();
    assert_eq!(rows, [1, 1, 5, 1]);
    let ats: Vec<u64> = store.history("s").unwrap().iter().map(|entry| entry.at).collect();
    assert_eq!(ats, [1, 2, 3, 4, 5, 6, 7, 8]);
    let schema = |name: &str| -> Option<String> {
        conn.query_row("SELECT sql FROM sqlite_master WHERE name = ?1", [name], |row| row.get(0)).optional().unwrap()
    };
    let history = schema("history").expect("the history table");
    assert!(!history.contains("AUTOINCREMENT"), "{history}");
    assert!(schema("history_by_session").is_some(), "the index is made again");
    assert_eq!(schema("history_3"), None, "no table of the migration is left");
}

/// Issue 22: what waits for the writer is bounded by the sessions, not by the flood; a
/// session that came and went before its first commit costs no write; evicted sessions that
/// were saved are deleted, and the live ones are saved whatever was evicted meanwhile.
#[test]
fn a_flood_of_ids_waits_as_at_most_one_entry_per_session_and_saves_exactly_the_live_ones() {
    let dir = tempfile::tempdir().unwrap();
    let (hub, store) = hub_with_store(dir.path());
    apply(&hub, "saved-then-evicted", "working", 1);
    assert!(store.flush(Duration::from_secs(5)));
    // However far behind the writer is, at most one entry per live session waits, plus one
    // deletion per saved session evicted.
    let cap = switchboard_core::MAX_SESSIONS;
    let mut most = 0;
    for n in 0..(3 * cap as u64) {
        apply(&hub, &format!("flood-{n}"), "working", 2 + n);
        most = most.max(store.waiting());
    }
    assert!(most <= 2 * cap + 1, "{most} sessions waited for {cap} live");
    assert!(store.flush(Duration::from_secs(30)));
    let live: std::collections::HashSet<String> = hub.snapshot().sessions.into_iter().map(|s| s.session_id).collect();
    let conn = Connection::open(Store::path(dir.path())).unwrap();
    let mut query = conn.prepare("SELECT session_id FROM sessions").unwrap();
    let saved: std::collections::HashSet<String> =
        query.query_map([], |row| row.get::<_, String>(0)).unwrap().map(Result::unwrap).collect();
    assert_eq!(saved, live, "exactly the live sessions are saved");
    assert!(!saved.contains("saved-then-evicted"));
}

#[test]
fn a_write_within_the_flush_interval_is_committed_without_an_explicit_flush() {
    let dir = tempfile::tempdir().unwrap();
    let (hub, _store) = hub_with_store(dir.path());
    apply(&hub, "s", "working", 1);
    let committed = (0..100).any(|_| {
        std::thread::sleep(FLUSH_EVERY / 10);
        saved_state(dir.path(), "s").is_some()
    });
    assert!(committed, "committed within ten flush intervals");
}

/// The row is written from the shared update without copying the session (issue 47), and holds
/// what a restart needs: restoring it shows what restoring the session saved whole shows.
#[test]
fn a_saved_row_restores_what_the_session_saved_whole_does() {
    let hub = Hub::new();
    let updates = hub.updates();
    hub.apply(Input::Hook(Box::new(
        normalize(
            "claude",
            &json!({"hook_event_name": "UserPromptSubmit", "session_id": "s", "cwd": "/w",
            "prompt": "Fix the \"flaky\" test ✓"}),
            1_000,
        )
        .unwrap(),
    )));
    hub.apply(Input::AgentTitle { session_id: "s".into(), title: Some("Its own name".into()) });
    let Some(Update::Changed(changed)) = updates.try_iter().last() else { panic!("no change") };
    assert!(changed.event_title.is_some() && changed.agent_title.is_some(), "both titles in the row");
    let row = serde_json::to_string(&row::Saving::of(&changed)).unwrap();
    let back: Restored = serde_json::from_str(&row).unwrap();
    let restart = |saved: Restored| Hub::with_restored(vec![saved]).snapshot().sessions;
    assert_eq!(restart(back), restart(changed.saved()));
}
