//! The hook server (SPEC 3): loopback only, a per-boot secret, fail-closed to spoofing and
//! fail-open to the CLI. The answer never waits on the reducer: accepted events go into the
//! hub's bounded input queue.

use std::net::{Ipv4Addr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;

use axum::body::Body;
use axum::extract::rejection::PathRejection;
use axum::extract::{DefaultBodyLimit, Path, RawQuery, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{delete, get, post};
use axum::Router;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use rand::RngCore;
use serde_json::Value;
use switchboard_core::{normalizer, AgentProcess, AgentStatus, StatusEvent};
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;
use tower_http::limit::RequestBodyLimitLayer;
use tower_http::timeout::TimeoutLayer;

use super::decide::Decisions;
use super::hub::{Hub, Input, Inputs};
use super::journal::Journal;
use super::push::{Push, PushKind};
use crate::clock::now_millis;
use crate::protocol::{
    routes, HoldAnswer, Verdict, BODY_LIMIT, DEFAULT_HOLD, MAX_HOLD, PROCESS_HEADER, PROCESS_HEADER_LIMIT,
};

/// A client that has not sent its headers, or its body, by then is cut off.
pub const READ_TIMEOUT: Duration = Duration::from_secs(5);
/// A keyed hook's body, once its headers are in: the forwarder writes it in one go, so a body
/// still incomplete after this (a chunk that announces 2^64 bytes, a trickle) is cut off with a 408.
pub const BODY_TIMEOUT: Duration = Duration::from_secs(1);
/// Inputs waiting for the reducer. The reducer handles about a million events a second, so
/// this fills only if it is wedged; then new events are dropped (and counted) rather than
/// making an agent wait.
pub const QUEUE_CAPACITY: usize = 16_384;

/// The per-boot secret: 24 random bytes, hex.
pub fn new_secret() -> String {
    let mut bytes = [0u8; 24];
    rand::rng().fill_bytes(&mut bytes);
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

struct ServerState {
    key: String,
    hub: Arc<Hub>,
    inputs: Inputs,
    decisions: Arc<Decisions>,
    /// The numbered updates `GET /updates` streams to links: started by the first link, so an
    /// instance nobody links to pays nothing for it (no frame encoded per hook, no ring).
    journal: std::sync::OnceLock<Arc<Journal>>,
    /// Cancelled when the server stops: long-lived streams end with it.
    shutdown: CancellationToken,
    /// The push channels, once the instance started them (`POST /push/test`).
    push: std::sync::OnceLock<Arc<Push>>,
}

/// The routes, testable without a socket.
fn router(state: Arc<ServerState>) -> Router {
    let quick = Router::new()
        .route(routes::HOOK, post(hook))
        .route(routes::SESSIONS, get(sessions))
        .route(routes::SESSION, delete(remove_session))
        .route(routes::DECISION, post(decision))
        .route(routes::REMOTES, get(remotes).post(reload_remotes))
        .route(routes::PEEK, get(peek))
        .route(routes::END, post(end_agent))
        .layer(TimeoutLayer::with_status_code(StatusCode::REQUEST_TIMEOUT, READ_TIMEOUT));
    // A typed answer or reply waits for its CLI to take it (issue 33), a remote's for its box.
    let typed = Router::new().route(routes::ANSWER, post(answer)).route(routes::REPLY, post(reply)).layer(
        TimeoutLayer::with_status_code(StatusCode::REQUEST_TIMEOUT, super::answer::confirm_within() + READ_TIMEOUT * 6),
    );
    // A test push waits for the receiver's answer (one attempt, its own deadline).
    let tested = Router::new()
        .route(routes::PUSH_TEST, post(push_test))
        .layer(TimeoutLayer::with_status_code(StatusCode::REQUEST_TIMEOUT, READ_TIMEOUT * 3));
    // A held permission waits for the user; its body still has [`BODY_TIMEOUT`] to arrive.
    let held = Router::new()
        .route(routes::HOLD, post(hold))
        .layer(TimeoutLayer::with_status_code(StatusCode::REQUEST_TIMEOUT, MAX_HOLD + READ_TIMEOUT));
    // A link's stream lasts as long as the link: no timeout (a stalled reader only stops being
    // polled; the journal holds its frames, not the stream).
    let streamed = Router::new().route(routes::UPDATES, get(updates));
    quick
        .merge(typed)
        .merge(held)
        .merge(tested)
        .merge(streamed)
        // Refuses a declared Content-Length over the cap at once, and a streamed body as soon as
        // it passes the cap; axum's own default limit is lifted in favour of this one.
        .layer(RequestBodyLimitLayer::new(BODY_LIMIT))
        .layer(DefaultBodyLimit::disable())
        .with_state(state)
}

/// The key and the agent are checked before the body is read: a keyless flood costs no memory.
async fn hook(
    State(state): State<Arc<ServerState>>,
    // Not `Path<String>`: a segment that is not UTF-8 must not be refused before the key is.
    agent: Result<Path<String>, PathRejection>,
    RawQuery(query): RawQuery,
    headers: HeaderMap,
    body: Body,
) -> Response {
    if !key_matches(query.as_deref(), &state.key) {
        // Answered like any other (fail-open), but the connection is not kept for more.
        return closing(StatusCode::NO_CONTENT);
    }
    match accept_hook(&state, agent, &headers, body).await {
        StatusCode::REQUEST_TIMEOUT => closing(StatusCode::REQUEST_TIMEOUT),
        status => status.into_response(),
    }
}

/// An answer after which the connection is not kept: a keyless request, a body too slow.
fn closing(status: StatusCode) -> Response {
    (status, [(axum::http::header::CONNECTION, "close")]).into_response()
}

async fn accept_hook(
    state: &ServerState,
    agent: Result<Path<String>, PathRejection>,
    headers: &HeaderMap,
    body: Body,
) -> StatusCode {
    match read_event(agent, headers, body).await {
        Ok(Some(event)) => {
            state.inputs.send(Input::Hook(Box::new(event)));
            StatusCode::NO_CONTENT
        }
        Ok(None) => StatusCode::NO_CONTENT,
        Err(status) => status,
    }
}

/// The normalized event of a request whose key was checked: `Ok(None)` for what is dropped
/// silently (unknown agent, not JSON, an event that means nothing), `Err` for a body that is too
/// large or too slow.
async fn read_event(
    agent: Result<Path<String>, PathRejection>,
    headers: &HeaderMap,
    body: Body,
) -> Result<Option<StatusEvent>, StatusCode> {
    let agent = agent.ok();
    let Some(normalize) = agent.as_deref().filter(|agent| is_agent_id(agent)).and_then(|agent| normalizer(agent))
    else {
        return Ok(None);
    };
    let body = match tokio::time::timeout(BODY_TIMEOUT, axum::body::to_bytes(body, BODY_LIMIT)).await {
        Err(_) => return Err(StatusCode::REQUEST_TIMEOUT),
        Ok(Ok(body)) => body,
        Ok(Err(error)) if is_too_large(&error) => return Err(StatusCode::PAYLOAD_TOO_LARGE),
        Ok(Err(_)) => return Ok(None),
    };
    let Ok(raw) = serde_json::from_slice::<Value>(&body) else { return Ok(None) };
    Ok(normalize(&raw, now_millis()).map(|mut event| {
        event.process = agent_process(headers);
        event
    }))
}

/// A permission the forwarder holds open for an answer from the board (issue 14): the event goes
/// in like any other, with the hold's id, and the answer comes back as `{"verdict":"allow"}` or
/// `{"verdict":"deny"}`; `204` when there is none within `ms` (capped at [`MAX_HOLD`]), or when
/// the event is not a permission (then it is simply accepted).
async fn hold(
    State(state): State<Arc<ServerState>>,
    agent: Result<Path<String>, PathRejection>,
    RawQuery(query): RawQuery,
    headers: HeaderMap,
    body: Body,
) -> Response {
    if !key_matches(query.as_deref(), &state.key) {
        return closing(StatusCode::NO_CONTENT);
    }
    let limit = query_param(query.as_deref(), "ms")
        .and_then(|ms| ms.parse::<u64>().ok())
        .map_or(DEFAULT_HOLD, Duration::from_millis)
        .min(MAX_HOLD);
    let mut event = match read_event(agent, &headers, body).await {
        Ok(Some(event)) => event,
        Ok(None) => return StatusCode::NO_CONTENT.into_response(),
        Err(status) => return closing(status),
    };
    let permission = event.status == Some(AgentStatus::Blocked) && !event.awaiting_input;
    // A question, for a CLI whose hook can carry its answers (issue 24): its own dialog is drawn
    // all the same, and whichever answer comes first wins.
    let question = event.status == Some(AgentStatus::Waiting)
        && event.awaiting_input
        && !event.questions.is_empty()
        && switchboard_core::agent(&event.agent).is_some_and(|agent| agent.answers_in_hook);
    if !permission && !question {
        state.inputs.send(Input::Hook(Box::new(event)));
        return StatusCode::NO_CONTENT.into_response();
    }
    let held = state.decisions.hold(&event.session_id);
    event.decision = Some(held.id);
    event.decision_until = Some(event.ts.saturating_add(u64::try_from(limit.as_millis()).unwrap_or(u64::MAX)));
    state.inputs.send(Input::Hook(Box::new(event)));
    match held.wait(limit).await {
        Some(answer) => axum::Json::<HoldAnswer>(answer).into_response(),
        None => StatusCode::NO_CONTENT.into_response(),
    }
}

/// The board's answer to a held permission, for scripts and `switchboard` itself:
/// `POST /decision/<session>?key=…&id=<hold>&verdict=allow|deny`. `409` when nothing waits for it.
async fn decision(
    State(state): State<Arc<ServerState>>,
    id: Result<Path<String>, PathRejection>,
    RawQuery(query): RawQuery,
) -> StatusCode {
    if !key_matches(query.as_deref(), &state.key) {
        return StatusCode::UNAUTHORIZED;
    }
    let Ok(Path(session_id)) = id else { return StatusCode::NOT_FOUND };
    let hold = query_param(query.as_deref(), "id").and_then(|id| id.parse::<u64>().ok());
    let verdict = match query_param(query.as_deref(), "verdict") {
        Some("allow") => Verdict::Allow,
        Some("deny") => Verdict::Deny,
        _ => return StatusCode::BAD_REQUEST,
    };
    let Some(hold) = hold else { return StatusCode::BAD_REQUEST };
    let decisions = Arc::clone(&state.decisions);
    // The session's own host says where it runs (a local id may hold a `:`).
    let Some(host) = state.hub.session(&session_id).map(|session| session.host) else {
        return StatusCode::CONFLICT;
    };
    // A remote's answer waits for its link (seconds at worst): not on an async worker.
    let answered =
        tokio::task::spawn_blocking(move || decisions.answer_anywhere(&host, &session_id, hold, verdict)).await;
    match answered {
        Ok(Ok(())) => StatusCode::NO_CONTENT,
        Ok(Err(super::decide::DecideError::Remote(crate::remote::RemoteDecideError::Unreachable(_)))) => {
            StatusCode::BAD_GATEWAY
        }
        Ok(Err(super::decide::DecideError::Remote(crate::remote::RemoteDecideError::NoAnswer(..)))) => {
            StatusCode::GATEWAY_TIMEOUT
        }
        Ok(Err(_)) => StatusCode::CONFLICT,
        Err(_) => StatusCode::INTERNAL_SERVER_ERROR,
    }
}

/// `POST /answer/<session>?key=…&option=N`: that option of the question on screen (issue 24),
/// through the CLI's hook or typed into the agent's own pane; without `option`, the body is a
/// written answer (through the hook only).
async fn answer(
    State(state): State<Arc<ServerState>>,
    id: Result<Path<String>, PathRejection>,
    RawQuery(query): RawQuery,
    body: Body,
) -> Response {
    if !key_matches(query.as_deref(), &state.key) {
        return StatusCode::UNAUTHORIZED.into_response();
    }
    let Ok(Path(id)) = id else { return StatusCode::NOT_FOUND.into_response() };
    let answer = match query_param(query.as_deref(), "option") {
        Some(n) => match n.parse::<usize>() {
            Ok(option) => super::answer::Answer::Option(option),
            Err(_) => return StatusCode::BAD_REQUEST.into_response(),
        },
        None => {
            let Ok(Ok(bytes)) = tokio::time::timeout(READ_TIMEOUT, axum::body::to_bytes(body, BODY_LIMIT)).await else {
                return StatusCode::PAYLOAD_TOO_LARGE.into_response();
            };
            match String::from_utf8(bytes.to_vec()) {
                Ok(text) if !text.trim().is_empty() => super::answer::Answer::Text(text),
                _ => return StatusCode::BAD_REQUEST.into_response(),
            }
        }
    };
    deliver(&state, &id, answer).await
}

/// `POST /reply/<session>?key=…` with the text as the body: the agent's next prompt (issue 24).
async fn reply(
    State(state): State<Arc<ServerState>>,
    id: Result<Path<String>, PathRejection>,
    RawQuery(query): RawQuery,
    body: Body,
) -> Response {
    if !key_matches(query.as_deref(), &state.key) {
        return StatusCode::UNAUTHORIZED.into_response();
    }
    let Ok(Path(id)) = id else { return StatusCode::NOT_FOUND.into_response() };
    let Ok(Ok(bytes)) = tokio::time::timeout(READ_TIMEOUT, axum::body::to_bytes(body, BODY_LIMIT)).await else {
        return StatusCode::PAYLOAD_TOO_LARGE.into_response();
    };
    let Ok(text) = String::from_utf8(bytes.to_vec()) else { return StatusCode::BAD_REQUEST.into_response() };
    deliver(&state, &id, super::answer::Answer::Reply(text)).await
}

/// `200` with what was typed where, once its CLI took it; `404` unknown session; `409` with the
/// reason it was not given (or typed and not taken).
async fn deliver(state: &ServerState, session_id: &str, what: super::answer::Answer) -> Response {
    use super::answer::GiveError;
    match super::answer::give(&state.hub, &state.inputs, &state.decisions, session_id, what).await {
        Ok(delivered) => axum::Json(delivered).into_response(),
        Err(GiveError::Unknown(_)) => StatusCode::NOT_FOUND.into_response(),
        Err(GiveError::Refused(refused)) => conflict(&refused),
        Err(GiveError::Internal(_)) => StatusCode::INTERNAL_SERVER_ERROR.into_response(),
    }
}

/// `409` with why the action was not taken (`{"error": …}`), for the client to say.
fn conflict(why: &dyn std::fmt::Display) -> Response {
    (StatusCode::CONFLICT, axum::Json(serde_json::json!({ "error": why.to_string() }))).into_response()
}

/// The session a keyed `/<action>/<session>` request names, or the answer saying why not
/// (`401` without the key, `404` for a session the hub does not have).
fn keyed_session(
    state: &ServerState,
    query: Option<&str>,
    id: Result<Path<String>, PathRejection>,
) -> Result<switchboard_core::Session, StatusCode> {
    if !key_matches(query, &state.key) {
        return Err(StatusCode::UNAUTHORIZED);
    }
    let Ok(Path(id)) = id else { return Err(StatusCode::NOT_FOUND) };
    state.hub.session(&id).ok_or(StatusCode::NOT_FOUND)
}

/// `GET /peek/<session>?key=…`: the session, and its pane's last lines when it is tied to one
/// (else why not).
async fn peek(
    State(state): State<Arc<ServerState>>,
    id: Result<Path<String>, PathRejection>,
    RawQuery(query): RawQuery,
) -> Response {
    let session = match keyed_session(&state, query.as_deref(), id) {
        Ok(session) => session,
        Err(status) => return status.into_response(),
    };
    let looked = session.clone();
    let read =
        tokio::task::spawn_blocking(move || (super::answer::Screen::of(&looked), super::answer::last_turn(&looked)));
    let (screen, turn) = read.await.unwrap_or_else(|_| {
        let unread = super::answer::Screen { text: None, reason: Some("the screen could not be read".to_owned()) };
        (unread, Vec::new())
    });
    axum::Json(serde_json::json!({
        "session": session, "screen": screen.text, "noScreen": screen.reason, "lastTurn": turn,
    }))
    .into_response()
}

/// `POST /end/<session>?key=…`: SIGTERM to its agent (issue 25). `204`, `404`, or `409` with why.
async fn end_agent(
    State(state): State<Arc<ServerState>>,
    id: Result<Path<String>, PathRejection>,
    RawQuery(query): RawQuery,
) -> Response {
    let session = match keyed_session(&state, query.as_deref(), id) {
        Ok(session) => session,
        Err(status) => return status.into_response(),
    };
    match super::end::end(&session) {
        Ok(_) => StatusCode::NO_CONTENT.into_response(),
        Err(refused) => conflict(&refused),
    }
}

/// `GET /remotes`: each followed remote's state (`switchboard remote list`).
async fn remotes(State(state): State<Arc<ServerState>>, RawQuery(query): RawQuery) -> Response {
    if !key_matches(query.as_deref(), &state.key) {
        return StatusCode::UNAUTHORIZED.into_response();
    }
    let mut list = state.decisions.remotes().map(|remotes| remotes.list()).unwrap_or_default();
    // What the board holds of each, not what it sent (a session it refused is not on it).
    for remote in &mut list {
        remote.sessions = state.hub.count(&remote.name);
    }
    axum::Json(list).into_response()
}

/// `POST /push/test?channel=ntfy|webhook`: one test message through the saved channel, now.
async fn push_test(State(state): State<Arc<ServerState>>, RawQuery(query): RawQuery) -> Response {
    if !key_matches(query.as_deref(), &state.key) {
        return StatusCode::UNAUTHORIZED.into_response();
    }
    let channel = query_param(query.as_deref(), "channel").unwrap_or_default();
    let Some(kind) = PushKind::parse(channel) else {
        return (StatusCode::BAD_REQUEST, super::push::unknown_channel(channel)).into_response();
    };
    let Some(push) = state.push.get().cloned() else { return StatusCode::NOT_FOUND.into_response() };
    let sent = tokio::task::spawn_blocking(move || push.test(kind, &push.channel(kind))).await;
    match sent {
        Ok(sent) => axum::Json(sent).into_response(),
        Err(_) => StatusCode::INTERNAL_SERVER_ERROR.into_response(),
    }
}

/// `POST /remotes`: the settings' remotes changed (`remote add`, `remote remove`): follow them.
async fn reload_remotes(State(state): State<Arc<ServerState>>, RawQuery(query): RawQuery) -> StatusCode {
    if !key_matches(query.as_deref(), &state.key) {
        return StatusCode::UNAUTHORIZED;
    }
    match state.decisions.remotes() {
        Some(remotes) => {
            let remotes = Arc::clone(remotes);
            let _ = tokio::task::spawn_blocking(move || remotes.reload()).await;
            StatusCode::NO_CONTENT
        }
        None => StatusCode::NOT_FOUND,
    }
}

fn query_param<'a>(query: Option<&'a str>, name: &str) -> Option<&'a str> {
    query?.split('&').find_map(|pair| pair.strip_prefix(name)?.strip_prefix('='))
}

/// Forgets a session (what the app's remove button does), for `switchboard doctor`'s test event
/// and scripts.
async fn remove_session(
    State(state): State<Arc<ServerState>>,
    id: Result<Path<String>, PathRejection>,
    RawQuery(query): RawQuery,
) -> StatusCode {
    if !key_matches(query.as_deref(), &state.key) {
        return StatusCode::UNAUTHORIZED;
    }
    let Ok(Path(id)) = id else { return StatusCode::NOT_FOUND };
    match state.inputs.ask(|reply| Input::Remove { session_id: id, reply }).await {
        Some(true) => StatusCode::NO_CONTENT,
        Some(false) => StatusCode::NOT_FOUND,
        None => StatusCode::SERVICE_UNAVAILABLE,
    }
}

/// The forwarder's report of the agent's process, if well-formed and small.
fn agent_process(headers: &HeaderMap) -> Option<AgentProcess> {
    let value = headers.get(PROCESS_HEADER)?;
    if value.len() > PROCESS_HEADER_LIMIT {
        return None;
    }
    serde_json::from_slice(value.as_bytes()).ok()
}

fn is_too_large(error: &axum::Error) -> bool {
    let mut source: Option<&(dyn std::error::Error + 'static)> = Some(error);
    while let Some(error) = source {
        if error.is::<http_body_util::LengthLimitError>() {
            return true;
        }
        source = error.source();
    }
    false
}

/// The snapshot is built and serialized on the blocking pool, so a large one never holds up
/// the workers that answer hooks.
async fn sessions(State(state): State<Arc<ServerState>>, RawQuery(query): RawQuery) -> Response {
    if !key_matches(query.as_deref(), &state.key) {
        return StatusCode::UNAUTHORIZED.into_response();
    }
    let hub = Arc::clone(&state.hub);
    match tokio::task::spawn_blocking(move || serde_json::to_vec(&hub.snapshot())).await {
        Ok(Ok(json)) => ([(axum::http::header::CONTENT_TYPE, "application/json")], json).into_response(),
        _ => StatusCode::INTERNAL_SERVER_ERROR.into_response(),
    }
}

/// A link's stream of frames (`protocol::link`): `hello`, then a snapshot or — with
/// `?instance=<this run>&after=N` — the updates after N if the journal still has them, then each
/// update as it happens.
async fn updates(State(state): State<Arc<ServerState>>, RawQuery(query): RawQuery) -> Response {
    if !key_matches(query.as_deref(), &state.key) {
        return StatusCode::UNAUTHORIZED.into_response();
    }
    let journal = state.journal.get_or_init(|| Journal::start(&state.hub));
    let query = query.as_deref();
    let after = query_param(query, "after")
        .and_then(|after| after.parse::<u64>().ok())
        .filter(|_| query_param(query, "instance") == Some(journal.instance()));
    let body = Body::from_stream(journal.stream(after, state.shutdown.clone()));
    let headers =
        [(axum::http::header::CONTENT_TYPE, "application/x-ndjson"), (axum::http::header::CACHE_CONTROL, "no-store")];
    (headers, body).into_response()
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

/// A running hook server.
pub struct HookServer {
    addr: SocketAddr,
    key: String,
    shutdown: CancellationToken,
    accept: tokio::task::JoinHandle<()>,
    state: Arc<ServerState>,
}

impl HookServer {
    /// Binds `127.0.0.1:0` with a new secret and starts serving: events go to `inputs`,
    /// `GET /sessions` reads `hub`.
    pub async fn start(inputs: Inputs, hub: Arc<Hub>) -> std::io::Result<Self> {
        let decisions = Decisions::new(inputs.clone());
        Self::start_with(inputs, hub, decisions, new_secret()).await
    }

    /// The same, answering held permissions through `decisions`, with a given key.
    pub async fn start_with(
        inputs: Inputs,
        hub: Arc<Hub>,
        decisions: Arc<Decisions>,
        key: String,
    ) -> std::io::Result<Self> {
        let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).await?;
        let addr = listener.local_addr()?;
        let shutdown = CancellationToken::new();
        let journal = std::sync::OnceLock::new();
        let push = std::sync::OnceLock::new();
        let state = Arc::new(ServerState {
            key: key.clone(),
            hub,
            inputs,
            decisions,
            journal,
            shutdown: shutdown.clone(),
            push,
        });
        let accept = tokio::spawn(accept_loop(listener, router(Arc::clone(&state)), key.clone(), shutdown.clone()));
        Ok(Self { addr, key, shutdown, accept, state })
    }

    /// Lets `POST /push/test` reach the instance's push channels.
    pub fn set_push(&self, push: Arc<Push>) {
        let _ = self.state.push.set(push);
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

    /// Stops accepting and lets open requests finish (briefly).
    pub async fn shutdown(self) {
        self.shutdown.cancel();
        let _ = self.accept.await;
    }
}

/// Under a flood of connections, a new one gets this long to send its request head: a real
/// hook sends it within a millisecond of connecting, an idle reconnecting client is cut.
pub const BUSY_READ_TIMEOUT: Duration = Duration::from_millis(250);

/// Raises the soft descriptor limit to the hard one (the default 1,024 is starved by a few
/// thousand idle connections) and returns how many connections to serve at once: the limit
/// less a reserve for the database, transcripts and notifications.
pub fn connection_cap() -> usize {
    let mut limit = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
    // SAFETY: getrlimit/setrlimit with a valid pointer to a local struct.
    unsafe {
        if libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) == 0 && limit.rlim_cur < limit.rlim_max {
            let raised = libc::rlimit { rlim_cur: limit.rlim_max, rlim_max: limit.rlim_max };
            if libc::setrlimit(libc::RLIMIT_NOFILE, &raised) == 0 {
                limit = raised;
            }
        }
    }
    let descriptors = usize::try_from(limit.rlim_cur).unwrap_or(usize::MAX).max(256);
    (descriptors - 128).min(65_536)
}

/// One open connection, as the accept loop sees it.
struct Connection {
    /// It sent a request with the key: a real client (a forwarder, `status`, the app's peers).
    proven: std::sync::atomic::AtomicBool,
    /// Close it now: the table is full and it never proved itself.
    shed: CancellationToken,
}

/// The open connections, oldest first, that have not proved themselves yet: when the table is
/// full, the oldest of them is shed to make room, so a flood of idle or keyless connections
/// cannot keep a real hook out — a keyed request is never the one refused.
#[derive(Default)]
struct Unproven(std::sync::Mutex<std::collections::VecDeque<Arc<Connection>>>);

impl Unproven {
    fn add(&self, connection: &Arc<Connection>) {
        self.0.lock().unwrap_or_else(std::sync::PoisonError::into_inner).push_back(Arc::clone(connection));
    }

    /// Sheds the oldest connection still unproven and open; `false` if there is none. Each
    /// entry is looked at once: proven or closed ones leave the list as they are met.
    fn shed_oldest(&self) -> bool {
        let mut list = self.0.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        while let Some(connection) = list.pop_front() {
            if connection.proven.load(std::sync::atomic::Ordering::Relaxed) || connection.shed.is_cancelled() {
                continue;
            }
            connection.shed.cancel();
            return true;
        }
        false
    }
}

/// axum's `serve` sets no header read timeout; hyper's own builder does, given a timer.
/// At the cap, the oldest connection that never sent a keyed request is shed for the new one
/// (only if every one is proven is the new one closed); past half the cap, new ones must be quick.
async fn accept_loop(listener: TcpListener, router: Router, key: String, shutdown: CancellationToken) {
    let cap = connection_cap();
    let open = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let unproven = Arc::new(Unproven::default());
    let key: Arc<str> = key.into();
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
        let count = open.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
        if count > cap && !unproven.shed_oldest() {
            open.fetch_sub(1, std::sync::atomic::Ordering::Relaxed);
            drop(stream);
            continue;
        }
        let read_timeout = if count > cap / 2 { BUSY_READ_TIMEOUT } else { READ_TIMEOUT };
        let _ = stream.set_nodelay(true);
        let connection = Arc::new(Connection { proven: false.into(), shed: CancellationToken::new() });
        unproven.add(&connection);
        let (router, key, this) = (router.clone(), Arc::clone(&key), Arc::clone(&connection));
        let service = tower::service_fn(move |request: axum::http::Request<hyper::body::Incoming>| {
            if !this.proven.load(std::sync::atomic::Ordering::Relaxed) && key_matches(request.uri().query(), &key) {
                this.proven.store(true, std::sync::atomic::Ordering::Relaxed);
            }
            let mut router = router.clone();
            async move { tower::Service::call(&mut router, request).await }
        });
        let service = TowerToHyperService::new(service);
        let shutdown = shutdown.clone();
        let open = Arc::clone(&open);
        connections.spawn(async move {
            let served = hyper::server::conn::http1::Builder::new()
                .timer(TokioTimer::new())
                .header_read_timeout(read_timeout)
                .keep_alive(true)
                .serve_connection(TokioIo::new(stream), service);
            tokio::pin!(served);
            tokio::select! {
                _ = served.as_mut() => {}
                () = connection.shed.cancelled() => {}
                () = shutdown.cancelled() => {
                    served.as_mut().graceful_shutdown();
                    let _ = tokio::time::timeout(Duration::from_secs(1), served).await;
                }
            }
            // Closed: not a candidate for shedding any more.
            connection.shed.cancel();
            open.fetch_sub(1, std::sync::atomic::Ordering::Relaxed);
        });
        while connections.try_join_next().is_some() {}
    }
    drop(listener);
    while connections.join_next().await.is_some() {}
}

#[cfg(test)]
mod tests {
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
