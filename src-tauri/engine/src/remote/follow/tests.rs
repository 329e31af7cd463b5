use super::*;
use crate::instance::hub::{inputs, InputQueue};
use crate::protocol::link::MAX_FRAME;
use crate::protocol::link::PROTOCOL_VERSION;
use switchboard_core::Session;
use switchboard_core::{AgentStatus, Reducer, StatusEvent};

#[test]
fn the_link_script_is_one_line_for_the_remote_shell() {
    let fresh = link_script(None);
    assert_eq!(fresh.matches('\n').count(), 1);
    assert!(fresh.ends_with("link --serve\n"));
    let resumed = link_script(Some(&("9f2c".into(), 41)));
    assert!(resumed.ends_with("link --serve --resume 9f2c:41\n"), "{resumed}");
    // Anything but an instance id is never put into the shell's line.
    assert_eq!(link_script(Some(&("x; rm -rf ~".into(), 1))), fresh);
}

fn line(frame: &LinkFrame) -> Vec<u8> {
    encode(frame).unwrap()
}

fn hello(protocol: u32) -> Vec<u8> {
    line(&LinkFrame::Hello { protocol, instance: "ab12".into(), host: "box".into(), version: "9.9.9".into() })
}

fn session(id: &str, status: AgentStatus) -> Box<Session> {
    let event = StatusEvent {
        agent: "claude".into(),
        session_id: id.into(),
        status: Some(status),
        ts: 1,
        ..StatusEvent::default()
    };
    Box::new(Reducer::new().apply(&event, false).unwrap().session)
}

/// A "remote" whose command prints `output` and then holds the pipe open.
fn remote(output: &[u8], capacity: usize) -> (Follower, InputQueue, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("frames");
    std::fs::write(&file, output).unwrap();
    let script = format!("cat '{}'; exec sleep 600", file.display());
    let spec = RemoteSpec { name: "box".into(), command: vec!["sh".into(), "-c".into(), script, "x".into()] };
    let (inputs, queue) = inputs(capacity);
    (Follower::start(spec, inputs), queue, dir)
}

/// The reports the follower queued, until `enough` says so (or a minute passed).
fn reports(queue: &mut InputQueue, enough: impl Fn(&[RemoteReport]) -> bool) -> Vec<RemoteReport> {
    let mut got = Vec::new();
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    while !enough(&got) && std::time::Instant::now() < deadline {
        match queue.try_recv() {
            Some(Input::Remote { host, report }) => {
                assert_eq!(host, "box");
                got.push(report);
            }
            Some(_) => {}
            None => std::thread::sleep(Duration::from_millis(5)),
        }
    }
    got
}

/// Issue 34.8: a box answering a timed-out request late never answers the next one with it;
/// each answer goes to the request whose number it carries.
#[test]
fn a_late_answer_to_a_timed_out_request_answers_nothing_else() {
    let spec = RemoteSpec { name: "box".into(), command: vec!["true".into()] };
    let shared = Arc::new(Shared {
        status: Mutex::new(RemoteState::not_followed(&spec)),
        spec,
        stopped: Mutex::new(false),
        wake: Condvar::new(),
        link: Mutex::new(None),
        pending: Mutex::new(VecDeque::new()),
    });
    // A link that takes every frame and never answers.
    let mut sink = Command::new("cat").stdin(Stdio::piped()).stdout(Stdio::null()).spawn().unwrap();
    *lock(&shared.link) = Some((sink.stdin.take().unwrap(), sink.id()));
    let reply = |request| PeerFrame::Answer { session_id: "a".into(), said: Said::Reply("one".into()), request };
    let first = shared.ask("a", None, reply, Duration::from_millis(50));
    assert!(matches!(first, Err(RemoteDecideError::NoAnswer(..))), "{first:?}");
    assert!(lock(&shared.pending).is_empty(), "a timed-out request is forgotten");

    let asking = Arc::clone(&shared);
    let second = std::thread::spawn(move || {
        let reply = |request| PeerFrame::Answer { session_id: "a".into(), said: Said::Reply("two".into()), request };
        asking.ask("a", None, reply, Duration::from_secs(60))
    });
    let waiting = (0..10_000)
        .find_map(|_| {
            let seq = lock(&shared.pending).front().map(|p| p.seq);
            seq.or_else(|| {
                std::thread::sleep(Duration::from_millis(5));
                None
            })
        })
        .expect("the second request waits");
    // The box's late word on the first (its number is one less), and a legacy error frame
    // naming nothing, never reach the second...
    shared.answered(Some(waiting - 1), None, None, Err(RemoteDecideError::Refused("late".into())));
    assert_eq!(lock(&shared.pending).len(), 1, "the late answer answered nothing");
    // ...its own does.
    shared.answered(Some(waiting), Some("a"), None, Ok(serde_json::json!({"typed": "two"})));
    assert_eq!(second.join().unwrap().unwrap(), serde_json::json!({"typed": "two"}));
    let _ = sink.kill();
    let _ = sink.wait();
}

/// Issue 34.1: `resumed` frames nobody asked for are ignored — no input per frame (each used to
/// queue a "reachable" that walked every session of the host).
#[test]
fn resumed_frames_nobody_asked_for_queue_nothing() {
    let mut output = hello(PROTOCOL_VERSION);
    output.extend(line(&LinkFrame::Snapshot { seq: 0, sessions: 1, notices: vec![] }));
    output.extend(line(&LinkFrame::Session { session: session("a", AgentStatus::Working) }));
    for _ in 0..1_000 {
        output.extend(line(&LinkFrame::Resumed { after: 0 }));
    }
    output.extend(line(&LinkFrame::Changed { seq: 1, session: session("a", AgentStatus::Done) }));
    let (follower, mut queue, _dir) = remote(&output, 4_096);
    let got = reports(&mut queue, |got| got.iter().any(|r| matches!(r, RemoteReport::Changed(_))));
    let kinds: Vec<String> =
        got.iter().map(|report| format!("{report:?}").split(['(', ' ']).next().unwrap().to_owned()).collect();
    assert_eq!(kinds, ["Snapshot", "Reachable", "Changed"], "one reachable, however many resumed");
    assert!(queue.try_recv().is_none());
    follower.stop();
}

#[test]
fn a_chatty_shell_and_garbage_between_frames_are_skipped_and_the_frames_applied() {
    let mut output = b"Welcome to devbox! Last login: yesterday\n".to_vec();
    output.extend(hello(PROTOCOL_VERSION));
    output.extend(b"{not a frame\n\x00\xff\xfe\n[]\n");
    output.extend(line(&LinkFrame::Snapshot { seq: 5, sessions: 1, notices: vec![] }));
    output.extend(b"{\"type\":\"launch\"}\n");
    output.extend(line(&LinkFrame::Session { session: session("a", AgentStatus::Working) }));
    output.extend(line(&LinkFrame::Changed { seq: 6, session: session("a", AgentStatus::Blocked) }));
    // Out of order: not applied (the follower asks the link to resume instead).
    output.extend(line(&LinkFrame::Changed { seq: 9, session: session("a", AgentStatus::Done) }));
    let (follower, mut queue, _dir) = remote(&output, 64);
    let got = reports(&mut queue, |got| got.iter().filter(|r| matches!(r, RemoteReport::Changed(_))).count() >= 1);
    let kinds: Vec<String> =
        got.iter().map(|report| format!("{report:?}").split(['(', ' ']).next().unwrap().to_owned()).collect();
    assert_eq!(kinds, ["Snapshot", "Reachable", "Changed"], "{got:?}");
    let RemoteReport::Changed(changed) = &got[2] else { unreachable!() };
    assert_eq!(changed.status, Some(AgentStatus::Blocked));
    let state = follower.state();
    assert_eq!((state.state, state.last_seq, state.sessions), (LinkState::Connected, Some(6), 1));
    assert_eq!(state.version.as_deref(), Some("9.9.9"));
    assert!(queue.try_recv().is_none(), "the out-of-order update was not applied");
    follower.stop();
}

#[test]
fn an_oversize_frame_another_protocol_or_a_missing_switchboard_ends_the_connection_with_the_reason() {
    let mut oversize = hello(PROTOCOL_VERSION);
    oversize.extend(vec![b'x'; MAX_FRAME + 10]);
    oversize.push(b'\n');
    let not_installed =
        br#"{"type":"error","kind":"not_running","message":"switchboard is not installed there"}"#.to_vec();
    for (output, says) in [
        (oversize, "over the size limit"),
        (hello(PROTOCOL_VERSION + 1), "switchboard remote install box"),
        ([not_installed, b"\n".to_vec()].concat(), "not installed there"),
    ] {
        let (follower, mut queue, _dir) = remote(&output, 64);
        let got = reports(&mut queue, |got| got.iter().any(|r| matches!(r, RemoteReport::Unreachable { .. })));
        assert!(matches!(got.last(), Some(RemoteReport::Unreachable { .. })), "{got:?}");
        let state = follower.state();
        assert_eq!(state.state, LinkState::Unreachable);
        assert!(state.error.as_deref().unwrap_or_default().contains(says), "{:?} should say {says}", state.error);
        follower.stop();
    }
}

#[test]
fn a_flood_past_the_queue_is_dropped_and_resumed_never_piled_up() {
    let mut output = hello(PROTOCOL_VERSION);
    output.extend(line(&LinkFrame::Snapshot { seq: 0, sessions: 0, notices: vec![] }));
    for seq in 1..=5_000 {
        let id = format!("s{}", seq % 100);
        output.extend(line(&LinkFrame::Changed { seq, session: session(&id, AgentStatus::Working) }));
    }
    // Nobody drains the queue (a wedged reducer): it holds its bound, whatever the remote sends.
    // The snapshot and updates 1–99 fill its 100 places; update 100 is dropped, and the
    // follower asks the link to resume after 99 rather than keep anything.
    let (follower, mut queue, _dir) = remote(&output, 100);
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    while follower.state().last_seq != Some(99) && std::time::Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(5));
    }
    assert_eq!(follower.state().last_seq, Some(99), "the queue filled");
    // Stopped before the queue is read: reading it would make room for more.
    let state = follower.state();
    follower.stop();
    let queued = std::iter::from_fn(|| queue.try_recv()).count();
    assert!(queued <= 100 + 2, "at most the bound (and the never-dropped reachable/unreachable): {queued}");
    assert_eq!(state.last_seq, Some(99), "the rest waits for a resume, not in memory");
}
