//! Issue 45: a Copilot CLI session's transcript is read only from inside Copilot's own folder —
//! `peek` never shows a file a payload points at elsewhere (by name, by `..`, through a link).

use serde_json::{json, Value};

use crate::support::{run, Serve};

fn prompt(text: &str) -> String {
    json!({"type": "user.message", "data": {"content": text}}).to_string() + "\n"
}

fn last_turn(serve: &Serve, session: &str) -> String {
    let peeked = run(serve.home(), &["peek", session, "--json"], b"");
    assert!(peeked.status.success(), "{}", String::from_utf8_lossy(&peeked.stderr));
    let peeked: Value = serde_json::from_slice(&peeked.stdout).unwrap();
    peeked["lastTurn"].to_string()
}

#[test]
fn peek_reads_a_copilot_transcript_only_from_copilots_folder() {
    let home = tempfile::tempdir().unwrap();
    let copilot = home.path().join(".copilot");
    let state = copilot.join("session-state");
    std::fs::create_dir_all(state.join("inside")).unwrap();
    std::fs::write(state.join("inside/events.jsonl"), prompt("INSIDE-PROMPT")).unwrap();
    let outside = home.path().join("outside.jsonl");
    std::fs::write(&outside, prompt("OUTSIDE-SECRET")).unwrap();
    std::os::unix::fs::symlink(home.path(), state.join("linked")).unwrap();
    let serve = Serve::start_with_env(&[("HOME", home.path()), ("COPILOT_HOME", &copilot)]);

    let cases = [
        ("inside", state.join("inside/events.jsonl")),
        ("named", outside.clone()),
        ("climbing", state.join("inside/../../../outside.jsonl")),
        ("linked", state.join("linked/outside.jsonl")),
    ];
    for (id, path) in &cases {
        let event = json!({
            "hook_event_name": "userPromptSubmitted", "sessionId": id, "prompt": "go",
            "transcriptPath": path.display().to_string(),
        });
        assert_eq!(serve.post("copilot", &event), 204);
        serve.wait_for(id, |s| s["status"] == "working");
    }
    assert!(last_turn(&serve, "inside").contains("INSIDE-PROMPT"), "its own transcript is read");
    for id in ["named", "climbing", "linked"] {
        let turn = last_turn(&serve, id);
        assert!(!turn.contains("OUTSIDE-SECRET"), "{id}: {turn}");
    }
}
