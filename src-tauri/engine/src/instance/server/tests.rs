use super::*;
use axum::http::Request;
use tower::ServiceExt;

/// The routes in-process, without a socket: what each request does to the input queue.
#[tokio::test]
async fn the_router_answers_and_queues_only_what_the_key_allows() {
    let hub = Arc::new(Hub::new());
    let (inputs, mut queue) = crate::instance::hub::inputs(16);
    let decisions = Decisions::new(inputs.clone());
    let app = router(Arc::new(ServerState {
        key: "k".repeat(48),
        journal: std::sync::OnceLock::new(),
        hub: Arc::clone(&hub),
        inputs,
        decisions,
        shutdown: CancellationToken::new(),
        push: std::sync::OnceLock::new(),
        phone: std::sync::OnceLock::new(),
        delivered: std::sync::Mutex::new(Delivered::new(16)),
    }));
    let call = |method: &str, uri: String, body: &'static str| {
        let request = Request::builder().method(method).uri(uri).body(Body::from(body)).unwrap();
        app.clone().oneshot(request)
    };
    let stop = r#"{"hook_event_name":"Stop","session_id":"s1","last_assistant_message":"ok"}"#;
    let key = "k".repeat(48);
    let status = |r: Result<Response, std::convert::Infallible>| r.unwrap().status();
    assert_eq!(status(call("POST", format!("/hook/claude?key={key}"), stop).await), StatusCode::NO_CONTENT);
    assert!(matches!(queue.try_recv(), Some(Input::Hook(event)) if event.session_id == "s1"));
    for uri in ["/hook/claude".to_owned(), "/hook/claude?key=wrong".into(), format!("/hook/Bad_Agent?key={key}")] {
        assert_eq!(status(call("POST", uri.clone(), stop).await), StatusCode::NO_CONTENT, "{uri}");
    }
    assert_eq!(status(call("POST", format!("/hook/claude?key={key}"), "{not json").await), StatusCode::NO_CONTENT);
    assert!(queue.try_recv().is_none(), "nothing else was queued");
    assert_eq!(status(call("GET", format!("/hook/claude?key={key}"), "").await), StatusCode::METHOD_NOT_ALLOWED);
    assert_eq!(status(call("GET", "/sessions?key=wrong".into(), "").await), StatusCode::UNAUTHORIZED);
    assert_eq!(status(call("GET", format!("/sessions?key={key}"), "").await), StatusCode::OK);
    for uri in ["/updates".to_owned(), "/updates?key=wrong&after=0".into(), format!("/updates?key={key}x")] {
        assert_eq!(status(call("GET", uri.clone(), "").await), StatusCode::UNAUTHORIZED, "{uri}");
    }
    assert_eq!(status(call("GET", format!("/updates?key={key}"), "").await), StatusCode::OK);
    assert_eq!(status(call("POST", format!("/updates?key={key}"), "").await), StatusCode::METHOD_NOT_ALLOWED);
    // Found by the HTTP fuzzer: a segment that is not UTF-8 once decoded is no reason for a 400.
    assert_eq!(status(call("POST", "/hook/%aA".into(), "{}").await), StatusCode::NO_CONTENT);
    assert_eq!(status(call("DELETE", "/sessions/%FF".into(), "").await), StatusCode::UNAUTHORIZED);
    // A remove is the user's action: it goes through the hub, which answers it.
    let running = tokio::spawn(Arc::clone(&hub).run(queue, CancellationToken::new()));
    assert_eq!(status(call("POST", format!("/hook/claude?key={key}"), stop).await), StatusCode::NO_CONTENT);
    assert_eq!(status(call("DELETE", format!("/sessions/s1?key={key}"), "").await), StatusCode::NO_CONTENT);
    assert_eq!(status(call("DELETE", format!("/sessions/nope?key={key}"), "").await), StatusCode::NOT_FOUND);
    assert_eq!(status(call("DELETE", format!("/sessions/%FF?key={key}"), "").await), StatusCode::NOT_FOUND);
    running.abort();
}

/// Issue 45: what the spool held is applied in order, each id once (a copy that came by its
/// request first is skipped), with its own time; events it had to drop are said.
#[test]
fn spooled_events_are_applied_once_in_order_and_drops_are_said() {
    let (inputs, mut queue) = crate::instance::hub::inputs(16);
    let state = ServerState {
        key: "k".into(),
        journal: std::sync::OnceLock::new(),
        hub: Arc::new(Hub::new()),
        inputs: inputs.clone(),
        decisions: Decisions::new(inputs),
        shutdown: CancellationToken::new(),
        push: std::sync::OnceLock::new(),
        phone: std::sync::OnceLock::new(),
        delivered: std::sync::Mutex::new(Delivered::new(16)),
    };
    let id = |n: u64| format!("{n:032x}");
    let mut headers = HeaderMap::new();
    headers.insert(crate::protocol::EVENT_ID_HEADER, id(2).parse().unwrap());
    assert!(state.first_delivery(&headers), "its request came first");
    assert!(!state.first_delivery(&headers), "the same request twice");
    let spooled = |n: u64| spool::Spooled {
        v: spool::VERSION,
        id: id(n),
        agent: "claude".into(),
        at: 1_000 + n,
        process: None,
        body: serde_json::json!({"hook_event_name": "Stop", "session_id": format!("s{n}")}),
    };
    state.apply_spooled(spool::Taken { events: vec![spooled(1), spooled(2), spooled(3)], dropped: 4 });
    let mut applied = Vec::new();
    let mut notice = None;
    while let Some(input) = queue.try_recv() {
        match input {
            Input::Hook(event) => applied.push((event.session_id.clone(), event.ts)),
            Input::Notice { source: "spool", text } => notice = text,
            _ => {}
        }
    }
    assert_eq!(applied, [("s1".to_owned(), 1_001), ("s3".to_owned(), 1_003)], "s2 came by its request");
    assert!(notice.is_some_and(|text| text.starts_with("4 hook events were lost")));
}

#[test]
fn the_secret_is_24_random_bytes_in_hex() {
    let (a, b) = (new_secret(), new_secret());
    assert_eq!(a.len(), 48);
    assert!(a.bytes().all(|c| c.is_ascii_hexdigit()));
    assert_ne!(a, b);
}

#[test]
fn agent_ids_are_lowercase_letters_and_dashes() {
    assert!(is_agent_id("claude"));
    assert!(is_agent_id("my-tool"));
    for bad in ["", "Claude", "codex2", "a_b", "a.b", "../x"] {
        assert!(!is_agent_id(bad), "{bad}");
    }
}

#[test]
fn a_missing_key_is_rejected_like_a_wrong_one() {
    let secret = "abc123";
    assert!(key_matches(Some("key=abc123"), secret));
    assert!(key_matches(Some("x=1&key=abc123"), secret));
    for query in [None, Some(""), Some("key="), Some("key=abc12"), Some("key=abc1234"), Some("kex=abc123")] {
        assert!(!key_matches(query, secret), "{query:?}");
    }
}

/// `POST /hook/<agent>` is served from the connection, not the router (issue 47): over a real
/// socket it answers what the router answers, and queues the same.
#[tokio::test]
async fn a_hook_over_the_socket_is_answered_as_the_router_answers_it() {
    let (inputs, mut queue) = crate::instance::hub::inputs(16);
    let server = HookServer::start(inputs, Arc::new(Hub::new())).await.unwrap();
    let (addr, key) = (server.addr(), server.key().to_owned());
    let stop = r#"{"hook_event_name":"Stop","session_id":"s1","last_assistant_message":"ok"}"#;
    let big = format!("{}", BODY_LIMIT + 1);
    // Method, path, a declared length other than the body's, body, the status expected.
    type Case = (&'static str, String, Option<String>, &'static str, u16);
    let cases: Vec<Case> = vec![
        ("POST", format!("/hook/claude?key={key}"), None, stop, 204),
        // Percent-encoded as axum's `Path` decodes it.
        ("POST", format!("/hook/cl%61ude?key={key}"), None, stop, 204),
        ("POST", "/hook/claude?key=wrong".into(), None, stop, 204),
        ("POST", format!("/hook/%aA?key={key}"), None, stop, 204),
        ("POST", format!("/hook/claude?key={key}"), None, "{not json", 204),
        ("GET", format!("/hook/claude?key={key}"), None, "", 405),
        ("POST", format!("/hook/?key={key}"), None, stop, 404),
        ("POST", format!("/hook/claude/x?key={key}"), None, stop, 404),
        ("POST", format!("/hook/claude?key={key}"), Some(big), "", 413),
    ];
    let answers = tokio::task::spawn_blocking(move || {
        use std::io::{Read, Write};
        cases
            .into_iter()
            .map(|(method, path, declared, body, expected)| {
                let mut stream = std::net::TcpStream::connect(addr).unwrap();
                let length = declared.unwrap_or_else(|| body.len().to_string());
                let head = format!(
                    "{method} {path} HTTP/1.1\r\nHost: x\r\nContent-Length: {length}\r\nConnection: close\r\n\r\n"
                );
                stream.write_all(head.as_bytes()).unwrap();
                let _ = stream.write_all(body.as_bytes());
                let mut answer = String::new();
                let _ = stream.read_to_string(&mut answer);
                let status: u16 = answer.get(9..12).and_then(|code| code.parse().ok()).unwrap_or(0);
                (format!("{method} {path}"), status, expected)
            })
            .collect::<Vec<_>>()
    })
    .await
    .unwrap();
    for (request, status, expected) in answers {
        assert_eq!(status, expected, "{request}");
    }
    let queued: Vec<String> = std::iter::from_fn(|| queue.try_recv())
        .filter_map(|input| match input {
            Input::Hook(event) => Some(event.session_id.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(queued, ["s1", "s1"], "the keyed events of a known agent, the encoded one included");
    server.shutdown().await;
}

/// What is ready comes back at once; what never comes ends at the limit, not before; what comes
/// within it comes back at its own time.
#[tokio::test(start_paused = true)]
async fn within_waits_only_for_what_is_not_ready() {
    let limit = Duration::from_secs(1);
    assert_eq!(request::within(limit, std::future::ready(7)).await, Ok(7));
    let started = tokio::time::Instant::now();
    assert_eq!(request::within(limit, std::future::pending::<()>()).await, Err(()));
    assert_eq!(started.elapsed(), limit, "cut off at the limit");
    let late = async {
        tokio::time::sleep(limit / 2).await;
        "late"
    };
    assert_eq!(request::within(limit, late).await, Ok("late"));
    assert_eq!(started.elapsed(), limit + limit / 2);
}
