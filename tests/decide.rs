//! Act from the board (issue 14) through real processes: `switchboard serve` with a CLI opted in,
//! the real `switchboard hook` forwarder holding a permission, and the answer given over HTTP
//! (what the app's Allow / Deny buttons do in-process). The real CLIs' side is in
//! `tests/real_cli/` (`make test-real-clis`).

use std::io::Write;
use std::path::Path;
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::support::{eventually, fixture, request, run, temp_home, Serve, BIN};

const SESSION: &str = "00893aaf-19fa-41d2-8238-13269b9b3ca0";

/// How long a forwarder that must not be held may take to exit: far more than it needs, far
/// less than the holds (30 s, 60 s) it would otherwise wait out. Only a bound against hanging.
const UNHELD: Duration = Duration::from_secs(20);

/// A serve whose saved settings opt Claude in, holding for `seconds`.
fn serve_deciding(seconds: u32) -> Serve {
    let home = tempfile::tempdir().unwrap();
    let settings = json!({"decide": ["claude"], "holdSeconds": seconds});
    std::fs::write(home.path().join("settings.json"), settings.to_string()).unwrap();
    let serve = Serve::start_in(home, &[]);
    assert_eq!(serve.endpoint.decide, ["claude"]);
    assert_eq!(serve.endpoint.hold_ms, u64::from(seconds) * 1000);
    serve
}

/// `switchboard hook <agent>` with the payload on stdin, run by a stand-in agent that goes on
/// after it, as a real CLI does: were the agent gone when its hook returns, the watcher would
/// rightly end its session ("exited without ending its session"), and a test looking at the
/// session after the answer would race it (CI caught that once). The agent is `timeout`: the
/// forwarder reports the process past its shell, and this test binary's other children would
/// look like the approved tool running (issue 11). The forwarder writes its stdout and exit
/// code to files, since `timeout` keeps any pipe open for as long as the agent lives.
struct Forwarder {
    agent: Child,
    files: tempfile::TempDir,
    started: Instant,
}

impl Forwarder {
    /// Its output, once it has exited.
    fn exited(&self) -> Option<Output> {
        use std::os::unix::process::ExitStatusExt;
        let code = std::fs::read_to_string(self.files.path().join("code")).ok()?;
        let code: i32 = code.trim().parse().expect("an exit code");
        let read = |name: &str| std::fs::read(self.files.path().join(name)).unwrap_or_default();
        Some(Output { status: ExitStatusExt::from_raw(code << 8), stdout: read("out"), stderr: read("err") })
    }
}

impl Drop for Forwarder {
    /// Ends the stand-in agent: `timeout` passes SIGTERM on to its `sleep`.
    fn drop(&mut self) {
        // SAFETY: a plain kill(2) of our own child, which has not been waited for yet.
        unsafe { libc::kill(self.agent.id() as libc::pid_t, libc::SIGTERM) };
        let _ = self.agent.wait();
    }
}

fn hook(serve: &Serve, agent: &str, payload: &Value) -> Forwarder {
    hook_in(serve.home(), agent, payload)
}

/// [`hook`] in any state directory, with or without an instance.
fn hook_in(home: &Path, agent: &str, payload: &Value) -> Forwarder {
    let files = tempfile::tempdir().unwrap();
    // The code is written last, whole, by a rename: once it is there, so are the others.
    let script =
        r#""$0" hook "$1" >"$2/out" 2>"$2/err"; echo $? >"$2/code.new"; mv "$2/code.new" "$2/code"; exec sleep 120"#;
    let mut agent = Command::new("timeout")
        .args(["150", "sh", "-c", script, BIN, agent])
        .arg(files.path())
        .env("SWITCHBOARD_HOME", home)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    agent.stdin.take().unwrap().write_all(payload.to_string().as_bytes()).unwrap();
    Forwarder { agent, files, started: Instant::now() }
}

/// The forwarder's output and how long it ran, the stand-in agent left running.
fn finish(running: &Forwarder) -> (Output, Duration) {
    let output = eventually(Duration::from_secs(130), || running.exited()).expect("the forwarder exited");
    (output, running.started.elapsed())
}

/// The output of a forwarder that is not held: it exits on its own within [`UNHELD`].
fn unheld(running: &Forwarder, what: &str) -> Output {
    eventually(UNHELD, || running.exited())
        .unwrap_or_else(|| panic!("{what}: the forwarder was still held after {UNHELD:?}"))
}

/// The hold's id, once the session offers Allow / Deny.
fn offered(serve: &Serve) -> u64 {
    let session = serve.wait_for(SESSION, |s| s["decision"].is_u64());
    assert_eq!(session["status"], "blocked");
    session["decision"].as_u64().unwrap()
}

fn answer(serve: &Serve, id: u64, verdict: &str) -> u16 {
    let path = format!("/decision/{SESSION}?key={}&id={id}&verdict={verdict}", serve.endpoint.key);
    request(serve.addr(), "POST", &path, b"").0
}

#[test]
fn allow_and_deny_from_the_board_reach_the_cli_in_its_own_words() {
    let serve = serve_deciding(30);
    for (verdict, behavior, said) in [("allow", "allow", "Allowed"), ("deny", "deny", "Denied")] {
        let running = hook(&serve, "claude", &fixture("claude/PermissionRequest.json"));
        let id = offered(&serve);
        assert_eq!(answer(&serve, id + 1000, verdict), 409, "an answer to another hold is refused");
        assert_eq!(answer(&serve, id, verdict), 204);
        let (output, _) = finish(&running);
        assert!(output.status.success());
        // Answered, not timed out: a hold that runs out leaves stdout empty.
        let stdout: Value = serde_json::from_slice(&output.stdout).expect("a JSON decision on stdout");
        assert_eq!(stdout["hookSpecificOutput"]["hookEventName"], "PermissionRequest");
        assert_eq!(stdout["hookSpecificOutput"]["decision"]["behavior"], behavior);
        let session = serve.wait_for(SESSION, |s| s["status"] == "working");
        assert_eq!(session["decision"], Value::Null);
        let message = session["message"].as_str().unwrap();
        assert!(message.starts_with(&format!("{said} from Switchboard: ")), "{message}");
        assert!(message.contains("rm -rf node_modules"), "what was decided: {message}");
        assert_eq!(answer(&serve, id, verdict), 409, "the first answer won");
    }
    // Decisions need the key.
    let running = hook(&serve, "claude", &fixture("claude/PermissionRequest.json"));
    let id = offered(&serve);
    let keyless = format!("/decision/{SESSION}?id={id}&verdict=allow");
    assert_eq!(request(serve.addr(), "POST", &keyless, b"").0, 401);
    assert_eq!(answer(&serve, id, "maybe"), 400);
    assert_eq!(answer(&serve, id, "deny"), 204);
    assert!(finish(&running).0.status.success());
}

#[test]
fn unanswered_the_hook_falls_through_silently_after_the_hold() {
    let serve = serve_deciding(5);
    let running = hook(&serve, "claude", &fixture("claude/PermissionRequest.json"));
    offered(&serve);
    let (output, took) = finish(&running);
    assert!(output.status.success());
    assert!(output.stdout.is_empty(), "nothing said: the CLI asks in its terminal");
    assert!(took >= Duration::from_secs(4), "held for the 5 s hold: {took:?}");
    let session = serve.wait_for(SESSION, |s| s["decision"].is_null());
    assert_eq!(session["status"], "blocked", "still waiting for the user at the terminal");
}

#[test]
fn answered_at_the_terminal_the_hold_is_released_at_once() {
    let serve = serve_deciding(60);
    let running = hook(&serve, "claude", &fixture("claude/PermissionRequest.json"));
    let id = offered(&serve);
    // The notice Claude shows ~6 s into its prompt is the same prompt: still held.
    assert_eq!(serve.post("claude", &fixture("claude/Notification-permission_prompt.json")), 204);
    // A marker after it: inputs are applied in order, so once the marker is on the board the
    // notice has been applied too.
    assert_eq!(serve.post("custom", &json!({"sessionId": "marker", "status": "working"})), 204);
    serve.wait_for("marker", |_| true);
    assert_eq!(serve.session(SESSION).unwrap()["decision"], id, "still on offer after the notice");
    // The user pressed "Yes" in the terminal: the tool ran and reported.
    assert_eq!(serve.post("claude", &fixture("claude/PostToolUse.json")), 204);
    let output = unheld(&running, "released, not held for 60 s");
    assert!(output.status.success() && output.stdout.is_empty());
    serve.wait_for(SESSION, |s| s["decision"].is_null());
    assert_eq!(answer(&serve, id, "allow"), 409, "too late: the terminal answered first");
}

#[test]
fn only_opted_in_clis_and_only_permissions_are_held() {
    let serve = serve_deciding(30);
    // Codex is not opted in; a question and a tool call are not permissions. None is held: each
    // exits on its own, well before the 30 s hold.
    let codex_hook = hook(&serve, "codex", &fixture("codex/PermissionRequest.json"));
    let codex = unheld(&codex_hook, "codex");
    let question = json!({"hook_event_name": "PreToolUse", "session_id": "q", "tool_name": "AskUserQuestion",
        "tool_input": {"questions": [{"question": "Which framework?"}]}});
    let question_hook = hook(&serve, "claude", &question);
    let asked = unheld(&question_hook, "a question");
    let tool_hook = hook(&serve, "claude", &fixture("claude/PreToolUse-Bash.json"));
    let tool = unheld(&tool_hook, "a tool call");
    for output in [&codex, &asked, &tool] {
        assert!(output.status.success() && output.stdout.is_empty());
    }
    let codex = serve.wait_for("019fb425-0000-7000-8000-000000000001", |s| s["status"] == "blocked");
    assert_eq!(codex["decision"], Value::Null);
}

#[test]
fn without_a_running_instance_a_held_permission_does_not_wait() {
    let home = temp_home();
    std::fs::write(home.join("settings.json"), json!({"decide": ["claude"]}).to_string()).unwrap();
    // Nothing to hold it: it exits on its own, well before the default 30 s hold.
    let running = hook_in(&home, "claude", &fixture("claude/PermissionRequest.json"));
    let output = unheld(&running, "no instance");
    assert!(output.status.success() && output.stdout.is_empty());
}

/// An instance that does not know `/hold` (an older one still running after an upgrade) still
/// gets the permission, the plain way.
#[test]
fn an_instance_without_holds_still_gets_the_permission() {
    use std::io::{Read, Write as _};
    let home = temp_home();
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let endpoint = switchboard_engine::endpoint::Endpoint {
        port,
        key: "k".into(),
        pid: std::process::id(),
        decide: vec!["claude".into()],
        hold_ms: 30_000,
    };
    endpoint.write(&home).unwrap();
    let (seen, paths) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for mut stream in listener.incoming().flatten() {
            let mut request = vec![0u8; 64 * 1024];
            let n = stream.read(&mut request).unwrap_or(0);
            let head = String::from_utf8_lossy(&request[..n]).lines().next().unwrap_or_default().to_owned();
            let status = if head.contains("/hold/") { "404 Not Found" } else { "204 No Content" };
            let _ = seen.send(head);
            let _ = write!(stream, "HTTP/1.1 {status}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
        }
    });
    let output = run(&home, &["hook", "claude"], fixture("claude/PermissionRequest.json").to_string().as_bytes());
    assert!(output.status.success() && output.stdout.is_empty());
    let heads: Vec<String> = paths.try_iter().collect(); // each sent before its answer
    assert_eq!(heads.len(), 2, "{heads:?}");
    assert!(heads[0].starts_with("POST /hold/claude?key=k&ms=30000 "), "{heads:?}");
    assert!(heads[1].starts_with("POST /hook/claude?key=k "), "then the plain way: {heads:?}");
}

/// Issue 24: Claude's question tool, held like a permission (its hook takes the answers), is
/// answered from the board by option or in words — the forwarder allows it with the answers in
/// `updatedInput`, keyed by the question's text — and what was answered is the message of its
/// `working` (the entry its history keeps).
#[test]
fn a_held_claude_question_is_answered_through_the_hook_by_option_or_in_words() {
    let serve = serve_deciding(30);
    let payload = fixture("real/claude-code-2.1.332/events/PermissionRequest-AskUserQuestion.json");
    let session_id = payload["session_id"].as_str().unwrap().to_owned();
    let question = payload["tool_input"]["questions"][0]["question"].as_str().unwrap().to_owned();
    let second = payload["tool_input"]["questions"][0]["options"][1]["label"].as_str().unwrap().to_owned();
    for (said, option, expected) in
        [("", Some(2), second.as_str()), ("Teal, like the logo", None, "Teal, like the logo")]
    {
        let running = hook(&serve, "claude", &payload);
        let asked = serve.wait_for(&session_id, |s| s["decision"].is_u64());
        assert_eq!((asked["status"].as_str(), asked["awaitingInput"].as_bool()), (Some("waiting"), Some(true)));
        let path = match option {
            Some(n) => format!("/answer/{session_id}?key={}&option={n}", serve.endpoint.key),
            None => format!("/answer/{session_id}?key={}", serve.endpoint.key),
        };
        let (status, body) = request(serve.addr(), "POST", &path, said.as_bytes());
        assert_eq!(status, 200, "{}", String::from_utf8_lossy(&body));
        let delivered: Value = serde_json::from_slice(&body).unwrap();
        assert_eq!((delivered["throughHook"].as_bool(), delivered["typed"].as_str()), (Some(true), Some(expected)));
        let (output, _) = finish(&running);
        let stdout: Value = serde_json::from_slice(&output.stdout).expect("a JSON decision on stdout");
        let decision = &stdout["hookSpecificOutput"]["decision"];
        assert_eq!(decision["behavior"], "allow");
        assert_eq!(decision["updatedInput"]["answers"], json!({ question.as_str(): expected }));
        assert_eq!(decision["updatedInput"]["questions"], payload["tool_input"]["questions"], "asked as it was");
        let session = serve.wait_for(&session_id, |s| s["status"] == "working");
        assert_eq!(session["message"], format!("Answered from Switchboard: {expected}"));
        let (status, _) = request(serve.addr(), "POST", &path, said.as_bytes());
        assert_eq!(status, 409, "answered: nothing waits for another answer");
    }
}
