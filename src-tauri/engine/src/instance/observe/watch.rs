//! The second source of truth (issue "no stuck badge"): a subscriber of the hub's updates that
//! watches what the hooks cannot say, and sends what it sees back as inputs.
//!
//! - **Transcripts.** While a session is `working` or `blocked`, the tail of its transcript is
//!   followed (from where it ended when the watch began; rotation and truncation start over;
//!   reads are bounded and never block), and a record that ends a turn without a hook becomes
//!   an input (`normalize::observed::transcript_record`).
//! - **The agent's process.** Each session whose forwarder reported the agent's pid is checked
//!   every second (pid *and* start time, so a reused pid does not count as alive); when it is
//!   gone without a SessionEnd the session ends. While `blocked`, a new child of the agent that
//!   is not a hook means the user approved and the tool runs.
//!
//! Why polling and not inotify: a transcript may be rotated, truncated, replaced by a FIFO or on
//! a filesystem without inotify, and process exits have no file event at all; a `stat` per
//! watched file every [`TICK`] costs microseconds (50 sessions: well under 1 % of a core).

use std::collections::{HashMap, HashSet};
use std::io::{Read, Seek, SeekFrom};
use std::path::PathBuf;
use std::time::{Duration, Instant};

use serde_json::Value;
use switchboard_core::normalize::observed::{process_exited, screen_cancelled, tool_started, transcript_record};
use switchboard_core::{AgentProcess, AgentStatus, Session};

use crate::clock::now_millis;
use crate::files::open_regular;
use crate::instance::hub::follow::Follower;
use crate::instance::hub::{Input, Inputs, Update};
use crate::process;

/// How often transcripts and blocked sessions' children are looked at.
pub const TICK: Duration = Duration::from_millis(250);
/// After a hook, the soonest they are looked at again (a new turn's tail, a new block).
const QUICKEST_TICK: Duration = Duration::from_millis(50);
/// How long a transcript is still followed after its turn ended: an interrupt recorded just after
/// the end hook corrects that done (Gemini's AfterAgent after Esc; see the reducer).
pub const TURN_END_GRACE: Duration = Duration::from_secs(3);
/// How often every watched process is checked for life.
pub const LIVENESS_EVERY: Duration = Duration::from_secs(1);
/// The most of a transcript read per look; more appended at once is skipped to its last part.
pub const READ_CAP: u64 = 1024 * 1024;
/// Sessions watched at once; the least recently active are dropped past it.
pub const MAX_WATCHED: usize = 4096;
/// A new child of a blocked agent counts as the approved tool only once it has lived this
/// long: hooks (the user's own, run beside ours) are gone by then.
pub const TOOL_CONFIRM: Duration = Duration::from_millis(500);
/// ... and only if no hook event of the session arrived this close to its start: other hooks
/// of that same event run at that moment. (A child running the very command the permission
/// asked for needs neither: it is the tool, however quickly the user approved.)
pub const HOOK_QUIET: Duration = Duration::from_millis(400);

/// The watch, as the observers' thread runs it (`hub::follow`): told each update at once (a
/// turn's tail starts where its transcript is when it opens), and every watched session looked at
/// every [`TICK`] — and after updates, at most every [`QUICKEST_TICK`], however fast the hooks
/// come: a flood of hooks must not become a flood of file reads.
pub struct AgentWatch {
    watch: Watch,
    last_tick: Instant,
}

impl AgentWatch {
    pub fn new(inputs: Inputs) -> Self {
        let watch = Watch { sessions: foldhash::HashMap::default(), inputs, last_liveness: Instant::now() };
        Self { watch, last_tick: Instant::now() }
    }
}

impl Follower for AgentWatch {
    fn see(&mut self, update: &Update, _now: Instant) {
        self.watch.observe(update);
    }

    fn run(&mut self, now: Instant) -> Option<Instant> {
        if now.saturating_duration_since(self.last_tick) >= QUICKEST_TICK {
            self.watch.tick();
            self.last_tick = Instant::now();
        }
        // Nothing to look at (no transcript followed, no process known: a custom source, a
        // board of remotes' sessions): no tick until an update brings one.
        self.watch.sessions.values().any(|w| w.tail.is_some() || w.process.is_some()).then(|| self.last_tick + TICK)
    }
}

struct Watched {
    agent: String,
    status: Option<AgentStatus>,
    last_event_at: u64,
    transcript_path: Option<String>,
    tail: Option<Tail>,
    /// The turn ended: the tail is read until then, and dropped after.
    tail_until: Option<Instant>,
    process: Option<AgentProcess>,
    /// The agent's children when it became blocked (hooks excluded): a new one is the tool.
    children_at_block: Option<HashSet<u32>>,
    /// New children not yet confirmed as the tool, with when they were first seen.
    candidates: HashMap<u32, Instant>,
    /// When a hook event of this session last arrived.
    last_hook: Instant,
    /// What the permission asks to run (the blocked session's message), when blocked.
    asked: Option<String>,
    /// While it waits or is blocked in tmux, for a CLI whose screen tells a dismissal: how often
    /// the marker showed at the bottom of its screen when it began, and when it was last looked at.
    screen: Option<(usize, Instant)>,
}

struct Watch {
    sessions: foldhash::HashMap<String, Box<Watched>>,
    inputs: Inputs,
    last_liveness: Instant,
}

impl Watch {
    fn observe(&mut self, update: &Update) {
        let session = match update {
            Update::Removed(id) => {
                self.sessions.remove(id);
                return;
            }
            Update::Changed(changed) => changed,
            Update::Notices(_) => return,
        };
        // Borrowed from the update the hub shares: only what the watch keeps is copied.
        let (from, session) = (session.transcript_from, &session.change.session);
        // A remote's transcripts and processes are on its machine (and watched there).
        if session.ended || session.archived || !session.is_local() {
            self.sessions.remove(&session.session_id);
            return;
        }
        self.track(session, from);
    }

    /// `from`: where the session's transcript ended when this change opened a turn (`Changed::transcript_from`).
    fn track(&mut self, session: &Session, from: Option<u64>) {
        if !self.sessions.contains_key(&session.session_id) {
            if self.sessions.len() >= MAX_WATCHED {
                let oldest = self.sessions.iter().min_by_key(|(_, w)| w.last_event_at).map(|(id, _)| id.clone());
                if let Some(oldest) = oldest {
                    self.sessions.remove(&oldest);
                }
            }
            // The id is copied once per session, not on every update.
            self.sessions.insert(
                session.session_id.clone(),
                Box::new(Watched {
                    agent: session.agent.clone(),
                    status: None,
                    last_event_at: 0,
                    transcript_path: None,
                    tail: None,
                    tail_until: None,
                    process: None,
                    children_at_block: None,
                    candidates: HashMap::new(),
                    last_hook: Instant::now(),
                    asked: None,
                    screen: None,
                }),
            );
        }
        let Some(watched) = self.sessions.get_mut(&session.session_id) else { return };
        if session.last_event_at != watched.last_event_at {
            watched.last_hook = Instant::now();
        }
        let open_turn = matches!(session.status, Some(AgentStatus::Working | AgentStatus::Blocked));
        let turn_ended = session.status == Some(AgentStatus::Done) && watched.tail.is_some();
        // A turn that opened and closed before the watch heard of it (its updates merged while
        // the watch was far behind): its records are still read, from where it opened.
        let missed_turn = session.status == Some(AgentStatus::Done) && from.is_some() && watched.tail.is_none();
        if open_turn {
            watched.tail_until = None;
        } else if turn_ended && watched.tail_until.is_none() {
            watched.tail_until = Some(Instant::now() + TURN_END_GRACE);
        }
        if (!open_turn && !turn_ended) || watched.transcript_path != session.transcript_path {
            watched.tail = None;
            watched.tail_until = None;
        }
        if (open_turn || missed_turn) && watched.tail.is_none() {
            let path = crate::instance::observe::transcript::readable(session);
            watched.tail = path.and_then(|path| Tail::from(path, from));
            if missed_turn && watched.tail.is_some() {
                watched.tail_until = Some(Instant::now() + TURN_END_GRACE);
            }
        }
        if session.status != Some(AgentStatus::Blocked) {
            watched.children_at_block = None;
            watched.candidates.clear();
            watched.asked = None;
        } else if watched.children_at_block.is_none() {
            // The watch hears of the block a moment after it happened, and a user quick on Enter
            // (or a busy machine) may have the tool started by then.
            let since_block = Duration::from_millis(now_millis().saturating_sub(session.last_event_at));
            watched.children_at_block = session.process.as_ref().map(|p| {
                let asked = session.message.as_deref().and_then(command_key);
                at_block(
                    process::children(p.pid),
                    asked.as_deref(),
                    since_block,
                    process::cmdline,
                    process::running_for,
                )
            });
        }
        let asking = matches!(session.status, Some(AgentStatus::Waiting | AgentStatus::Blocked));
        if !asking {
            watched.screen = None;
        } else if watched.screen.is_none() {
            let marker = switchboard_core::agent(&session.agent).and_then(|agent| agent.screen_cancel);
            let baseline = marker.zip(session.process.as_ref()).and_then(|(marker, p)| {
                crate::instance::observe::screen::capture(p)
                    .map(|screen| crate::instance::observe::screen::marks(&screen, marker))
            });
            watched.screen = baseline.map(|count| (count, Instant::now()));
        }
        if session.status == Some(AgentStatus::Blocked) && session.message.is_some() {
            watched.asked.clone_from(&session.message);
        }
        if watched.agent != session.agent {
            watched.agent.clone_from(&session.agent);
        }
        watched.status = session.status;
        watched.last_event_at = session.last_event_at;
        if watched.transcript_path != session.transcript_path {
            watched.transcript_path.clone_from(&session.transcript_path);
        }
        if watched.process != session.process {
            watched.process.clone_from(&session.process);
        }
    }

    fn tick(&mut self) {
        let check_liveness = self.last_liveness.elapsed() >= LIVENESS_EVERY;
        if check_liveness {
            self.last_liveness = Instant::now();
        }
        let mut events = Vec::new();
        let mut gone = Vec::new();
        for (id, watched) in &mut self.sessions {
            if watched.tail_until.is_some_and(|until| Instant::now() >= until) {
                watched.tail = None;
                watched.tail_until = None;
            }
            if let Some(tail) = &mut watched.tail {
                for record in tail.new_records() {
                    if let Some(event) = transcript_record(&watched.agent, id, &record, now_millis()) {
                        events.push(event);
                        break;
                    }
                }
            }
            let Some(agent_process) = &watched.process else { continue };
            if let Some((baseline, looked)) = &mut watched.screen {
                let marker = switchboard_core::agent(&watched.agent).and_then(|agent| agent.screen_cancel);
                if let Some(marker) =
                    marker.filter(|_| looked.elapsed() >= crate::instance::observe::screen::SCREEN_EVERY)
                {
                    *looked = Instant::now();
                    let marks = crate::instance::observe::screen::capture(agent_process)
                        .map(|screen| crate::instance::observe::screen::marks(&screen, marker));
                    if marks.is_some_and(|marks| marks > *baseline) {
                        events.push(screen_cancelled(&watched.agent, id, now_millis()));
                        watched.screen = None;
                    }
                }
            }
            if check_liveness && !process::is_alive(agent_process) {
                events.push(process_exited(&watched.agent, id, now_millis()));
                gone.push(id.clone());
                continue;
            }
            if let Some(before) = &mut watched.children_at_block {
                let children = process::children(agent_process.pid);
                let asked = watched.asked.as_deref().and_then(command_key);
                if approved(
                    before,
                    &mut watched.candidates,
                    watched.last_hook,
                    children,
                    asked.as_deref(),
                    process::cmdline,
                ) {
                    events.push(tool_started(&watched.agent, id, now_millis()));
                }
            }
        }
        for id in gone {
            self.sessions.remove(&id);
        }
        for event in events {
            self.inputs.send(Input::Hook(Box::new(event)));
        }
    }
}

/// Whether the blocked agent's children show the approved tool running: a child that was not
/// there at the block, has lived [`TOOL_CONFIRM`], and did not start within [`HOOK_QUIET`] of a
/// hook event (other hooks of that event run then). Children that come and go are hooks; they
/// join `before`. Once a tool is confirmed, the children of that moment become the new `before`.
///
/// A new child whose command line holds `asked` (the command the permission asked for, see
/// [`command_key`]) is the tool at once, however soon after the prompt the user approved.
fn approved(
    before: &mut HashSet<u32>,
    candidates: &mut HashMap<u32, Instant>,
    last_hook: Instant,
    now: HashSet<u32>,
    asked: Option<&str>,
    command_of: impl Fn(u32) -> Option<String>,
) -> bool {
    let runs_asked = |child: &u32| asked.is_some_and(|asked| runs(&command_of, *child, asked));
    if now.iter().any(|child| !before.contains(child) && runs_asked(child)) {
        *before = now;
        candidates.clear();
        return true;
    }
    candidates.retain(|child, _| {
        let alive = now.contains(child);
        if !alive {
            before.insert(*child);
        }
        alive
    });
    for child in now.iter().filter(|child| !before.contains(child)) {
        candidates.entry(*child).or_insert_with(Instant::now);
    }
    let near_hook = |seen: Instant| {
        let gap = if seen > last_hook { seen - last_hook } else { last_hook - seen };
        gap < HOOK_QUIET
    };
    let confirmed = candidates.values().any(|seen| seen.elapsed() >= TOOL_CONFIRM && !near_hook(*seen));
    if confirmed {
        *before = now;
        candidates.clear();
    }
    confirmed
}

/// The blocked agent's children as they were at the block, from its children now, `since_block`
/// later: all of them but one that runs the asked command and started since — that one is the
/// tool, started before the watch looked, and left out so that the next look approves it.
/// `running_for` is how long a child has run at the least; a child whose age is unknown was there.
fn at_block(
    mut children: HashSet<u32>,
    asked: Option<&str>,
    since_block: Duration,
    command_of: impl Fn(u32) -> Option<String>,
    running_for: impl Fn(u32) -> Option<Duration>,
) -> HashSet<u32> {
    let Some(asked) = asked else { return children };
    children.retain(|child| {
        !(runs(&command_of, *child, asked) && running_for(*child).is_some_and(|ran| ran < since_block))
    });
    children
}

/// Whether `child`'s command line holds `asked` (a [`command_key`]).
fn runs(command_of: impl Fn(u32) -> Option<String>, child: u32, asked: &str) -> bool {
    command_of(child).is_some_and(|command| collapse(&command).contains(asked))
}

/// The part of a permission's command that the tool's process shows in its command line: up to
/// the first quote or backslash (a CLI may run it as `bash -c '…'` with its quotes escaped) or
/// ellipsis (a clipped message), whitespace collapsed; `None` when too short to tell anything.
fn command_key(asked: &str) -> Option<String> {
    let cut = asked.find(['\'', '"', '\\', '…', '`']).unwrap_or(asked.len());
    let key = collapse(&asked[..cut]);
    (key.chars().count() >= 3).then_some(key)
}

fn collapse(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The unread end of a file that only grows (until it is rotated or truncated).
struct Tail {
    path: PathBuf,
    inode: u64,
    offset: u64,
}

impl Tail {
    /// Starts at `from` — where the file ended when the turn opened — or, without it, at the
    /// file's current end: only what is written from then on is read. A `from` past the end (the
    /// file was cut or replaced since) counts for nothing. A file that does not exist yet (Claude
    /// Code creates its transcript ~70 ms after the first prompt's hook) is looked for at every
    /// look, and read from its start once it appears: everything in it was written in this turn.
    /// Anything else that is not a regular file is not followed.
    fn from(path: PathBuf, from: Option<u64>) -> Option<Self> {
        match open_regular(&path) {
            Ok(file) => {
                let meta = file.metadata().ok()?;
                let offset = from.filter(|from| *from <= meta.len()).unwrap_or(meta.len());
                Some(Self { path, inode: crate::platform::file_id(&meta), offset })
            }
            // No real file has inode 0: the first look that finds it starts at offset 0.
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => Some(Self { path, inode: 0, offset: 0 }),
            Err(_) => None,
        }
    }

    /// The complete JSON lines appended since the last look. A replaced or truncated file is
    /// read from its start; more than [`READ_CAP`] at once is skipped to its last part.
    fn new_records(&mut self) -> Vec<Value> {
        // A stat per look; the file is opened only when it changed.
        let Ok(meta) = std::fs::metadata(&self.path) else { return Vec::new() };
        if !meta.is_file() {
            return Vec::new();
        }
        if crate::platform::file_id(&meta) != self.inode || meta.len() < self.offset {
            self.inode = crate::platform::file_id(&meta);
            self.offset = 0;
        }
        if meta.len() == self.offset {
            return Vec::new();
        }
        let Ok(mut file) = open_regular(&self.path) else { return Vec::new() };
        let Ok(meta) = file.metadata() else { return Vec::new() };
        let mut start = self.offset;
        let mut skipped_to_middle = false;
        if meta.len() - start > READ_CAP {
            start = meta.len() - READ_CAP;
            skipped_to_middle = true;
        }
        let mut bytes = Vec::with_capacity(usize::try_from(meta.len() - start).unwrap_or(0));
        if file.seek(SeekFrom::Start(start)).is_err() || file.take(READ_CAP).read_to_end(&mut bytes).is_err() {
            return Vec::new();
        }
        // Only whole lines: a line being written is read on the next look.
        let Some(last_newline) = bytes.iter().rposition(|b| *b == b'\n') else {
            if skipped_to_middle {
                self.offset = meta.len();
            }
            return Vec::new();
        };
        self.offset = start + last_newline as u64 + 1;
        let mut lines = bytes[..last_newline].split(|b| *b == b'\n');
        if skipped_to_middle {
            lines.next(); // starts mid-line
        }
        lines.filter_map(|line| serde_json::from_slice(line).ok()).collect()
    }
}

#[cfg(test)]
mod tests;
