//! The spool (issue 45): hook events the instance could not take in time — a machine so busy the
//! instance did not answer within the forwarder's deadline, or an instance that died with its
//! endpoint file still there — kept in `spool.jsonl` in the state folder until an instance takes
//! them, instead of being lost.
//!
//! Both processes meet here: the forwarder appends one line per event (`O_APPEND`, mode 0600,
//! under the file's lock, at most [`LINE_LIMIT`] bytes); the instance takes the whole file under
//! the same lock and empties it. Each event carries an id that the forwarder also sent with the
//! request itself ([`crate::protocol::EVENT_ID_HEADER`]), so an event whose request did reach the
//! instance's socket — and is applied once it wakes — is not applied a second time from here.
//! The file is bounded ([`SPOOL_LIMIT`]): past it the oldest events are dropped and counted, and
//! the instance says so.

use std::collections::{HashSet, VecDeque};
use std::fs::File;
use std::io::{self, Read, Seek, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use serde_json::Value;
use switchboard_core::AgentProcess;

pub const SPOOL_FILE: &str = "spool.jsonl";
/// The largest line: a body at the server's own cap, and its envelope.
pub const LINE_LIMIT: usize = crate::protocol::BODY_LIMIT + 8 * 1024;
/// The largest spool: past it the oldest events go first.
pub const SPOOL_LIMIT: u64 = 4 * 1024 * 1024;
/// How long the forwarder waits for the spool's lock before it gives up on the event (an
/// instance takes the file in well under this; the agent must not wait on it).
const LOCK_WAIT: Duration = Duration::from_millis(250);
/// The version of a line; a line of another version is skipped.
pub const VERSION: u32 = 1;

/// One event the instance did not take: what the forwarder would have posted.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Spooled {
    pub v: u32,
    /// The id its request carried (128 random bits, hex).
    pub id: String,
    pub agent: String,
    /// When the forwarder had it (Unix ms): the event's time, not the time it is taken.
    pub at: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub process: Option<AgentProcess>,
    pub body: Value,
}

/// The first line after events were dropped to keep the spool bounded.
#[derive(Debug, Serialize, Deserialize)]
struct Dropped {
    dropped: u64,
}

/// What the instance takes from the spool.
#[derive(Debug, Default, PartialEq)]
pub struct Taken {
    /// In the order they were spooled.
    pub events: Vec<Spooled>,
    /// Events dropped (the oldest, to keep the file bounded) or unreadable.
    pub dropped: u64,
}

pub fn path(state_dir: &Path) -> PathBuf {
    state_dir.join(SPOOL_FILE)
}

/// Whether the spool may hold events: one `lstat`, cheap enough to ask on the hook thread.
pub fn waiting(state_dir: &Path) -> io::Result<bool> {
    match std::fs::symlink_metadata(path(state_dir)) {
        Err(error) if error.kind() == io::ErrorKind::NotFound => Ok(false),
        Err(error) => Err(error),
        Ok(meta) => Ok(!(meta.is_file() && meta.len() == 0)),
    }
}

/// A new event id: 128 random bits in hex.
pub fn new_id() -> String {
    use rand::RngCore;
    let mut bytes = [0u8; 16];
    rand::rng().fill_bytes(&mut bytes);
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// An id as the server accepts it from a header: 32 lowercase hex digits.
pub fn is_id(id: &str) -> bool {
    id.len() == 32 && id.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

/// Appends one event, waiting at most [`LOCK_WAIT`] for the lock. A body that is not JSON, or
/// too large for a line, is not spooled (the server would have dropped it too).
pub fn append(state_dir: &Path, event: &Spooled) -> io::Result<()> {
    let mut line = serde_json::to_vec(event).map_err(io::Error::other)?;
    line.push(b'\n');
    if line.len() > LINE_LIMIT {
        return Err(io::Error::new(io::ErrorKind::InvalidInput, "the event is too large to spool"));
    }
    let file = open(state_dir)?;
    lock_within(&file, Instant::now() + LOCK_WAIT)?;
    let written = append_locked(&file, &line);
    let _ = file.unlock();
    written
}

/// Takes every event in the spool and leaves it empty. `None` when there is no spool.
pub fn take(state_dir: &Path) -> io::Result<Option<Taken>> {
    let path = path(state_dir);
    if !waiting(state_dir)? {
        return Ok(None);
    }
    let file = crate::platform::open_private_append(&path)?;
    file.lock()?;
    let bytes = read_all(&file);
    let emptied = bytes.as_ref().map_or(Ok(()), |_| file.set_len(0));
    let _ = file.unlock();
    let bytes = bytes?;
    emptied?;
    Ok(Some(parse(&bytes)))
}

fn parse(bytes: &[u8]) -> Taken {
    let mut taken = Taken::default();
    for line in bytes.split(|&b| b == b'\n').filter(|line| !line.is_empty()) {
        if let Ok(Dropped { dropped }) = serde_json::from_slice::<Dropped>(line) {
            taken.dropped += dropped;
            continue;
        }
        match serde_json::from_slice::<Spooled>(line) {
            Ok(event) if event.v == VERSION && is_id(&event.id) => taken.events.push(event),
            _ => taken.dropped += 1,
        }
    }
    taken
}

/// The spool, opened to append (and read, to be kept bounded): created 0600 whatever the umask,
/// never through a symlink, never another user's file (the platform's one private opener).
fn open(state_dir: &Path) -> io::Result<File> {
    crate::platform::create_private_dir(state_dir)?;
    crate::platform::open_private_append(&path(state_dir))
}

fn lock_within(file: &File, deadline: Instant) -> io::Result<()> {
    let mut pause = Duration::from_millis(1);
    loop {
        match file.try_lock() {
            Ok(()) => return Ok(()),
            Err(std::fs::TryLockError::WouldBlock) if Instant::now() + pause < deadline => {
                std::thread::sleep(pause);
                pause = (pause * 2).min(Duration::from_millis(20));
            }
            Err(std::fs::TryLockError::WouldBlock) => {
                return Err(io::Error::new(io::ErrorKind::TimedOut, "the spool stayed locked"))
            }
            Err(std::fs::TryLockError::Error(error)) => return Err(error),
        }
    }
}

/// Appends `line`; when the spool would pass [`SPOOL_LIMIT`], drops its oldest events first,
/// down to half of it (so the next appends are plain appends again, not a rewrite each: an
/// instance gone for days must not cost every hook a 4 MiB rewrite), and counts them in the
/// first line.
fn append_locked(file: &File, line: &[u8]) -> io::Result<()> {
    let size = file.metadata()?.len();
    if size + line.len() as u64 <= SPOOL_LIMIT {
        return (&*file).write_all(line);
    }
    let bytes = read_all(file)?;
    let mut dropped = 0u64;
    let mut lines: VecDeque<&[u8]> = VecDeque::new();
    for kept in bytes.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
        match serde_json::from_slice::<Dropped>(kept) {
            Ok(Dropped { dropped: before }) => dropped += before,
            Err(_) => lines.push_back(kept),
        }
    }
    let mut total: u64 = lines.iter().map(|l| l.len() as u64 + 1).sum::<u64>() + line.len() as u64 + 64;
    while total > SPOOL_LIMIT / 2 {
        let Some(oldest) = lines.pop_front() else { break };
        total -= oldest.len() as u64 + 1;
        dropped += 1;
    }
    let mut out = Vec::with_capacity(total as usize);
    out.extend_from_slice(&serde_json::to_vec(&Dropped { dropped }).map_err(io::Error::other)?);
    out.push(b'\n');
    for kept in lines {
        out.extend_from_slice(kept);
        out.push(b'\n');
    }
    out.extend_from_slice(line);
    file.set_len(0)?;
    (&*file).write_all(&out)
}

fn read_all(file: &File) -> io::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    let mut reader = file;
    reader.seek(io::SeekFrom::Start(0))?;
    reader.take(SPOOL_LIMIT * 2).read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// The ids of the events the instance has applied lately, from a request or the spool: the
/// same event is applied once, whichever way it came first. Kept as numbers (no allocation per
/// event) and grown as they come, up to `capacity`.
pub struct Delivered {
    seen: HashSet<u128>,
    order: VecDeque<u128>,
    capacity: usize,
}

impl Delivered {
    /// Remembers the last `capacity` ids: more than the spool can hold.
    pub fn new(capacity: usize) -> Self {
        Self { seen: HashSet::new(), order: VecDeque::new(), capacity }
    }

    /// `true` the first time `id` is seen (the event is to be applied), `false` after. An id
    /// that is not 32 hex digits is never remembered (its event is applied).
    pub fn first(&mut self, id: &str) -> bool {
        let Some(id) = is_id(id).then(|| u128::from_str_radix(id, 16).ok()).flatten() else { return true };
        if self.seen.contains(&id) {
            return false;
        }
        if self.order.len() == self.capacity {
            if let Some(oldest) = self.order.pop_front() {
                self.seen.remove(&oldest);
            }
        }
        self.seen.insert(id);
        self.order.push_back(id);
        true
    }
}

/// How many ids [`Delivered`] keeps: a full spool of the smallest events is far fewer.
pub const DELIVERED_IDS: usize = 32 * 1024;

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn event(n: u64) -> Spooled {
        Spooled {
            v: VERSION,
            id: format!("{n:032x}"),
            agent: "claude".into(),
            at: 1_000 + n,
            process: None,
            body: json!({"hook_event_name": "Stop", "session_id": format!("s{n}")}),
        }
    }

    #[test]
    fn events_come_back_in_order_once_and_the_spool_is_left_empty() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(take(dir.path()).unwrap(), None, "no spool yet");
        for n in 0..20 {
            append(dir.path(), &event(n)).unwrap();
        }
        let taken = take(dir.path()).unwrap().unwrap();
        assert_eq!(taken.events, (0..20).map(event).collect::<Vec<_>>());
        assert_eq!(taken.dropped, 0);
        assert_eq!(take(dir.path()).unwrap(), None, "taken once");
        append(dir.path(), &event(20)).unwrap();
        assert_eq!(take(dir.path()).unwrap().unwrap().events, vec![event(20)], "appends after a take are kept");
    }

    #[test]
    fn past_its_limit_the_oldest_events_are_dropped_and_counted() {
        let dir = tempfile::tempdir().unwrap();
        let big =
            |n: u64| Spooled { body: json!({"session_id": format!("s{n}"), "pad": "x".repeat(200_000)}), ..event(n) };
        for n in 0..50 {
            append(dir.path(), &big(n)).unwrap();
        }
        assert!(std::fs::metadata(path(dir.path())).unwrap().len() <= SPOOL_LIMIT);
        let taken = take(dir.path()).unwrap().unwrap();
        let kept = taken.events.len() as u64;
        assert!(kept >= 5, "{kept}");
        assert_eq!(taken.dropped + kept, 50);
        assert_eq!(taken.events.last().unwrap().id, big(49).id, "the newest is kept");
        assert_eq!(taken.events.first().unwrap().id, big(50 - kept).id, "the oldest went first");
    }

    #[test]
    fn a_line_that_is_not_an_event_is_counted_not_applied() {
        let dir = tempfile::tempdir().unwrap();
        append(dir.path(), &event(1)).unwrap();
        let mut file = std::fs::OpenOptions::new().append(true).open(path(dir.path())).unwrap();
        file.write_all(b"{\"v\":1,\"id\":\"../../x\",\"agent\":\"claude\",\"at\":1,\"body\":{}}\nnot json\n").unwrap();
        let taken = take(dir.path()).unwrap().unwrap();
        assert_eq!((taken.events, taken.dropped), (vec![event(1)], 2));
    }

    #[test]
    fn the_spool_is_private_whatever_the_umask_and_never_follows_a_link() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        // SAFETY: umask has no preconditions; restored right after.
        let old = unsafe { libc::umask(0) };
        let appended = append(&dir.path().join("home"), &event(1));
        unsafe { libc::umask(old) };
        appended.unwrap();
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&path(&dir.path().join("home"))), 0o600);
        assert_eq!(mode(&dir.path().join("home")), 0o700);
        let target = dir.path().join("bashrc");
        std::fs::write(&target, "# mine\n").unwrap();
        let other = dir.path().join("other");
        std::fs::create_dir(&other).unwrap();
        std::os::unix::fs::symlink(&target, path(&other)).unwrap();
        assert!(append(&other, &event(2)).is_err());
        assert!(take(&other).is_err());
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "# mine\n");
    }

    #[test]
    fn an_id_is_applied_once_whichever_way_it_came() {
        let mut delivered = Delivered::new(2);
        let (a, b, c) = (new_id(), new_id(), new_id());
        assert!(delivered.first(&a));
        assert!(!delivered.first(&a));
        assert!(delivered.first(&b));
        assert!(delivered.first(&c), "a is forgotten past the capacity");
        assert!(delivered.first(&a));
        assert!(delivered.first("not an id") && delivered.first("not an id"), "never remembered");
        assert!(is_id(&new_id()) && new_id() != new_id());
        assert!(!is_id("ABC") && !is_id(&"g".repeat(32)));
    }
}
