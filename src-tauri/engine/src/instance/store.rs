//! The store (SPEC 7): sessions and a bounded per-session history in an embedded SQLite
//! database in the state directory, so the agents that need you survive a restart.
//!
//! Writes are behind the ingestion path: the store subscribes to the hub's updates, and a
//! writer thread commits what arrived in one transaction at most
//! [`FLUSH_EVERY`] later (WAL, `synchronous = NORMAL`: a committed transaction survives the
//! process being killed). A corrupt file is set aside and a fresh one started; a file from a
//! newer Switchboard is refused and left as it is.
//!
//! (Over 400 lines: the schema, its migrations and the write-behind thread share one
//! connection's rules — WAL, 0600 files, the set-aside — and are kept together.)

use std::collections::HashMap;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

use rusqlite::{params, Connection, ErrorCode, OpenFlags, OptionalExtension};
use switchboard_core::{HistoryEntry, Restored};

use crate::instance::hub::{Hub, Input, Inputs, Update};

pub const DATABASE_FILE: &str = "switchboard.db";
/// The newest schema this build reads and writes.
pub const SCHEMA_VERSION: i64 = 1;
/// How long an acknowledged change may wait for its transaction.
pub const FLUSH_EVERY: Duration = Duration::from_millis(500);
/// History entries shown per session (the newest); at most [`HISTORY_SLACK`] more are stored.
pub const HISTORY_LIMIT: usize = 50;

/// Each migration takes the schema from its index to the next version.
const MIGRATIONS: &[&str] = &["
    CREATE TABLE sessions (
        session_id TEXT PRIMARY KEY,
        state      TEXT NOT NULL,
        updated_at INTEGER NOT NULL
    );
    CREATE TABLE history (
        id         INTEGER PRIMARY KEY AUTOINCREMENT,
        session_id TEXT NOT NULL,
        at         INTEGER NOT NULL,
        entry      TEXT NOT NULL
    );
    CREATE INDEX history_by_session ON history (session_id, id);
"];

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error(
        "{} was written by a newer Switchboard (schema {found}; this one reads up to {SCHEMA_VERSION}). \
         It was left untouched and sessions will not be saved in this run; update Switchboard to keep them.",
        path.display()
    )]
    NewerSchema { path: PathBuf, found: i64 },
    #[error("the session database {} cannot be used: {source}{}", path.display(), hint(source))]
    Sqlite { path: PathBuf, source: rusqlite::Error },
    #[error("cannot create the session database in {}: {source}. Make the directory writable by you (`chmod u+rwx`)", path.display())]
    Directory { path: PathBuf, source: std::io::Error },
    #[error("cannot set aside the damaged session database {}: {source}", path.display())]
    SetAside { path: PathBuf, source: std::io::Error },
}

/// Something the user should hear about the database, though the app goes on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StoreNotice {
    /// The file was damaged; it was renamed and a fresh database started.
    SetAside { moved_to: PathBuf, reason: String },
}

impl std::fmt::Display for StoreNotice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::SetAside { moved_to, reason } => write!(
                f,
                "The session database was damaged ({reason}); it was set aside as {} and a fresh one started.",
                moved_to.display()
            ),
        }
    }
}

pub struct Store {
    conn: Connection,
    path: PathBuf,
    /// History rows per session, as far as this process knows (filled lazily), so trimming to
    /// the bound runs only once a session is over it by [`HISTORY_SLACK`], not on every write.
    history_rows: HashMap<String, usize>,
}

/// How far past [`HISTORY_LIMIT`] a session's history may grow before it is trimmed back.
const HISTORY_SLACK: usize = 25;

impl Store {
    pub fn path(state_dir: &Path) -> PathBuf {
        state_dir.join(DATABASE_FILE)
    }

    /// Opens (creating or migrating) the database, setting a damaged one aside.
    pub fn open(state_dir: &Path) -> Result<(Self, Option<StoreNotice>), StoreError> {
        let directory = |source| StoreError::Directory { path: state_dir.to_path_buf(), source };
        std::fs::create_dir_all(state_dir).map_err(directory)?;
        let path = Self::path(state_dir);
        // Created 0600 before SQLite sees it: SQLite gives its WAL and shared-memory files the
        // main file's mode, so none of them is ever readable by others, whatever the umask.
        if let Err(source) = std::fs::OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(false)
            .mode(0o600)
            .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
            .open(&path)
        {
            // A read-only file in a writable directory is SQLite's to report (read-only database).
            if source.kind() != std::io::ErrorKind::PermissionDenied || !path.exists() {
                return Err(directory(source));
            }
        }
        match Self::open_checked(&path) {
            Err(StoreError::Sqlite { source, .. }) if is_damage(&source) => {
                let moved_to = set_aside(&path)?;
                let store = Self::open_checked(&path)?;
                Ok((store, Some(StoreNotice::SetAside { moved_to, reason: source.to_string() })))
            }
            Err(StoreError::Sqlite { source: rusqlite::Error::SqliteFailure(_, Some(reason)), .. })
                if reason.starts_with("integrity:") =>
            {
                let moved_to = set_aside(&path)?;
                let store = Self::open_checked(&path)?;
                Ok((store, Some(StoreNotice::SetAside { moved_to, reason })))
            }
            other => other.map(|store| (store, None)),
        }
    }

    fn open_checked(path: &Path) -> Result<Self, StoreError> {
        let error = |source| StoreError::Sqlite { path: path.to_path_buf(), source };
        let conn = Connection::open(path).map_err(error)?;
        conn.busy_timeout(Duration::from_secs(5)).map_err(error)?;
        let version: i64 = conn.pragma_query_value(None, "user_version", |row| row.get(0)).map_err(error)?;
        if version > SCHEMA_VERSION {
            return Err(StoreError::NewerSchema { path: path.to_path_buf(), found: version });
        }
        let check: String = conn.pragma_query_value(None, "quick_check", |row| row.get(0)).map_err(error)?;
        if check != "ok" {
            return Err(error(rusqlite::Error::SqliteFailure(
                rusqlite::ffi::Error::new(rusqlite::ffi::SQLITE_CORRUPT),
                Some(format!("integrity: {check}")),
            )));
        }
        conn.pragma_update(None, "journal_mode", "WAL").map_err(error)?;
        conn.pragma_update(None, "synchronous", "NORMAL").map_err(error)?;
        let mut store = Self { conn, path: path.to_path_buf(), history_rows: HashMap::new() };
        store.migrate(version).map_err(error)?;
        Ok(store)
    }

    fn migrate(&mut self, from: i64) -> rusqlite::Result<()> {
        let from = usize::try_from(from).unwrap_or(0);
        for (index, migration) in MIGRATIONS.iter().enumerate().skip(from) {
            let tx = self.conn.transaction()?;
            tx.execute_batch(migration)?;
            tx.pragma_update(None, "user_version", index + 1)?;
            tx.commit()?;
        }
        Ok(())
    }

    /// Every saved session, oldest first (their arrival order on the canvas).
    pub fn load(&self) -> Result<Vec<Restored>, StoreError> {
        let error = |source| StoreError::Sqlite { path: self.path.clone(), source };
        let mut query = self.conn.prepare("SELECT state FROM sessions ORDER BY rowid").map_err(error)?;
        let rows = query.query_map([], |row| row.get::<_, String>(0)).map_err(error)?;
        let mut sessions = Vec::new();
        for row in rows {
            match serde_json::from_str::<Restored>(&row.map_err(error)?) {
                Ok(session) => sessions.push(session),
                Err(e) => tracing::warn!(error = %e, "skipping a saved session that cannot be read"),
            }
        }
        Ok(sessions)
    }

    pub fn history(&self, session_id: &str) -> Result<Vec<HistoryEntry>, StoreError> {
        history(&self.conn, session_id).map_err(|source| StoreError::Sqlite { path: self.path.clone(), source })
    }

    /// Commits one batch in one transaction.
    pub fn write(&mut self, batch: &Batch) -> rusqlite::Result<()> {
        let tx = self.conn.transaction()?;
        {
            let mut upsert = tx.prepare_cached(
                "INSERT INTO sessions (session_id, state, updated_at) VALUES (?1, ?2, ?3)
                 ON CONFLICT (session_id) DO UPDATE SET state = excluded.state, updated_at = excluded.updated_at",
            )?;
            for session in &batch.sessions {
                let id = &session.session.session_id;
                let state =
                    serde_json::to_string(session).map_err(|e| rusqlite::Error::ToSqlConversionFailure(e.into()))?;
                upsert.execute(params![id, state, now_millis()])?;
            }
            let mut append = tx.prepare_cached("INSERT INTO history (session_id, at, entry) VALUES (?1, ?2, ?3)")?;
            for (id, entry) in &batch.history {
                let text =
                    serde_json::to_string(entry).map_err(|e| rusqlite::Error::ToSqlConversionFailure(e.into()))?;
                append.execute(params![id, i64::try_from(entry.at).unwrap_or(i64::MAX), text])?;
            }
            let mut added: HashMap<&String, usize> = HashMap::new();
            for (id, _) in &batch.history {
                *added.entry(id).or_default() += 1;
            }
            let mut count = tx.prepare_cached("SELECT COUNT(*) FROM history WHERE session_id = ?1")?;
            let mut trim = tx.prepare_cached(
                "DELETE FROM history WHERE session_id = ?1 AND id NOT IN
                 (SELECT id FROM history WHERE session_id = ?1 ORDER BY id DESC LIMIT ?2)",
            )?;
            for (id, added) in added {
                let rows = match self.history_rows.get(id) {
                    Some(rows) => rows + added,
                    None => count.query_row(params![id], |row| row.get::<_, i64>(0)).map(|n| n as usize)?,
                };
                let rows = if rows > HISTORY_LIMIT + HISTORY_SLACK {
                    trim.execute(params![id, HISTORY_LIMIT])?;
                    HISTORY_LIMIT
                } else {
                    rows
                };
                self.history_rows.insert(id.clone(), rows);
            }
            let mut delete = tx.prepare_cached("DELETE FROM sessions WHERE session_id = ?1")?;
            let mut forget = tx.prepare_cached("DELETE FROM history WHERE session_id = ?1")?;
            for id in &batch.removed {
                delete.execute(params![id])?;
                forget.execute(params![id])?;
                self.history_rows.remove(id);
            }
        }
        tx.commit()
    }
}

fn history(conn: &Connection, session_id: &str) -> rusqlite::Result<Vec<HistoryEntry>> {
    let mut query = conn.prepare_cached(
        "SELECT entry FROM (SELECT id, entry FROM history WHERE session_id = ?1 ORDER BY id DESC LIMIT ?2) ORDER BY id",
    )?;
    let rows = query.query_map(params![session_id, HISTORY_LIMIT], |row| row.get::<_, String>(0))?;
    let mut entries = Vec::new();
    for row in rows {
        if let Ok(entry) = serde_json::from_str(&row?) {
            entries.push(entry);
        }
    }
    Ok(entries)
}

/// What to do about an error that is not damage: a directory or file the user cannot write.
fn hint(error: &rusqlite::Error) -> &'static str {
    match error.sqlite_error_code() {
        Some(ErrorCode::CannotOpen | ErrorCode::ReadOnly | ErrorCode::PermissionDenied) => {
            ". The file and its directory must be writable by you (`chmod u+rw`); nothing was set aside"
        }
        _ => "",
    }
}

fn is_damage(error: &rusqlite::Error) -> bool {
    matches!(error.sqlite_error_code(), Some(ErrorCode::NotADatabase | ErrorCode::DatabaseCorrupt))
}

/// Renames the damaged file (and its WAL and shared-memory files) out of the way.
fn set_aside(path: &Path) -> Result<PathBuf, StoreError> {
    let stamp = now_millis();
    let moved_to = path.with_file_name(format!("{DATABASE_FILE}.corrupt-{stamp}"));
    std::fs::rename(path, &moved_to).map_err(|source| StoreError::SetAside { path: path.to_path_buf(), source })?;
    for suffix in ["-wal", "-shm"] {
        let side = path.with_file_name(format!("{DATABASE_FILE}{suffix}"));
        if side.exists() {
            let _ = std::fs::rename(&side, moved_to.with_file_name(format!("{DATABASE_FILE}.corrupt-{stamp}{suffix}")));
        }
    }
    tracing::warn!(moved_to = %moved_to.display(), "the session database was damaged and was set aside");
    Ok(moved_to)
}

fn now_millis() -> i64 {
    i64::try_from(crate::clock::now_millis()).unwrap_or(i64::MAX)
}

/// What the writer commits together: the latest state of each touched session, new history
/// entries in order, and removed sessions.
#[derive(Debug, Default)]
pub struct Batch {
    /// Touched sessions' latest states, in first-seen order so new rows keep the canvas's
    /// arrival order; a burst of changes to one session costs one row write.
    sessions: Vec<Restored>,
    index: HashMap<String, usize>,
    history: Vec<(String, HistoryEntry)>,
    removed: Vec<String>,
}

impl Batch {
    fn is_empty(&self) -> bool {
        self.sessions.is_empty() && self.history.is_empty() && self.removed.is_empty()
    }

    fn add(&mut self, update: Update) {
        match update {
            Update::Changed(changed) => {
                let saved = changed.saved();
                let id = saved.session.session_id.clone();
                self.removed.retain(|removed| *removed != id);
                if let Some(entry) = changed.history {
                    self.history.push((id.clone(), entry));
                }
                match self.index.get(&id) {
                    Some(&at) => self.sessions[at] = saved,
                    None => {
                        self.index.insert(id, self.sessions.len());
                        self.sessions.push(saved);
                    }
                }
            }
            Update::Removed(id) => {
                if let Some(at) = self.index.remove(&id) {
                    self.sessions.remove(at);
                    for position in self.index.values_mut() {
                        if *position > at {
                            *position -= 1;
                        }
                    }
                }
                self.history.retain(|(session, _)| *session != id);
                self.removed.push(id);
            }
            Update::Notices(_) => {}
        }
    }
}

/// What the writer thread receives: the hub's updates, and flush requests.
pub enum Message {
    Update(Update),
    /// Commit now and answer (clean shutdown, tests).
    Flush(Sender<()>),
}

impl From<Update> for Message {
    fn from(update: Update) -> Self {
        Self::Update(update)
    }
}

/// The store as a subscriber of the hub: a writer thread commits what the hub publishes;
/// reads use their own connection.
pub struct StoreHandle {
    writer: Mutex<Sender<Message>>,
    reader: Mutex<Connection>,
}

impl StoreHandle {
    /// Starts the writer thread that owns `store`, and subscribes it to `hub`. A commit that
    /// fails is reported once to `notices` (with what to do), and cleared when one succeeds.
    pub fn start(store: Store, hub: &Hub, notices: Option<Inputs>) -> Result<Self, StoreError> {
        let reader = Connection::open_with_flags(&store.path, OpenFlags::SQLITE_OPEN_READ_ONLY)
            .map_err(|source| StoreError::Sqlite { path: store.path.clone(), source })?;
        let (writer, messages) = mpsc::channel();
        std::thread::Builder::new()
            .name("store".into())
            .spawn(move || write_behind(store, &messages, notices.as_ref()))
            .map_err(|source| StoreError::SetAside { path: PathBuf::new(), source })?;
        hub.subscribe(writer.clone());
        Ok(Self { writer: Mutex::new(writer), reader: Mutex::new(reader) })
    }

    /// Waits until everything published so far is committed (at most `limit`).
    pub fn flush(&self, limit: Duration) -> bool {
        let (done, committed) = mpsc::channel();
        let _ = self.writer.lock().unwrap_or_else(PoisonError::into_inner).send(Message::Flush(done));
        committed.recv_timeout(limit).is_ok()
    }

    /// The committed history of a session, oldest first.
    pub fn history(&self, session_id: &str) -> Vec<HistoryEntry> {
        let reader = self.reader.lock().unwrap_or_else(PoisonError::into_inner);
        history(&reader, session_id).unwrap_or_else(|error| {
            tracing::warn!(%error, "cannot read a session's history");
            Vec::new()
        })
    }
}

fn write_behind(mut store: Store, messages: &Receiver<Message>, notices: Option<&Inputs>) {
    let mut batch = Batch::default();
    let mut failing = false;
    let mut waiting: Vec<Sender<()>> = Vec::new();
    let mut deadline: Option<Instant> = None;
    loop {
        let received = match deadline {
            None => messages.recv().map_err(|_| RecvTimeoutError::Disconnected),
            Some(deadline) => messages.recv_timeout(deadline.saturating_duration_since(Instant::now())),
        };
        let closed = match received {
            Ok(Message::Flush(done)) => {
                waiting.push(done);
                deadline = Some(Instant::now());
                false
            }
            Ok(Message::Update(update)) => {
                batch.add(update);
                deadline.get_or_insert_with(|| Instant::now() + FLUSH_EVERY);
                false
            }
            Err(RecvTimeoutError::Timeout) => false,
            Err(RecvTimeoutError::Disconnected) => true,
        };
        if closed || deadline.is_some_and(|deadline| Instant::now() >= deadline) {
            if !batch.is_empty() {
                if let Err(error) = store.write(&batch) {
                    if !failing {
                        // Once, not at every retry: the notice says it until it is fixed.
                        let text = format!(
                            "Sessions are not being saved: {error}. Check that {} and its folder are writable and the \
                             disk has room; Switchboard keeps retrying.",
                            store.path.display()
                        );
                        tracing::error!("{text}");
                        if let Some(notices) = notices {
                            notices.send(Input::Notice { source: "store", text: Some(text) });
                        }
                        failing = true;
                    }
                    // Keep the batch: the next flush tries again with it.
                    if !closed {
                        deadline = Some(Instant::now() + FLUSH_EVERY * 4);
                        continue;
                    }
                } else if failing {
                    failing = false;
                    tracing::info!("sessions are being saved again");
                    if let Some(notices) = notices {
                        notices.send(Input::Notice { source: "store", text: None });
                    }
                }
                batch = Batch::default();
            }
            for done in waiting.drain(..) {
                let _ = done.send(());
            }
            deadline = None;
        }
        if closed {
            return;
        }
    }
}

/// Reads a saved session's raw state, for tests and diagnostics.
pub fn saved_state(state_dir: &Path, session_id: &str) -> Option<String> {
    let conn = Connection::open_with_flags(Store::path(state_dir), OpenFlags::SQLITE_OPEN_READ_ONLY).ok()?;
    conn.query_row("SELECT state FROM sessions WHERE session_id = ?1", params![session_id], |row| row.get(0))
        .optional()
        .ok()
        .flatten()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::instance::hub::{Hub, Input};
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
            hub.apply(Input::SetPosition {
                session_id: "kept".into(),
                position: Position { x: 12, y: -40 },
                reply: None,
            });
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
        let rows: usize = conn.query_row("SELECT COUNT(*) FROM history", [], |row| row.get(0)).unwrap();
        assert!(rows <= HISTORY_LIMIT + HISTORY_SLACK, "{rows} rows stored");
        let history = store.history("long");
        assert_eq!(history.len(), HISTORY_LIMIT);
        assert_eq!(history.last().unwrap().status, switchboard_core::AgentStatus::Blocked);
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
}
