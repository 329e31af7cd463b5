//! The store (SPEC 7): sessions and a bounded per-session history in an embedded SQLite
//! database in the state directory, so the agents that need you survive a restart.
//!
//! Writes are behind the ingestion path: the hub hands each change to [`StoreHandle`] without
//! waiting, and a writer thread commits what arrived in one transaction at most
//! [`FLUSH_EVERY`] later (WAL, `synchronous = NORMAL`: a committed transaction survives the
//! process being killed). A corrupt file is set aside and a fresh one started; a file from a
//! newer Switchboard is refused and left as it is.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use rusqlite::{params, Connection, ErrorCode, OpenFlags, OptionalExtension};
use switchboard_core::{HistoryEntry, Restored};

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
    #[error("the session database {} cannot be used: {source}", path.display())]
    Sqlite { path: PathBuf, source: rusqlite::Error },
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
        std::fs::create_dir_all(state_dir)
            .map_err(|source| StoreError::SetAside { path: state_dir.to_path_buf(), source })?;
        let path = Self::path(state_dir);
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
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}

/// Where the writer reads a session's latest state when it commits (the hub's reducer): the
/// ingest path only marks sessions dirty, so a burst costs one read per session per commit.
pub type Source = Arc<dyn Fn(&str) -> Option<Restored> + Send + Sync>;

/// What the writer commits together: the latest state of each touched session, new history
/// entries in order, and removed sessions.
#[derive(Debug, Default)]
pub struct Batch {
    /// Touched sessions in first-seen order, so new rows keep the canvas's arrival order.
    dirty: Vec<String>,
    seen: HashSet<String>,
    /// Their states, read from the source just before the commit.
    sessions: Vec<Restored>,
    history: Vec<(String, HistoryEntry)>,
    removed: Vec<String>,
}

impl Batch {
    fn is_empty(&self) -> bool {
        self.dirty.is_empty() && self.history.is_empty() && self.removed.is_empty()
    }

    fn add(&mut self, message: Message) {
        match message {
            Message::Save(id, entry) => {
                self.removed.retain(|removed| *removed != id);
                if let Some(entry) = entry {
                    self.history.push((id.clone(), entry));
                }
                if self.seen.insert(id.clone()) {
                    self.dirty.push(id);
                }
            }
            Message::Remove(id) => {
                if self.seen.remove(&id) {
                    self.dirty.retain(|dirty| *dirty != id);
                }
                self.history.retain(|(session, _)| *session != id);
                self.removed.push(id);
            }
            Message::Flush(_) => {}
        }
    }

    fn resolve(&mut self, source: &Source) {
        self.sessions = self.dirty.iter().filter_map(|id| source(id)).collect();
    }
}

enum Message {
    Save(String, Option<HistoryEntry>),
    Remove(String),
    /// Commit now and answer (clean shutdown, tests).
    Flush(Sender<()>),
}

/// The hub's side of the store: sends never block; reads use their own connection.
pub struct StoreHandle {
    writer: Mutex<Sender<Message>>,
    reader: Mutex<Connection>,
}

impl StoreHandle {
    /// Starts the writer thread that owns `store` and reads session states from `source`.
    pub fn start(store: Store, source: Source) -> Result<Self, StoreError> {
        let reader = Connection::open_with_flags(&store.path, OpenFlags::SQLITE_OPEN_READ_ONLY)
            .map_err(|source| StoreError::Sqlite { path: store.path.clone(), source })?;
        let (writer, messages) = mpsc::channel();
        std::thread::Builder::new()
            .name("store".into())
            .spawn(move || write_behind(store, &messages, &source))
            .map_err(|source| StoreError::SetAside { path: PathBuf::new(), source })?;
        Ok(Self { writer: Mutex::new(writer), reader: Mutex::new(reader) })
    }

    /// Marks the session for saving (with a history entry, if its status moved).
    pub fn save(&self, session_id: &str, entry: Option<HistoryEntry>) {
        self.send(Message::Save(session_id.to_owned(), entry));
    }

    pub fn remove(&self, session_id: &str) {
        self.send(Message::Remove(session_id.to_owned()));
    }

    /// Waits until everything sent so far is committed (at most `limit`).
    pub fn flush(&self, limit: Duration) -> bool {
        let (done, committed) = mpsc::channel();
        self.send(Message::Flush(done));
        committed.recv_timeout(limit).is_ok()
    }

    pub fn history(&self, session_id: &str) -> Vec<HistoryEntry> {
        let reader = self.reader.lock().unwrap_or_else(PoisonError::into_inner);
        history(&reader, session_id).unwrap_or_else(|error| {
            tracing::warn!(%error, "cannot read a session's history");
            Vec::new()
        })
    }

    fn send(&self, message: Message) {
        let _ = self.writer.lock().unwrap_or_else(PoisonError::into_inner).send(message);
    }
}

fn write_behind(mut store: Store, messages: &Receiver<Message>, source: &Source) {
    let mut batch = Batch::default();
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
            Ok(message) => {
                batch.add(message);
                deadline.get_or_insert_with(|| Instant::now() + FLUSH_EVERY);
                false
            }
            Err(RecvTimeoutError::Timeout) => false,
            Err(RecvTimeoutError::Disconnected) => true,
        };
        if closed || deadline.is_some_and(|deadline| Instant::now() >= deadline) {
            if !batch.is_empty() {
                batch.resolve(source);
                if let Err(error) = store.write(&batch) {
                    tracing::error!(%error, "cannot save sessions; will retry with the next change");
                    // Keep the batch: the next flush tries again with it.
                    if !closed {
                        deadline = Some(Instant::now() + FLUSH_EVERY);
                        continue;
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
    use crate::hub::Hub;
    use serde_json::json;
    use switchboard_core::{normalize, Position};

    fn hub_with_store(dir: &Path) -> Arc<Hub> {
        let hub = Arc::new(Hub::new(|_| {}));
        let (store, notice) = Store::open(dir).unwrap();
        assert_eq!(notice, None);
        hub.restore(store.load().unwrap());
        hub.attach_store(StoreHandle::start(store, Hub::store_source(&hub)).unwrap());
        hub
    }

    #[test]
    fn positions_unread_and_removals_survive_a_restart() {
        let dir = tempfile::tempdir().unwrap();
        {
            let hub = hub_with_store(dir.path());
            for (id, status) in [("kept", "blocked"), ("read", "done"), ("gone", "done")] {
                hub.apply(&normalize("custom", &json!({"sessionId": id, "status": status}), 1_000).unwrap());
            }
            assert!(hub.set_position("kept", Position { x: 12, y: -40 }));
            assert!(hub.clear_unread("read"));
            assert!(hub.remove("gone"));
            assert!(hub.store().unwrap().flush(Duration::from_secs(5)));
        }
        let hub = hub_with_store(dir.path());
        let snapshot = hub.snapshot();
        let ids: Vec<&str> = snapshot.sessions.iter().map(|s| s.session_id.as_str()).collect();
        assert_eq!(ids, ["kept", "read"], "arrival order kept, removed session gone");
        let kept = &snapshot.sessions[0];
        assert_eq!(kept.position, Some(Position { x: 12, y: -40 }));
        assert!(kept.unread && kept.restored);
        assert!(!snapshot.sessions[1].unread);
        assert_eq!(hub.history("kept").len(), 1);
        assert!(hub.history("gone").is_empty());
    }

    #[test]
    fn stored_history_stays_bounded_however_long_a_session_runs() {
        let dir = tempfile::tempdir().unwrap();
        let hub = hub_with_store(dir.path());
        for i in 0..400u64 {
            let status = if i % 2 == 0 { "working" } else { "blocked" };
            hub.apply(&normalize("custom", &json!({"sessionId": "long", "status": status}), i).unwrap());
            if i % 37 == 0 {
                hub.store().unwrap().flush(Duration::from_secs(5));
            }
        }
        hub.store().unwrap().flush(Duration::from_secs(5));
        let conn = Connection::open(Store::path(dir.path())).unwrap();
        let rows: usize = conn.query_row("SELECT COUNT(*) FROM history", [], |row| row.get(0)).unwrap();
        assert!(rows <= HISTORY_LIMIT + HISTORY_SLACK, "{rows} rows stored");
        let history = hub.history("long");
        assert_eq!(history.len(), HISTORY_LIMIT);
        assert_eq!(history.last().unwrap().status, switchboard_core::AgentStatus::Blocked);
    }

    #[test]
    fn a_write_within_the_flush_interval_is_committed_without_an_explicit_flush() {
        let dir = tempfile::tempdir().unwrap();
        let hub = hub_with_store(dir.path());
        hub.apply(&normalize("custom", &json!({"sessionId": "s", "status": "working"}), 1).unwrap());
        std::thread::sleep(FLUSH_EVERY * 5);
        assert!(saved_state(dir.path(), "s").is_some());
    }
}
