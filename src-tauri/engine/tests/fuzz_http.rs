//! Fuzzing the hook server (issue "hardening"): arbitrary methods, paths, queries, headers and
//! bodies against a real `HookServer` on loopback, its hub draining the queue. Whatever comes in,
//! the answer is one of the statuses docs/model.md §3 allows (204, 401, 404, 405, 408, 413; 200
//! only for `GET /sessions`, `/updates` and `/remotes` with the key; 400/409 only for
//! `POST /decision/…` with the key: issue 14), and the server keeps serving. Held permissions
//! (`/hold/…`) are fuzzed with a 20 ms hold.
//!
//! Bodies grow from the recorded hook payloads (`tests/fixtures`) by random byte edits. The
//! requests are well-framed HTTP/1.1, so a status outside the list is the server's, not hyper's
//! answer to garbage on the wire.
//!
//! `cargo test` runs a short smoke pass; `PROPTEST_CASES=<n>` sets the number of requests.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use proptest::prelude::*;
use proptest::sample::{select, Index};
use proptest::test_runner::{Config, FileFailurePersistence, TestCaseError, TestRunner};
use switchboard_engine::instance::hub;
use switchboard_engine::instance::server::QUEUE_CAPACITY;
use switchboard_engine::protocol::{BODY_LIMIT, PROCESS_HEADER};
use switchboard_engine::{HookServer, Hub};

const KEY: &str = "6b6579206f66207468652066757a7a6572207365727665722e2e2e2e2e2e2e2e";
/// Requests when `PROPTEST_CASES` is unset: a smoke run of a few seconds.
const SMOKE_CASES: u32 = 1_000;

struct Server {
    addr: SocketAddr,
    hub: Arc<Hub>,
    _runtime: tokio::runtime::Runtime,
}

/// One server for every case, as in real use: state piles up across requests.
fn server() -> &'static Server {
    static SERVER: OnceLock<Server> = OnceLock::new();
    SERVER.get_or_init(|| {
        let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(1).enable_all().build().unwrap();
        let hub = Arc::new(Hub::new());
        let (inputs, queue) = hub::inputs(QUEUE_CAPACITY);
        runtime.spawn(Arc::clone(&hub).run(queue, tokio_util::sync::CancellationToken::new()));
        let server = runtime
            .block_on(HookServer::start_with(
                inputs.clone(),
                Arc::clone(&hub),
                switchboard_engine::instance::act::decide::Decisions::new(inputs),
                KEY.to_owned(),
            ))
            .unwrap();
        let addr = server.addr();
        // Kept running for the life of the test binary.
        std::mem::forget(server);
        Server { addr, hub, _runtime: runtime }
    })
}

fn fixtures() -> &'static [(&'static str, Vec<u8>)] {
    static FIXTURES: OnceLock<Vec<(&'static str, Vec<u8>)>> = OnceLock::new();
    FIXTURES.get_or_init(|| {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures");
        let mut found = Vec::new();
        // Every CLI in the table: fixtures are found for whichever has them.
        for agent in switchboard_core::AGENTS.iter().map(|agent| agent.id) {
            found.extend(files(&dir.join(agent)).map(|bytes| (agent, bytes)));
        }
        for folder in files_in(&dir.join("real")) {
            let name = folder.file_name().unwrap().to_string_lossy().into_owned();
            let agent = switchboard_core::AGENTS
                .iter()
                .map(|agent| agent.id)
                .find(|agent| name.starts_with(agent))
                .unwrap_or("custom");
            found.extend(files(&folder.join("events")).map(|bytes| (agent, bytes)));
        }
        found.push(("custom", br#"{"sessionId":"fuzz","status":"done","message":"ok"}"#.to_vec()));
        assert!(found.len() > 100, "the fixtures moved: {}", dir.display());
        found
    })
}

fn files_in(dir: &Path) -> Vec<PathBuf> {
    let mut paths: Vec<_> = std::fs::read_dir(dir).into_iter().flatten().flatten().map(|entry| entry.path()).collect();
    paths.sort();
    paths
}

fn files(dir: &Path) -> impl Iterator<Item = Vec<u8>> {
    files_in(dir)
        .into_iter()
        .filter(|path| path.extension().is_some_and(|ext| ext == "json"))
        .filter_map(|path| std::fs::read(path).ok())
}

#[derive(Clone, Debug)]
enum Framing {
    Length,
    Chunked,
    /// A declared `Content-Length` over the cap, and no body.
    Oversized,
}

#[derive(Clone, Debug)]
struct Request {
    method: String,
    path: String,
    query: Option<String>,
    headers: Vec<(String, String)>,
    framing: Framing,
    body: Vec<u8>,
}

impl Request {
    fn target(&self) -> String {
        let target = match &self.query {
            Some(query) => format!("{}?{query}", self.path),
            None => self.path.clone(),
        };
        // A held permission would wait for an answer nobody gives: hold it only briefly.
        if self.path.starts_with("/hold/") {
            format!("{target}{}ms=20", if target.contains('?') { "&" } else { "?" })
        } else {
            target
        }
    }

    fn bytes(&self) -> Vec<u8> {
        let mut head =
            format!("{} {} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n", self.method, self.target());
        for (name, value) in &self.headers {
            head.push_str(&format!("{name}: {value}\r\n"));
        }
        let mut bytes = match self.framing {
            Framing::Length => format!("{head}Content-Length: {}\r\n\r\n", self.body.len()).into_bytes(),
            Framing::Chunked => format!("{head}Transfer-Encoding: chunked\r\n\r\n").into_bytes(),
            Framing::Oversized => return format!("{head}Content-Length: {}\r\n\r\n", BODY_LIMIT + 1).into_bytes(),
        };
        match self.framing {
            Framing::Chunked => {
                for chunk in self.body.chunks(4096) {
                    bytes.extend(format!("{:x}\r\n", chunk.len()).as_bytes());
                    bytes.extend(chunk);
                    bytes.extend(b"\r\n");
                }
                bytes.extend(b"0\r\n\r\n");
            }
            _ => bytes.extend(&self.body),
        }
        bytes
    }
}

/// Characters a request-target may carry unencoded, and some escapes (valid or not).
fn segment() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        6 => "[A-Za-z0-9._~-]{0,12}",
        2 => "[!$&'()*+,;=:@]{1,3}",
        2 => "%[0-9A-Fa-f]{2}",
        1 => select(vec!["%FF", "%C3%28", "%00", "%2F", "%2e%2e", "..", ".", "%", "%Z1", "%e2%82"]).prop_map(str::to_owned),
    ];
    prop::collection::vec(piece, 0..4).prop_map(|pieces| pieces.concat())
}

fn path() -> impl Strategy<Value = String> {
    let agent = prop_oneof![
        6 => select(vec!["claude", "codex", "gemini", "custom"]).prop_map(str::to_owned),
        1 => select(vec!["", "nope", "Claude", "my-tool", "custom2", "a_b"]).prop_map(str::to_owned),
        2 => segment(),
    ];
    prop_oneof![
        8 => agent.clone().prop_map(|agent| format!("/hook/{agent}")),
        2 => agent.prop_map(|agent| format!("/hold/{agent}")),
        1 => segment().prop_map(|id| format!("/decision/{id}")),
        2 => Just("/sessions".to_owned()),
        2 => segment().prop_map(|id| format!("/sessions/{id}")),
        1 => Just("/sessions/fuzz".to_owned()),
        // A link's long-lived stream and the remotes' states (issue 23).
        1 => Just("/updates".to_owned()),
        1 => Just("/remotes".to_owned()),
        // Answers typed into an agent's pane, and its screen (issue 24).
        1 => (select(vec!["answer", "reply", "peek", "end"]), segment()).prop_map(|(action, id)| format!("/{action}/{id}")),
        1 => prop::collection::vec(segment(), 0..4).prop_map(|segments| format!("/{}", segments.join("/"))),
        1 => (segment(), segment()).prop_map(|(a, b)| format!("/hook/{a}/{b}")),
    ]
}

fn query() -> impl Strategy<Value = Option<String>> {
    let pair = prop_oneof![
        6 => Just(format!("key={KEY}")),
        2 => Just(format!("key={}", &KEY[1..])),
        1 => Just("key=".to_owned()),
        1 => Just("key".to_owned()),
        2 => segment(),
        1 => (segment(), segment()).prop_map(|(a, b)| format!("{a}={b}")),
    ];
    prop::option::weighted(0.9, prop::collection::vec(pair, 0..4).prop_map(|pairs| pairs.join("&")))
}

fn header() -> impl Strategy<Value = (String, String)> {
    let value = "[ -~]{0,40}".prop_map(|value: String| value.trim().to_owned());
    prop_oneof![
        2 => select(vec!["application/json", "text/plain", "application/x-www-form-urlencoded", "*/*"])
            .prop_map(|value| ("Content-Type".to_owned(), value.to_owned())),
        3 => prop_oneof![
            Just(r#"{"pid":42,"start":7,"tty":"/dev/pts/3","tmuxPane":"%1"}"#.to_owned()),
            Just(r#"{"pid":-1}"#.to_owned()),
            Just(format!(r#"{{"pid":1,"start":1,"tty":"{}"}}"#, "x".repeat(2100))),
            value.clone(),
        ]
        .prop_map(|value| (PROCESS_HEADER.to_owned(), value)),
        1 => Just(("Expect".to_owned(), "100-continue".to_owned())),
        1 => ("[A-Za-z][A-Za-z0-9-]{0,20}", value).prop_map(|(name, value)| (name, value)),
    ]
}

fn body() -> impl Strategy<Value = (Framing, Vec<u8>)> {
    let edits = prop::collection::vec((any::<Index>(), any::<u8>(), 0..4u8), 0..6);
    let edited = (select(fixtures().to_vec()), edits).prop_map(|((_, mut bytes), edits)| {
        for (at, byte, kind) in edits {
            let i = at.index(bytes.len() + 1);
            match kind {
                0 if i < bytes.len() => bytes[i] = byte,
                1 => bytes.insert(i, byte),
                2 if i < bytes.len() => {
                    bytes.remove(i);
                }
                _ => bytes.truncate(i),
            }
        }
        bytes
    });
    let content = prop_oneof![
        8 => edited,
        2 => prop::collection::vec(any::<u8>(), 0..256),
        1 => (BODY_LIMIT - 2..BODY_LIMIT + 2).prop_map(|len| vec![b' '; len]),
    ];
    let framing = prop_oneof![8 => Just(Framing::Length), 2 => Just(Framing::Chunked), 1 => Just(Framing::Oversized)];
    (framing, content)
}

fn request() -> impl Strategy<Value = Request> {
    let method = prop_oneof![
        8 => Just("POST"),
        3 => Just("GET"),
        2 => Just("DELETE"),
        1 => select(vec!["PUT", "PATCH", "HEAD", "OPTIONS", "TRACE", "FUZZ"]),
    ];
    (method, path(), query(), prop::collection::vec(header(), 0..4), body()).prop_map(
        |(method, path, query, headers, (framing, body))| Request {
            method: method.to_owned(),
            path,
            query,
            headers,
            framing,
            body,
        },
    )
}

/// Sends `request` on a new connection and returns the status, `None` if the server closed the
/// connection without an answer.
fn send(addr: SocketAddr, request: &Request) -> Option<u16> {
    let mut stream = TcpStream::connect(addr).unwrap();
    stream.set_read_timeout(Some(Duration::from_secs(15))).unwrap();
    let _ = stream.write_all(&request.bytes());
    let mut response = Vec::new();
    if request.path == "/updates" {
        // A stream that lasts as long as the link: its head is the answer.
        let mut chunk = [0u8; 4096];
        while !response.windows(4).any(|window| window == b"\r\n\r\n") {
            match stream.read(&mut chunk) {
                Ok(0) | Err(_) => break,
                Ok(read) => response.extend_from_slice(&chunk[..read]),
            }
        }
    } else {
        let _ = stream.read_to_end(&mut response);
    }
    let mut rest = response.as_slice();
    loop {
        let line = rest.split(|byte| *byte == b'\r').next()?;
        let status: u16 = std::str::from_utf8(line).ok()?.strip_prefix("HTTP/1.1 ")?.get(..3)?.parse().ok()?;
        // An interim `100 Continue` (the client sent `Expect`) precedes the answer.
        if !(100..200).contains(&status) {
            return Some(status);
        }
        let end = rest.windows(4).position(|window| window == b"\r\n\r\n")?;
        rest = &rest[end + 4..];
    }
}

fn has_key(request: &Request) -> bool {
    request.query.as_deref().unwrap_or_default().split('&').find_map(|pair| pair.strip_prefix("key=")) == Some(KEY)
}

fn check(server: &Server, request: &Request) -> Result<(), TestCaseError> {
    static SENT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let sent = SENT.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
    if sent.is_multiple_of(10_000) {
        eprintln!("fuzz_http: {sent} requests");
    }
    let status = send(server.addr, request);
    let big = matches!(request.framing, Framing::Oversized) || request.body.len() > BODY_LIMIT;
    let reproducer =
        || format!("{:?}", String::from_utf8_lossy(&request.bytes()).chars().take(600).collect::<String>());
    let Some(status) = status else {
        // The server may cut a body over the cap short, before its answer reaches the client.
        prop_assert!(big, "no answer to {}", reproducer());
        return Ok(());
    };
    let listed = [204, 401, 404, 405, 408, 413].contains(&status);
    // An answer for a held permission that is not (or no longer) waiting, or that is malformed.
    let acting = ["/decision/", "/answer/", "/reply/", "/peek/", "/end/"].iter().any(|p| request.path.starts_with(p));
    let decision = [200, 400, 409].contains(&status) && acting && has_key(request);
    let snapshot =
        status == 200 && ["/sessions", "/updates", "/remotes"].contains(&request.path.as_str()) && has_key(request);
    prop_assert!(listed || snapshot || decision, "answered {} to {}", status, reproducer());
    Ok(())
}

fn config() -> Config {
    let cases = std::env::var("PROPTEST_CASES").ok().and_then(|cases| cases.parse().ok()).unwrap_or(SMOKE_CASES);
    Config {
        cases,
        max_shrink_iters: 500,
        failure_persistence: Some(Box::new(FileFailurePersistence::Direct("tests/fuzz_http.proptest-regressions"))),
        ..Config::default()
    }
}

#[test]
fn the_hook_server_answers_any_request_with_a_listed_status_and_keeps_serving() {
    let server = server();
    let mut runner = TestRunner::new(config());
    let result = runner.run(&request(), |request| check(server, &request));
    if let Err(failure) = result {
        panic!("{failure}");
    }
    // Still serving: a correct event gets through to the hub.
    let event = br#"{"sessionId":"fuzz-alive","status":"waiting"}"#.to_vec();
    let alive = Request {
        method: "POST".into(),
        path: "/hook/custom".into(),
        query: Some(format!("key={KEY}")),
        headers: Vec::new(),
        framing: Framing::Length,
        body: event,
    };
    assert_eq!(send(server.addr, &alive), Some(204));
    let deadline = std::time::Instant::now() + Duration::from_secs(5);
    while !server.hub.snapshot().sessions.iter().any(|session| session.session_id == "fuzz-alive") {
        assert!(std::time::Instant::now() < deadline, "the event never reached the hub");
        std::thread::sleep(Duration::from_millis(10));
    }
}
