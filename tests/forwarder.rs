//! `switchboard hook <agent>`: forwards, prints nothing (Gemini: `{}`), always exits 0.

use serde_json::json;
use switchboard_engine::endpoint::Endpoint;

use crate::support::{fixture, run, temp_home, Serve};

#[test]
fn a_forwarded_event_arrives_and_the_hook_prints_nothing() {
    let serve = Serve::start();
    let output = run(serve.home(), &["hook", "codex"], fixture("codex/PermissionRequest.json").to_string().as_bytes());
    assert!(output.status.success());
    assert!(output.stdout.is_empty() && output.stderr.is_empty());
    let session = serve.wait_for("019fb425-0000-7000-8000-000000000001", |s| s["status"] == "blocked");
    assert_eq!(session["tool"], "Bash");
}

#[test]
fn gemini_gets_an_empty_json_object_on_stdout() {
    let serve = Serve::start();
    let output = run(serve.home(), &["hook", "gemini"], fixture("gemini/AfterAgent.json").to_string().as_bytes());
    assert!(output.status.success());
    assert_eq!(String::from_utf8_lossy(&output.stdout).trim(), "{}");
    serve.wait_for("7f1c2d3e-aaaa-4bbb-8ccc-0123456789ab", |s| s["status"] == "done");
}

#[test]
fn without_a_running_instance_the_hook_exits_0_silently() {
    let home = temp_home();
    let output = run(&home, &["hook", "claude"], fixture("claude/Stop.json").to_string().as_bytes());
    assert!(output.status.success());
    assert!(output.stdout.is_empty() && output.stderr.is_empty());
}

#[test]
fn a_stale_or_garbage_endpoint_file_still_exits_0_silently() {
    let home = temp_home();
    let dead_port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    Endpoint { port: dead_port, key: "k".into(), pid: 999_999 }.write(&home).unwrap();
    let output = run(&home, &["hook", "claude"], fixture("claude/Stop.json").to_string().as_bytes());
    assert!(output.status.success());
    assert!(output.stdout.is_empty() && output.stderr.is_empty());
    std::fs::write(Endpoint::path(&home), b"\x00garbage").unwrap();
    let output = run(&home, &["hook", "gemini"], b"{}");
    assert!(output.status.success());
    assert_eq!(String::from_utf8_lossy(&output.stdout).trim(), "{}");
}

#[test]
fn a_huge_stdin_or_missing_agent_still_exits_0() {
    let serve = Serve::start();
    let huge = json!({"hook_event_name": "Stop", "session_id": "huge", "last_assistant_message": "z".repeat(8 << 20)});
    let output = run(serve.home(), &["hook", "claude"], huge.to_string().as_bytes());
    assert!(output.status.success());
    assert!(output.stdout.is_empty());
    assert!(run(serve.home(), &["hook"], b"").status.success());
    serve.post("custom", &json!({"sessionId": "marker"}));
    serve.wait_for("marker", |_| true);
    assert!(serve.session("huge").is_none(), "an over-cap body is not forwarded");
}
