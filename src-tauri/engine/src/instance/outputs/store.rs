//! The store (docs/model.md §7): sessions and a bounded per-session history in an embedded SQLite
//! database in the state directory, so the agents that need you survive a restart.
//!
//! Writes are behind the ingestion path: the store subscribes to the hub's updates, and a
//! writer thread commits what arrived in one transaction at most
//! [`FLUSH_EVERY`] later (WAL, `synchronous = NORMAL`: a committed transaction survives the
//! process being killed). A corrupt file is set aside and a fresh one started; a file from a
//! newer Switchboard is refused and left as it is.
//!
//! The write-behind thread is `store/writer.rs`; what waits for it, `store/batch.rs`.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use rusqlite::{params, Connection, ErrorCode, OpenFlags, OptionalExtension};
use switchboard_core::{HistoryEntry, Restored};

mod batch;
mod row;
mod writer;

pub use batch::Batch;
pub use writer::StoreHandle;

pub const DATABASE_FILE: &str = "switchboard.db";
/// The newest schema this build reads and writes.
pub const SCHEMA_VERSION: i64 = 3;
/// How long an acknowledged change may wait for its transaction.
pub const FLUSH_EVERY: Duration = Duration::from_millis(500);
/// Work between two offers of the CPU to another thread of this core (the hook path) during a
/// commit, and how long into a commit it is offered at all.
const YIELD_EVERY: Duration = Duration::from_micros(100);
const YIELD_WITHIN: Duration = Duration::from_millis(100);
/// History entries shown per session (the newest); at most [`HISTORY_SLACK`] more are stored.
pub const HISTORY_LIMIT: usize = 50;

/// Each migration takes the schema from its index to the next version.
///
/// 2: a history row holds what one commit brought of a session's history, as one entry (an
/// object, as in 1) or several (an array, oldest first), and `entries` says how many: a session
/// that changed ten times between two commits costs one row, not ten (issue 47: a row insert,
/// its index entry and its later trim were the store's largest cost under load). From 2 on, a
/// session's row also leaves out its empty fields and what restoring rebuilds (`store/row.rs`):
/// a build that reads only 1 would drop such rows as unreadable, and it refuses a schema-2 file
/// instead, leaving it as it is.
///
/// 3: history ids are the table's rowid without `AUTOINCREMENT`, which read and wrote
/// `sqlite_sequence` on every append (3 % of a hook's instructions at 1,000/s; issue 47). A new
/// row still gets an id above every row there, so a session's rows keep their order; only the
/// ids of deleted newest rows may come again, and nothing refers to those.
const MIGRATIONS: &[&str] = &[
    "
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
",
    "
    ALTER TABLE history ADD COLUMN entries INTEGER NOT NULL DEFAULT 1;
",
    "
    CREATE TABLE history_3 (
        id         INTEGER PRIMARY KEY,
        session_id TEXT NOT NULL,
        at         INTEGER NOT NULL,
        entry      TEXT NOT NULL,
        entries    INTEGER NOT NULL DEFAULT 1
    );
    INSERT INTO history_3 (id, session_id, at, entry, entries) SELECT id, session_id, at, entry, entries FROM history;
    DROP TABLE history;
    ALTER TABLE history_3 RENAME TO history;
    CREATE INDEX history_by_session ON history (session_id, id);
",
];

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
    /// History entries stored per session, as far as this process knows (filled lazily), so
    /// trimming to the bound runs only once a session is over it by [`HISTORY_SLACK`], not on
    /// every write.
    history_entries: HashMap<String, usize>,
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
        crate::state_dir::make_private(state_dir).map_err(directory)?;
        let path = Self::path(state_dir);
        // Created 0600 before SQLite sees it: SQLite gives its WAL and shared-memory files the
        // main file's mode, so none of them is ever readable by others, whatever the umask.
        let mut options = std::fs::OpenOptions::new();
        options.write(true).create(true).truncate(false);
        crate::platform::create_mode(&mut options, 0o600);
        if let Err(source) = crate::platform::open_flags(&mut options, true, true).open(&path) {
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
        let mut store = Self { conn, path: path.to_path_buf(), history_entries: HashMap::new() };
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
            let mut delete = tx.prepare_cached("DELETE FROM sessions WHERE session_id = ?1")?;
            let mut forget = tx.prepare_cached("DELETE FROM history WHERE session_id = ?1")?;
            let mut upsert = tx.prepare_cached(
                "INSERT INTO sessions (session_id, state, updated_at) VALUES (?1, ?2, ?3)
                 ON CONFLICT (session_id) DO UPDATE SET state = excluded.state, updated_at = excluded.updated_at",
            )?;
            let mut append =
                tx.prepare_cached("INSERT INTO history (session_id, at, entry, entries) VALUES (?1, ?2, ?3, ?4)")?;
            let mut count = tx.prepare_cached("SELECT COALESCE(SUM(entries), 0) FROM history WHERE session_id = ?1")?;
            // The rows older than the newest ones that hold `?2` entries between them.
            let mut trim = tx.prepare_cached(
                "DELETE FROM history WHERE session_id = ?1 AND id < (SELECT MIN(id) FROM
                 (SELECT id, SUM(entries) OVER (ORDER BY id DESC) - entries AS newer FROM history WHERE session_id = ?1)
                 WHERE newer < ?2)",
            )?;
            let json = |e: serde_json::Error| rusqlite::Error::ToSqlConversionFailure(e.into());
            // One buffer for every row's JSON in the batch, not a string each.
            let mut text = Vec::with_capacity(4096);
            let started = Instant::now();
            let mut yielded = started;
            for (id, pending) in batch.in_order() {
                // A commit under load is tens of milliseconds of CPU: the hook path, if it waits
                // for this core, answers between rows rather than after the whole batch (the p99
                // at 20,000/s). Only early in a commit: on a crowded machine each yield may wait a
                // round of the other threads, and the commit must not be late (SPEC §7).
                if yielded.elapsed() >= YIELD_EVERY && started.elapsed() < YIELD_WITHIN {
                    std::thread::yield_now();
                    yielded = Instant::now();
                }
                if pending.delete {
                    delete.execute(params![id])?;
                    forget.execute(params![id])?;
                    self.history_entries.insert(id.clone(), 0);
                }
                if let Some(changed) = &pending.state {
                    text.clear();
                    serde_json::to_writer(&mut text, &row::Saving::of(changed)).map_err(json)?;
                    upsert.execute(params![id, as_str(&text), now_millis()])?;
                }
                // What this commit brings of the session's history: one row.
                if let Some(first) = pending.history.first() {
                    text.clear();
                    match pending.history.as_slice() {
                        [entry] => serde_json::to_writer(&mut text, entry),
                        entries => serde_json::to_writer(&mut text, entries),
                    }
                    .map_err(json)?;
                    let at = i64::try_from(first.at).unwrap_or(i64::MAX);
                    append.execute(params![id, at, as_str(&text), pending.history.len()])?;
                }
                if pending.state.is_none() {
                    self.history_entries.remove(id);
                    continue;
                }
                let stored = |count: &mut rusqlite::CachedStatement| {
                    count.query_row(params![id], |row| row.get::<_, i64>(0)).map(|n| n as usize)
                };
                let entries = match self.history_entries.get(id) {
                    Some(entries) => entries + pending.history.len(),
                    None => stored(&mut count)?,
                };
                let entries = if entries > HISTORY_LIMIT + HISTORY_SLACK {
                    trim.execute(params![id, HISTORY_LIMIT])?;
                    stored(&mut count)?
                } else {
                    entries
                };
                self.history_entries.insert(id.clone(), entries);
            }
        }
        tx.commit()
    }

    /// The ids of the saved sessions.
    fn saved_ids(&self) -> rusqlite::Result<HashSet<String>> {
        let mut query = self.conn.prepare("SELECT session_id FROM sessions")?;
        let ids = query.query_map([], |row| row.get::<_, String>(0))?.collect();
        ids
    }
}

/// serde_json writes UTF-8 only.
fn as_str(json: &[u8]) -> &str {
    std::str::from_utf8(json).unwrap_or_default()
}

/// The newest [`HISTORY_LIMIT`] entries, oldest first. As many rows as that hold at least as many
/// entries (a row holds one or more), unless the session has fewer.
fn history(conn: &Connection, session_id: &str) -> rusqlite::Result<Vec<HistoryEntry>> {
    let mut query = conn.prepare_cached(
        "SELECT entry FROM (SELECT id, entry FROM history WHERE session_id = ?1 ORDER BY id DESC LIMIT ?2) ORDER BY id",
    )?;
    let rows = query.query_map(params![session_id, HISTORY_LIMIT], |row| row.get::<_, String>(0))?;
    let mut entries = Vec::new();
    for row in rows {
        let row = row?;
        // A row that cannot be read is skipped, not the history around it.
        if row.trim_start().starts_with('[') {
            entries.extend(serde_json::from_str::<Vec<HistoryEntry>>(&row).unwrap_or_default());
        } else if let Ok(entry) = serde_json::from_str(&row) {
            entries.push(entry);
        }
    }
    let excess = entries.len().saturating_sub(HISTORY_LIMIT);
    entries.drain(..excess);
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

/// Reads a saved session's raw state, for tests and diagnostics.
pub fn saved_state(state_dir: &Path, session_id: &str) -> Option<String> {
    let conn = Connection::open_with_flags(Store::path(state_dir), OpenFlags::SQLITE_OPEN_READ_ONLY).ok()?;
    conn.query_row("SELECT state FROM sessions WHERE session_id = ?1", params![session_id], |row| row.get(0))
        .optional()
        .ok()
        .flatten()
}

#[cfg(test)]
mod tests;
