//! Issue 34: a hostile box, through `remote add NAME -- <command>` (a scripted fake box speaking
//! the link protocol, `tests/fixtures/fake-box.py`), cannot hurt the desktop: each attack of the
//! issue as a case, asserting the bound — `serve`'s memory high-water, its log's size, this
//! machine's sessions and holds intact, `status` working — and printing the figures measured.

use std::io::Write;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::support::{eventually, fixture, run, Serve, BIN};

const FAKE_BOX: &str = include_str!("fixtures/fake-box.py");
/// Generous for a slow machine; the attacks take seconds.
const PATIENCE: Duration = Duration::from_secs(120);

/// The fake box's files: its script, the session it builds frames from, what it was sent.
struct FakeBox {
    dir: tempfile::TempDir,
}

impl FakeBox {
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("fake-box.py"), FAKE_BOX).unwrap();
        // A session as a real instance sends it, with a usage and a git state to inflate.
        let event = switchboard_core::StatusEvent {
            agent: "claude".into(),
            session_id: "template".into(),
            status: Some(switchboard_core::AgentStatus::Working),
            cwd: Some("/srv/api".into()),
            ts: 1_700_000_000_000,
            ..Default::default()
        };
        let mut session = switchboard_core::Reducer::new().apply(&event, false).unwrap().session;
        session.usage = Some(switchboard_core::usage::Usage { model: Some("m".into()), ..Default::default() });
        session.git = Some(switchboard_core::usage::GitInfo {
            branch: Some("main".into()),
            worktree: Some("/srv".into()),
            ..Default::default()
        });
        std::fs::write(dir.path().join("template.json"), serde_json::to_vec(&session).unwrap()).unwrap();
        Self { dir }
    }

    /// Follows this box, attacking as `mode`, from `serve`.
    fn follow(&self, serve: &Serve, name: &str, mode: &str) {
        let path = |file: &str| self.dir.path().join(file).display().to_string();
        let (script, template, record) = (path("fake-box.py"), path("template.json"), path("received"));
        let added =
            run(serve.home(), &["remote", "add", name, "--", "python3", &script, mode, &template, &record], b"");
        assert!(added.status.success(), "{}", String::from_utf8_lossy(&added.stderr));
    }

    /// Every line the desktop sent this box.
    fn received(&self) -> String {
        std::fs::read_to_string(self.dir.path().join("received")).unwrap_or_default()
    }
}

fn remote(serve: &Serve, name: &str) -> Value {
    let listed = run(serve.home(), &["remote", "list", "--json"], b"");
    let all: Value = serde_json::from_slice(&listed.stdout).unwrap_or(Value::Null);
    all.as_array().and_then(|all| all.iter().find(|r| r["name"] == name).cloned()).unwrap_or(Value::Null)
}

/// `serve`'s resident memory now and its high-water mark, in MiB (`/proc/<pid>/status`).
fn memory(serve: &Serve) -> (u64, u64) {
    let status = std::fs::read_to_string(format!("/proc/{}/status", serve.child.id())).unwrap();
    let kib = |field: &str| {
        status.lines().find(|l| l.starts_with(field)).and_then(|l| l.split_whitespace().nth(1)?.parse::<u64>().ok())
    };
    (kib("VmRSS:").unwrap_or(0) / 1024, kib("VmHWM:").unwrap_or(0) / 1024)
}

fn local_sessions(serve: &Serve, count: usize) {
    for n in 0..count {
        let mut stop = fixture("claude/Stop.json");
        stop["session_id"] = json!(format!("mine-{n}"));
        assert_eq!(serve.post("claude", &stop), 204);
    }
    eventually(PATIENCE, || {
        let sessions = serve.sessions();
        let mine = sessions["sessions"].as_array()?.iter().filter(|s| s["host"] == "local").count();
        (mine == count).then_some(())
    })
    .expect("this machine's sessions are on the board");
}

fn locals(serve: &Serve) -> usize {
    serve.sessions()["sessions"].as_array().map_or(0, |all| all.iter().filter(|s| s["host"] == "local").count())
}

/// A hook held for the board (Allow / Deny on for Claude), as the forwarder holds it.
fn held_hook(serve: &Serve, session_id: &str) -> Child {
    let mut child = Command::new("timeout")
        .args(["120", BIN, "hook", "claude"])
        .env("SWITCHBOARD_HOME", serve.home())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut payload = fixture("claude/PermissionRequest.json");
    payload["session_id"] = json!(session_id);
    child.stdin.take().unwrap().write_all(payload.to_string().as_bytes()).unwrap();
    child
}

fn serve_deciding() -> Serve {
    let home = tempfile::tempdir().unwrap();
    let settings = json!({"decide": ["claude"], "holdSeconds": 120});
    std::fs::write(home.path().join("settings.json"), settings.to_string()).unwrap();
    Serve::start_in(home, &[])
}

/// Issue 45: `decide` for a box that never answers says so, after the link's own 5 s wait — not
/// the route's `HTTP 408`, which used to fire at the same moment.
#[test]
fn decide_for_a_silent_box_says_the_box_did_not_answer() {
    let serve = Serve::start();
    let silent = FakeBox::new();
    silent.follow(&serve, "silent", "quiet");
    eventually(PATIENCE, || serve.session("silent:held").filter(|s| s["decision"].is_u64()))
        .expect("the box's held session arrived");
    let started = Instant::now();
    let decided = run(serve.home(), &["decide", "silent:held", "allow"], b"");
    let took = started.elapsed();
    let said = String::from_utf8_lossy(&decided.stderr);
    assert!(!decided.status.success());
    assert!(said.contains("silent did not answer within 5 s"), "{said}");
    assert!(!said.contains("408"), "{said}");
    assert!(silent.received().contains("\"decide\""), "the box was asked: {}", silent.received());
    println!("decide for a silent box: refused after {} ms: {said}", took.as_millis());
}

/// Issue 45: this machine's session `near:x` is shown even while box `near` holds its own `x`
/// (the same id on this board); the box's frames never take it back.
#[test]
fn a_local_id_is_never_hidden_by_a_boxs_session() {
    let serve = Serve::start();
    let near = FakeBox::new();
    near.follow(&serve, "near", "quiet");
    eventually(PATIENCE, || serve.session("near:x").filter(|s| s["host"] == "near")).expect("the box's x arrived");
    let mut mine = fixture("claude/UserPromptSubmit.json");
    mine["session_id"] = json!("near:x");
    assert_eq!(serve.post("claude", &mine), 204);
    let shown = serve.wait_for("near:x", |s| s["host"] == "local");
    assert_eq!(shown["status"], "working");
    // One `near:x` on the board, this machine's (the box's later frames are refused: core's
    // reducer tests try them).
    let sessions = serve.sessions();
    let named: Vec<&Value> =
        sessions["sessions"].as_array().unwrap().iter().filter(|s| s["sessionId"] == "near:x").collect();
    assert_eq!(named.len(), 1, "{named:?}");
    assert_eq!(named[0]["host"], "local");
}

/// 34.1: 3,000 sessions, then 300,000 `resumed` frames nobody asked for: ignored (no input
/// queued per frame), the chatty box disconnected with the reason, a local hook on the board
/// at once, memory bounded.
#[test]
fn a_flood_of_resumed_frames_neither_freezes_the_board_nor_grows_memory() {
    // The chatty-box bound at 20,000 frames per 10 s (100,000 by default): cut on any machine.
    let serve = Serve::start_with_env(&[("SWITCHBOARD_LINK_MAX_FRAMES", std::path::Path::new("20000"))]);
    let evil = FakeBox::new();
    evil.follow(&serve, "evil", "flood-resumed");
    eventually(PATIENCE, || (remote(&serve, "evil")["sessions"].as_u64()? >= 1000).then_some(()))
        .expect("the box's snapshot arrived");
    let started = Instant::now();
    let mut stop = fixture("claude/Stop.json");
    stop["session_id"] = json!("during-the-flood");
    assert_eq!(serve.post("claude", &stop), 204);
    serve.wait_for("during-the-flood", |s| s["status"] == "done");
    let on_board = started.elapsed();
    let cut = eventually(PATIENCE, || {
        let error = remote(&serve, "evil")["error"].as_str()?.to_owned();
        error.contains("frames in").then_some(error)
    })
    .expect("the chatty box is disconnected with the reason");
    let (rss, high) = memory(&serve);
    eprintln!("resumed flood: a local hook on the board {on_board:?} after it was posted; serve RSS {rss} MiB, high-water {high} MiB; cut: {cut}");
    assert!(high < 200, "serve's memory high-water {high} MiB");
}

/// 34.2: 5,000 sessions claiming `lastEventAt: 2^63` push out none of this machine's sessions,
/// and a held local permission stays held (answered from here afterwards).
#[test]
fn a_box_cannot_push_this_machines_sessions_or_holds_out() {
    let serve = serve_deciding();
    local_sessions(&serve, 50);
    let hold = held_hook(&serve, "mine-held");
    serve.wait_for("mine-held", |s| s["decision"].is_u64());
    let evil = FakeBox::new();
    evil.follow(&serve, "evil", "evict");
    let kept = eventually(PATIENCE, || {
        let all = serve.sessions();
        let theirs = all["sessions"].as_array()?.iter().filter(|s| s["host"] == "evil").count();
        (theirs >= switchboard_core::MAX_HOST_SESSIONS * 9 / 10).then_some(theirs)
    })
    .expect("the box's sessions arrive, bounded");
    assert!(kept <= switchboard_core::MAX_HOST_SESSIONS, "{kept} of its sessions kept");
    assert_eq!(locals(&serve), 51, "every local session is still here");
    let held = serve.session("mine-held").unwrap();
    assert!(held["decision"].is_u64(), "the local hold is still offered: {held}");
    let newest = serve.sessions()["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["host"] == "evil")
        .map(|s| s["lastEventAt"].as_u64().unwrap())
        .max()
        .unwrap();
    let now = switchboard_engine::clock::now_millis();
    assert!(newest <= now, "its times are clamped to this clock: {newest} > {now}");
    let decided = run(serve.home(), &["decide", "mine-held", "allow"], b"");
    assert!(decided.status.success(), "{}", String::from_utf8_lossy(&decided.stderr));
    let said = hold.wait_with_output().unwrap();
    assert!(String::from_utf8_lossy(&said.stdout).contains("allow"), "the held hook got the answer");
    eprintln!("eviction: {kept} of 5,000 box sessions kept, 51 local sessions and the hold intact");
}

/// 34.3: 1,000 `changed` frames of ~900 KB each (usage.model, git.branch, git.worktree) are
/// clipped: memory stays bounded and `status` works; a snapshot announcing 4,000 sessions that
/// never finishes is not kept open by `alive`.
#[test]
fn huge_fields_are_clipped_and_a_never_ending_snapshot_is_cut() {
    let serve = Serve::start();
    let evil = FakeBox::new();
    evil.follow(&serve, "evil", "big-fields");
    eventually(PATIENCE, || (remote(&serve, "evil")["lastSeq"].as_u64()? >= 1000).then_some(()))
        .expect("all 1,000 frames were taken");
    let (rss, high) = memory(&serve);
    let one = serve.session("evil:b1000").expect("its session");
    assert!(one["usage"]["model"].as_str().unwrap().chars().count() <= 200, "usage.model clipped");
    assert!(one["git"]["worktree"].as_str().unwrap().chars().count() <= 1000, "git.worktree clipped");
    let status = run(serve.home(), &["status"], b"");
    assert!(status.status.success(), "{}", String::from_utf8_lossy(&status.stderr));
    eprintln!("huge fields: 1,000 frames of ~900 KB; serve RSS {rss} MiB, high-water {high} MiB");
    assert!(high < 200, "serve's memory high-water {high} MiB");

    // A snapshot announcing 4,000 sessions, 10 sent, then only `alive`: cut after its bound
    // (3 s here, a minute by default), with the reason.
    let patient = Serve::start_with_env(&[("SWITCHBOARD_SNAPSHOT_WITHIN_MS", std::path::Path::new("3000"))]);
    let stalling = FakeBox::new();
    stalling.follow(&patient, "staller", "never-ending-snapshot");
    let cut = eventually(PATIENCE, || {
        let error = remote(&patient, "staller")["error"].as_str()?.to_owned();
        error.contains("was not whole").then_some(error)
    })
    .expect("the never-ending snapshot is cut");
    assert!(cut.contains("4000 sessions") && cut.contains("10 came"), "{cut}");
}

/// 34.4: a box repeating ~900 KB `error` frames: the log grows by a few lines, not gigabytes.
#[test]
fn a_box_repeating_huge_errors_does_not_flood_the_log() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("serve.log");
    let serve = Serve::start_logging_to(&log);
    let before = std::fs::metadata(&log).map(|m| m.len()).unwrap_or(0);
    let evil = FakeBox::new();
    evil.follow(&serve, "evil", "errors");
    // All 200 frames were read once a local hook after them is on the board and the box is idle.
    eventually(PATIENCE, || (remote(&serve, "evil")["state"] == "connected").then_some(())).expect("connected");
    let mut stop = fixture("claude/Stop.json");
    stop["session_id"] = json!("after-the-errors");
    serve.post("claude", &stop);
    serve.wait_for("after-the-errors", |s| s["status"] == "done");
    let grown = eventually(PATIENCE, || {
        let text = std::fs::read_to_string(&log).ok()?;
        text.contains("refused a frame").then_some(text.len() as u64)
    })
    .expect("the box's error is logged");
    let text = std::fs::read_to_string(&log).unwrap();
    assert!(!text.contains('\x1b') && !text.contains('\x07'), "no raw escape in the log");
    eprintln!("error flood: 200 frames of ~900 KB; the log grew by {} bytes", grown - before);
    assert!(grown - before < 64 * 1024, "the log grew by {} bytes", grown - before);
}

/// 34.5 and 34.6: with a remote named `evil`, `decide evil:held` for this machine's session
/// `evil:held` answers it here and sends the box nothing; what the box's sessions say reaches
/// the terminal with its escape sequences removed (`remote list`, `peek`, refusals).
#[test]
fn a_local_id_with_a_colon_stays_local_and_no_raw_escape_is_printed() {
    let serve = serve_deciding();
    let evil = FakeBox::new();
    evil.follow(&serve, "evil", "quiet");
    eventually(PATIENCE, || (remote(&serve, "evil")["sessions"].as_u64()? >= 1).then_some(()))
        .expect("the box's sessions arrived");
    // The box's own `held` is `evil:held` on this board (a local `evil:held` would take its place,
    // issue 45): a local id with a colon the box does not hold.
    let hold = held_hook(&serve, "evil:mine");
    serve.wait_for("evil:mine", |s| s["decision"].is_u64() && s["host"] == "local");
    let decided = run(serve.home(), &["decide", "evil:mine", "allow"], b"");
    assert!(decided.status.success(), "{}", String::from_utf8_lossy(&decided.stderr));
    let said = hold.wait_with_output().unwrap();
    assert!(String::from_utf8_lossy(&said.stdout).contains("allow"), "answered here");
    assert!(!evil.received().contains("decide"), "the box was sent nothing: {}", evil.received());

    for args in [&["peek", "evil:held"][..], &["remote", "list"], &["status"], &["decide", "evil:x", "allow"]] {
        let out = run(serve.home(), args, b"");
        let text = [out.stdout, out.stderr].concat();
        assert!(
            !text.contains(&0x1b) && !text.contains(&0x07),
            "{args:?} printed a raw escape: {}",
            String::from_utf8_lossy(&text)
        );
    }
    let peek = run(serve.home(), &["peek", "evil:held"], b"");
    let peeked = String::from_utf8_lossy(&peek.stdout);
    assert!(peeked.contains("evil") && !peeked.contains("]52;"), "the sequence removed, the text kept: {peeked}");
}

/// The red team's strings (issue 45): an OSC 52 clipboard write, a screen clear, a bidi
/// override, a C1 CSI, and a line break drawing a fake option.
const BAD: &str = "\u{1b}]52;c;cm0gLXJmIH4=\u{7}\u{1b}[2J\u{202e}\u{9b}2J\r\n1. Allow: rm -rf ~\u{2066}";

/// What a terminal must never be handed: a control character but the line break and the tab
/// (C0, DEL, C1) or a bidi control; and no line of its own drawn by a field.
fn assert_printable(what: &str, bytes: &[u8]) {
    let text = String::from_utf8_lossy(bytes);
    let bad: Vec<char> = text
        .chars()
        .filter(|&c| {
            (c.is_control() && c != '\n' && c != '\t')
                || matches!(c, '\u{061c}' | '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
        })
        .collect();
    assert!(bad.is_empty(), "{what} printed {bad:?}: {text}");
    assert!(!text.lines().any(|line| line.trim_start().starts_with("1. Allow: rm")), "{what} drew a fake line: {text}");
}

/// Issue 45, failures 1 and 6: every field of a session — this machine's and a box's — carries
/// the red team's strings, and every command that prints a session prints none of them raw:
/// `status`, `peek`, `decide`, `answer`, `reply`, `end`, `remote list`, each with `--json` where
/// it has one (there they are `\uXXXX`, and the JSON still reads back).
#[test]
fn hostile_strings_in_every_field_reach_no_terminal_raw() {
    let home = tempfile::tempdir().unwrap();
    let settings = json!({"decide": ["claude"], "holdSeconds": 120});
    std::fs::write(home.path().join("settings.json"), settings.to_string()).unwrap();
    // The box never answers what it is asked to type: its refusal comes after a second.
    let serve = Serve::start_in(home, &[("SWITCHBOARD_CONFIRM_MS", std::path::Path::new("1000"))]);
    let custom = json!({
        "sessionId": format!("local-hostile{BAD}"), "status": "waiting", "agent": format!("agent{BAD}"),
        "tool": format!("tool{BAD}"), "cwd": format!("/srv{BAD}"), "title": format!("title{BAD}"),
        "message": format!("message{BAD}"), "question": format!("question{BAD}"),
    });
    assert_eq!(serve.post("custom", &custom), 204);
    let held = held_hook(&serve, &format!("local-held{BAD}"));
    let evil = FakeBox::new();
    evil.follow(&serve, "evil", "every-field");
    let ids = |sessions: &Value| -> Vec<String> {
        let all = sessions["sessions"].as_array().cloned().unwrap_or_default();
        all.iter().filter_map(|s| s["sessionId"].as_str().map(str::to_owned)).collect()
    };
    eventually(PATIENCE, || {
        let ids = ids(&serve.sessions());
        let arrived = ["local-hostile", "local-held", "evil:h"].iter().all(|p| ids.iter().any(|id| id.starts_with(p)));
        arrived.then_some(())
    })
    .expect("the hostile sessions arrived");
    serve.wait_for(&ids(&serve.sessions()).into_iter().find(|id| id.starts_with("local-held")).unwrap(), |s| {
        s["decision"].is_u64()
    });
    let commands: Vec<Vec<&str>> = vec![
        vec!["status"],
        vec!["status", "--json"],
        vec!["remote", "list"],
        vec!["remote", "list", "--json"],
        vec!["peek", "local-hostile"],
        vec!["peek", "local-hostile", "--json"],
        vec!["peek", "local-held"],
        vec!["peek", "evil:h"],
        vec!["peek", "evil:h", "--json"],
        vec!["answer", "local-hostile", "1"],
        vec!["reply", "local-hostile", "hello"],
        vec!["end", "local-hostile", "--yes"],
        vec!["end", "evil:h", "--yes"],
        vec!["decide", "evil:h", "deny"],
        vec!["decide", "local-hostile", "allow"],
        vec!["decide", "local-held", "deny"],
    ];
    for args in &commands {
        let out = run(serve.home(), args, b"");
        assert_printable(&format!("{args:?} (stdout)"), &out.stdout);
        assert_printable(&format!("{args:?} (stderr)"), &out.stderr);
        if args.contains(&"--json") && args[0] != "remote" {
            let value: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{args:?}: {e}"));
            assert!(value.to_string().contains("\u{202e}"), "{args:?}: the JSON still reads back whole");
        }
    }
    // A reply to the box names the box's session and agent at once, then waits for the box
    // (which never answers): what it said first is checked.
    let mut reply = Command::new(BIN)
        .args(["reply", "evil:h", "hello"])
        .env("SWITCHBOARD_HOME", serve.home())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = String::new();
    std::io::BufRead::read_line(&mut std::io::BufReader::new(reply.stderr.take().unwrap()), &mut first).unwrap();
    let _ = reply.kill();
    let _ = reply.wait();
    assert!(first.starts_with("Giving it to"), "{first}");
    assert_printable("reply to the box", first.as_bytes());
    // The decided hold was answered, and said so in words that are safe too.
    let said = held.wait_with_output().unwrap();
    assert!(String::from_utf8_lossy(&said.stdout).contains("deny"), "{}", String::from_utf8_lossy(&said.stdout));
}

/// Issue 45, failure 2: a box's last words on stderr reach the log (and so the terminal of
/// `serve`) as text, not as escape sequences.
#[test]
fn a_boxs_stderr_reaches_the_log_without_its_escapes() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("serve.log");
    let serve = Serve::start_logging_to(&log);
    let evil = FakeBox::new();
    evil.follow(&serve, "evil", "dies-loudly");
    let text = eventually(PATIENCE, || {
        let text = std::fs::read_to_string(&log).ok()?;
        text.contains("gone").then_some(text)
    })
    .expect("the box's last words are logged");
    assert_printable("serve's log", text.as_bytes());
    let listed = run(serve.home(), &["remote", "list"], b"");
    assert_printable("remote list", &listed.stdout);
}
