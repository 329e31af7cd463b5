//! No stuck badge: what the hooks cannot say, settled by the second source — the agent's
//! process (its exit, its tool children) and its transcript — against a real `serve`.

use std::io::Write;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use serde_json::{json, Value};

use crate::support::{eventually, request, Serve, BIN};

/// A stand-in agent CLI (python, not a shell, so the forwarder stops at it): it runs
/// `switchboard hook claude` with `payload`, then does `then` (Python code) and sleeps.
fn agent(serve: &Serve, payload: &Value, then: &str) -> Child {
    let script = format!(
        "import subprocess, sys, time\n\
         subprocess.run([{BIN:?}, 'hook', 'claude'], input=sys.stdin.buffer.read())\n\
         {then}\n\
         time.sleep(60)\n"
    );
    let mut child = Command::new("python3")
        .args(["-c", &script])
        .env("SWITCHBOARD_HOME", serve.home())
        .env("TMUX_PANE", "%7")
        .stdin(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(payload.to_string().as_bytes()).unwrap();
    child
}

fn payload(id: &str, event: &str, extra: Value) -> Value {
    let mut payload = json!({"hook_event_name": event, "session_id": id, "cwd": "/tmp/w", "tool_name": "Bash",
        "tool_input": {"command": "make deploy"}});
    for (key, value) in extra.as_object().unwrap() {
        payload[key] = value.clone();
    }
    payload
}

#[test]
fn the_forwarder_reports_the_agent_process_and_a_killed_agent_ends_its_session() {
    let serve = Serve::start();
    let mut child = agent(&serve, &payload("killed", "UserPromptSubmit", json!({"prompt": "go"})), "");
    let session = serve.wait_for("killed", |s| s["status"] == "working" && s["process"].is_object());
    assert_eq!(session["process"]["pid"], child.id(), "the agent, past no shell");
    assert_eq!(session["process"]["tmuxPane"], "%7");
    child.kill().unwrap();
    child.wait().unwrap();
    let session = eventually(Duration::from_secs(5), || serve.session("killed").filter(|s| s["ended"] == true))
        .expect("a killed agent ends its session within 5 s");
    assert_eq!((session["status"].as_str(), session["interrupted"].as_bool()), (Some("done"), Some(true)));
    assert_eq!(session["exited"], true);
    assert_eq!(session["unread"], false, "nobody is told: the user closed it");
}

#[test]
fn a_tool_started_by_a_blocked_agent_means_it_was_approved() {
    let serve = Serve::start();
    // The agent asks, then (the user approved in its terminal) runs the tool a moment later.
    let mut child = agent(
        &serve,
        &payload("approved", "PermissionRequest", json!({})),
        "time.sleep(1.5); subprocess.Popen(['sleep', '30'])",
    );
    serve.wait_for("approved", |s| s["status"] == "blocked");
    let session = eventually(Duration::from_secs(3), || serve.session("approved").filter(|s| s["status"] == "working"))
        .expect("working within 2 s of the tool starting");
    assert_eq!(session["message"], "make deploy");
    child.kill().unwrap();
    child.wait().unwrap();
}

#[test]
fn an_interrupt_written_to_the_transcript_settles_a_blocked_session() {
    let serve = Serve::start();
    let dir = tempfile::tempdir().unwrap();
    let transcript = dir.path().join("t.jsonl");
    std::fs::write(&transcript, "{\"type\":\"user\",\"message\":{\"content\":\"earlier\"}}\n").unwrap();
    let path = transcript.to_str().unwrap();
    serve.post("claude", &payload("refused", "PermissionRequest", json!({"transcript_path": path})));
    serve.wait_for("refused", |s| s["status"] == "blocked");
    // What Claude Code writes when the user presses Esc at the prompt (no hook fires).
    let mut file = std::fs::OpenOptions::new().append(true).open(&transcript).unwrap();
    writeln!(
        file,
        "{}",
        json!({"type": "user", "message": {"role": "user", "content": [
        {"type": "text", "text": "[Request interrupted by user for tool use]"}]}})
    )
    .unwrap();
    let session = eventually(Duration::from_secs(3), || serve.session("refused").filter(|s| s["status"] == "done"))
        .expect("done within 2 s of the record");
    assert_eq!(session["interrupted"], true);
}

#[test]
fn a_reused_pid_is_not_the_agent() {
    let serve = Serve::start();
    // The pid exists (this test process) but started at another time: that agent is gone.
    let me = std::process::id();
    let header = json!({"pid": me, "start": 1, "tty": null, "tmuxPane": null, "tmuxSocket": null, "windowId": null,
        "termProgram": null});
    let body = payload("reused", "UserPromptSubmit", json!({})).to_string();
    let path = format!("/hook/claude?key={}", serve.endpoint.key);
    let head = format!(
        "POST {path} HTTP/1.1\r\nHost: x\r\nContent-Length: {}\r\nx-switchboard-process: {header}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    crate::support::raw(serve.addr(), head.as_bytes(), Duration::from_secs(5));
    let session = eventually(Duration::from_secs(5), || serve.session("reused").filter(|s| s["ended"] == true))
        .expect("ended: the pid is alive but it is another process");
    assert_eq!(session["exited"], true);
    // A well-formed request without the header is an agent we cannot watch: it stays.
    assert_eq!(
        request(serve.addr(), "POST", &path, payload("plain", "UserPromptSubmit", json!({})).to_string().as_bytes()).0,
        204
    );
    std::thread::sleep(Duration::from_millis(1_500));
    assert_eq!(serve.session("plain").unwrap()["ended"], false);
}
