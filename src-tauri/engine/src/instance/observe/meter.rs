//! The meter (issue 25): what each local agent spends and holds, read off the hook path and
//! sent back to the hub as [`Input::Reading`]s.
//!
//! - **Tokens and cost.** Each session's transcript is read from its start, in bounded chunks,
//!   and only what was appended since is read afterwards (a `stat` per session per look); the
//!   records go to `switchboard_core::usage::Meter` (which says, per CLI, which fields count).
//!   Prices come from `pricing.json` in the state folder: written from the built-in table when
//!   missing, re-read when the user edits it. A CLI that writes no transcript but keeps its
//!   sessions in a database (OpenCode) has them counted there instead (`meter/database.rs`).
//! - **Footprint.** Every [`FOOTPRINT_EVERY`], one pass over the process table (`/proc` on
//!   Linux) gives each live agent's process tree: CPU since the last sample, resident memory,
//!   how many processes, since when. Only sessions whose agent process is known and alive are
//!   sampled.
//! - **Git.** The branch, worktree and uncommitted changes of a session's folder, looked at when
//!   it is first seen and whenever a turn ends, on a thread of its own (`meter/git.rs`; git may be slow; it runs
//!   with `GIT_OPTIONAL_LOCKS=0`, so it never takes a lock the agent's own git needs).
//! - **Background.** Whether a CLI runs the session in the background, with no terminal (issue 48:
//!   `claude --bg`), asked once of the CLI's own listing when its process is known, on the same
//!   thread (`meter/background.rs`).

use foldhash::{HashMap, HashMapExt};
use std::io::{Read, Seek, SeekFrom};
use std::path::PathBuf;
use std::sync::mpsc::{sync_channel, SyncSender, TrySendError};
use std::time::{Duration, Instant, SystemTime};

use switchboard_core::usage::{self, Footprint, Prices, Reading, Usage};
use switchboard_core::{AgentProcess, AgentStatus, Session};

use crate::files::open_regular;
use crate::instance::hub::follow::Follower;
use crate::instance::hub::{Input, Inputs, Update};
use crate::process;

/// How often transcripts are looked at for new records.
pub const LOOK_EVERY: Duration = Duration::from_secs(1);
/// How often live agents' process trees are sampled.
pub const FOOTPRINT_EVERY: Duration = Duration::from_secs(5);
/// How often `pricing.json` is checked for the user's edits.
const PRICES_EVERY: Duration = Duration::from_secs(10);
/// The most of one transcript read per look; the rest on the next looks.
pub const CHUNK: u64 = 4 * 1024 * 1024;
/// A folder's git state is this fresh at most: a look sooner (sessions sharing a folder, turn
/// ends in quick succession) takes the last one's answer rather than running git again.
const GIT_FRESH: Duration = Duration::from_secs(2);
/// Folders waiting for git, at most (more are dropped: each is looked at again at its next turn end).
const GIT_QUEUE: usize = 64;
/// Sessions metered at once; the least recently active are dropped past it.
const MAX_METERED: usize = 4096;
pub const PRICING_FILE: &str = "pricing.json";

pub struct Meter;

impl Meter {
    /// The meter, to follow the hub's updates on the observers' thread (`hub::follow`), with its
    /// git thread started. `state_dir`: where `pricing.json` is kept (and written from the
    /// built-in table when missing); `None` for the built-in prices only.
    pub fn follower(inputs: Inputs, state_dir: Option<PathBuf>) -> Box<dyn Follower> {
        let (git_requests, git_queue) = sync_channel(GIT_QUEUE);
        let git_inputs = inputs.clone();
        let git = std::thread::Builder::new().name("meter-git".into()).spawn(move || {
            crate::platform::background_thread();
            git_worker(git_queue, git_inputs);
        });
        if let Err(error) = &git {
            tracing::warn!(%error, "cannot start the meter's git thread; no git state will be shown");
        }
        Box::new(Metering::new(inputs, Pricing::load(state_dir), git.is_ok().then_some(git_requests)))
    }
}

/// The prices in use, and where they came from.
struct Pricing {
    path: Option<PathBuf>,
    prices: Prices,
    modified: Option<SystemTime>,
    looked: Instant,
}

impl Pricing {
    fn load(state_dir: Option<PathBuf>) -> Self {
        let path = state_dir.map(|dir| dir.join(PRICING_FILE));
        if let Some(path) = path.as_deref().filter(|path| !path.exists()) {
            // A state file like the others: the user's alone (0600).
            let private = crate::platform::permissions(0o600);
            if let Err(error) = crate::files::write_atomic(path, usage::DEFAULT_PRICES.as_bytes(), private) {
                tracing::warn!(%error, path = %path.display(), "cannot write the pricing table");
            }
        }
        let mut pricing = Self { path, prices: Prices::builtin(), modified: None, looked: Instant::now() };
        pricing.reload();
        pricing
    }

    /// Re-reads the file if it changed since; `true` when the prices changed.
    fn refresh(&mut self) -> bool {
        if self.looked.elapsed() < PRICES_EVERY {
            return false;
        }
        self.looked = Instant::now();
        let modified = self.path.as_deref().and_then(|path| std::fs::metadata(path).and_then(|m| m.modified()).ok());
        if modified == self.modified {
            return false;
        }
        let before = self.prices.clone();
        self.reload();
        self.prices != before
    }

    fn reload(&mut self) {
        let Some(path) = self.path.as_deref() else { return };
        self.modified = std::fs::metadata(path).and_then(|m| m.modified()).ok();
        match std::fs::read_to_string(path).map(|text| serde_json::from_str::<Prices>(&text)) {
            Ok(Ok(prices)) => self.prices = prices,
            Ok(Err(error)) => {
                tracing::warn!(%error, path = %path.display(), "the pricing table cannot be read; using the built-in one");
                self.prices = Prices::builtin();
            }
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => self.prices = Prices::builtin(),
            Err(error) => tracing::warn!(%error, path = %path.display(), "cannot read the pricing table"),
        }
    }
}

struct Metered {
    agent: String,
    last_event_at: u64,
    status: Option<AgentStatus>,
    cwd: Option<String>,
    transcript_path: Option<String>,
    reader: Option<Reader>,
    database: Option<database::Reader>,
    meter: usage::Meter,
    reported_usage: Option<Usage>,
    process: Option<AgentProcess>,
    /// The tree's CPU ticks at the last sample, and when.
    last_cpu: Option<(u64, Instant)>,
    reported_footprint: Option<Footprint>,
    /// When its folder's git state was last asked for.
    git_asked: Option<Instant>,
    /// Whether its CLI was asked if it runs it in the background.
    background_asked: bool,
}

struct Metering {
    sessions: HashMap<String, Box<Metered>>,
    inputs: Inputs,
    pricing: Pricing,
    git: Option<SyncSender<Ask>>,
    /// Clock ticks per second, page size, boot time (Unix ms).
    units: (u64, u64, u64),
    /// When transcripts were last read, and footprints last sampled.
    last_look: Instant,
    last_footprint: Instant,
}

impl Follower for Metering {
    fn see(&mut self, update: &Update, _now: Instant) {
        self.observe(update);
    }

    fn run(&mut self, now: Instant) -> Option<Instant> {
        if now.saturating_duration_since(self.last_look) >= LOOK_EVERY {
            self.last_look = now;
            self.read_transcripts();
        }
        if now.saturating_duration_since(self.last_footprint) >= FOOTPRINT_EVERY {
            self.last_footprint = now;
            self.sample_footprints();
        }
        // Nothing to read or sample (no transcript, database or process known: a custom
        // source, a board of remotes' sessions): no look until an update brings one.
        let anything =
            self.sessions.values().any(|m| m.reader.is_some() || m.database.is_some() || m.process.is_some());
        anything.then(|| self.last_look + LOOK_EVERY)
    }
}

impl Metering {
    fn new(inputs: Inputs, pricing: Pricing, git: Option<SyncSender<Ask>>) -> Self {
        let (ticks, page) = process::units();
        let boot = process::boot_millis().unwrap_or(0);
        let (last_look, last_footprint) = (Instant::now(), Instant::now());
        Self { sessions: HashMap::new(), inputs, pricing, git, units: (ticks, page, boot), last_look, last_footprint }
    }

    fn observe(&mut self, update: &Update) {
        let changed = match update {
            Update::Removed(id) => {
                self.sessions.remove(id);
                return;
            }
            Update::Changed(changed) => changed,
            Update::Notices(_) => return,
        };
        // Borrowed from the update the hub shares: only what changed is copied.
        let session = &changed.change.session;
        if session.ended || session.archived || !session.is_local() {
            if let Some(gone) = self.sessions.remove(&session.session_id) {
                if gone.reported_footprint.is_some() {
                    self.send(&session.session_id, Reading::Footprint(None));
                }
            }
            return;
        }
        self.track(session);
    }

    fn track(&mut self, session: &Session) {
        if !self.sessions.contains_key(&session.session_id) && self.sessions.len() >= MAX_METERED {
            let oldest = self.sessions.iter().min_by_key(|(_, m)| m.last_event_at).map(|(id, _)| id.clone());
            if let Some(oldest) = oldest {
                self.sessions.remove(&oldest);
            }
        }
        let first_seen = !self.sessions.contains_key(&session.session_id);
        if first_seen {
            // The id is copied once per session, not on every update.
            self.sessions.insert(
                session.session_id.clone(),
                Box::new(Metered {
                    agent: session.agent.clone(),
                    last_event_at: 0,
                    status: None,
                    cwd: None,
                    transcript_path: None,
                    reader: None,
                    database: database::Reader::of(&session.agent),
                    meter: switchboard_core::agent::meter(&session.agent),
                    reported_usage: session.usage.clone(),
                    process: None,
                    last_cpu: None,
                    reported_footprint: session.footprint,
                    git_asked: None,
                    background_asked: false,
                }),
            );
        }
        let Some(metered) = self.sessions.get_mut(&session.session_id) else { return };
        if metered.transcript_path != session.transcript_path {
            metered.reader = crate::instance::observe::transcript::readable(session).map(Reader::new);
            metered.meter = switchboard_core::agent::meter(&metered.agent);
        }
        if metered.process.as_ref().map(|p| (p.pid, p.start)) != session.process.as_ref().map(|p| (p.pid, p.start)) {
            metered.last_cpu = None;
        }
        let turn_ended = metered.status == Some(AgentStatus::Working)
            && matches!(session.status, Some(AgentStatus::Done | AgentStatus::Waiting | AgentStatus::Blocked));
        // A turn end within GIT_FRESH of the last look would get that look's answer from the git
        // worker's cache: it is not asked again (under a flood of hooks, one status change in two
        // is a turn end; each was a wake-up of the git thread and an input back to the hub).
        let git_fresh = metered.git_asked.is_some_and(|asked| asked.elapsed() < GIT_FRESH);
        let git_due = first_seen || (turn_ended && !git_fresh) || metered.cwd != session.cwd;
        metered.last_event_at = session.last_event_at;
        metered.status = session.status;
        if metered.transcript_path != session.transcript_path {
            metered.transcript_path.clone_from(&session.transcript_path);
        }
        if metered.process != session.process {
            metered.process.clone_from(&session.process);
        }
        if metered.cwd != session.cwd {
            metered.cwd.clone_from(&session.cwd);
        }
        if let (true, Some(cwd), Some(git)) = (git_due, metered.cwd.clone(), &self.git) {
            metered.git_asked = Some(Instant::now());
            if let Err(TrySendError::Full(_)) = git.try_send(Ask::Git(session.session_id.clone(), cwd)) {
                tracing::debug!("git queue full; the folder is looked at again at its next turn end");
            }
        }
        // Once its process is known: does its CLI run it in the background (`claude --bg`)?
        if !metered.background_asked && session.process.is_some() {
            metered.background_asked = true;
            if let (Some(look), Some(queue)) = (background::Look::of(session), &self.git) {
                let _ = queue.try_send(Ask::Background(Box::new(look)));
            }
        }
    }

    fn read_transcripts(&mut self) {
        let repriced = self.pricing.refresh();
        let mut readings = Vec::new();
        for (id, metered) in &mut self.sessions {
            let read = match (&mut metered.database, &mut metered.reader) {
                (Some(database), _) => database.read(id, &mut metered.meter),
                (None, Some(reader)) => reader.read(&mut metered.meter),
                (None, None) => false,
            };
            if !read && !repriced {
                continue;
            }
            let usage = metered.meter.usage(&self.pricing.prices);
            if usage.requests > 0 && metered.reported_usage.as_ref() != Some(&usage) {
                readings.push((id.clone(), usage));
            }
        }
        for (id, usage) in readings {
            if self.send(&id, Reading::Usage(usage.clone())) {
                if let Some(metered) = self.sessions.get_mut(&id) {
                    metered.reported_usage = Some(usage);
                }
            }
        }
    }

    fn sample_footprints(&mut self) {
        if self.sessions.values().all(|metered| metered.process.is_none()) {
            return;
        }
        let table = process::table();
        let (ticks_per_second, page, boot) = self.units;
        let now = Instant::now();
        let mut readings = Vec::new();
        for (id, metered) in &mut self.sessions {
            let Some(agent) = &metered.process else { continue };
            let alive = table.get(&agent.pid).is_some_and(|p| p.start == agent.start) && process::is_alive(agent);
            let footprint = alive.then(|| {
                let tree = process::tree(&table, agent.pid);
                let used = |pid: &u32| table.get(pid).copied().unwrap_or_default();
                let cpu_ticks: u64 = tree.iter().map(|pid| used(pid).cpu_ticks).sum();
                let rss_bytes = tree.iter().map(|pid| used(pid).rss_pages).sum::<u64>() * page;
                let started_at = boot + agent.start * 1000 / ticks_per_second;
                // Since the last sample; the first one averages over the agent's whole life, as `ps` does.
                let (ticks_before, since) = match metered.last_cpu {
                    Some((ticks, at)) => (ticks, now.duration_since(at).as_millis() as u64),
                    None => (0, crate::clock::now_millis().saturating_sub(started_at)),
                };
                metered.last_cpu = Some((cpu_ticks, now));
                let spent_ms = cpu_ticks.saturating_sub(ticks_before) * 1000 / ticks_per_second;
                let cpu_tenths = u32::try_from(spent_ms * 1000 / since.max(1)).unwrap_or(u32::MAX);
                Footprint { cpu_tenths, rss_bytes, processes: tree.len() as u32, started_at }
            });
            if worth_telling(metered.reported_footprint, footprint) {
                readings.push((id.clone(), footprint));
            }
        }
        for (id, footprint) in readings {
            if self.send(&id, Reading::Footprint(footprint)) {
                if let Some(metered) = self.sessions.get_mut(&id) {
                    metered.reported_footprint = footprint;
                }
            }
        }
    }

    fn send(&self, session_id: &str, reading: Reading) -> bool {
        self.inputs.send(Input::Reading { session_id: session_id.to_owned(), reading })
    }
}

/// Whether a new sample differs enough from the one shown to be sent: another process count,
/// a point of CPU, or a 2 % (and at least 1 MiB) change of memory. Keeps a steady agent quiet.
fn worth_telling(shown: Option<Footprint>, now: Option<Footprint>) -> bool {
    match (shown, now) {
        (Some(shown), Some(now)) => {
            let rss_step = (shown.rss_bytes / 50).max(1 << 20);
            shown.processes != now.processes
                || shown.started_at != now.started_at
                || shown.cpu_tenths.abs_diff(now.cpu_tenths) >= 10
                || shown.rss_bytes.abs_diff(now.rss_bytes) >= rss_step
        }
        (shown, now) => shown != now,
    }
}

/// Reads a transcript from its start, whole lines only, at most [`CHUNK`] per look. A file
/// replaced or truncated is read again from its start (and counted afresh).
struct Reader {
    path: PathBuf,
    inode: u64,
    offset: u64,
    /// Inside a line longer than a chunk: skipped up to its end.
    skipping: bool,
}

impl Reader {
    fn new(path: PathBuf) -> Self {
        Self { path, inode: 0, offset: 0, skipping: false }
    }

    /// Feeds what was appended to `meter`; `true` when its usage changed.
    fn read(&mut self, meter: &mut usage::Meter) -> bool {
        let Ok(meta) = std::fs::metadata(&self.path) else { return false };
        if !meta.is_file() || meta.len() == self.offset && crate::platform::file_id(&meta) == self.inode {
            return false;
        }
        let mut changed = false;
        if crate::platform::file_id(&meta) != self.inode || meta.len() < self.offset {
            if self.inode != 0 {
                *meter = switchboard_core::agent::meter(meter.agent());
                changed = true;
            }
            (self.inode, self.offset, self.skipping) = (crate::platform::file_id(&meta), 0, false);
        }
        let Ok(mut file) = open_regular(&self.path) else { return changed };
        let mut bytes = Vec::new();
        if file.seek(SeekFrom::Start(self.offset)).is_err() || file.take(CHUNK).read_to_end(&mut bytes).is_err() {
            return changed;
        }
        let Some(last_newline) = bytes.iter().rposition(|b| *b == b'\n') else {
            if bytes.len() as u64 == CHUNK {
                // One line longer than a chunk (a huge tool result): not a usage record.
                self.offset += CHUNK;
                self.skipping = true;
            }
            return changed;
        };
        self.offset += last_newline as u64 + 1;
        let mut lines = bytes[..last_newline].split(|b| *b == b'\n');
        if std::mem::take(&mut self.skipping) {
            lines.next();
        }
        for line in lines {
            if let Ok(record) = serde_json::from_slice(line) {
                changed |= meter.record(&record);
            }
        }
        changed
    }
}

mod background;
mod database;
mod git;
pub use git::git_info;
use git::{git_worker, Ask};
#[cfg(test)]
mod tests;
