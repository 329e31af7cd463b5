//! `switchboard link` (issue 23, the first slice): a real `serve`, the real `link` as a child
//! with pipes, hooks posted over HTTP. A test [`Board`] plays the peer — the desktop that will
//! follow a remote — and checks the protocol as it applies it: one `hello`, a whole snapshot,
//! then numbers that go up by one, never repeated, never skipped; after a resume, exactly the
//! updates it missed.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::support::{eventually, fixture, request, run, Serve, BIN};

/// The longest any one frame may take to come: far above what it needs (milliseconds).
const PATIENCE: Duration = Duration::from_secs(20);

/// A running `switchboard link`, its stdout read line by line on a thread.
struct Link {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<Vec<u8>>,
}

impl Link {
    fn start(serve: &Serve) -> Self {
        let mut child = Command::new(BIN)
            .arg("link")
            .env("SWITCHBOARD_HOME", serve.home())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let (sender, lines) = channel();
        std::thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            loop {
                let mut line = Vec::new();
                match reader.read_until(b'\n', &mut line) {
                    Ok(0) | Err(_) => return,
                    Ok(_) => {
                        if sender.send(line).is_err() {
                            return;
                        }
                    }
                }
            }
        });
        Self { stdin: child.stdin.take(), child, lines }
    }

    /// The next frame, or `None` if none comes within `wait` (or the link closed its output).
    fn try_next(&self, wait: Duration) -> Option<Value> {
        match self.lines.recv_timeout(wait) {
            Ok(line) => {
                assert!(line.ends_with(b"\n") && line.len() <= 1024 * 1024 + 1, "a frame is one capped line");
                Some(serde_json::from_slice(&line).unwrap_or_else(|e| panic!("not JSON ({e}): {line:?}")))
            }
            Err(RecvTimeoutError::Timeout | RecvTimeoutError::Disconnected) => None,
        }
    }

    fn next(&self) -> Value {
        self.try_next(PATIENCE).expect("a frame from the link")
    }

    /// The next frame that is not an update (the link's own answer).
    fn next_answer(&self) -> Value {
        loop {
            let frame = self.next();
            if !["changed", "removed", "notices", "alive"].contains(&frame["type"].as_str().unwrap()) {
                return frame;
            }
        }
    }

    fn send(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().unwrap();
        stdin.write_all(bytes).unwrap();
        stdin.flush().unwrap();
    }

    fn resume(&mut self, instance: &str, after: u64) {
        let frame = json!({"type": "resume", "instance": instance, "after": after});
        self.send(format!("{frame}\n").as_bytes());
    }

    /// Waits for the link to exit on its own; its exit status and what it said on stderr.
    fn exit(mut self) -> (std::process::ExitStatus, String) {
        let status = eventually(PATIENCE, || self.child.try_wait().unwrap()).expect("the link exits");
        let mut stderr = String::new();
        std::io::Read::read_to_string(&mut self.child.stderr.take().unwrap(), &mut stderr).unwrap();
        (status, stderr)
    }
}

impl Drop for Link {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The peer: the sessions as the frames left them, checked as they come.
#[derive(Default)]
struct Board {
    instance: String,
    seq: u64,
    sessions: BTreeMap<String, Value>,
    /// Session frames still to come for the snapshot being read.
    snapshot_left: usize,
    /// A resume was sent: frames before its `resumed` belong to the stream it replaced.
    resuming: bool,
    /// Numbered updates applied, and snapshots taken, since the board began.
    updates: Vec<u64>,
    snapshots: usize,
}

impl Board {
    fn apply(&mut self, frame: &Value) {
        let kind = frame["type"].as_str().unwrap();
        if self.resuming {
            self.resuming = kind != "resumed";
            return;
        }
        if self.snapshot_left > 0 {
            assert_eq!(kind, "session", "a snapshot's sessions come right after it: {frame}");
            let session = frame["session"].clone();
            self.sessions.insert(session["sessionId"].as_str().unwrap().to_owned(), session);
            self.snapshot_left -= 1;
            return;
        }
        match kind {
            "hello" => {
                assert!(self.instance.is_empty(), "one hello per link");
                assert_eq!(frame["protocol"], 1);
                assert!(!frame["host"].as_str().unwrap().is_empty());
                assert_eq!(frame["version"], env!("CARGO_PKG_VERSION"));
                self.instance = frame["instance"].as_str().unwrap().to_owned();
            }
            "snapshot" => {
                self.seq = frame["seq"].as_u64().unwrap();
                self.sessions.clear();
                self.snapshot_left = frame["sessions"].as_u64().unwrap() as usize;
                self.snapshots += 1;
            }
            "changed" | "removed" | "notices" => {
                let seq = frame["seq"].as_u64().unwrap();
                assert_eq!(seq, self.seq + 1, "numbers go up by one, nothing skipped or repeated: {frame}");
                self.seq = seq;
                self.updates.push(seq);
                match kind {
                    "changed" => {
                        let session = frame["session"].clone();
                        self.sessions.insert(session["sessionId"].as_str().unwrap().to_owned(), session);
                    }
                    "removed" => {
                        let id = frame["sessionId"].as_str().unwrap();
                        assert!(self.sessions.remove(id).is_some(), "only a known session is removed: {frame}");
                    }
                    _ => {}
                }
            }
            "alive" => assert_eq!(frame["seq"].as_u64(), Some(self.seq)),
            other => panic!("unexpected frame {other}: {frame}"),
        }
    }

    /// Reads frames until the board equals `truth()`, checked whenever the link falls quiet.
    fn follow(&mut self, link: &Link, truth: impl Fn() -> BTreeMap<String, Value>) {
        let started = Instant::now();
        loop {
            match link.try_next(Duration::from_millis(200)) {
                Some(frame) => self.apply(&frame),
                None if self.snapshot_left == 0 && !self.resuming && self.sessions == truth() => return,
                None => {}
            }
            if started.elapsed() >= PATIENCE {
                let truth = truth();
                let differ: Vec<String> = truth
                    .iter()
                    .filter(|(id, s)| self.sessions.get(*id) != Some(s))
                    .map(|(id, s)| format!("{id}: link {:?} / instance {s}", self.sessions.get(id)))
                    .collect();
                panic!("the board never caught up: {} sessions; differ: {differ:#?}", self.sessions.len());
            }
        }
    }
}

/// The instance's own snapshot, by id.
fn by_id(snapshot: &Value) -> BTreeMap<String, Value> {
    let sessions = snapshot["sessions"].as_array().unwrap();
    sessions.iter().map(|s| (s["sessionId"].as_str().unwrap().to_owned(), s.clone())).collect()
}

/// What `switchboard status --json` says, by id.
fn status_json(serve: &Serve) -> BTreeMap<String, Value> {
    let output = run(serve.home(), &["status", "--json"], b"");
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    by_id(&serde_json::from_slice(&output.stdout).unwrap())
}

fn post(serve: &Serve, id: &str, status: &str) {
    assert_eq!(serve.post("custom", &json!({"sessionId": id, "status": status, "message": id})), 204);
}

#[test]
fn a_link_says_hello_then_a_snapshot_then_numbered_updates_that_match_the_instance() {
    let serve = Serve::start();
    for id in ["before-a", "before-b", "before-c"] {
        post(&serve, id, "working");
    }
    eventually(PATIENCE, || (by_id(&serve.sessions()).len() == 3).then_some(())).unwrap();
    let link = Link::start(&serve);
    let mut board = Board::default();
    board.apply(&link.next());
    assert!(!board.instance.is_empty(), "hello comes first");
    let snapshot = link.next();
    assert_eq!(snapshot["type"], "snapshot");
    assert_eq!(snapshot["sessions"], 3);
    board.apply(&snapshot);
    for _ in 0..3 {
        board.apply(&link.next());
    }
    assert_eq!(board.sessions, by_id(&serve.sessions()), "the snapshot is the instance's own");

    post(&serve, "before-a", "done");
    post(&serve, "after-d", "blocked");
    let path = format!("/sessions/before-b?key={}", serve.endpoint.key);
    assert_eq!(request(serve.addr(), "DELETE", &path, b"").0, 204);
    board.follow(&link, || by_id(&serve.sessions()));
    assert!(board.updates.len() >= 3, "a change, a new session and a removal: {:?}", board.updates);
    assert!(!board.sessions.contains_key("before-b"));
    assert_eq!(board.sessions["before-a"]["status"], "done");
    assert_eq!(board.sessions["after-d"]["status"], "blocked");
}

#[test]
fn a_link_killed_mid_burst_resumes_with_nothing_lost_and_nothing_applied_twice() {
    let serve = Serve::start();
    let first = Link::start(&serve);
    let mut board = Board::default();
    board.follow(&first, || by_id(&serve.sessions()));

    // 1,000 events over 50 sessions, some removed on the way (and back with their next event);
    // the link is killed once it has applied a few of them, and the rest arrive while it is down.
    let (addr, key) = (serve.addr(), serve.endpoint.key.clone());
    let burst = std::thread::spawn(move || {
        let statuses = ["working", "blocked", "working", "done"];
        for n in 0..1_000 {
            let event = json!({"sessionId": format!("s{}", n % 50), "status": statuses[(n / 50) % 4]});
            assert_eq!(request(addr, "POST", &format!("/hook/custom?key={key}"), event.to_string().as_bytes()).0, 204);
            if n % 250 == 124 {
                request(addr, "DELETE", &format!("/sessions/s{}?key={key}", n % 7), b"");
            }
        }
    });
    while board.updates.len() < 50 {
        board.apply(&first.next());
    }
    let (instance, before, snapshots) = (board.instance.clone(), board.seq, board.snapshots);
    drop(first);
    burst.join().unwrap();
    let truth = eventually(PATIENCE, || {
        let truth = status_json(&serve);
        (truth.len() == 50 && truth.values().all(|s| s["status"] == "done")).then_some(truth)
    });
    assert!(truth.is_some(), "the instance took the burst");

    let mut second = Link::start(&serve);
    let hello = second.next();
    assert_eq!((hello["type"].as_str(), hello["instance"].as_str()), (Some("hello"), Some(instance.as_str())));
    board.resuming = true;
    second.resume(&instance, before);
    board.follow(&second, || status_json(&serve));
    assert_eq!(board.snapshots, snapshots, "the ring still held every update after {before}: a replay, not a snapshot");
    assert!(board.seq > before);
    let replayed = &board.updates[board.updates.iter().position(|&seq| seq > before).unwrap()..];
    assert_eq!(replayed, (before + 1..=board.seq).collect::<Vec<_>>(), "no gap, nothing twice");
    assert_eq!(board.sessions, status_json(&serve));

    // A resume the ring cannot serve (another run's numbers, or one from the future) gets a
    // fresh snapshot with the current number.
    for (other, after) in [("0123456789abcdef", before), (instance.as_str(), board.seq + 1_000)] {
        let mut fresh = Board { instance: instance.clone(), resuming: true, ..Board::default() };
        second.resume(other, after);
        fresh.follow(&second, || status_json(&serve));
        assert_eq!(fresh.snapshots, 1, "{other} after {after}");
        assert_eq!(fresh.seq, board.seq, "the snapshot carries the current number");
        assert_eq!(fresh.sessions, board.sessions);
    }
}

#[test]
fn garbage_and_an_oversize_frame_get_a_clear_error_and_the_link_and_serve_go_on() {
    let serve = Serve::start();
    let mut link = Link::start(&serve);
    let mut board = Board::default();
    board.follow(&link, || by_id(&serve.sessions()));

    link.send(b"resume from 4\n");
    let error = link.next();
    assert_eq!((error["type"].as_str(), error["kind"].as_str()), (Some("error"), Some("bad_frame")), "{error}");
    assert!(error["message"].as_str().unwrap().contains("not a frame"), "{error}");

    let mut oversize = vec![b'x'; 3 * 1024 * 1024];
    oversize.push(b'\n');
    link.send(&oversize);
    let error = link.next();
    assert_eq!(error["kind"], "too_large", "{error}");
    assert!(error["message"].as_str().unwrap().contains("1048576 bytes"), "{error}");

    link.send(br#"{"type":"decide","sessionId":"x"}"#);
    link.send(b"\n");
    assert!(link.next()["message"].as_str().unwrap().contains("missing field"));

    // Still relaying, and serve still answers.
    post(&serve, "after-garbage", "working");
    board.follow(&link, || by_id(&serve.sessions()));
    assert!(board.sessions.contains_key("after-garbage"));
    assert_eq!(board.updates, [1]);

    // The peer hangs up: the link exits cleanly.
    drop(link.stdin.take());
    let (status, _) = link.exit();
    assert!(status.success(), "{status:?}");
    assert!(serve.session("after-garbage").is_some());
}

#[test]
fn a_decision_sent_down_the_link_reaches_the_held_permission() {
    let serve = Serve::start();
    let mut link = Link::start(&serve);
    let mut board = Board::default();
    board.follow(&link, || by_id(&serve.sessions()));

    let (addr, key) = (serve.addr(), serve.endpoint.key.clone());
    let held = std::thread::spawn(move || {
        let body = fixture("claude/PermissionRequest.json").to_string();
        request(addr, "POST", &format!("/hold/claude?key={key}&ms=60000"), body.as_bytes())
    });
    let offered = || by_id(&serve.sessions()).into_values().find(|s| s["decision"].is_u64());
    let session = eventually(PATIENCE, offered).expect("the permission is offered");
    board.follow(&link, || by_id(&serve.sessions()));
    assert_eq!(board.sessions[session["sessionId"].as_str().unwrap()]["decision"], session["decision"]);
    let (id, hold) = (session["sessionId"].as_str().unwrap(), session["decision"].as_u64().unwrap());

    let decide = json!({"type": "decide", "sessionId": id, "id": hold, "verdict": "deny"});
    link.send(format!("{decide}\n").as_bytes());
    let answer = link.next_answer();
    assert_eq!(answer, json!({"type": "decided", "sessionId": id, "id": hold, "verdict": "deny"}));
    let (status, body) = held.join().unwrap();
    assert_eq!((status, serde_json::from_slice::<Value>(&body).unwrap()), (200, json!({"verdict": "deny"})));

    // The same hold again: nothing waits for it any more.
    link.send(format!("{decide}\n").as_bytes());
    let again = link.next_answer();
    assert_eq!((again["type"].as_str(), again["kind"].as_str()), (Some("error"), Some("decision")), "{again}");
}

#[test]
fn with_no_instance_the_link_says_so_and_exits_non_zero_and_when_it_stops_too() {
    let home = tempfile::tempdir().unwrap();
    let output = run(home.path(), &["link"], b"");
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("no Switchboard instance is running"), "{stderr}");
    let frame: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(frame["kind"], "not_running", "{frame}");

    let mut serve = Serve::start();
    let link = Link::start(&serve);
    let mut board = Board::default();
    board.follow(&link, || by_id(&serve.sessions()));
    assert!(serve.terminate().success());
    let gone = link.next();
    assert_eq!(gone["kind"], "instance_gone", "{gone}");
    let (status, stderr) = link.exit();
    assert!(!status.success());
    assert!(stderr.contains("the instance stopped"), "{stderr}");
}
