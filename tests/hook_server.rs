//! docs/model.md §3, bullet by bullet, against a real server on loopback.

use std::io::{ErrorKind, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::Arc;
use std::time::Duration;

use serde_json::{json, Value};
use switchboard_engine::{HookServer, Hub};

use crate::support::{eventually, fixture, raw, request, run, Serve};

const CLAUDE_SESSION: &str = "00893aaf-19fa-41d2-8238-13269b9b3ca0";

/// How long we wait for the server to cut a client off: far above its own cut-offs
/// (`READ_TIMEOUT` 5 s, `BODY_TIMEOUT` 1 s), so only a server that never does lets it run out.
const PATIENCE: Duration = Duration::from_secs(20);

/// Writes `bytes`, then reads until the server closes the connection, and returns what it said.
/// Panics when [`PATIENCE`] runs out first: then the server never cut the client off.
fn until_server_closes(addr: SocketAddr, bytes: &[u8]) -> Vec<u8> {
    let mut stream = TcpStream::connect(addr).unwrap();
    stream.set_read_timeout(Some(PATIENCE)).unwrap();
    let _ = stream.write_all(bytes); // the server may close before it has read them all
    let mut response = Vec::new();
    match stream.read_to_end(&mut response) {
        Ok(_) => {}
        // Closed with some of our bytes unread: a reset, still the server's doing.
        Err(error) if matches!(error.kind(), ErrorKind::ConnectionReset | ErrorKind::ConnectionAborted) => {}
        Err(error) => panic!(
            "the server did not close the connection within {PATIENCE:?} ({error}); it said {:?}",
            String::from_utf8_lossy(&response)
        ),
    }
    response
}

#[test]
fn an_accepted_event_is_answered_204_with_an_empty_body_and_reaches_the_reducer() {
    let serve = Serve::start();
    let path = format!("/hook/claude?key={}", serve.endpoint.key);
    let (status, body) = request(serve.addr(), "POST", &path, fixture("claude/Stop.json").to_string().as_bytes());
    assert_eq!(status, 204);
    assert!(body.is_empty());
    let session = serve.wait_for(CLAUDE_SESSION, |s| s["status"] == "done");
    assert_eq!(session["agent"], "claude");
    assert_eq!(session["unread"], true, "serve counts as unfocused");
    assert_eq!(session["message"], "I've completed the refactoring. Here's a summary...");
}

#[test]
fn a_missing_key_is_rejected_exactly_like_a_wrong_one() {
    let serve = Serve::start();
    let body = fixture("claude/PermissionRequest.json").to_string();
    let wrong_key = "0".repeat(48);
    for path in ["/hook/claude".to_owned(), "/hook/claude?key=".into(), format!("/hook/claude?key={wrong_key}")] {
        let (status, response) = request(serve.addr(), "POST", &path, body.as_bytes());
        assert_eq!((status, response.len()), (204, 0), "{path}");
    }
    // A correct event afterwards proves the queue works and the rejected ones never arrived.
    serve.post("custom", &json!({"sessionId": "marker", "status": "working"}));
    serve.wait_for("marker", |_| true);
    assert!(serve.session(CLAUDE_SESSION).is_none());
}

#[test]
fn other_methods_on_hook_get_405() {
    let serve = Serve::start();
    let path = format!("/hook/claude?key={}", serve.endpoint.key);
    for method in ["GET", "PUT", "DELETE"] {
        assert_eq!(request(serve.addr(), method, &path, b"").0, 405, "{method}");
    }
}

#[test]
fn a_body_over_256_kib_is_refused_before_parsing() {
    let serve = Serve::start();
    let path = format!("/hook/custom?key={}", serve.endpoint.key);
    let mut big = json!({"sessionId": "too-big", "status": "done", "message": ""});
    big["message"] = json!("x".repeat(300 * 1024));
    let big = big.to_string();
    // Declared length over the cap: refused from the header alone.
    let head = format!("POST {path} HTTP/1.1\r\nHost: x\r\nContent-Length: {}\r\nConnection: close\r\n\r\n", big.len());
    let response = raw(serve.addr(), head.as_bytes(), Duration::from_secs(5));
    assert!(response.is_empty() || response.starts_with(b"HTTP/1.1 413"), "{}", String::from_utf8_lossy(&response));
    // Chunked, so the size is only known while reading: refused once the cap is passed.
    let mut chunked =
        format!("POST {path} HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n")
            .into_bytes();
    for chunk in big.as_bytes().chunks(16 * 1024) {
        chunked.extend_from_slice(format!("{:x}\r\n", chunk.len()).as_bytes());
        chunked.extend_from_slice(chunk);
        chunked.extend_from_slice(b"\r\n");
    }
    chunked.extend_from_slice(b"0\r\n\r\n");
    let response = raw(serve.addr(), &chunked, Duration::from_secs(5));
    assert!(response.is_empty() || response.starts_with(b"HTTP/1.1 413"), "{}", String::from_utf8_lossy(&response));
    // Just under the cap is fine.
    let mut fits = json!({"sessionId": "fits", "status": "done", "message": ""});
    fits["message"] = json!("y".repeat(250 * 1024));
    assert_eq!(serve.post("custom", &fits), 204);
    serve.wait_for("fits", |s| s["status"] == "done");
    assert!(serve.session("too-big").is_none());
}

/// Issue 12 item 9: a chunk that announces 2^64 - 1 bytes (or a body that trickles) is cut off
/// by the server (a keyed one with a 408 once its body deadline passes, a keyless one at once),
/// never held until the client gives up.
#[test]
fn a_body_that_never_completes_is_cut_off_within_the_body_deadline() {
    let serve = Serve::start();
    for (key, expected) in [(serve.endpoint.key.as_str(), "HTTP/1.1 408"), ("", "HTTP/1.1 204")] {
        for size in ["ffffffffffffffff", "10000000000000000", "3e8"] {
            let head = format!(
                "POST /hook/claude?key={key} HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n{size}\r\nabc"
            );
            let response = until_server_closes(serve.addr(), head.as_bytes());
            let response = String::from_utf8_lossy(&response);
            // 2^64 overflows hyper's chunk-size parser: refused at once, whatever it answers.
            if size != "10000000000000000" {
                assert!(response.starts_with(expected), "{size} key={}: {response}", !key.is_empty());
            }
        }
    }
    // The server is still answering.
    serve.post("custom", &json!({"sessionId": "after", "status": "done"}));
    serve.wait_for("after", |s| s["status"] == "done");
}

#[test]
fn malformed_json_unknown_agents_and_unrecognized_events_are_dropped_with_204() {
    let serve = Serve::start();
    let key = &serve.endpoint.key;
    let cases: Vec<(String, Vec<u8>)> = vec![
        (format!("/hook/claude?key={key}"), b"{not json".to_vec()),
        (format!("/hook/claude?key={key}"), b"".to_vec()),
        (format!("/hook/cursor?key={key}"), fixture("claude/Stop.json").to_string().into_bytes()),
        (format!("/hook/Claude?key={key}"), fixture("claude/Stop.json").to_string().into_bytes()),
        (format!("/hook/claude?key={key}"), fixture("claude/Notification-auth_success.json").to_string().into_bytes()),
        (format!("/hook/claude?key={key}"), json!({"hook_event_name": "Stop"}).to_string().into_bytes()),
    ];
    for (path, body) in cases {
        let (status, response) = request(serve.addr(), "POST", &path, &body);
        assert_eq!((status, response.len()), (204, 0), "{path}");
    }
    serve.post("custom", &json!({"sessionId": "marker"}));
    serve.wait_for("marker", |_| true);
    assert_eq!(serve.sessions()["sessions"].as_array().unwrap().len(), 1, "only the marker got through");
}

#[test]
fn get_sessions_needs_the_key() {
    let serve = Serve::start();
    assert_eq!(request(serve.addr(), "GET", "/sessions", b"").0, 401);
    assert_eq!(request(serve.addr(), "GET", "/sessions?key=nope", b"").0, 401);
    let (status, body) = request(serve.addr(), "GET", &format!("/sessions?key={}", serve.endpoint.key), b"");
    assert_eq!(status, 200);
    assert_eq!(serde_json::from_slice::<serde_json::Value>(&body).unwrap(), json!({"sessions": []}));
}

#[test]
fn a_stalled_client_does_not_delay_others_and_is_cut_off() {
    let serve = Serve::start();
    let addr = serve.addr();
    // Half a request head, then silence.
    let stalled = std::thread::spawn(move || until_server_closes(addr, b"POST /hook/claude HTTP/1.1\r\nHost: x\r\n"));
    let mut half_body = TcpStream::connect(addr).unwrap();
    half_body.write_all(b"POST /hook/custom HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{").unwrap();
    for i in 0..20 {
        assert_eq!(serve.post("custom", &json!({"sessionId": format!("s{i}"), "status": "working"})), 204);
    }
    serve.wait_for("s19", |s| s["status"] == "working");
    // The server closes the stalled connection after its read timeout, long before ours.
    stalled.join().expect("the stalled connection was closed by the server");
}

#[test]
fn fifty_sessions_of_forty_events_sent_concurrently_all_end_in_the_right_state() {
    let serve = Arc::new(Serve::start());
    let threads: Vec<_> = (0..50)
        .map(|i| {
            let serve = Arc::clone(&serve);
            std::thread::spawn(move || {
                let id = format!("load-{i:02}");
                let event = |name: &str| {
                    let mut body = fixture(&format!("claude/{name}.json"));
                    body["session_id"] = json!(id);
                    body
                };
                assert_eq!(serve.post("claude", &event("UserPromptSubmit")), 204);
                for n in 0..38 {
                    let name = if n % 2 == 0 { "PreToolUse-Bash" } else { "PostToolUse" };
                    assert_eq!(serve.post("claude", &event(name)), 204);
                }
                let last = match i % 3 {
                    0 => "Stop",
                    1 => "PermissionRequest",
                    _ => "PreToolUse-AskUserQuestion",
                };
                assert_eq!(serve.post("claude", &event(last)), 204);
            })
        })
        .collect();
    for thread in threads {
        thread.join().unwrap();
    }
    let expected = |i: usize| ["done", "blocked", "waiting"][i % 3];
    crate::support::eventually(Duration::from_secs(10), || {
        let sessions = serve.sessions();
        let sessions = sessions["sessions"].as_array().unwrap();
        (sessions.len() == 50 && sessions.iter().all(|s| s["unread"] == true)).then_some(())
    })
    .expect("all 50 sessions arrive");
    for i in 0..50 {
        let session = serve.session(&format!("load-{i:02}")).unwrap();
        assert_eq!(session["status"], expected(i), "load-{i:02}");
        assert_eq!(session["unread"], true);
        if i % 3 == 2 {
            assert_eq!(session["question"], "Which framework?");
        }
    }
}

#[test]
fn a_full_reducer_queue_drops_events_but_never_delays_the_answer() {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    // Nothing drains the queue yet: it takes four, the rest are dropped, every answer is 204.
    let hub = Arc::new(Hub::new());
    let (inputs, queue) = switchboard_engine::instance::hub::inputs(4);
    let server = runtime
        .block_on(HookServer::start_with(
            inputs.clone(),
            Arc::clone(&hub),
            switchboard_engine::instance::act::decide::Decisions::new(inputs.clone()),
            "k".repeat(48),
        ))
        .unwrap();
    let path = format!("/hook/custom?key={}", server.key());
    for i in 0..20 {
        let body = json!({"sessionId": format!("q{i}"), "status": "working"}).to_string();
        assert_eq!(request(server.addr(), "POST", &path, body.as_bytes()).0, 204);
    }
    assert_eq!(inputs.dropped(), 16);
    let stop = tokio_util::sync::CancellationToken::new();
    runtime.spawn(Arc::clone(&hub).run(queue, stop.clone()));
    crate::support::eventually(Duration::from_secs(5), || (hub.snapshot().sessions.len() == 4).then_some(()))
        .expect("the queued events are applied once the reducer runs");
    stop.cancel();
    runtime.block_on(server.shutdown());
}

#[test]
fn a_second_serve_on_the_same_state_directory_refuses_to_start() {
    let serve = Serve::start();
    let output = std::process::Command::new(crate::support::BIN)
        .args(["serve", "--no-notify"])
        .env("SWITCHBOARD_HOME", serve.home())
        .output()
        .unwrap();
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("already running"), "{stderr}");
    // The first one is untouched: its endpoint still answers.
    assert_eq!(serve.post("custom", &json!({"sessionId": "still-here", "status": "working"})), 204);
    serve.wait_for("still-here", |_| true);
}

#[test]
fn a_session_can_be_removed_with_the_key_only() {
    let serve = Serve::start();
    serve.post("custom", &json!({"sessionId": "gone-soon", "status": "done"}));
    serve.wait_for("gone-soon", |_| true);
    assert_eq!(request(serve.addr(), "DELETE", "/sessions/gone-soon?key=wrong", b"").0, 401);
    let path = format!("/sessions/gone-soon?key={}", serve.endpoint.key);
    assert_eq!(request(serve.addr(), "DELETE", &path, b"").0, 204);
    assert!(serve.session("gone-soon").is_none());
    assert_eq!(request(serve.addr(), "DELETE", &path, b"").0, 404);
}

/// A user's remove racing a hook for the same session (issue 19): both go through the hub's one
/// queue, so a hook acknowledged before the remove is applied before it. Each session ends in one
/// defined state — removed, the remove answered 204 — never brought back by the hook it raced,
/// and the store agrees with the board after a restart.
#[test]
fn a_remove_right_after_an_acknowledged_hook_always_removes_the_session() {
    let serve = Serve::start();
    let ids: Vec<String> = (0..100).map(|n| format!("raced-{n}")).collect();
    for id in &ids {
        assert_eq!(serve.post("custom", &json!({"sessionId": id, "status": "blocked"})), 204);
        let path = format!("/sessions/{id}?key={}", serve.endpoint.key);
        assert_eq!(
            request(serve.addr(), "DELETE", &path, b"").0,
            204,
            "{id}: the acknowledged hook is there to remove"
        );
    }
    // A marker after them all: once it is on the board, every earlier input has been applied.
    serve.post("custom", &json!({"sessionId": "marker", "status": "done"}));
    serve.wait_for("marker", |_| true);
    let left: Vec<String> = serve.sessions()["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|s| s["sessionId"].as_str().map(str::to_owned))
        .collect();
    assert_eq!(left, ["marker"]);
    let (home, _) = serve.stop();
    let restarted = Serve::start_in(home, &[]);
    let saved: Vec<Value> = restarted.sessions()["sessions"].as_array().unwrap().clone();
    assert_eq!(saved.len(), 1, "the store agrees: {saved:?}");
}

/// This test process holds thousands of connections too: its soft descriptor limit goes up to
/// the hard one.
fn raise_descriptor_limit() {
    let mut limit = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
    // SAFETY: get/setrlimit with a valid pointer to a local struct.
    unsafe {
        libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit);
        limit.rlim_cur = limit.rlim_max;
        libc::setrlimit(libc::RLIMIT_NOFILE, &limit);
    }
}

#[test]
fn real_hooks_get_through_three_thousand_idle_connections() {
    raise_descriptor_limit();
    let serve = Serve::start();
    let idle: Vec<std::net::TcpStream> =
        (0..3_000).filter_map(|_| std::net::TcpStream::connect(serve.addr()).ok()).collect();
    assert!(idle.len() >= 2_500, "only {} idle connections opened", idle.len());
    for i in 0..50 {
        let body = json!({"sessionId": format!("real-{i}"), "status": "blocked"});
        assert_eq!(serve.post("custom", &body), 204, "hook {i}");
    }
    serve.wait_for("real-49", |s| s["status"] == "blocked");
    assert!((0..50).all(|i| serve.session(&format!("real-{i}")).is_some()));
    drop(idle);
}

/// Issue 22.5: with a hard limit of 1,024 descriptors, 1,100 hostile connections held open (and
/// reopened as soon as they are closed) do not keep out the real forwarder: the server sheds the
/// oldest connection that never sent a keyed request, and the forwarder tries again within its
/// deadline when its connection is shed.
#[test]
fn real_forwarded_hooks_get_through_1100_hostile_connections_at_a_1024_descriptor_limit() {
    raise_descriptor_limit();
    let serve = Serve::start_with_descriptors(1_024);
    let addr = serve.addr();
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let reopened = std::sync::Arc::new(std::sync::atomic::AtomicU64::new(0));
    let ready = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let attackers: Vec<_> = (0..4)
        .map(|_| {
            let (stop, reopened, ready) =
                (std::sync::Arc::clone(&stop), std::sync::Arc::clone(&reopened), std::sync::Arc::clone(&ready));
            std::thread::spawn(move || {
                let open = || TcpStream::connect(addr).ok().inspect(|s| s.set_nonblocking(true).unwrap());
                let mut held: Vec<Option<TcpStream>> = (0..275).map(|_| open()).collect();
                ready.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                    for slot in &mut held {
                        let closed = match slot {
                            Some(stream) => !matches!(stream.read(&mut [0u8; 1]), Err(e) if e.kind() == std::io::ErrorKind::WouldBlock),
                            None => true,
                        };
                        if closed {
                            *slot = open();
                            reopened.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        }
                    }
                    std::thread::sleep(Duration::from_millis(1));
                }
            })
        })
        .collect();
    // The attackers hold their 1,100 before the first real hook.
    let held = eventually(PATIENCE, || (ready.load(std::sync::atomic::Ordering::Relaxed) == 4).then_some(()));
    assert!(held.is_some(), "the attackers never opened their connections");
    let real = 100;
    let mut took = Vec::new();
    for i in 0..real {
        let body = json!({"sessionId": format!("real-{i}"), "status": "blocked"}).to_string();
        let started = std::time::Instant::now();
        let output = run(serve.home(), &["hook", "custom"], body.as_bytes());
        took.push(started.elapsed());
        assert!(output.status.success(), "the forwarder always exits 0");
    }
    took.sort();
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    for attacker in attackers {
        attacker.join().unwrap();
    }
    let arrived = (0..real).filter(|i| serve.session(&format!("real-{i}")).is_some()).count();
    eprintln!(
        "{arrived} of {real} real hooks arrived (forwarder median {:?}, slowest {:?}); the attackers reopened {} connections",
        took[real / 2],
        took[real - 1],
        reopened.load(std::sync::atomic::Ordering::Relaxed)
    );
    assert!(arrived * 100 >= real * 99, "only {arrived} of {real} real hooks arrived");
}

#[test]
fn a_keyless_request_is_answered_before_its_body_is_read() {
    let serve = Serve::start();
    // Headers announcing 250 KiB, and not one byte of body: a server that read the body first
    // would wait for it and then time out, answering 408, not 204.
    let mut stream = TcpStream::connect(serve.addr()).unwrap();
    stream.set_read_timeout(Some(PATIENCE)).unwrap();
    stream.write_all(b"POST /hook/claude?key=wrong HTTP/1.1\r\nHost: x\r\nContent-Length: 256000\r\n\r\n").unwrap();
    let mut answer = [0u8; 64];
    let n = stream.read(&mut answer).expect("answered without the body");
    assert!(answer[..n].starts_with(b"HTTP/1.1 204"), "{}", String::from_utf8_lossy(&answer[..n]));
}
