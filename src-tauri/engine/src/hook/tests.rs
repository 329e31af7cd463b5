use super::*;
use serde_json::json;

#[test]
fn a_body_within_the_cap_is_sent_unchanged() {
    assert_eq!(fit(b"{\"a\":1}".to_vec()), Some(b"{\"a\":1}".to_vec()));
}

#[test]
fn an_oversized_payload_keeps_every_field_with_its_long_strings_trimmed() {
    let content = "x".repeat(450 * 1024);
    let raw = json!({
        "session_id": "s1",
        "hook_event_name": "Notification",
        "notification_type": "ToolPermission",
        "details": {"type": "edit", "title": "Confirm Write: big.txt", "newContent": content, "originalContent": content},
    });
    let body = fit(serde_json::to_vec(&raw).unwrap()).expect("fits after trimming");
    assert!(body.len() <= BODY_LIMIT);
    let sent: Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(sent["session_id"], "s1");
    assert_eq!(sent["details"]["title"], "Confirm Write: big.txt");
    let kept = sent["details"]["newContent"].as_str().unwrap();
    assert!(
        kept.starts_with("xxxx") && kept.ends_with("bytes trimmed by switchboard]"),
        "{}",
        &kept[kept.len() - 60..]
    );
}

#[test]
fn the_recorded_400_kb_gemini_edit_confirmation_fits() {
    // The recording keeps the payload's shape and its size (`payload_bytes`), not the file.
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures/real/gemini-cli-0.61.0/sequences/b4-large-write-permission.jsonl");
    let text = std::fs::read_to_string(path).unwrap();
    let record =
        text.lines().map(|l| serde_json::from_str::<Value>(l).unwrap()).find(|r| r["event"] == "Notification").unwrap();
    let size = record["payload_bytes"].as_u64().unwrap() as usize;
    let mut payload = record["payload"].clone();
    let diff = payload["details"]["fileDiff"].as_str().unwrap().to_owned();
    payload["details"]["fileDiff"] = json!(diff.repeat(size / 2 / diff.len() + 1));
    payload["details"]["newContent"] = json!("line of a generated file\n".repeat(size / 2 / 25));
    let body = serde_json::to_vec(&payload).unwrap();
    assert!(body.len() > 400_000 && body.len() > BODY_LIMIT, "{}", body.len());
    let sent: Value = serde_json::from_slice(&fit(body).unwrap()).unwrap();
    assert_eq!(sent["notification_type"], "ToolPermission");
    assert_eq!(sent["details"]["title"], "Confirm Write: big.txt");
}

#[test]
fn a_payload_that_does_not_name_its_event_is_named_from_its_hook_entry() {
    let var = |name: &str| match name {
        "SWITCHBOARD_HOOK_EVENT" => Some("agentStop".to_owned()),
        "HOME" => Some("/home/ana".to_owned()),
        _ => None,
    };
    let body = br#"{"sessionId":"s-1","stopReason":"end_turn"}"#.to_vec();
    let named: Value = serde_json::from_slice(&name_event("copilot", body.clone(), var)).unwrap();
    assert_eq!((named["hook_event_name"].as_str(), named["sessionId"].as_str()), (Some("agentStop"), Some("s-1")));
    assert_eq!(named["transcript_path"], "/home/ana/.copilot/session-state/s-1/events.jsonl");
    // Only for the CLI whose row says so, never over what the payload has, never a path from
    // an id that is not a plain name.
    assert_eq!(name_event("claude", body.clone(), var), body);
    let own = br#"{"hook_event_name":"Notification","sessionId":"s","transcriptPath":"/t"}"#.to_vec();
    assert_eq!(name_event("copilot", own.clone(), var), own);
    let sly: Value =
        serde_json::from_slice(&name_event("copilot", br#"{"sessionId":"../../etc"}"#.to_vec(), var)).unwrap();
    assert!(sly.get("transcript_path").is_none(), "{sly}");
    assert_eq!(name_event("copilot", b"not json".to_vec(), var), b"not json");
}

#[test]
fn only_a_detached_event_of_a_cli_that_has_them_hides_its_process() {
    let body = |event: &str| json!({"hook_event_name": event, "session_id": "s"}).to_string().into_bytes();
    assert!(runs_detached("qwen", &body("StopFailure")));
    assert!(!runs_detached("qwen", &body("Stop")));
    assert!(!runs_detached("claude", &body("StopFailure")), "Claude Code runs every hook itself");
    assert!(!runs_detached("qwen", b"not json"));
}

#[test]
fn copilot_gets_its_decision_flat() {
    let mut out = Vec::new();
    reply("copilot", Some(&BoardAnswer::from(Verdict::Deny)), &mut out);
    let said: Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(said, json!({"behavior": "deny", "message": DENIED}));
    let mut out = Vec::new();
    reply("copilot", Some(&BoardAnswer::from(Verdict::Allow)), &mut out);
    assert_eq!(serde_json::from_slice::<Value>(&out).unwrap(), json!({"behavior": "allow"}));
}

#[test]
fn trimming_respects_utf8_boundaries() {
    let mut value = json!("é".repeat(100));
    trim_strings(&mut value, 33);
    assert!(value.as_str().unwrap().starts_with(&"é".repeat(16)));
}

#[test]
fn a_body_that_is_not_json_and_too_big_is_dropped() {
    assert_eq!(fit(vec![b'x'; BODY_LIMIT + 1]), None);
}

#[test]
fn stdin_that_never_ends_gives_up_at_the_deadline() {
    struct Endless;
    impl Read for Endless {
        fn read(&mut self, _: &mut [u8]) -> io::Result<usize> {
            std::thread::sleep(Duration::from_secs(3600));
            Ok(0)
        }
    }
    // On a thread, so that ignoring the deadline fails the test instead of hanging it for an hour.
    let (done, gave_up) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = done.send(read_until(Endless, Instant::now() + Duration::from_millis(100)));
    });
    let read = gave_up.recv_timeout(Duration::from_secs(60)).expect("gave up instead of waiting on stdin");
    assert_eq!(read, None);
}

#[test]
fn an_oversized_stdin_is_drained_and_dropped() {
    let huge = vec![b' '; READ_LIMIT + 10];
    let reader = io::Cursor::new(huge);
    assert_eq!(read_bounded(reader), None);
}

#[test]
fn only_gemini_gets_a_reply_unless_the_board_answered() {
    let mut out = Vec::new();
    reply("claude", None, &mut out);
    assert!(out.is_empty());
    reply("gemini", None, &mut out);
    assert_eq!(out, b"{}\n");
    for (verdict, behavior) in [(Verdict::Allow, "allow"), (Verdict::Deny, "deny")] {
        let mut out = Vec::new();
        reply("claude", Some(&verdict.into()), &mut out);
        let said: Value = serde_json::from_slice(&out).unwrap();
        assert_eq!(said["hookSpecificOutput"]["hookEventName"], "PermissionRequest");
        assert_eq!(said["hookSpecificOutput"]["decision"]["behavior"], behavior);
        assert!(said["hookSpecificOutput"]["decision"].get("updatedInput").is_none());
    }
}

/// Issue 24: a question answered from the board goes back as the allowed tool's input with
/// the answers in it, the questions as they were asked.
#[test]
fn a_question_answered_from_the_board_carries_its_answers_in_the_updated_input() {
    let questions = json!([{"question": "Which color?", "header": "Color", "multiSelect": false,
                            "options": [{"label": "Red"}, {"label": "Blue"}]}]);
    let answer = BoardAnswer {
        answer: HoldAnswer { verdict: Verdict::Allow, answers: Some([("Which color?".into(), "Blue".into())].into()) },
        tool_input: Some(json!({"questions": questions})),
    };
    let mut out = Vec::new();
    reply("claude", Some(&answer), &mut out);
    let said: Value = serde_json::from_slice(&out).unwrap();
    let decision = &said["hookSpecificOutput"]["decision"];
    assert_eq!(decision["behavior"], "allow");
    assert_eq!(decision["updatedInput"], json!({"questions": questions, "answers": {"Which color?": "Blue"}}));
}

#[test]
fn only_a_permission_event_is_held() {
    let event = |name: &str| serde_json::to_vec(&json!({"hook_event_name": name, "session_id": "s"})).unwrap();
    assert!(is_permission("claude", &event("PermissionRequest")));
    for (agent, name) in [("claude", "PreToolUse"), ("claude", "Notification"), ("custom", "PermissionRequest")] {
        assert!(!is_permission(agent, &event(name)), "{agent} {name}");
    }
    assert!(!is_permission("claude", b"{not json"));
}
