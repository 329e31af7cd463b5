//! Session titles from the agents' own files (docs/model.md §4): the name the user (or the agent)
//! gave the session, read from the tail of a file that only grows.
//!
//! Which file is read is the CLI's row (`TitleSource`); this module reads the two shapes:
//! - a transcript (`*.jsonl`, Claude Code's): the latest `custom-title` record (`customTitle`,
//!   set by `/rename`) wins, else the latest `ai-title` (`aiTitle`), else the latest `summary`;
//! - a `session_index.jsonl` in the CLI's folder (Codex's): the newest `thread_name` for the
//!   session id (later lines win).
//!
//! Only the last [`TAIL_BYTES`] of a file are read, whatever its size: a title is re-appended as
//! the session goes on, and a 200 MB transcript must cost no more than a small one. A missing,
//! unreadable or title-less file gives `None`, and the caller falls back (SessionStart's
//! `session_title`, then the last folder of `cwd`). Callers run this off the ingestion path and
//! at most every few seconds per session.

use foldhash::{HashMap, HashMapExt};
use std::io::{self, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::Value;
use switchboard_core::hook_config::{Cli, ConfigDirs};
use switchboard_core::Session;

use crate::files::open_regular;
use crate::instance::hub::follow::Follower;
use crate::instance::hub::{Input, Inputs, Update};

/// How much of a file's end is read for its title.
pub const TAIL_BYTES: u64 = 256 * 1024;

/// A session's title, from its transcript's title records.
pub fn transcript_title(transcript: &Path) -> Option<String> {
    transcript_title_in(&mut open_regular(transcript).ok()?)
}

/// A session's title, from `session_index.jsonl` in its CLI's folder `dir`.
pub fn index_title(dir: &Path, session_id: &str) -> Option<String> {
    index_title_in(&mut open_regular(&dir.join("session_index.jsonl")).ok()?, session_id)
}

fn transcript_title_in(file: &mut (impl Read + Seek)) -> Option<String> {
    let (mut custom, mut ai, mut summary) = (None, None, None);
    for record in tail_records(file)? {
        match record.get("type").and_then(Value::as_str) {
            Some("custom-title") => custom = text(&record, "customTitle").or(custom),
            Some("ai-title") => ai = text(&record, "aiTitle").or(ai),
            Some("summary") => summary = text(&record, "summary").or(summary),
            _ => {}
        }
    }
    custom.or(ai).or(summary)
}

fn index_title_in(file: &mut (impl Read + Seek), session_id: &str) -> Option<String> {
    tail_records(file)?
        .filter(|record| record.get("id").and_then(Value::as_str) == Some(session_id))
        .filter_map(|record| text(&record, "thread_name"))
        .last()
}

/// The JSON records among the file's last [`TAIL_BYTES`], oldest first. Lines that do not parse
/// (the partial first line, a line being written) are skipped.
fn tail_records(file: &mut (impl Read + Seek)) -> Option<impl Iterator<Item = Value>> {
    let tail = read_tail(file, TAIL_BYTES).ok()?;
    let records = tail
        .split(|byte| *byte == b'\n')
        .filter(|line| !line.iter().all(u8::is_ascii_whitespace))
        .filter_map(|line| serde_json::from_slice::<Value>(line).ok())
        .collect::<Vec<_>>();
    Some(records.into_iter())
}

/// At most `cap` bytes from the end of `file`, starting at a line boundary: when the read
/// starts mid-file, the partial line it lands in is dropped.
fn read_tail(file: &mut (impl Read + Seek), cap: u64) -> io::Result<Vec<u8>> {
    let len = file.seek(SeekFrom::End(0))?;
    let start = len.saturating_sub(cap);
    file.seek(SeekFrom::Start(start))?;
    let mut tail = Vec::with_capacity(usize::try_from(len - start).unwrap_or(0));
    file.by_ref().take(cap).read_to_end(&mut tail)?;
    if start > 0 {
        let first_line_end = tail.iter().position(|byte| *byte == b'\n').map_or(tail.len(), |at| at + 1);
        tail.drain(..first_line_end);
    }
    Ok(tail)
}

fn text(record: &Value, key: &str) -> Option<String> {
    let text = record.get(key)?.as_str()?.trim();
    (!text.is_empty()).then(|| text.to_owned())
}

/// How often one session's files may be read.
pub const REFRESH_EVERY: Duration = Duration::from_secs(5);

/// Where a session's title can be found.
#[derive(Clone, Debug, PartialEq, Eq)]
enum TitleSource {
    Transcript(PathBuf),
    SessionIndex(PathBuf),
}

/// Looks again at a file that had no title yet, this long after each miss: Codex writes a thread
/// name ~0.2 s after SessionStart, and a short first turn may send no later event to pick it up.
pub const LOOK_AGAIN: [Duration; 4] =
    [Duration::from_millis(500), Duration::from_secs(1), Duration::from_secs(2), Duration::from_secs(4)];
/// Sessions whose reads are tracked at once; past it, those with nothing due are forgotten.
const MAX_TRACKED: usize = 8192;

/// Keeps node titles in step with the agents' own files: a follower of the hub's updates (on
/// the observers' thread, `hub::follow`) that reads the files' tails, at most every
/// [`REFRESH_EVERY`] per session, and sends what it finds back as an input.
pub struct TitleWatch {
    titles: Titles,
    inputs: Inputs,
}

impl TitleWatch {
    /// `dirs`: each CLI's folder, where a `session_index.jsonl` is kept.
    pub fn new(inputs: Inputs, dirs: Option<ConfigDirs>) -> Self {
        Self { titles: Titles { dirs, sessions: HashMap::new() }, inputs }
    }
}

impl Follower for TitleWatch {
    fn see(&mut self, update: &Update, now: Instant) {
        self.titles.observe(update, now);
    }

    fn run(&mut self, now: Instant) -> Option<Instant> {
        for (session_id, title) in self.titles.read_due(now) {
            self.inputs.send(Input::AgentTitle { session_id, title: Some(title) });
        }
        self.titles.next_due()
    }
}

/// One session's reads: when it was last read, when it is due again, what it is known as.
struct Titled {
    source: TitleSource,
    known: Option<String>,
    last_read: Option<Instant>,
    due: Option<Instant>,
    misses: usize,
}

/// When each session's title file is read: at its first update, then on later updates at most
/// every [`REFRESH_EVERY`] — an update that comes sooner is deferred to then, never dropped — and
/// [`LOOK_AGAIN`] after a read that found no title yet.
struct Titles {
    dirs: Option<ConfigDirs>,
    sessions: HashMap<String, Titled>,
}

impl Titles {
    fn observe(&mut self, update: &Update, now: Instant) {
        let changed = match update {
            Update::Removed(id) => {
                self.sessions.remove(id);
                return;
            }
            Update::Changed(changed) => changed,
            Update::Notices(_) => return,
        };
        let session = &changed.change.session;
        if !session.is_local() {
            // Its files are on its own machine; its own instance names it.
            return;
        }
        let Some(source) = title_source(session, self.dirs.as_ref()) else { return };
        if !self.sessions.contains_key(&session.session_id) && self.sessions.len() >= MAX_TRACKED {
            self.sessions.retain(|_, titled| titled.due.is_some());
        }
        let titled = self.sessions.entry(session.session_id.clone()).or_insert_with(|| Titled {
            source: source.clone(),
            known: None,
            last_read: None,
            due: None,
            misses: 0,
        });
        titled.source = source;
        titled.known.clone_from(&changed.agent_title);
        let next = titled.last_read.map_or(now, |last| (last + REFRESH_EVERY).max(now));
        titled.due = Some(titled.due.map_or(next, |due| due.min(next)));
    }

    fn next_due(&self) -> Option<Instant> {
        self.sessions.values().filter_map(|titled| titled.due).min()
    }

    /// Reads every file that is due; the titles that are new.
    fn read_due(&mut self, now: Instant) -> Vec<(String, String)> {
        let mut found = Vec::new();
        for (session_id, titled) in &mut self.sessions {
            if titled.due.is_none_or(|due| due > now) {
                continue;
            }
            titled.due = None;
            titled.last_read = Some(now);
            let title = match &titled.source {
                TitleSource::Transcript(path) => transcript_title(path),
                TitleSource::SessionIndex(home) => index_title(home, session_id),
            };
            match title {
                Some(title) => {
                    titled.misses = LOOK_AGAIN.len();
                    if titled.known.as_ref() != Some(&title) {
                        titled.known = Some(title.clone());
                        found.push((session_id.clone(), title));
                    }
                }
                None => {
                    if let Some(after) = LOOK_AGAIN.get(titled.misses) {
                        titled.due = Some(now + *after);
                        titled.misses += 1;
                    }
                }
            }
        }
        found
    }
}

fn title_source(session: &Session, dirs: Option<&ConfigDirs>) -> Option<TitleSource> {
    match switchboard_core::agent(&session.agent)?.title {
        switchboard_core::TitleSource::Transcript => {
            let path = session.transcript_path.as_deref()?;
            crate::instance::observe::transcript::confined(
                &session.agent,
                &session.session_id,
                std::path::Path::new(path),
                dirs,
            )
            .map(TitleSource::Transcript)
        }
        switchboard_core::TitleSource::SessionIndex => {
            let cli = Cli::from_agent(&session.agent)?;
            dirs.map(|dirs| TitleSource::SessionIndex(dirs.dir(cli).to_path_buf()))
        }
        switchboard_core::TitleSource::None => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;
    use std::path::PathBuf;

    fn fixtures() -> PathBuf {
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/transcripts")
    }

    fn file_with(lines: &[&str]) -> tempfile::NamedTempFile {
        let mut file = tempfile::NamedTempFile::new().unwrap();
        for line in lines {
            writeln!(file, "{line}").unwrap();
        }
        file
    }

    /// A reader that counts the bytes it hands out.
    struct Counting<R> {
        inner: R,
        bytes: u64,
    }

    impl<R: Read> Read for Counting<R> {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            let n = self.inner.read(buf)?;
            self.bytes += n as u64;
            Ok(n)
        }
    }

    impl<R: Seek> Seek for Counting<R> {
        fn seek(&mut self, pos: SeekFrom) -> io::Result<u64> {
            self.inner.seek(pos)
        }
    }

    #[test]
    fn a_claude_custom_title_wins_over_later_ai_titles() {
        assert_eq!(transcript_title(&fixtures().join("claude-session.jsonl")).as_deref(), Some("auth-refactor"));
    }

    #[test]
    fn a_claude_transcript_falls_back_to_the_latest_ai_title_then_the_summary() {
        let ai = file_with(&[
            r#"{"type":"summary","summary":"Old summary","leafUuid":"u1"}"#,
            r#"{"type":"ai-title","aiTitle":"First guess"}"#,
            r#"{"type":"user","message":{"role":"user","content":"hi"}}"#,
            r#"{"type":"ai-title","aiTitle":"Better guess"}"#,
        ]);
        assert_eq!(transcript_title(ai.path()).as_deref(), Some("Better guess"));
        let summary = file_with(&[r#"{"type":"summary","summary":"Fix the login flow","leafUuid":"u1"}"#]);
        assert_eq!(transcript_title(summary.path()).as_deref(), Some("Fix the login flow"));
        let blank = file_with(&[r#"{"type":"custom-title","customTitle":"  "}"#, "not json", ""]);
        assert_eq!(transcript_title(blank.path()), None);
    }

    #[test]
    fn the_newest_codex_thread_name_for_the_session_wins() {
        let home = fixtures();
        let title_of = |session_id: &str| {
            let index = std::fs::read_to_string(home.join("codex-session_index.jsonl")).unwrap();
            let dir = tempfile::tempdir().unwrap();
            std::fs::write(dir.path().join("session_index.jsonl"), index).unwrap();
            index_title(dir.path(), session_id)
        };
        assert_eq!(title_of("019fb3cc-1111-7000-8000-000000000001").as_deref(), Some("Deploy to staging"));
        assert_eq!(title_of("019fb3cc-9999-7000-8000-000000000042").as_deref(), Some("Fix flaky parser test"));
        assert_eq!(title_of("019fb3cc-0000-7000-8000-000000000000"), None);
    }

    fn codex_update(session_id: &str, agent_title: Option<&str>) -> Update {
        let event = switchboard_core::normalize(
            "codex",
            &serde_json::json!({"hook_event_name": "SessionStart", "session_id": session_id, "cwd": "/w/api"}),
            1,
        )
        .unwrap();
        let mut reducer = switchboard_core::Reducer::new();
        let change = reducer.apply(&event, false).unwrap();
        Update::Changed(std::sync::Arc::new(crate::instance::hub::Changed {
            change,
            event_title: None,
            agent_title: agent_title.map(str::to_owned),
            history: None,
            transcript_from: None,
        }))
    }

    /// Every CLI's folder in `dir`, Codex's (`$CODEX_HOME`) being `dir` itself.
    fn codex_at(dir: &Path) -> Option<ConfigDirs> {
        ConfigDirs::from_vars(|name| matches!(name, "HOME" | "CODEX_HOME").then(|| dir.as_os_str().to_owned()))
    }

    /// Issue 20.6: Codex writes the thread name just after SessionStart; a short first turn sends
    /// no later event, so a read that found nothing is made again, and a read asked for too soon
    /// after the last is deferred, not dropped.
    #[test]
    fn a_title_written_just_after_the_session_started_is_picked_up_without_another_event() {
        let home = tempfile::tempdir().unwrap();
        let mut titles = Titles { dirs: codex_at(home.path()), sessions: HashMap::new() };
        let t0 = Instant::now();
        titles.observe(&codex_update("th-1", None), t0);
        assert!(titles.read_due(t0).is_empty(), "not written yet");
        std::fs::write(home.path().join("session_index.jsonl"), "{\"id\":\"th-1\",\"thread_name\":\"Fix login\"}\n")
            .unwrap();
        let again = titles.next_due().expect("looked at again");
        assert!(again <= t0 + LOOK_AGAIN[0]);
        assert_eq!(titles.read_due(again), [("th-1".to_owned(), "Fix login".to_owned())]);
        assert_eq!(titles.next_due(), None, "found: nothing more to do until the next event");

        // The turn's next events come within REFRESH_EVERY of that read: one read, deferred.
        let soon = again + Duration::from_secs(1);
        titles.observe(&codex_update("th-1", Some("Fix login")), soon);
        assert_eq!(titles.next_due(), Some(again + REFRESH_EVERY));
        std::fs::write(home.path().join("session_index.jsonl"), "{\"id\":\"th-1\",\"thread_name\":\"Renamed\"}\n")
            .unwrap();
        assert!(titles.read_due(soon).is_empty(), "not due yet");
        assert_eq!(titles.read_due(again + REFRESH_EVERY), [("th-1".to_owned(), "Renamed".to_owned())]);
    }

    #[test]
    fn a_file_that_never_gets_a_title_is_looked_at_a_bounded_number_of_times() {
        let home = tempfile::tempdir().unwrap();
        let mut titles = Titles { dirs: codex_at(home.path()), sessions: HashMap::new() };
        let mut now = Instant::now();
        titles.observe(&codex_update("none", None), now);
        let mut reads = 0;
        while let Some(due) = titles.next_due() {
            now = now.max(due);
            assert!(titles.read_due(now).is_empty());
            reads += 1;
            assert!(reads <= 1 + LOOK_AGAIN.len(), "bounded");
        }
        assert_eq!(reads, 1 + LOOK_AGAIN.len());
    }

    #[test]
    fn a_missing_file_has_no_title() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(transcript_title(&dir.path().join("gone.jsonl")), None);
        assert_eq!(index_title(dir.path(), "019fb3cc-1111-7000-8000-000000000001"), None);
        assert_eq!(transcript_title(dir.path()), None, "a directory is unreadable as a transcript");
    }

    #[test]
    fn a_200_mb_transcript_costs_only_its_tail() {
        let mut file = tempfile::tempfile().unwrap();
        // Sparse: 200 MB of hole (one long line), then the records a long session ends with.
        file.set_len(200 * 1024 * 1024).unwrap();
        file.seek(SeekFrom::End(0)).unwrap();
        writeln!(file).unwrap();
        writeln!(file, r#"{{"type":"custom-title","customTitle":"marathon"}}"#).unwrap();
        writeln!(file, r#"{{"type":"assistant","message":{{"content":"{}"}}}}"#, "x".repeat(100_000)).unwrap();

        let mut counting = Counting { inner: file, bytes: 0 };
        assert_eq!(transcript_title_in(&mut counting).as_deref(), Some("marathon"));
        assert!(counting.bytes <= TAIL_BYTES, "read {} bytes", counting.bytes);
        assert!(counting.bytes > 0);
    }

    #[test]
    fn the_tail_starts_at_a_line_boundary() {
        let mut data = io::Cursor::new(b"{\"a\":1}\n{\"b\":2}\n{\"c\":3}\n".to_vec());
        assert_eq!(read_tail(&mut data, 12).unwrap(), b"{\"c\":3}\n");
        assert_eq!(read_tail(&mut data, 1024).unwrap(), data.get_ref().as_slice());
        // A record cut by the cap is not mistaken for a whole one.
        let mut cut = io::Cursor::new(b"{\"type\":\"ai-title\",\"aiTitle\":\"x\"}\n".to_vec());
        assert_eq!(read_tail(&mut cut, 10).unwrap(), b"");
    }
}
