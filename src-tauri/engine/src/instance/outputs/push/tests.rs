//! Push against a real HTTP server on 127.0.0.1 (a few lines of std::net): what arrives, what
//! does not, how often it is tried, and that a receiver that never answers holds up nothing.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use serde_json::json;
use switchboard_core::normalize;

use super::*;
use crate::instance::hub::{Hub, Input};
use crate::instance::settings::QuietHours;

/// One request the test server took.
#[derive(Clone, Debug)]
struct Received {
    path: String,
    headers: Vec<(String, String)>,
    body: String,
    at: Instant,
}

impl Received {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }
}

#[derive(Default)]
struct Log {
    received: Mutex<Vec<Received>>,
    arrived: Condvar,
}

/// A server that answers every request with `status`.
struct Receiver {
    addr: SocketAddr,
    log: Arc<Log>,
}

impl Receiver {
    fn answering(status: u16) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        let log = Arc::new(Log::default());
        let taken = Arc::clone(&log);
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let log = Arc::clone(&taken);
                std::thread::spawn(move || serve(stream, status, &log));
            }
        });
        Self { addr, log }
    }

    fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    /// Waits (bounded) until at least `n` requests came; all that came.
    fn wait_for(&self, n: usize) -> Vec<Received> {
        let deadline = Instant::now() + Duration::from_secs(20);
        let mut received = self.log.received.lock().unwrap();
        while received.len() < n {
            let left = deadline.saturating_duration_since(Instant::now());
            assert!(!left.is_zero(), "only {} of {n} requests arrived: {received:?}", received.len());
            received = self.log.arrived.wait_timeout(received, left).unwrap().0;
        }
        received.clone()
    }
}

/// Reads requests off one connection (kept alive) and answers each.
fn serve(stream: TcpStream, status: u16, log: &Log) {
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut stream = stream;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 {
            return;
        }
        let path = line.split_whitespace().nth(1).unwrap_or_default().to_owned();
        let mut headers = Vec::new();
        loop {
            let mut header = String::new();
            if reader.read_line(&mut header).unwrap_or(0) == 0 {
                return;
            }
            let header = header.trim_end();
            if header.is_empty() {
                break;
            }
            if let Some((name, value)) = header.split_once(':') {
                headers.push((name.trim().to_owned(), value.trim().to_owned()));
            }
        }
        let length = headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case("content-length"))
            .and_then(|(_, v)| v.parse().ok())
            .unwrap_or(0usize);
        let mut body = vec![0; length];
        if reader.read_exact(&mut body).is_err() {
            return;
        }
        let received =
            Received { path, headers, body: String::from_utf8_lossy(&body).into_owned(), at: Instant::now() };
        {
            let mut all = log.received.lock().unwrap();
            all.push(received);
            log.arrived.notify_all();
        }
        let answer = format!("HTTP/1.1 {status} X\r\ncontent-length: 2\r\n\r\nok");
        if stream.write_all(answer.as_bytes()).is_err() {
            return;
        }
    }
}

fn options() -> PushOptions {
    PushOptions {
        attempt_timeout: Duration::from_secs(5),
        backoff: Duration::from_millis(5),
        local_minute: || 12 * 60,
        host: "desk".into(),
    }
}

fn channel(url: String, include_text: bool) -> PushChannel {
    PushChannel { enabled: true, url, include_text }
}

fn reach(receiver: &Receiver, include_text: bool) -> Reach {
    Reach {
        ntfy: channel(receiver.url("/topic"), include_text),
        webhook: channel(receiver.url("/hook"), include_text),
        ..Reach::default()
    }
}

fn hook(id: &str, status: &str) -> Input {
    let body = json!({
        "sessionId": id, "agent": "claude", "status": status, "title": "auth-refactor",
        "cwd": "/home/ann/secret-project", "tool": "Bash", "message": "rm -rf dist",
    });
    Input::Hook(Box::new(normalize("custom", &body, 1_000).unwrap()))
}

/// A hub whose updates push follows; inputs are applied at once, in the test's thread.
fn followed(reach: Reach, options: PushOptions) -> (Hub, Arc<Push>) {
    let hub = Hub::new();
    let push = Push::start(reach, options);
    push.follow(hub.updates());
    (hub, push)
}

fn by_path<'a>(received: &'a [Received], path: &str) -> &'a Received {
    received.iter().find(|r| r.path == path).unwrap_or_else(|| panic!("nothing at {path}: {received:?}"))
}

const PRIVATE: [&str; 4] = ["secret-project", "auth-refactor", "rm -rf", "/home/ann"];

#[test]
fn a_session_that_needs_the_user_is_pushed_without_its_words_when_the_switch_is_off() {
    let receiver = Receiver::answering(200);
    let (hub, _push) = followed(reach(&receiver, false), options());
    hub.apply(hook("0123456789abcdef", "working"));
    hub.apply(hook("0123456789abcdef", "blocked"));
    let received = receiver.wait_for(2);
    let webhook = by_path(&received, "/hook");
    let body: serde_json::Value = serde_json::from_str(&webhook.body).unwrap();
    assert_eq!(
        body,
        json!({"version": 1, "session": "01234567", "agent": "claude", "status": "blocked",
            "reason": "needs permission", "host": "desk"})
    );
    assert_eq!(webhook.header("content-type"), Some("application/json"));
    let ntfy = by_path(&received, "/topic");
    assert_eq!(ntfy.header("title"), Some("Claude Code needs permission"));
    assert_eq!(ntfy.header("priority"), Some("high"));
    assert_eq!(ntfy.header("tags"), Some("lock"));
    for request in &received {
        let all = format!("{:?}{}", request.headers, request.body);
        for private in PRIVATE {
            assert!(!all.contains(private), "{private} leaked: {all}");
        }
    }
}

#[test]
fn with_the_switch_on_the_message_carries_title_project_command_and_folder() {
    let receiver = Receiver::answering(200);
    let (hub, _push) = followed(reach(&receiver, true), options());
    hub.apply(hook("s-on", "blocked"));
    let received = receiver.wait_for(2);
    let body: serde_json::Value = serde_json::from_str(&by_path(&received, "/hook").body).unwrap();
    assert_eq!(body["title"], "auth-refactor");
    assert_eq!(body["project"], "secret-project");
    assert_eq!(body["cwd"], "/home/ann/secret-project");
    assert_eq!(body["text"], "Bash: rm -rf dist");
    assert_eq!(body["sessionId"], "s-on");
    let ntfy = by_path(&received, "/topic");
    assert_eq!(ntfy.header("title"), Some("auth-refactor needs permission"));
    assert!(ntfy.body.contains("rm -rf dist") && ntfy.body.contains("secret-project"), "{}", ntfy.body);
}

#[test]
fn only_a_new_need_is_pushed_never_a_repeat_and_never_work() {
    let receiver = Receiver::answering(200);
    let only_webhook = Reach { webhook: channel(receiver.url("/hook"), false), ..Reach::default() };
    let (hub, _push) = followed(only_webhook, options());
    for status in ["working", "blocked", "blocked", "working", "done", "done"] {
        hub.apply(hook("r", status));
    }
    // One outbox sends in order: the second "blocked" and "done" would come between these.
    let received = receiver.wait_for(2);
    let statuses: Vec<String> = received
        .iter()
        .map(|r| serde_json::from_str::<serde_json::Value>(&r.body).unwrap()["status"].to_string())
        .collect();
    assert_eq!(statuses, ["\"blocked\"", "\"done\""]);
    // A marker after them: had a repeat been queued, it would arrive before the marker.
    hub.apply(hook("marker", "waiting"));
    let received = receiver.wait_for(3);
    assert_eq!(received.len(), 3);
    assert!(received[2].body.contains("\"waiting\""));
}

#[test]
fn nothing_is_sent_while_channels_are_off_or_in_quiet_hours() {
    let receiver = Receiver::answering(200);
    let mut night = options();
    night.local_minute = || 23 * 60 + 30;
    let push = Push::start(Reach::default(), night);
    let session = |id: &str| {
        let mut hub = switchboard_core::Reducer::new();
        let Input::Hook(event) = hook(id, "waiting") else { unreachable!() };
        hub.apply(&event, false).unwrap().session
    };
    // Off: a URL is there, but the channels are not on.
    let mut off = reach(&receiver, true);
    off.ntfy.enabled = false;
    off.webhook.enabled = false;
    push.set_reach(off);
    push.needs_you(&session("while-off"));
    // Quiet hours 22:00–07:00 at 23:30, and across midnight at 06:59.
    let quiet = QuietHours { enabled: true, from: "22:00".into(), to: "07:00".into() };
    assert!(quiet.covers(23 * 60 + 30) && quiet.covers(6 * 60 + 59) && !quiet.covers(7 * 60) && !quiet.covers(12 * 60));
    push.set_reach(Reach { quiet_hours: quiet.clone(), ..reach(&receiver, true) });
    push.needs_you(&session("while-quiet"));
    // Quiet hours off again: this one goes, and is the only one.
    push.set_reach(Reach { quiet_hours: QuietHours { enabled: false, ..quiet }, ..reach(&receiver, true) });
    push.needs_you(&session("after"));
    let received = receiver.wait_for(2);
    let mut seen: Vec<&str> = received.iter().map(|r| r.body.as_str()).collect();
    seen.retain(|body| body.contains("while-"));
    assert!(seen.is_empty(), "{seen:?}");
    // Each outbox sends in order: had either been queued, it would have come before "after".
    assert!(received.iter().all(|r| r.body.contains("after")), "{received:?}");
}

#[test]
fn a_failing_receiver_is_tried_three_times_and_a_refusing_one_once() {
    for (status, attempts) in [(500, 3), (429, 3), (400, 1), (302, 1)] {
        let receiver = Receiver::answering(status);
        let push = Push::start(Reach { webhook: channel(receiver.url("/hook"), true), ..Reach::default() }, options());
        let hub = Hub::new();
        push.follow(hub.updates());
        hub.apply(hook("first", "blocked"));
        hub.apply(hook("second", "blocked"));
        // The outbox sends one message after the other: the second's first attempt marks the end
        // of the first's attempts.
        let received = receiver.wait_for(attempts + 1);
        let first = received.iter().filter(|r| r.body.contains("\"first\"")).count();
        assert_eq!(first, attempts, "answering {status}: {received:?}");
        assert!(received[attempts].body.contains("\"second\""));
    }
}

#[test]
fn the_test_button_says_what_the_receiver_answered_or_why_not() {
    let receiver = Receiver::answering(200);
    let sent = send_test(PushKind::Ntfy, &channel(receiver.url("/topic"), false), &options());
    assert_eq!(sent, PushOutcome { ok: true, status: Some(200), error: None, attempts: 1 });
    assert_eq!(receiver.wait_for(1)[0].header("title"), Some("Switchboard test"));
    let refusing = Receiver::answering(403);
    let sent = send_test(PushKind::Webhook, &channel(refusing.url("/hook"), false), &options());
    assert_eq!((sent.ok, sent.status), (false, Some(403)));
    let bad = send_test(PushKind::Webhook, &channel("ftp://x".into(), false), &options());
    assert_eq!((bad.ok, bad.attempts), (false, 0));
    assert!(bad.error.unwrap().contains("https://"));
    // Nothing listens there: the connection's error, not a panic.
    let closed = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap();
    let sent = send_test(PushKind::Webhook, &channel(format!("http://{closed}/x"), false), &options());
    assert!(!sent.ok && sent.status.is_none() && sent.error.is_some(), "{sent:?}");
}

#[test]
fn a_non_ascii_title_goes_to_ntfy_as_an_encoded_word() {
    assert_eq!(header_text("plain"), "plain");
    assert_eq!(header_text("Müller"), "=?UTF-8?B?TcO8bGxlcg==?=");
    // A title's escape sequence goes whole; its line breaks become spaces (one header line).
    assert_eq!(header_text("red\u{1b}[31m title\r\nX-Evil: 1"), "red title  X-Evil: 1");
    assert_eq!(base64(b"abc"), "YWJj");
    assert_eq!(base64(b"ab"), "YWI=");
}

/// Serves hooks like the instance does: a real hook server on 127.0.0.1, the hub running.
struct Board {
    hub: Arc<Hub>,
    server: crate::instance::server::HookServer,
    _runtime: tokio::runtime::Runtime,
    _stop: tokio_util::sync::CancellationToken,
}

impl Board {
    fn start() -> Self {
        let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
        let hub = Arc::new(Hub::new());
        let (inputs, queue) = crate::instance::hub::inputs(1024);
        let stop = tokio_util::sync::CancellationToken::new();
        runtime.spawn(Arc::clone(&hub).run(queue, stop.clone()));
        let server = runtime.block_on(crate::instance::server::HookServer::start(inputs, Arc::clone(&hub))).unwrap();
        Self { hub, server, _runtime: runtime, _stop: stop }
    }

    /// Posts a hook; the time the server took to answer.
    fn hook(&self, client: &ureq::Agent, id: &str, status: &str) -> Duration {
        let url = format!("http://{}{}", self.server.addr(), crate::protocol::hook_path("custom", self.server.key()));
        let body = json!({"sessionId": id, "status": status, "cwd": "/home/ann/p"}).to_string();
        let start = Instant::now();
        let answer = client.post(&url).send(body.as_bytes()).unwrap();
        assert_eq!(answer.status().as_u16(), 204);
        start.elapsed()
    }

    fn status_of(&self, id: &str) -> Option<switchboard_core::AgentStatus> {
        self.hub.snapshot().sessions.into_iter().find(|s| s.session_id == id).and_then(|s| s.status)
    }
}

#[test]
fn a_receiver_that_never_answers_delays_no_hook_and_not_the_board() {
    // Takes the connection and the request, never answers.
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let held = Arc::new((Mutex::new(Vec::<TcpStream>::new()), Condvar::new()));
    let holder = Arc::clone(&held);
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let (streams, arrived) = &*holder;
            streams.lock().unwrap().push(stream);
            arrived.notify_all();
        }
    });
    let board = Board::start();
    let mut waits = options();
    waits.attempt_timeout = Duration::from_secs(60);
    let push = Push::start(Reach { webhook: channel(format!("http://{addr}/hook"), true), ..Reach::default() }, waits);
    push.follow(board.hub.updates());
    let client = client(Duration::from_secs(30));
    board.hook(&client, "stuck", "blocked");
    // The push thread is inside its attempt now: connected, waiting for an answer that never comes.
    {
        let (streams, arrived) = &*held;
        let deadline = Instant::now() + Duration::from_secs(20);
        let mut streams = streams.lock().unwrap();
        while streams.is_empty() {
            assert!(Instant::now() < deadline, "the push never connected");
            streams = arrived.wait_timeout(streams, Duration::from_secs(1)).unwrap().0;
        }
    }
    // Meanwhile hooks are answered and the board moves on; more messages pile up, bounded.
    for n in 0..(OUTBOX + 10) {
        board.hook(&client, &format!("more-{n}"), "waiting");
    }
    board.hook(&client, "stuck", "working");
    let deadline = Instant::now() + Duration::from_secs(20);
    while board.status_of("stuck") != Some(switchboard_core::AgentStatus::Working) {
        assert!(Instant::now() < deadline, "the board did not take the hooks");
        std::thread::sleep(Duration::from_millis(5));
    }
    assert_eq!(board.status_of(&format!("more-{}", OUTBOX + 9)), Some(switchboard_core::AgentStatus::Waiting));
    // Past the bound the oldest waiting messages are dropped: the last one is in, the bound holds.
    let last = format!("more-{}", OUTBOX + 9);
    let queued_last = || {
        let waiting = push.outboxes[1].lock();
        let Some(Delivery { request: Request::Webhook { json }, .. }) = waiting.back() else { return None };
        String::from_utf8_lossy(json).contains(&last).then_some(waiting.len())
    };
    let deadline = Instant::now() + Duration::from_secs(20);
    let waiting = loop {
        if let Some(waiting) = queued_last() {
            break waiting;
        }
        assert!(Instant::now() < deadline, "the last message never queued");
        std::thread::sleep(Duration::from_millis(5));
    };
    assert_eq!(waiting, OUTBOX);
}

/// Fifty sessions that newly need the user, one after another, are each pushed once, in order,
/// as blocked; how long each took from hook to receiver is reported (a figure, not a bound).
#[test]
fn each_of_fifty_hooks_that_need_the_user_is_pushed_once_in_order() {
    let receiver = Receiver::answering(200);
    let board = Board::start();
    let push = Push::start(Reach { webhook: channel(receiver.url("/hook"), false), ..Reach::default() }, options());
    push.follow(board.hub.updates());
    let client = client(Duration::from_secs(10));
    let mut latencies = Vec::new();
    for n in 0..50 {
        let sent = Instant::now();
        board.hook(&client, &format!("{n:02}-latency"), "blocked");
        let received = receiver.wait_for(n + 1);
        latencies.push(received[n].at.duration_since(sent));
    }
    let pushed: Vec<(String, String)> = receiver
        .wait_for(50)
        .iter()
        .map(|request| serde_json::from_str::<serde_json::Value>(&request.body).unwrap())
        .map(|body| (body["session"].as_str().unwrap_or_default().to_owned(), body["status"].to_string()))
        .collect();
    let expected: Vec<(String, String)> =
        (0..50).map(|n| (format!("{n:02}-latency").chars().take(8).collect(), "\"blocked\"".to_owned())).collect();
    assert_eq!(pushed, expected);
    latencies.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    eprintln!(
        "hook → push received over {} sessions: p50 {:.2} ms, p90 {:.2} ms, max {:.2} ms",
        latencies.len(),
        ms(latencies[latencies.len() / 2]),
        ms(latencies[latencies.len() * 9 / 10]),
        ms(latencies[latencies.len() - 1])
    );
}

/// The board's tone (one rule, here): a session that newly reaches a chosen status, outside quiet
/// hours — never a repeat, an interrupt, work, or a status nobody chose.
#[test]
fn the_tone_is_for_a_new_need_in_a_chosen_status_outside_quiet_hours() {
    use switchboard_core::Reducer;
    let mut reducer = Reducer::new();
    let mut apply = |status: &str, interrupted: bool| {
        let body = json!({"sessionId": "a", "status": status, "interrupted": interrupted});
        reducer.apply(&normalize("custom", &body, 1).unwrap(), true).unwrap()
    };
    let sound =
        |statuses: &[&str]| Reach { sound: statuses.iter().map(|s| (*s).to_owned()).collect(), ..Reach::default() };
    let chosen = sound(&["blocked", "waiting"]);
    let noon = 12 * 60;
    let working = apply("working", false);
    assert!(!chimes(&chosen, &working, noon), "work never");
    let blocked = apply("blocked", false);
    assert!(chimes(&chosen, &blocked, noon), "a new need in a chosen status");
    let again = apply("blocked", false);
    assert!(!chimes(&chosen, &again, noon), "not a repeat");
    let night = QuietHours { enabled: true, from: "22:00".into(), to: "07:00".into() };
    assert!(!chimes(&Reach { quiet_hours: night, ..chosen.clone() }, &blocked, 23 * 60), "quiet hours");
    assert!(!chimes(&Reach::default(), &blocked, noon), "no status chosen");
    apply("working", false);
    let done = apply("done", false);
    assert!(!chimes(&chosen, &done, noon), "done was not chosen");
    apply("working", false);
    let stopped = apply("done", true);
    assert!(!chimes(&sound(&["done"]), &stopped, noon), "an interrupt the user made");
}
