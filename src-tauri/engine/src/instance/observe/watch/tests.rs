use super::*;
use std::io::Write;

fn set(pids: &[u32]) -> HashSet<u32> {
    pids.iter().copied().collect()
}

fn no_command(_: u32) -> Option<String> {
    None
}

/// Issue 20.2: Enter pressed as soon as the prompt is drawn starts the tool inside the hook
/// window; a child running the asked command is the tool all the same, at once.
#[test]
fn a_child_running_the_asked_command_is_the_tool_however_quick_the_approval() {
    let just_now = Instant::now();
    let claude_runs = |pid: u32| {
        (pid == 2).then(|| {
            "/bin/bash -c -l source /root/.claude/shell-snapshots/s.sh && eval 'sleep 2 && touch  marker.txt' \\< /dev/null"
                .to_owned()
        })
    };
    let asked = command_key("sleep 2 && touch marker.txt");
    let (mut before, mut candidates) = (set(&[1]), HashMap::new());
    assert!(approved(&mut before, &mut candidates, just_now, set(&[1, 2]), asked.as_deref(), claude_runs));
    assert!(before.contains(&2));
    // Another new child near the hook (the user's own hook beside ours) is not taken for it.
    let (mut before, mut candidates) = (set(&[1]), HashMap::new());
    let other = |pid: u32| (pid == 3).then(|| "notify-send 'Claude needs you'".to_owned());
    assert!(!approved(&mut before, &mut candidates, just_now, set(&[1, 3]), asked.as_deref(), other));
    // A command with quotes is matched by its part before the first one; a too short one never.
    assert_eq!(command_key("git commit -m \"wip\"").as_deref(), Some("git commit -m"));
    assert_eq!(command_key("ls"), None);
    assert_eq!(command_key("make   deploy…").as_deref(), Some("make deploy"));
}

/// The watch hears of a block after the hub applied it; on a busy machine, a quick user's tool
/// may be running by then. It is not taken as a child the agent had at the block.
#[test]
fn a_tool_started_before_the_watch_heard_of_the_block_is_still_the_tool() {
    let asked = command_key("make deploy");
    let command = |pid: u32| match pid {
        1 => Some("node claude".to_owned()),
        2 | 3 => Some("sh -c make deploy 2>/dev/null; sleep 30".to_owned()),
        _ => None,
    };
    // 1 and 3 ran before the block (40 ms ago); 2 started 5 ms ago; 4's age is unknown.
    let ago = |pid: u32| match pid {
        2 => Some(Duration::from_millis(5)),
        4 => None,
        _ => Some(Duration::from_secs(60)),
    };
    let since_block = Duration::from_millis(40);
    let mut before = at_block(set(&[1, 2, 3, 4]), asked.as_deref(), since_block, command, ago);
    assert_eq!(before, set(&[1, 3, 4]), "only the asked command started since the block is left out");
    let mut candidates = HashMap::new();
    assert!(approved(&mut before, &mut candidates, Instant::now(), set(&[1, 2, 3, 4]), asked.as_deref(), command));
    // Without an asked command, nothing tells the tool from a hook: all were there.
    assert_eq!(at_block(set(&[1, 2]), None, since_block, command, ago), set(&[1, 2]));
}

#[test]
fn a_lasting_new_child_is_the_approved_tool_but_a_hook_beside_ours_is_not() {
    let long_ago = Instant::now() - Duration::from_secs(10);
    let (mut before, mut candidates) = (set(&[1]), HashMap::new());
    // A child appears: not yet confirmed.
    assert!(!approved(&mut before, &mut candidates, long_ago, set(&[1, 2]), None, no_command));
    // It has lived long enough, far from any hook event: the tool runs.
    *candidates.get_mut(&2).unwrap() -= TOOL_CONFIRM;
    assert!(approved(&mut before, &mut candidates, long_ago, set(&[1, 2]), None, no_command));
    assert!(!approved(&mut before, &mut candidates, long_ago, set(&[1, 2]), None, no_command), "told once");

    // A child that starts with a hook event (another hook of the same event) is not a tool,
    // however long it lives; one that comes and goes is forgotten.
    let (mut before, mut candidates) = (set(&[]), HashMap::new());
    assert!(!approved(&mut before, &mut candidates, long_ago, set(&[7]), None, no_command));
    let seen = candidates[&7] - TOOL_CONFIRM;
    candidates.insert(7, seen);
    let hook = seen + Duration::from_millis(100);
    assert!(!approved(&mut before, &mut candidates, hook, set(&[7]), None, no_command));
    assert!(!approved(&mut before, &mut candidates, hook, set(&[]), None, no_command));
    assert!(before.contains(&7) && candidates.is_empty());
}

fn append(path: &std::path::Path, text: &str) {
    std::fs::OpenOptions::new().append(true).create(true).open(path).unwrap().write_all(text.as_bytes()).unwrap();
}

#[test]
fn a_tail_reads_only_complete_lines_appended_after_it_began() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.jsonl");
    append(&path, "{\"old\":1}\n");
    let mut tail = Tail::from(path.clone(), None).unwrap();
    assert!(tail.new_records().is_empty());
    append(&path, "{\"a\":1}\n{\"b\":");
    assert_eq!(tail.new_records(), vec![serde_json::json!({"a": 1})]);
    append(&path, "2}\n");
    assert_eq!(tail.new_records(), vec![serde_json::json!({"b": 2})]);
}

/// Issue 20.1: Esc in a new session's first turn. The transcript did not exist when the turn
/// began; once it appears, its interrupt record is read.
#[test]
fn a_transcript_created_after_the_turn_began_is_read_from_its_start() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("later.jsonl");
    let mut tail = Tail::from(path.clone(), None).expect("followed before it exists");
    assert!(tail.new_records().is_empty());
    append(&path, "{\"first\":1}\n{\"second\":2}\n");
    assert_eq!(tail.new_records(), vec![serde_json::json!({"first": 1}), serde_json::json!({"second": 2})]);
    assert!(tail.new_records().is_empty(), "read once");
}

#[test]
fn a_truncated_or_rotated_transcript_is_read_from_its_start() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.jsonl");
    append(&path, &"{\"x\":0}\n".repeat(100));
    let mut tail = Tail::from(path.clone(), None).unwrap();
    std::fs::write(&path, "{\"after\":\"truncate\"}\n").unwrap();
    assert_eq!(tail.new_records(), vec![serde_json::json!({"after": "truncate"})]);
    let rotated = dir.path().join("t.jsonl.1");
    std::fs::rename(&path, &rotated).unwrap();
    append(&path, "{\"after\":\"rotate\"}\n");
    assert_eq!(tail.new_records(), vec![serde_json::json!({"after": "rotate"})]);
}

#[test]
fn a_huge_append_is_read_only_to_its_last_part() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.jsonl");
    append(&path, "");
    let mut tail = Tail::from(path.clone(), None).unwrap();
    let line = format!("{{\"pad\":\"{}\"}}\n", "p".repeat(1000));
    append(&path, &line.repeat(3000)); // ~3 MB
    append(&path, "{\"last\":true}\n");
    let records = tail.new_records();
    assert!(records.len() < 1100, "bounded: {}", records.len());
    assert_eq!(records.last(), Some(&serde_json::json!({"last": true})));
}

#[test]
fn a_1_gb_transcript_costs_only_what_is_appended() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("huge.jsonl");
    // Sparse: 1 GiB of size without 1 GiB of disk.
    std::fs::File::create(&path).unwrap().set_len(1 << 30).unwrap();
    let mut tail = Tail::from(path.clone(), None).unwrap();
    assert_eq!(tail.offset, 1 << 30);
    append(&path, "\n{\"type\":\"info\",\"content\":\"Request cancelled.\"}\n");
    assert_eq!(tail.new_records(), vec![serde_json::json!({"type": "info", "content": "Request cancelled."})]);
    assert_eq!(tail.offset, std::fs::metadata(&path).unwrap().len(), "read to the end, from where it was");
}

#[test]
fn an_unreadable_transcript_is_skipped_without_error() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.jsonl");
    append(&path, "{}\n");
    let mut tail = Tail::from(path.clone(), None).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o000)).unwrap();
    append(&path, "{\"x\":1}\n"); // as root this still reads; as a user it must not panic
    let _ = tail.new_records();
    std::fs::remove_file(&path).unwrap();
    assert!(tail.new_records().is_empty(), "a vanished file reads as nothing");
}

#[test]
fn two_hundred_watched_sessions_settle_through_their_transcripts() {
    let dir = tempfile::tempdir().unwrap();
    let (inputs, mut queue) = crate::instance::hub::inputs(1024);
    let hub = crate::instance::hub::Hub::new();
    let updates = hub.updates();
    let mut watch = Watch { sessions: foldhash::HashMap::default(), inputs, last_liveness: Instant::now() };
    for i in 0..200 {
        let path = dir.path().join(format!("t{i}.jsonl"));
        append(&path, "{}\n");
        let event = switchboard_core::normalize(
            "gemini",
            &serde_json::json!({"hook_event_name": "BeforeAgent", "session_id": format!("s{i}"), "transcript_path": path}),
            1,
        );
        hub.apply(crate::instance::hub::Input::Hook(Box::new(event.unwrap())));
    }
    for update in updates.try_iter() {
        watch.observe(&update);
    }
    assert_eq!(watch.sessions.len(), 200);
    for i in (0..200).step_by(2) {
        append(&dir.path().join(format!("t{i}.jsonl")), "{\"type\":\"info\",\"content\":\"Request cancelled.\"}\n");
    }
    watch.tick();
    let mut settled = 0;
    while let Some(crate::instance::hub::Input::Hook(event)) = queue.try_recv() {
        assert_eq!(event.cue, switchboard_core::Cue::Settle);
        settled += 1;
    }
    assert_eq!(settled, 100, "exactly the sessions whose transcript said so");
}

#[test]
fn a_fifo_is_never_followed_nor_read_when_it_appears_where_a_transcript_was_awaited() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("fifo");
    let mkfifo = |path: &std::path::Path| {
        let c_path = std::ffi::CString::new(path.to_str().unwrap()).unwrap();
        // SAFETY: a valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(c_path.as_ptr(), 0o600) }, 0);
    };
    mkfifo(&fifo);
    assert!(Tail::from(fifo, None).is_none());
    let awaited = dir.path().join("missing");
    let mut tail = Tail::from(awaited.clone(), None).expect("awaited");
    mkfifo(&awaited);
    assert!(tail.new_records().is_empty(), "a FIFO is never opened (it would block)");
}

/// A busy machine: the watch hears of a turn only after the CLI wrote its cancel and the turn
/// closed. The turn's records are read from where the transcript ended when the hub opened it,
/// not from where the file ends when the watch looks — the cancel still makes it an interrupt.
#[test]
fn a_watch_that_hears_of_the_turn_late_still_reads_the_turns_records() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("session.jsonl");
    append(&path, "{\"type\":\"user\",\"content\":[{\"text\":\"earlier\"}]}\n");
    let (inputs, mut queue) = crate::instance::hub::inputs(16);
    let hub = crate::instance::hub::Hub::new();
    let updates = hub.updates();
    let mut watch = Watch { sessions: foldhash::HashMap::default(), inputs, last_liveness: Instant::now() };
    for event in ["BeforeAgent", "AfterAgent"] {
        let body = serde_json::json!({"hook_event_name": event, "session_id": "late", "transcript_path": path,
            "prompt": "Write a long essay", "prompt_response": "Let me think "});
        hub.apply(crate::instance::hub::Input::Hook(Box::new(
            switchboard_core::normalize("gemini", &body, 1).unwrap(),
        )));
    }
    append(&path, "{\"type\":\"info\",\"content\":\"Request cancelled.\"}\n");
    for update in updates.try_iter() {
        watch.observe(&update);
    }
    watch.tick();
    let Some(crate::instance::hub::Input::Hook(event)) = queue.try_recv() else { panic!("the cancel was read") };
    assert_eq!(event.cue, switchboard_core::Cue::Settle);
    assert_eq!(event.session_id, "late");

    // The same turn with its opening merged away (a watch far behind sees only the close, which
    // still carries where the turn opened): read from there, for the grace after the close.
    let mut watch =
        Watch { sessions: foldhash::HashMap::default(), inputs: watch.inputs.clone(), last_liveness: Instant::now() };
    let opened_at = std::fs::metadata(&path).unwrap().len();
    append(&path, "{\"type\":\"info\",\"content\":\"Request cancelled.\"}\n");
    let mut done = hub.snapshot().sessions.into_iter().find(|s| s.session_id == "late").unwrap();
    done.status = Some(AgentStatus::Done);
    watch.track(&done, Some(opened_at));
    assert!(watch.sessions["late"].tail_until.is_some(), "read for the grace only");
    watch.tick();
    assert!(
        matches!(queue.try_recv(), Some(crate::instance::hub::Input::Hook(_))),
        "the merged turn's cancel was read"
    );
}

/// Idle is idle (issue 47): sessions with nothing to look at — no transcript, no process (a
/// custom source's) — ask for no tick; one with a transcript to follow asks for the next.
#[test]
fn a_watch_with_nothing_to_look_at_asks_for_no_tick() {
    use crate::instance::observe::testing::{hook, show, twenty_custom};
    let dir = tempfile::tempdir().unwrap();
    let (inputs, _queue) = crate::instance::hub::inputs(1024);
    let hub = crate::instance::hub::Hub::new();
    let updates = hub.updates();
    let mut watch = AgentWatch::new(inputs);
    twenty_custom(&hub);
    let now = Instant::now();
    show(&updates, &mut watch, now);
    assert_eq!(watch.watch.sessions.len(), 20, "watched, with nothing to look at");
    assert_eq!(watch.run(now + QUICKEST_TICK), None);
    let path = dir.path().join("t.jsonl");
    append(&path, "{}\n");
    hook(
        &hub,
        "gemini",
        serde_json::json!({"hook_event_name": "BeforeAgent", "session_id": "g", "transcript_path": path}),
    );
    show(&updates, &mut watch, now);
    let next = watch.run(now + QUICKEST_TICK).expect("a transcript to follow: the next tick");
    assert!(next <= Instant::now() + TICK);
}
