//! Push from a real `switchboard serve` (issue 25): a webhook in `settings.json` pointing at a
//! small HTTP server here; a hook that blocks a session makes the POST arrive, without the
//! session's words (the privacy switch is off), and `POST /push/test` sends one test message.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::support::{request, Serve};

/// Takes requests on 127.0.0.1, answers 200, and hands each body over.
fn receiver() -> (String, mpsc::Receiver<(Instant, String)>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/switchboard", listener.local_addr().unwrap());
    let (bodies, received) = mpsc::channel();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let bodies = bodies.clone();
            std::thread::spawn(move || {
                let mut reader = BufReader::new(stream.try_clone().unwrap());
                let mut stream = stream;
                loop {
                    let mut length = 0usize;
                    let mut line = String::new();
                    if reader.read_line(&mut line).unwrap_or(0) == 0 {
                        return;
                    }
                    loop {
                        let mut header = String::new();
                        if reader.read_line(&mut header).unwrap_or(0) == 0 {
                            return;
                        }
                        if header.trim().is_empty() {
                            break;
                        }
                        if let Some((name, value)) = header.split_once(':') {
                            if name.eq_ignore_ascii_case("content-length") {
                                length = value.trim().parse().unwrap_or(0);
                            }
                        }
                    }
                    let mut body = vec![0; length];
                    if reader.read_exact(&mut body).is_err() {
                        return;
                    }
                    let _ = bodies.send((Instant::now(), String::from_utf8_lossy(&body).into_owned()));
                    if stream.write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n").is_err() {
                        return;
                    }
                }
            });
        }
    });
    (url, received)
}

#[test]
fn a_blocked_session_is_posted_to_the_webhook_in_the_settings() {
    let (url, received) = receiver();
    let home = tempfile::tempdir().unwrap();
    let settings = json!({"reach": {"webhook": {"enabled": true, "url": url, "includeText": false}}});
    std::fs::write(home.path().join("settings.json"), settings.to_string()).unwrap();
    let serve = Serve::start_in(home, &[]);

    let hook = json!({"sessionId": "push-e2e-1", "agent": "claude", "status": "blocked", "title": "secret-title",
        "cwd": "/home/ann/secret-project", "tool": "Bash", "message": "rm -rf dist"});
    assert_eq!(serve.post("custom", &hook), 204);
    let (_, body) = received.recv_timeout(Duration::from_secs(20)).expect("the webhook was posted to");
    let body: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(body["status"], "blocked");
    assert_eq!(body["agent"], "claude");
    assert_eq!(body["session"], "push-e2e");
    for private in ["secret", "rm -rf", "/home/ann"] {
        assert!(!body.to_string().contains(private), "{private} leaked: {body}");
    }

    // The panel's Test button, as a route: one message now, and what the receiver said.
    let (status, answer) =
        request(serve.addr(), "POST", &format!("/push/test?key={}&channel=webhook", serve.endpoint.key), b"");
    assert_eq!(status, 200, "{}", String::from_utf8_lossy(&answer));
    let answer: Value = serde_json::from_slice(&answer).unwrap();
    assert_eq!((answer["ok"].clone(), answer["status"].clone()), (json!(true), json!(200)));
    let test: Value = serde_json::from_str(&received.recv_timeout(Duration::from_secs(20)).unwrap().1).unwrap();
    assert_eq!(test["test"], true);
    let (status, _) =
        request(serve.addr(), "POST", &format!("/push/test?key={}&channel=pager", serve.endpoint.key), b"");
    assert_eq!(status, 400);
    let (status, _) = request(serve.addr(), "POST", "/push/test?key=wrong&channel=webhook", b"");
    assert_eq!(status, 401);
}

/// A report, not an assertion: hook "needs you" → the webhook's POST received, through a real
/// `serve`, over 50 sessions (`--nocapture` shows it).
#[test]
fn report_hook_to_webhook_latency_through_serve() {
    let (url, received) = receiver();
    let home = tempfile::tempdir().unwrap();
    let settings = json!({"reach": {"webhook": {"enabled": true, "url": url}}});
    std::fs::write(home.path().join("settings.json"), settings.to_string()).unwrap();
    let serve = Serve::start_in(home, &[]);
    let mut latencies = Vec::new();
    for n in 0..50 {
        let sent = Instant::now();
        assert_eq!(serve.post("custom", &json!({"sessionId": format!("latency-{n:02}"), "status": "waiting"})), 204);
        let (at, body) = received.recv_timeout(Duration::from_secs(20)).expect("posted");
        assert!(body.contains(&format!("latency-{n:02}").chars().take(8).collect::<String>()), "{body}");
        latencies.push(at.duration_since(sent));
    }
    latencies.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    eprintln!(
        "serve: hook → webhook received over 50 sessions: p50 {:.2} ms, p90 {:.2} ms, max {:.2} ms",
        ms(latencies[25]),
        ms(latencies[45]),
        ms(latencies[49])
    );
}
