//! No stuck badge: what the hooks cannot say, settled by the second source — the agent's
//! process (its exit, its tool children) and its transcript — against a real `serve`.

use std::io::Write;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

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
    let session =
        eventually(Duration::from_secs(10), || serve.session("approved").filter(|s| s["status"] == "working"))
            .expect("working once the tool has started");
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
    let record = json!({"type": "user", "message": {"role": "user", "content": [
        {"type": "text", "text": "[Request interrupted by user for tool use]"}]}});
    // The watcher follows the transcript from where it ended when it took the blocked session
    // in, which may be after a first record written now: written again until it settles.
    let mut written: Option<Instant> = None;
    let session = eventually(Duration::from_secs(10), || {
        let settled = serve.session("refused").filter(|s| s["status"] == "done");
        if settled.is_none() && written.is_none_or(|at| at.elapsed() >= Duration::from_millis(500)) {
            let mut file = std::fs::OpenOptions::new().append(true).open(&transcript).unwrap();
            writeln!(file, "{record}").unwrap();
            written = Some(Instant::now());
        }
        settled
    })
    .expect("done once the watcher reads the record");
    assert_eq!(session["interrupted"], true);
}

#[test]
fn a_reused_pid_is_not_the_agent() {
    let serve = Serve::start();
    // The pid exists (this test process) but started at another time: that agent is gone.
    let me = std::process::id();
    let session = watched_but_gone(&serve, "reused", me);
    assert_eq!(session["exited"], true);
    // A well-formed request without the header is an agent we cannot watch: it stays.
    let path = format!("/hook/claude?key={}", serve.endpoint.key);
    assert_eq!(
        request(serve.addr(), "POST", &path, payload("plain", "UserPromptSubmit", json!({})).to_string().as_bytes()).0,
        204
    );
    // Two sessions whose agent is gone, each sent after it: the first ends at a liveness check
    // that already knew "plain", the second at a later one, by when every event of the first
    // has been applied.
    let dead = Command::new("true").spawn().unwrap();
    let dead_pid = dead.id();
    dead.wait_with_output().unwrap();
    for control in ["control-1", "control-2"] {
        watched_but_gone(&serve, control, dead_pid);
    }
    assert_eq!(serve.session("plain").unwrap()["ended"], false);
}

/// POSTs a hook as the forwarder does from the agent process `process` (its header).
fn post_from(serve: &Serve, agent: &str, body: &Value, process: &Value) {
    let body = body.to_string();
    let path = format!("/hook/{agent}?key={}", serve.endpoint.key);
    let head = format!(
        "POST {path} HTTP/1.1\r\nHost: x\r\nContent-Length: {}\r\nx-switchboard-process: {process}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    crate::support::raw(serve.addr(), head.as_bytes(), Duration::from_secs(5));
}

/// Sends a prompt of session `id` from an agent process that is `pid` but started at another
/// time (so not alive as far as the watcher can tell), and returns the session once it ended.
fn watched_but_gone(serve: &Serve, id: &str, pid: u32) -> Value {
    let header = json!({"pid": pid, "start": 1, "tty": null, "tmuxPane": null, "tmuxSocket": null, "windowId": null,
        "termProgram": null});
    post_from(serve, "claude", &payload(id, "UserPromptSubmit", json!({})), &header);
    eventually(Duration::from_secs(10), || serve.session(id).filter(|s| s["ended"] == true))
        .unwrap_or_else(|| panic!("{id} ended: its pid is not that agent; last seen {:?}", serve.session(id)))
}

/// Issue 20.1 (stand-in for Esc in a new session's first turn): the turn's hook names a
/// transcript that Claude Code has not created yet; once it appears with the interrupt record,
/// the session settles.
#[test]
fn a_transcript_that_appears_after_the_first_prompt_is_still_followed() {
    let serve = Serve::start();
    let dir = tempfile::tempdir().unwrap();
    let transcript = dir.path().join("not-yet.jsonl");
    let path = transcript.to_str().unwrap();
    serve.post("claude", &payload("first-turn", "UserPromptSubmit", json!({"transcript_path": path, "prompt": "go"})));
    serve.wait_for("first-turn", |s| s["status"] == "working");
    // The watcher took the session in when it has seen it (a marker sent after it is applied).
    serve.post("custom", &json!({"sessionId": "marker", "status": "working"}));
    serve.wait_for("marker", |_| true);
    let records = [
        json!({"type": "user", "message": {"role": "user", "content": "go"}}),
        json!({"type": "user", "message": {"role": "user", "content": [
            {"type": "text", "text": "[Request interrupted by user]"}]}}),
    ];
    let text: String = records.iter().map(|r| format!("{r}\n")).collect();
    std::fs::write(&transcript, text).unwrap();
    let session = eventually(Duration::from_secs(10), || serve.session("first-turn").filter(|s| s["status"] == "done"))
        .expect("settled from the transcript that appeared");
    assert_eq!(session["interrupted"], true);
    assert_eq!(session["unread"], false, "the user stopped it: nobody is told");
}

/// Issue 20.5 (stand-in for `kill -9` under tmux): the agent is a zombie its parent has not
/// reaped; it is gone all the same.
#[test]
fn an_agent_that_is_a_zombie_not_yet_reaped_ends_its_session() {
    let serve = Serve::start();
    // This test process plays the parent that does not reap: its child exits and stays a zombie.
    let mut zombie = Command::new("sleep").arg("0.2").spawn().unwrap();
    let pid = zombie.id();
    let start = switchboard_engine::process::stat(pid).expect("just started").start;
    let header = json!({"pid": pid, "start": start, "tty": null, "tmuxPane": null, "tmuxSocket": null,
        "windowId": null, "termProgram": null});
    post_from(&serve, "claude", &payload("zombie", "UserPromptSubmit", json!({})), &header);
    let session = eventually(Duration::from_secs(15), || serve.session("zombie").filter(|s| s["ended"] == true))
        .expect("a zombie agent ends its session");
    assert_eq!(session["exited"], true);
    let state = switchboard_engine::process::stat(pid).map(|s| s.state);
    assert_eq!(state, Some('Z'), "still unreaped when the session ended");
    zombie.wait().unwrap();
}

/// Issue 20.2 (stand-in for Enter pressed as soon as the prompt is drawn): the tool starts well
/// inside the window in which other hooks of the permission's event run; it runs the command the
/// permission asked for, so it is the tool.
#[test]
fn a_quick_approval_is_seen_from_the_asked_command_starting() {
    let serve = Serve::start();
    let dir = tempfile::tempdir().unwrap();
    let go = dir.path().join("go");
    let mut child = agent(
        &serve,
        &payload("quick", "PermissionRequest", json!({})),
        &format!(
            "import os\nwhile not os.path.exists({:?}): time.sleep(0.005)\nsubprocess.Popen(['sh', '-c', 'make deploy 2>/dev/null; sleep 30'])",
            go.to_str().unwrap()
        ),
    );
    serve.wait_for("quick", |s| s["status"] == "blocked");
    std::fs::write(&go, "").unwrap();
    let session = eventually(Duration::from_secs(10), || serve.session("quick").filter(|s| s["status"] == "working"))
        .expect("working once the asked command runs");
    assert_eq!(session["message"], "make deploy");
    child.kill().unwrap();
    child.wait().unwrap();
}

/// Issue 20.4 (stand-in for Esc while Gemini's answer streams): Gemini fires an ordinary
/// AfterAgent with the partial text; its chat file says "Request cancelled." just after. The
/// session ends as the user's interrupt: no unread dot.
#[test]
fn a_gemini_turn_cancelled_while_streaming_is_an_interrupt_not_a_finish() {
    let serve = Serve::start();
    let dir = tempfile::tempdir().unwrap();
    let chat = dir.path().join("session.jsonl");
    std::fs::write(&chat, "{\"type\":\"user\",\"content\":[{\"text\":\"earlier\"}]}\n").unwrap();
    let path = chat.to_str().unwrap();
    let gemini = |event: &str| {
        json!({"hook_event_name": event, "session_id": "streamed", "cwd": "/w", "transcript_path": path,
            "prompt": "Write a long essay", "prompt_response": "Let me think about this carefully "})
    };
    serve.post("gemini", &gemini("BeforeAgent"));
    serve.wait_for("streamed", |s| s["status"] == "working");
    serve.post("gemini", &gemini("AfterAgent"));
    serve.wait_for("streamed", |s| s["status"] == "done");
    let mut file = std::fs::OpenOptions::new().append(true).open(&chat).unwrap();
    writeln!(file, "{}", json!({"type": "info", "content": "Request cancelled."})).unwrap();
    let session =
        eventually(Duration::from_secs(10), || serve.session("streamed").filter(|s| s["interrupted"] == true))
            .expect("the cancel makes it an interrupt");
    assert_eq!(session["status"], "done");
    assert_eq!(session["unread"], false, "the user stopped it: no dot");
}

/// Issue 20.3 (stand-in for Esc at Gemini's `ask_user` question): no hook fires and no record is
/// written; the agent's tmux pane shows "Request cancelled." and the question is gone. A real
/// tmux pane plays the screen.
#[test]
fn a_question_dismissed_on_the_agents_tmux_screen_settles_the_session() {
    let dir = tempfile::tempdir().unwrap();
    let socket = dir.path().join("tmux.sock");
    let tmux = |args: &[&str]| {
        let out = Command::new("tmux").arg("-S").arg(&socket).args(args).output().expect("tmux (apt-get install tmux)");
        String::from_utf8_lossy(&out.stdout).trim().to_owned()
    };
    tmux(&["-f", "/dev/null", "new-session", "-d", "-s", "agents", "-x", "80", "-y", "24", "cat"]);
    let pane = tmux(&["display", "-p", "#{pane_id}"]);
    let serve = Serve::start();
    let me = std::process::id();
    let start = switchboard_engine::process::stat(me).expect("/proc/self/stat").start;
    let header = json!({"pid": me, "start": start, "tty": null, "tmuxPane": pane, "tmuxSocket": socket,
        "windowId": null, "termProgram": null});
    let question = "Which database?";
    for body in [
        json!({"hook_event_name": "BeforeTool", "session_id": "asked", "cwd": "/w", "tool_name": "ask_user",
            "tool_input": {"questions": [{"question": question}]}}),
        json!({"hook_event_name": "Notification", "session_id": "asked", "cwd": "/w",
            "notification_type": "ToolPermission", "message": "Ask user", "details": {"type": "ask_user"}}),
    ] {
        post_from(&serve, "gemini", &body, &header);
    }
    serve.wait_for("asked", |s| s["status"] == "waiting" && s["question"] == question);
    // The watcher has taken its baseline once a marker sent after it is on the board.
    serve.post("custom", &json!({"sessionId": "marker", "status": "working"}));
    serve.wait_for("marker", |_| true);
    tmux(&["send-keys", "-t", &pane, "-l", "Request cancelled."]);
    tmux(&["send-keys", "-t", &pane, "Enter"]);
    let session = eventually(Duration::from_secs(10), || serve.session("asked").filter(|s| s["status"] == "done"))
        .unwrap_or_else(|| {
            let screen = tmux(&["capture-pane", "-p", "-t", &pane]);
            panic!("not settled from the screen: {:?}\nscreen: {screen}", serve.session("asked"))
        });
    assert_eq!(session["interrupted"], true);
    assert_eq!(session["awaitingInput"], false, "the question is gone");
    tmux(&["kill-server"]);
}
