//! Usage read from an agent's own database (OpenCode's SQLite, issue 48) rather than a
//! transcript: its row's [`Database`] says where the file is and which query gives a session's
//! model responses. Read-only and short: the file is opened `SQLITE_OPEN_READ_ONLY` (never created,
//! never written, not `immutable`, so OpenCode's write-ahead log is read too), `query_only`, with a
//! short busy timeout; one read transaction per look, closed at once, so it never holds OpenCode
//! up. Looked at only when the file or its log changed since, and then counted afresh.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use rusqlite::{Connection, OpenFlags};
use serde_json::Value;
use switchboard_core::agent::Database;
use switchboard_core::usage;

/// How long a look waits for a lock the agent holds before it gives up until the next one.
const BUSY: Duration = Duration::from_millis(100);
/// The most responses one look counts for a session.
const MAX_ROWS: usize = 100_000;

/// Where `database` is, from the variables `var` gives (an empty value counts as unset), as the
/// CLI finds it: its own variable, else its file in its data folder. `None` without a home folder,
/// or when the CLI keeps it in memory.
pub fn locate(database: &Database, var: impl Fn(&str) -> Option<OsString>) -> Option<PathBuf> {
    let set = |name: &str| var(name).filter(|value| !value.is_empty()).map(PathBuf::from);
    let home = || set("HOME").or_else(|| set("USERPROFILE"));
    let folder = database.base_var.and_then(|(name, folder)| set(name).map(|base| base.join(folder)));
    let folder = folder.or_else(|| home().map(|home| home.join(database.dir)))?;
    match database.file_var.and_then(set) {
        Some(file) if file.as_os_str() == ":memory:" => None,
        Some(file) => Some(folder.join(file)),
        None => Some(folder.join(database.file)),
    }
}

/// One session's usage in its agent's database.
pub struct Reader {
    path: PathBuf,
    query: &'static str,
    /// The file's and its log's size and time at the last look.
    seen: Option<Stamp>,
}

type Stamp = [(u64, Option<SystemTime>); 2];

impl Reader {
    /// For a session of `agent`, when its row keeps usage in a database this process can find.
    pub fn of(agent: &str) -> Option<Self> {
        let database = switchboard_core::agent(agent)?.database?;
        let path = locate(&database, |name| std::env::var_os(name))?;
        Some(Self::at(path, &database))
    }

    pub fn at(path: PathBuf, database: &Database) -> Self {
        Self { path, query: database.usage_query, seen: None }
    }

    /// Counts `session_id`'s responses afresh into `meter` when the database changed since the
    /// last look; `true` then. A database that cannot be read leaves the meter as it was.
    pub fn read(&mut self, session_id: &str, meter: &mut usage::Meter) -> bool {
        let stamp = [stamp(&self.path), stamp(&wal(&self.path))];
        if stamp[0].0 == 0 || self.seen == Some(stamp) {
            return false;
        }
        let mut fresh = switchboard_core::agent::meter(meter.agent());
        match count(&self.path, self.query, session_id, &mut fresh) {
            Ok(()) => {
                self.seen = Some(stamp);
                *meter = fresh;
                true
            }
            Err(error) => {
                // Busy, or not (yet) the database it should be: tried again when it changes.
                tracing::debug!(%error, path = %self.path.display(), "cannot read the agent's database");
                self.seen = Some(stamp);
                false
            }
        }
    }
}

fn stamp(path: &Path) -> (u64, Option<SystemTime>) {
    std::fs::metadata(path).map(|meta| (meta.len(), meta.modified().ok())).unwrap_or((0, None))
}

fn wal(path: &Path) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push("-wal");
    PathBuf::from(name)
}

/// Feeds each row of `query` for `session_id` to `meter`, read-only.
pub fn count(path: &Path, query: &str, session_id: &str, meter: &mut usage::Meter) -> rusqlite::Result<()> {
    let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let conn = Connection::open_with_flags(path, flags)?;
    conn.busy_timeout(BUSY)?;
    conn.pragma_update(None, "query_only", true)?;
    let mut statement = conn.prepare(query)?;
    let mut rows = statement.query([session_id])?;
    let mut counted = 0;
    while let Some(row) = rows.next()? {
        if let Ok(record) = serde_json::from_str::<Value>(&row.get::<_, String>(0)?) {
            meter.record(&record);
        }
        counted += 1;
        if counted >= MAX_ROWS {
            break;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use rusqlite::params;
    use switchboard_core::usage::Prices;

    /// The two tables as OpenCode 1.18.33 creates them (read off a database it made), and the
    /// index its query uses.
    const SCHEMA: &str = "
        CREATE TABLE `session` (
          `id` text PRIMARY KEY, `project_id` text NOT NULL, `workspace_id` text, `parent_id` text,
          `slug` text NOT NULL, `directory` text NOT NULL, `path` text, `title` text NOT NULL,
          `version` text NOT NULL, `share_url` text, `summary_additions` integer,
          `summary_deletions` integer, `summary_files` integer, `summary_diffs` text, `metadata` text,
          `cost` real DEFAULT 0 NOT NULL, `tokens_input` integer DEFAULT 0 NOT NULL,
          `tokens_output` integer DEFAULT 0 NOT NULL, `tokens_reasoning` integer DEFAULT 0 NOT NULL,
          `tokens_cache_read` integer DEFAULT 0 NOT NULL, `tokens_cache_write` integer DEFAULT 0 NOT NULL,
          `revert` text, `permission` text, `agent` text, `model` text, `time_created` integer NOT NULL,
          `time_updated` integer NOT NULL, `time_compacting` integer, `time_archived` integer);
        CREATE TABLE `message` (
          `id` text PRIMARY KEY, `session_id` text NOT NULL, `time_created` integer NOT NULL,
          `time_updated` integer NOT NULL, `data` text NOT NULL,
          CONSTRAINT `fk_message_session_id_session_id_fk` FOREIGN KEY (`session_id`) REFERENCES `session`(`id`) ON DELETE CASCADE);
        CREATE INDEX `message_session_time_created_id_idx` ON `message` (`session_id`,`time_created`,`id`);
        CREATE INDEX `session_parent_idx` ON `session` (`parent_id`);";

    /// OpenCode's side: the database in WAL mode, its connection kept open as OpenCode keeps it.
    fn opencode(dir: &Path) -> (PathBuf, Connection) {
        let path = dir.join("opencode.db");
        let conn = Connection::open(&path).unwrap();
        conn.pragma_update(None, "journal_mode", "WAL").unwrap();
        conn.execute_batch(SCHEMA).unwrap();
        for (id, parent) in [("ses_a", None), ("ses_b", None), ("ses_a_child", Some("ses_a"))] {
            conn.execute(
                "INSERT INTO session (id, project_id, parent_id, slug, directory, title, version, time_created, time_updated)
                 VALUES (?1, 'global', ?2, 'swift-nebula', '/w/app', 'A test title', '1.18.33', 1, 1)",
                params![id, parent],
            )
            .unwrap();
        }
        (path, conn)
    }

    /// A message as OpenCode stores it (its `data` has no id; the user's has no tokens).
    fn message(conn: &Connection, id: &str, session: &str, at: i64, data: &str) {
        conn.execute("INSERT INTO message VALUES (?1, ?2, ?3, ?3, ?4)", params![id, session, at, data]).unwrap();
    }

    fn answer(input: u64, output: u64, read: u64, cost: f64) -> String {
        format!(
            r#"{{"parentID":"msg_u","role":"assistant","mode":"build","agent":"build","path":{{"cwd":"/w/app","root":"/"}},"cost":{cost},"tokens":{{"total":{},"input":{input},"output":{output},"reasoning":0,"cache":{{"write":0,"read":{read}}}}},"modelID":"fake-model","providerID":"fake","time":{{"created":1,"completed":2}},"finish":"stop"}}"#,
            input + output + read
        )
    }

    const USER: &str =
        r#"{"role":"user","time":{"created":1},"agent":"build","model":{"providerID":"fake","modelID":"fake-model"}}"#;

    fn reader(path: &Path) -> Reader {
        Reader::at(path.to_path_buf(), &switchboard_core::agent("opencode").unwrap().database.unwrap())
    }

    #[test]
    fn a_sessions_answers_and_its_subagents_are_summed_from_opencodes_database() {
        let dir = tempfile::tempdir().unwrap();
        let (path, conn) = opencode(dir.path());
        message(&conn, "msg_1", "ses_a", 10, USER);
        message(&conn, "msg_2", "ses_a", 11, &answer(600, 10, 400, 0.0));
        message(&conn, "msg_3", "ses_b", 12, &answer(5000, 500, 0, 0.0));
        message(&conn, "msg_4", "ses_a_child", 13, &answer(90, 9, 0, 0.0));
        message(&conn, "msg_5", "ses_a", 14, "{not json");
        let (mut reader, mut meter) = (reader(&path), switchboard_core::agent::meter("opencode"));
        assert!(reader.read("ses_a", &mut meter));
        let usage = meter.usage(&Prices::default());
        assert_eq!(
            (usage.input_tokens, usage.output_tokens, usage.cache_read_tokens, usage.requests),
            (690, 19, 400, 2)
        );
        assert_eq!((usage.context_tokens, usage.model.as_deref()), (1010, Some("fake-model")));
        assert!(!reader.read("ses_a", &mut meter), "unchanged: not read again");

        // The next answer, written while OpenCode holds the database open (in its log).
        message(&conn, "msg_6", "ses_a", 15, &answer(700, 20, 300, 0.5));
        assert!(reader.read("ses_a", &mut meter));
        let usage = meter.usage(&Prices::default());
        assert_eq!((usage.input_tokens, usage.output_tokens, usage.requests), (1390, 39, 3));
        assert_eq!((usage.context_tokens, usage.cost_micros), (1020, Some(500_000)));
    }

    #[test]
    fn reading_takes_no_lock_that_holds_opencode_up_and_writes_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let (path, conn) = opencode(dir.path());
        message(&conn, "msg_1", "ses_a", 10, &answer(100, 10, 0, 0.0));
        // OpenCode in the middle of a write: the read still sees the last commit.
        conn.execute_batch("BEGIN IMMEDIATE").unwrap();
        message(&conn, "msg_2", "ses_a", 11, &answer(100, 10, 0, 0.0));
        let mut meter = switchboard_core::agent::meter("opencode");
        count(&path, reader(&path).query, "ses_a", &mut meter).unwrap();
        assert_eq!(meter.usage(&Prices::default()).requests, 1);
        conn.execute_batch("COMMIT").unwrap();
        // And a reader's connection refuses to write.
        let ours = Connection::open_with_flags(&path, OpenFlags::SQLITE_OPEN_READ_ONLY).unwrap();
        assert!(ours.execute("DELETE FROM message", []).is_err());
    }

    #[test]
    fn a_missing_or_foreign_file_is_not_created_and_reads_as_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("opencode.db");
        let mut meter = switchboard_core::agent::meter("opencode");
        assert!(!reader(&missing).read("ses_a", &mut meter));
        assert!(count(&missing, reader(&missing).query, "ses_a", &mut meter).is_err());
        assert!(!missing.exists(), "never created");
        std::fs::write(&missing, "not a database, just text\n").unwrap();
        assert!(!reader(&missing).read("ses_a", &mut meter));
        assert_eq!(meter.usage(&Prices::default()).requests, 0);
    }

    #[test]
    fn the_file_is_found_as_opencode_finds_it() {
        let database = switchboard_core::agent("opencode").unwrap().database.unwrap();
        let env = |pairs: &'static [(&'static str, &'static str)]| {
            move |name: &str| pairs.iter().find(|(k, _)| *k == name).map(|(_, v)| OsString::from(v))
        };
        let at = |pairs| locate(&database, env(pairs));
        assert_eq!(at(&[("HOME", "/h")]), Some(PathBuf::from("/h/.local/share/opencode/opencode.db")));
        assert_eq!(at(&[("HOME", "/h"), ("XDG_DATA_HOME", "/d")]), Some(PathBuf::from("/d/opencode/opencode.db")));
        assert_eq!(
            at(&[("HOME", "/h"), ("XDG_DATA_HOME", "")]),
            Some(PathBuf::from("/h/.local/share/opencode/opencode.db"))
        );
        assert_eq!(at(&[("HOME", "/h"), ("OPENCODE_DB", "/x/o.db")]), Some(PathBuf::from("/x/o.db")));
        assert_eq!(
            at(&[("HOME", "/h"), ("OPENCODE_DB", "dev.db")]),
            Some(PathBuf::from("/h/.local/share/opencode/dev.db"))
        );
        assert_eq!(at(&[("HOME", "/h"), ("OPENCODE_DB", ":memory:")]), None);
        assert_eq!(at(&[]), None);
    }
}
