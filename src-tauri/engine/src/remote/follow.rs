//! One remote's follower: runs its command, reads the link's frames, hands them to the hub, and
//! reconnects with a back-off when the pipe breaks or goes silent.
//!
//! What reaches the hub is bounded like hooks (`Inputs::send`): a remote that floods past the
//! queue's bound has updates dropped — and the follower then asks the link to resume after the
//! last number it applied, so nothing is lost, only merged into a replay or a fresh snapshot.

use std::collections::{HashSet, VecDeque};
use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, sync_channel, RecvTimeoutError};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use super::{LinkState, RemoteDecideError, RemoteState, MAX_BACKOFF};
use crate::clock::now_millis;
use crate::instance::hub::journal::HEARTBEAT;
use crate::instance::hub::{Input, Inputs, RemoteReport};
use crate::instance::settings::RemoteSpec;
use crate::protocol::link::{encode, FrameReader, LinkFrame, PeerFrame, Said};
use crate::protocol::Verdict;

mod link;

use link::Link;

/// What the shell on the remote is told: run its `switchboard link`, starting its instance if
/// none runs, resuming after the last update applied (`--resume INSTANCE:N`, hex and digits). One
/// line; nothing else is written until the link's `hello` (a shell reading a pipe may read ahead,
/// and what it read would be lost to the link).
pub fn link_script(resume: Option<&(String, u64)>) -> String {
    let resume = resume
        .filter(|(instance, _)| !instance.is_empty() && instance.bytes().all(|b| b.is_ascii_alphanumeric()))
        .map(|(instance, after)| format!(" --resume {instance}:{after}"))
        .unwrap_or_default();
    concat!(
        r#"p="$HOME/.local/bin/switchboard"; [ -x "$p" ] || p="$(command -v switchboard)" || "#,
        r#"{ echo '{"type":"error","kind":"not_running","message":"switchboard is not installed there: run `switchboard remote install` for it"}'; exit 3; }; "#,
        r#"exec "$p" link --serve"#,
    )
    .to_owned()
        + &resume
        + "\n"
}

/// The link sends at least an `alive` every [`HEARTBEAT`]: silence thrice as long is a dead pipe.
const SILENCE: Duration = Duration::from_secs(HEARTBEAT.as_secs() * 3);
/// Lines that are not frames tolerated in one connection (a chatty login shell prints some).
const MAX_BAD_LINES: usize = 100;
/// A decision's round trip over the link.
pub const DECISION_TIMEOUT: Duration = Duration::from_secs(5);
/// How long an answer or reply waits for the box's word: it types there, then waits for its CLI
/// to take it (`answer::confirm_within`).
const ANSWER_TIMEOUT: Duration = Duration::from_secs(30);
/// The end of the command's stderr kept to say why it failed.
const STDERR_TAIL: usize = 2048;
/// A snapshot must arrive whole within this long of its announcement (issue 34: one that
/// announces thousands of sessions and never finishes would otherwise be kept open by `alive`):
/// `SWITCHBOARD_SNAPSHOT_WITHIN_MS`, else a minute.
fn snapshot_within() -> Duration {
    let ms = std::env::var("SWITCHBOARD_SNAPSHOT_WITHIN_MS").ok().and_then(|ms| ms.parse().ok()).unwrap_or(60_000);
    Duration::from_millis(ms)
}
/// Frames a box may send in one [`RATE_WINDOW`]: a chattier one is disconnected, with the reason.
/// Ten times what a thousand busy agents send.
/// `SWITCHBOARD_LINK_MAX_FRAMES` sets another bound (tests, on a machine of any speed).
fn max_frames_per_window() -> u32 {
    std::env::var("SWITCHBOARD_LINK_MAX_FRAMES").ok().and_then(|n| n.parse().ok()).unwrap_or(100_000)
}
const RATE_WINDOW: Duration = Duration::from_secs(10);
/// How much of a box's error text is kept (and logged), and how often one is logged.
const ERROR_CHARS: usize = 300;
const ERROR_LOG_EVERY: Duration = Duration::from_secs(10);

pub(super) struct Follower {
    shared: Arc<Shared>,
}

impl Follower {
    pub(super) fn start(spec: RemoteSpec, inputs: Inputs) -> Self {
        let shared = Arc::new(Shared {
            status: Mutex::new(RemoteState { state: LinkState::Connecting, ..RemoteState::not_followed(&spec) }),
            spec,
            stopped: Mutex::new(false),
            wake: Condvar::new(),
            link: Mutex::new(None),
            pending: Mutex::new(VecDeque::new()),
        });
        let follower = Arc::clone(&shared);
        let started = std::thread::Builder::new()
            .name(format!("switchboard-remote-{}", shared.spec.name))
            .spawn(move || follow(&follower, &inputs));
        if let Err(error) = started {
            shared.status().error = Some(format!("cannot start its follower: {error}"));
        }
        Self { shared }
    }

    pub(super) fn spec(&self) -> &RemoteSpec {
        &self.shared.spec
    }

    pub(super) fn state(&self) -> RemoteState {
        self.shared.status().clone()
    }

    pub(super) fn handle(&self) -> Arc<Shared> {
        Arc::clone(&self.shared)
    }

    /// Stops following: the command is ended and the thread returns soon after.
    pub(super) fn stop(self) {
        *lock(&self.shared.stopped) = true;
        self.shared.wake.notify_all();
        self.shared.hang_up();
    }
}

/// What the follower's thread shares with the rest of the instance.
pub struct Shared {
    spec: RemoteSpec,
    status: Mutex<RemoteState>,
    stopped: Mutex<bool>,
    wake: Condvar,
    /// The running command: its stdin (frames to the link) and its process group.
    link: Mutex<Option<(ChildStdin, u32)>>,
    /// Decisions sent and not answered yet, oldest first (the link answers in order).
    pending: Mutex<VecDeque<Pending>>,
}

/// A decision (`id`) or an answer (`None`) sent down the link, waiting for the link's word:
/// what was given (an answer's `Delivered`), or why not.
struct Pending {
    /// This request's own number: a timed-out one is removed by it.
    seq: u64,
    session_id: String,
    id: Option<u64>,
    answer: mpsc::Sender<Result<serde_json::Value, RemoteDecideError>>,
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Shared {
    fn status(&self) -> MutexGuard<'_, RemoteState> {
        lock(&self.status)
    }

    fn stopped(&self) -> bool {
        *lock(&self.stopped)
    }

    /// Waits `delay`, or less if the follower is stopped meanwhile.
    fn sleep(&self, delay: Duration) {
        let stopped = lock(&self.stopped);
        let _ = self.wake.wait_timeout_while(stopped, delay, |stopped| !*stopped);
    }

    /// Writes a frame to the link; `false` when it is not connected.
    fn send(&self, frame: &PeerFrame) -> bool {
        let Ok(line) = encode(frame) else { return false };
        match &mut *lock(&self.link) {
            Some((stdin, _)) => stdin.write_all(&line).and_then(|()| stdin.flush()).is_ok(),
            None => false,
        }
    }

    /// Ends the running command (its whole process group), if any.
    fn hang_up(&self) {
        if let Some((stdin, group)) = lock(&self.link).take() {
            drop(stdin);
            crate::platform::terminate_group(group);
        }
    }

    /// Answers the held permission `id` of the remote's session `session_id` through the link,
    /// and waits for the link's answer.
    pub fn decide(&self, session_id: &str, id: u64, verdict: Verdict) -> Result<(), RemoteDecideError> {
        let frame = |request| PeerFrame::Decide { session_id: session_id.to_owned(), id, verdict, request };
        self.ask(session_id, Some(id), frame, DECISION_TIMEOUT).map(|_| ())
    }

    /// Gives the remote's session `session_id` an answer or reply through the link (the remote
    /// delivers it as it would its own); what was given there, as its instance said.
    pub fn answer(&self, session_id: &str, said: Said) -> Result<serde_json::Value, RemoteDecideError> {
        let frame = |request| PeerFrame::Answer { session_id: session_id.to_owned(), said: said.clone(), request };
        self.ask(session_id, None, frame, ANSWER_TIMEOUT)
    }

    /// Sends the frame (numbered: `frame(request)`) and waits for the link's word on it.
    fn ask(
        &self,
        session_id: &str,
        id: Option<u64>,
        frame: impl FnOnce(Option<u64>) -> PeerFrame,
        timeout: Duration,
    ) -> Result<serde_json::Value, RemoteDecideError> {
        let name = &self.spec.name;
        let (answer, answered) = mpsc::channel();
        static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
        let seq = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        {
            // Queued before it is sent: the answer can come back at once.
            let mut pending = lock(&self.pending);
            pending.push_back(Pending { seq, session_id: session_id.to_owned(), id, answer });
            if !self.send(&frame(Some(seq))) {
                pending.pop_back();
                return Err(RemoteDecideError::Unreachable(name.clone()));
            }
        }
        answered.recv_timeout(timeout).unwrap_or_else(|_| {
            // Forgotten once timed out: a late word must not answer the next request.
            lock(&self.pending).retain(|waiting| waiting.seq != seq);
            Err(RemoteDecideError::NoAnswer(name.clone(), timeout.as_secs()))
        })
    }

    /// The link's word on request `request` — or, from a link too old to number its answers, on a
    /// decision (`id`) or answer (`None`) of `session_id`, an error frame being the oldest's. A
    /// word for a request no longer waiting (timed out) is dropped: it answers nothing else.
    fn answered(
        &self,
        request: Option<u64>,
        session_id: Option<&str>,
        id: Option<u64>,
        result: Result<serde_json::Value, RemoteDecideError>,
    ) {
        let mut pending = lock(&self.pending);
        let at = match (request, session_id) {
            (Some(request), _) => pending.iter().position(|p| p.seq == request),
            (None, Some(session_id)) => pending.iter().position(|p| p.session_id == session_id && p.id == id),
            (None, None) => (!pending.is_empty()).then_some(0),
        };
        if let Some(waiting) = at.and_then(|at| pending.remove(at)) {
            let _ = waiting.answer.send(result);
        }
    }

    fn fail_pending(&self, why: &str) {
        for waiting in lock(&self.pending).drain(..) {
            let _ = waiting.answer.send(Err(RemoteDecideError::Refused(format!("the link went down: {why}"))));
        }
    }
}

/// Where the follower is in the remote's numbered stream, across reconnects.
#[derive(Default)]
struct Position {
    /// The remote instance's run and the last number applied from it.
    applied: Option<(String, u64)>,
    /// The remote's sessions on the board (ids there).
    known: HashSet<String>,
}

/// The follower's thread: connect, follow, and after each disconnect wait and try again.
fn follow(shared: &Arc<Shared>, inputs: &Inputs) {
    let host = shared.spec.name.clone();
    let mut position = Position::default();
    let mut backoff = Duration::from_secs(1);
    let mut down_since = None;
    while !shared.stopped() {
        let (connected, why) = connect(shared, inputs, &mut position);
        if shared.stopped() {
            return;
        }
        if connected {
            backoff = Duration::from_secs(1);
            down_since = None;
        }
        let since = *down_since.get_or_insert_with(now_millis);
        tracing::info!(remote = %host, %why, "the link to the remote is down");
        // One per disconnect, never dropped: the board must show it.
        inputs.push(Input::Remote { host: host.clone(), report: RemoteReport::Unreachable { since } });
        {
            let mut status = shared.status();
            status.state = LinkState::Unreachable;
            status.since = Some(since);
            status.error = Some(why);
        }
        shared.sleep(backoff);
        backoff = (backoff * 2).min(MAX_BACKOFF);
        shared.status().state = LinkState::Connecting;
    }
}

enum Line {
    Frame(Vec<u8>),
    TooLarge,
    End(String),
}

/// One connection, until it ends: whether it got as far as the link's `hello`, and why it ended.
fn connect(shared: &Arc<Shared>, inputs: &Inputs, position: &mut Position) -> (bool, String) {
    let spec = &shared.spec;
    let mut command = Command::new(&spec.command[0]);
    command.args(&spec.command[1..]).args(["sh", "-s"]);
    command.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped());
    // Its own process group: hanging up ends the whole command (ssh, and what it started).
    crate::platform::own_group(&mut command);
    let mut child = match command.spawn() {
        Ok(child) => child,
        Err(error) => return (false, format!("cannot run `{}`: {error}", spec.command[0])),
    };
    let (Some(mut stdin), Some(stdout), Some(stderr)) = (child.stdin.take(), child.stdout.take(), child.stderr.take())
    else {
        return (false, "the command gave no pipe".into());
    };
    let tail = Arc::new(Mutex::new(VecDeque::new()));
    keep_tail(stderr, Arc::clone(&tail));
    let opening = link_script(position.applied.as_ref());
    if stdin.write_all(opening.as_bytes()).and_then(|()| stdin.flush()).is_err() {
        return (false, finish(shared, child, &tail, "the command closed its input".into()));
    }
    *lock(&shared.link) = Some((stdin, child.id()));
    if shared.stopped() {
        shared.hang_up();
    }

    let (lines, incoming) = sync_channel(256);
    let reader = std::thread::Builder::new().name(format!("switchboard-remote-read-{}", spec.name)).spawn(move || {
        let mut frames = FrameReader::new(BufReader::new(stdout));
        loop {
            let line = match frames.next_line() {
                Ok(Some(Ok(line))) => Line::Frame(line),
                Ok(Some(Err(_))) => Line::TooLarge,
                Ok(None) => Line::End("the link closed".into()),
                Err(error) => Line::End(error.to_string()),
            };
            let end = matches!(line, Line::End(_));
            if lines.send(line).is_err() || end {
                return;
            }
        }
    });
    if let Err(error) = reader {
        return (false, finish(shared, child, &tail, error.to_string()));
    }

    let mut link = Link {
        shared,
        inputs,
        host: &spec.name,
        position,
        instance: None,
        awaiting_resumed: false,
        snapshot: None,
        bad_lines: 0,
        said_reachable: false,
        window: (std::time::Instant::now(), 0),
        errors_logged: None,
    };
    let why = loop {
        if let Err(why) = link.bounds() {
            break why;
        }
        match incoming.recv_timeout(SILENCE) {
            Ok(Line::Frame(line)) => match crate::protocol::link::decode::<LinkFrame>(&line) {
                Ok(frame) => {
                    if let Err(why) = link.frame(frame) {
                        break why;
                    }
                }
                Err(error) => {
                    link.bad_lines += 1;
                    if link.bad_lines > MAX_BAD_LINES {
                        break format!("it sent more than {MAX_BAD_LINES} lines that are not frames ({error})");
                    }
                }
            },
            Ok(Line::TooLarge) => break "it sent a frame over the size limit".into(),
            Ok(Line::End(why)) => break why,
            Err(RecvTimeoutError::Timeout) => break format!("it said nothing for {} s", SILENCE.as_secs()),
            Err(RecvTimeoutError::Disconnected) => break "the link closed".into(),
        }
    };
    let connected = link.instance.is_some();
    (connected, finish(shared, child, &tail, why))
}

/// Hangs up, reaps the command and says why it ended (with what it printed on stderr).
fn finish(shared: &Shared, mut child: Child, tail: &Mutex<VecDeque<u8>>, why: String) -> String {
    shared.hang_up();
    let _ = child.kill();
    let _ = child.wait();
    shared.fail_pending(&why);
    // The box's own words, on their way to the log, the board and `remote list`: one line,
    // nothing a terminal would act on (issue 45: an OSC 52 once reached the user's clipboard).
    let said = String::from_utf8_lossy(lock(tail).make_contiguous()).trim().to_owned();
    let said = crate::text::printable_line(said.lines().last().unwrap_or_default()).trim().to_owned();
    if said.is_empty() {
        why
    } else {
        format!("{why}: {said}")
    }
}

/// Keeps the last [`STDERR_TAIL`] bytes the command writes on stderr.
fn keep_tail(stderr: impl Read + Send + 'static, tail: Arc<Mutex<VecDeque<u8>>>) {
    let _ = std::thread::Builder::new().name("switchboard-remote-stderr".into()).spawn(move || {
        let mut stderr = BufReader::new(stderr);
        loop {
            let buffer = match stderr.fill_buf() {
                Ok([]) | Err(_) => return,
                Ok(buffer) => buffer,
            };
            let used = buffer.len();
            let mut tail = lock(&tail);
            tail.extend(buffer);
            let excess = tail.len().saturating_sub(STDERR_TAIL);
            tail.drain(..excess);
            drop(tail);
            stderr.consume(used);
        }
    });
}

#[cfg(test)]
mod tests;
