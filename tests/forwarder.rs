//! `switchboard hook <agent>`: forwards, prints nothing (Gemini: `{}`), always exits 0.

use serde_json::json;
use switchboard_engine::endpoint::Endpoint;
use switchboard_engine::protocol::BODY_LIMIT;

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
    Endpoint { port: dead_port, key: "k".into(), pid: 999_999, ..Endpoint::default() }.write(&home).unwrap();
    let output = run(&home, &["hook", "claude"], fixture("claude/Stop.json").to_string().as_bytes());
    assert!(output.status.success());
    assert!(output.stdout.is_empty() && output.stderr.is_empty());
    std::fs::write(Endpoint::path(&home), b"\x00garbage").unwrap();
    let output = run(&home, &["hook", "gemini"], b"{}");
    assert!(output.status.success());
    assert_eq!(String::from_utf8_lossy(&output.stdout).trim(), "{}");
}

#[test]
fn a_huge_payload_arrives_trimmed_and_a_missing_agent_still_exits_0() {
    let serve = Serve::start();
    // Just over the server's cap: sent as it is, it would be refused.
    let huge =
        json!({"hook_event_name": "Stop", "session_id": "huge", "last_assistant_message": "z".repeat(BODY_LIMIT)});
    let huge = huge.to_string();
    assert!(huge.len() > BODY_LIMIT);
    let output = run(serve.home(), &["hook", "claude"], huge.as_bytes());
    assert!(output.status.success());
    assert!(output.stdout.is_empty());
    assert!(run(serve.home(), &["hook"], b"").status.success());
    // Never lost to size: the forwarder trims the long field so the server's cap still holds.
    let session = serve.wait_for("huge", |s| s["status"] == "done");
    let message = session["message"].as_str().unwrap();
    // (trimmed by the forwarder to fit the cap, then clipped by the reducer like any long text)
    assert!(message.starts_with("zzzz") && message.chars().count() <= 4_000, "{}", message.len());
}

/// Runs `switchboard hook claude` with `stdin` and checks that it exits 0 on its own: within
/// 10 s, far beyond its deadline, and far short of what would hold it (a stdin or a FIFO that
/// never ends, a 27-byte answer at a byte a second).
fn hook_exits(home: &std::path::Path, stdin: std::process::Stdio) {
    let mut child = std::process::Command::new(crate::support::BIN)
        .args(["hook", "claude"])
        .env("SWITCHBOARD_HOME", home)
        .stdin(stdin)
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let status = crate::support::eventually(std::time::Duration::from_secs(10), || child.try_wait().unwrap())
        .unwrap_or_else(|| {
            let _ = child.kill();
            panic!("the hook did not exit within 10 s")
        });
    assert!(status.success());
}

#[test]
fn a_stdin_that_never_closes_cannot_hold_the_hook_past_its_deadline() {
    let home = temp_home();
    // A pipe whose write end stays open in this process: the hook never sees EOF.
    let (reader, _writer) = std::io::pipe().unwrap();
    hook_exits(&home, reader.into());
}

#[test]
fn a_server_that_answers_a_byte_a_second_cannot_hold_the_hook() {
    use std::io::{Read, Write};
    let home = temp_home();
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    Endpoint { port, key: "k".into(), pid: std::process::id(), ..Endpoint::default() }.write(&home).unwrap();
    std::thread::spawn(move || {
        for mut stream in listener.incoming().flatten() {
            std::thread::spawn(move || {
                let mut buf = [0u8; 4096];
                let _ = stream.read(&mut buf);
                for byte in b"HTTP/1.1 204 No Content\r\n\r\n" {
                    if stream.write_all(&[*byte]).is_err() {
                        return;
                    }
                    std::thread::sleep(std::time::Duration::from_secs(1));
                }
            });
        }
    });
    let (reader, mut writer) = std::io::pipe().unwrap();
    writer.write_all(fixture("claude/Stop.json").to_string().as_bytes()).unwrap();
    drop(writer);
    hook_exits(&home, reader.into());
}

#[test]
fn a_fifo_or_a_world_writable_endpoint_file_is_not_trusted() {
    use std::os::unix::fs::PermissionsExt;
    let home = temp_home();
    let path = Endpoint::path(&home);
    let c_path = std::ffi::CString::new(path.to_str().unwrap()).unwrap();
    // SAFETY: a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c_path.as_ptr(), 0o600) }, 0);
    hook_exits(&home, std::process::Stdio::null());
    assert!(Endpoint::read(&home).is_none());
    std::fs::remove_file(&path).unwrap();

    let serve = Serve::start();
    let path = Endpoint::path(serve.home());
    assert!(Endpoint::read(serve.home()).is_some());
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o666)).unwrap();
    assert!(Endpoint::read(serve.home()).is_none(), "a world-writable endpoint could redirect hooks");
}

/// Issue 45: an instance too busy to answer (stopped, as a starved process on a loaded machine
/// is) while 20 hooks fire: each forwarder gives up at its deadline as before, the events wait
/// in the spool, and once the instance runs again every one is on the board, none applied twice
/// (the requests still in its socket's backlog and the spooled copies carry the same ids).
#[test]
fn events_fired_while_the_instance_is_stopped_all_arrive_once() {
    let serve = Serve::start();
    let pid = libc::pid_t::try_from(serve.child.id()).unwrap();
    // SAFETY: signals to our own child process.
    unsafe { libc::kill(pid, libc::SIGSTOP) };
    fire_subagent_starts(serve.home(), 20);
    assert_eq!(spooled_lines(serve.home()), 20, "each event the instance did not answer is spooled");
    unsafe { libc::kill(pid, libc::SIGCONT) };
    assert_all_arrived_once(&serve, 20);
    // Taken once the instance runs: the events in its socket's backlog may be on the board first.
    // Bounded well inside the 30 s safety look, so a write the watch missed would fail here.
    let taken = crate::support::eventually(std::time::Duration::from_secs(10), || {
        (spooled_lines(serve.home()) == 0).then_some(())
    });
    assert!(taken.is_some(), "the spool is not taken: {} lines", spooled_lines(serve.home()));
}

/// The same, with the stopped instance killed and started again: what it never took is taken
/// by the next one, from the spool.
#[test]
fn events_fired_while_the_instance_is_stopped_survive_kill_9_and_a_restart() {
    let mut serve = Serve::start();
    let pid = libc::pid_t::try_from(serve.child.id()).unwrap();
    // SAFETY: signals to our own child process.
    unsafe { libc::kill(pid, libc::SIGSTOP) };
    fire_subagent_starts(serve.home(), 20);
    serve.child.kill().unwrap();
    serve.child.wait().unwrap();
    let home = std::mem::replace(&mut serve.home, tempfile::tempdir().unwrap());
    assert_eq!(spooled_lines(home.path()), 20);
    // The dead instance's endpoint file is still there (that is the case); the harness waits
    // for the new instance's own, so it goes first.
    std::fs::remove_file(Endpoint::path(home.path())).unwrap();
    let restarted = Serve::start_in(home, &[]);
    assert_all_arrived_once(&restarted, 20);
}

/// `count` hooks at once, each a Codex SubagentStart without an agent id for a session of its
/// own: applied twice, a session would count two running subagents. Every hook still exits 0.
fn fire_subagent_starts(home: &std::path::Path, count: usize) {
    let hooks: Vec<_> = (0..count)
        .map(|n| {
            let home = home.to_owned();
            std::thread::spawn(move || {
                let event =
                    json!({"hook_event_name": "SubagentStart", "session_id": format!("busy-{n}"), "cwd": "/tmp"});
                run(&home, &["hook", "codex"], event.to_string().as_bytes())
            })
        })
        .collect();
    for hook in hooks {
        let output = hook.join().unwrap();
        assert!(output.status.success() && output.stdout.is_empty() && output.stderr.is_empty(), "{output:?}");
    }
}

fn spooled_lines(home: &std::path::Path) -> usize {
    let text = std::fs::read_to_string(switchboard_engine::spool::path(home)).unwrap_or_default();
    text.lines().count()
}

fn assert_all_arrived_once(serve: &Serve, count: usize) {
    let busy = |sessions: &serde_json::Value| -> Vec<serde_json::Value> {
        let all = sessions["sessions"].as_array().cloned().unwrap_or_default();
        all.into_iter().filter(|s| s["sessionId"].as_str().is_some_and(|id| id.starts_with("busy-"))).collect()
    };
    let arrived = crate::support::eventually(std::time::Duration::from_secs(60), || {
        Some(busy(&serve.sessions())).filter(|sessions| sessions.len() == count)
    })
    .unwrap_or_else(|| panic!("not every event arrived: {:?}", busy(&serve.sessions()).len()));
    for session in &arrived {
        assert_eq!(session["subagents"], 1, "applied once: {session}");
    }
}
