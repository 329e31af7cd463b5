//! The hook server (SPEC 3): loopback only, a per-boot secret, fail-closed to spoofing and
//! fail-open to the CLI. The answer never waits on the reducer: accepted events go through a
//! bounded channel to the ingest task.

use std::net::{Ipv4Addr, SocketAddr};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{DefaultBodyLimit, Path, RawQuery, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use rand::RngCore;
use serde_json::Value;
use switchboard_core::{normalizer, Millis, StatusEvent};
use tokio::net::TcpListener;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;
use tower_http::limit::RequestBodyLimitLayer;
use tower_http::timeout::TimeoutLayer;

use crate::hub::Hub;
use crate::titles::TitleWatch;

/// Bodies above this are refused before they are parsed, and never buffered whole.
pub const BODY_LIMIT: usize = 256 * 1024;
/// A client that has not sent its headers, or its body, by then is cut off.
pub const READ_TIMEOUT: Duration = Duration::from_secs(5);
/// Events waiting for the reducer. The reducer handles about a million events a second, so
/// this fills only if it is wedged; then new events are dropped (and counted) rather than
/// making an agent wait.
pub const QUEUE_CAPACITY: usize = 16_384;

/// The per-boot secret: 24 random bytes, hex.
pub fn new_secret() -> String {
    let mut bytes = [0u8; 24];
    rand::rng().fill_bytes(&mut bytes);
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

pub fn now_millis() -> Millis {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

struct ServerState {
    key: String,
    hub: Arc<Hub>,
    events: mpsc::Sender<StatusEvent>,
    dropped: Arc<AtomicU64>,
}

/// The routes, testable without a socket.
fn router(state: Arc<ServerState>) -> Router {
    Router::new()
        .route("/hook/{agent}", post(hook))
        .route("/sessions", get(sessions))
        .route("/focus", post(focus))
        // Refuses a declared Content-Length over the cap at once, and a streamed body as soon as
        // it passes the cap; axum's own default limit is lifted in favour of this one.
        .layer(RequestBodyLimitLayer::new(BODY_LIMIT))
        .layer(DefaultBodyLimit::disable())
        .layer(TimeoutLayer::with_status_code(StatusCode::REQUEST_TIMEOUT, READ_TIMEOUT))
        .with_state(state)
}

async fn hook(
    State(state): State<Arc<ServerState>>,
    agent: Option<Path<String>>,
    RawQuery(query): RawQuery,
    body: Result<Bytes, BytesRejection>,
) -> StatusCode {
    let body = match body {
        Ok(body) => body,
        Err(rejection) if rejection.status() == StatusCode::PAYLOAD_TOO_LARGE => return StatusCode::PAYLOAD_TOO_LARGE,
        Err(_) => return StatusCode::NO_CONTENT,
    };
    if !key_matches(query.as_deref(), &state.key) {
        return StatusCode::NO_CONTENT;
    }
    let Some(normalize) = agent.as_deref().filter(|agent| is_agent_id(agent)).and_then(|agent| normalizer(agent))
    else {
        return StatusCode::NO_CONTENT;
    };
    let Ok(raw) = serde_json::from_slice::<Value>(&body) else { return StatusCode::NO_CONTENT };
    if let Some(event) = normalize(&raw, now_millis()) {
        if state.events.try_send(event).is_err() {
            let dropped = state.dropped.fetch_add(1, Ordering::Relaxed) + 1;
            if dropped.is_power_of_two() {
                tracing::warn!(dropped, "the reducer queue is full; dropping hook events");
            }
        }
    }
    StatusCode::NO_CONTENT
}

async fn sessions(State(state): State<Arc<ServerState>>, RawQuery(query): RawQuery) -> Response {
    if !key_matches(query.as_deref(), &state.key) {
        return StatusCode::UNAUTHORIZED.into_response();
    }
    Json(state.hub.snapshot()).into_response()
}

/// A second launch of the desktop app asks the first to come forward instead of starting.
/// Only an instance with a window (one that set `accepts_focus`) says yes.
async fn focus(State(state): State<Arc<ServerState>>, RawQuery(query): RawQuery) -> StatusCode {
    if !key_matches(query.as_deref(), &state.key) {
        return StatusCode::UNAUTHORIZED;
    }
    if !state.hub.has_window() {
        return StatusCode::NOT_FOUND;
    }
    state.hub.request_focus();
    StatusCode::NO_CONTENT
}

fn is_agent_id(agent: &str) -> bool {
    !agent.is_empty() && agent.bytes().all(|b| b.is_ascii_lowercase() || b == b'-')
}

/// The `key` query parameter against the secret, in constant time. A missing key is compared
/// like a wrong one.
fn key_matches(query: Option<&str>, secret: &str) -> bool {
    let given = query.unwrap_or_default().split('&').find_map(|pair| pair.strip_prefix("key=")).unwrap_or_default();
    constant_time_eq::constant_time_eq(given.as_bytes(), secret.as_bytes())
}

/// A running hook server and its ingest task.
pub struct HookServer {
    addr: SocketAddr,
    key: String,
    dropped: Arc<AtomicU64>,
    shutdown: CancellationToken,
    tasks: Vec<tokio::task::JoinHandle<()>>,
}

impl HookServer {
    /// Binds `127.0.0.1:0` and starts serving; events flow into `hub`.
    pub async fn start(hub: Arc<Hub>) -> std::io::Result<Self> {
        Self::start_with(hub, new_secret(), QUEUE_CAPACITY).await
    }

    pub async fn start_with(hub: Arc<Hub>, key: String, queue_capacity: usize) -> std::io::Result<Self> {
        let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).await?;
        let addr = listener.local_addr()?;
        let (events, mut queue) = mpsc::channel::<StatusEvent>(queue_capacity);
        let dropped = Arc::new(AtomicU64::new(0));
        let shutdown = CancellationToken::new();

        let ingest_hub = Arc::clone(&hub);
        let titles = TitleWatch::start(Arc::clone(&hub), TitleWatch::codex_home_from_env());
        let ingest = tokio::spawn(async move {
            while let Some(event) = queue.recv().await {
                ingest_hub.apply(&event);
                titles.observe(&event);
            }
        });
        let state = Arc::new(ServerState { key: key.clone(), hub, events, dropped: Arc::clone(&dropped) });
        let accept = tokio::spawn(accept_loop(listener, router(state), shutdown.clone()));
        Ok(Self { addr, key, dropped, shutdown, tasks: vec![accept, ingest] })
    }

    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    pub fn port(&self) -> u16 {
        self.addr.port()
    }

    pub fn key(&self) -> &str {
        &self.key
    }

    /// Events dropped because the reducer queue was full.
    pub fn dropped(&self) -> u64 {
        self.dropped.load(Ordering::Relaxed)
    }

    /// Stops accepting and lets the ingest task drain what was already acknowledged.
    pub async fn shutdown(mut self) {
        self.shutdown.cancel();
        let ingest = self.tasks.pop();
        if let Some(accept) = self.tasks.pop() {
            let _ = accept.await;
        }
        if let Some(ingest) = ingest {
            let _ = tokio::time::timeout(Duration::from_secs(2), ingest).await;
        }
    }
}

/// axum's `serve` sets no header read timeout; hyper's own builder does, given a timer.
async fn accept_loop(listener: TcpListener, router: Router, shutdown: CancellationToken) {
    let mut connections = tokio::task::JoinSet::new();
    loop {
        let (stream, _) = tokio::select! {
            () = shutdown.cancelled() => break,
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(error) => {
                    // Out of file descriptors and the like: back off instead of spinning.
                    tracing::warn!(%error, "accept failed");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
        };
        let _ = stream.set_nodelay(true);
        let service = TowerToHyperService::new(router.clone());
        let shutdown = shutdown.clone();
        connections.spawn(async move {
            let connection = hyper::server::conn::http1::Builder::new()
                .timer(TokioTimer::new())
                .header_read_timeout(READ_TIMEOUT)
                .keep_alive(true)
                .serve_connection(TokioIo::new(stream), service);
            tokio::pin!(connection);
            tokio::select! {
                _ = connection.as_mut() => {}
                () = shutdown.cancelled() => {
                    connection.as_mut().graceful_shutdown();
                    let _ = tokio::time::timeout(Duration::from_secs(1), connection).await;
                }
            }
        });
        while connections.try_join_next().is_some() {}
    }
    drop(listener);
    while connections.join_next().await.is_some() {}
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
