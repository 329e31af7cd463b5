//! The hook server (docs/model.md §3): loopback only, a per-boot secret, fail-closed to spoofing
//! and fail-open to the CLI. The answer never waits on the reducer: accepted events go into the
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
use rand::RngCore;
use switchboard_core::{normalizer, AgentStatus};
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;
use tower_http::limit::RequestBodyLimitLayer;
use tower_http::timeout::TimeoutLayer;

mod act;
mod hook;
mod listen;
mod reads;
mod request;
mod spool_watch;

use request::{is_agent_id, key_matches, query_param};

use listen::accept_loop;
pub use listen::{connection_cap, BUSY_READ_TIMEOUT};
use spool_watch::SpoolWatch;

use crate::clock::now_millis;
use crate::instance::act::decide::Decisions;
use crate::instance::act::phone::Phone;
use crate::instance::hub::journal::Journal;
use crate::instance::hub::{Hub, Input, Inputs};
use crate::instance::outputs::push::{Push, PushKind};
use crate::protocol::{routes, HoldAnswer, BODY_LIMIT, DEFAULT_HOLD, MAX_HOLD};
use crate::spool::{self, Delivered};

/// A client that has not sent its headers, or its body, by then is cut off.
pub const READ_TIMEOUT: Duration = Duration::from_secs(5);
/// A keyed hook's body, once its headers are in: the forwarder writes it in one go, so a body
/// still incomplete after this (a chunk that announces 2^64 bytes, a trickle) is cut off with a 408.
pub const BODY_TIMEOUT: Duration = Duration::from_secs(1);
/// Inputs waiting for the reducer. The reducer handles about a million events a second, so
/// this fills only if it is wedged; then new events are dropped (and counted) rather than
/// making an agent wait.
pub const QUEUE_CAPACITY: usize = 16_384;

fn take_spool(state: &ServerState, state_dir: &std::path::Path) {
    match spool::take(state_dir) {
        Ok(Some(taken)) => state.apply_spooled(taken),
        Ok(None) => {}
        Err(error) => tracing::warn!("cannot take the spool in {}: {error}", state_dir.display()),
    }
}

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
    /// Answering from the phone, once the instance started it (`GET /phone`).
    phone: std::sync::OnceLock<Arc<Phone>>,
    /// The ids of the events applied lately, from a request or the spool (issue 45).
    delivered: std::sync::Mutex<Delivered>,
}

impl ServerState {
    /// Whether the event with this id (if it has one) is new: an event the forwarder spooled
    /// after its request did reach the socket comes twice, and is applied once.
    fn first_delivery(&self, headers: &HeaderMap) -> bool {
        let Some(id) = headers.get(&request::EVENT_ID).and_then(|id| id.to_str().ok()) else { return true };
        self.delivered.lock().unwrap_or_else(std::sync::PoisonError::into_inner).first(id)
    }

    /// Applies what the spool holds, in order, each event once; says how many were dropped.
    fn apply_spooled(&self, taken: spool::Taken) {
        let now = now_millis();
        let mut applied = 0usize;
        for spooled in taken.events {
            let first = self.delivered.lock().unwrap_or_else(std::sync::PoisonError::into_inner).first(&spooled.id);
            let normalize = Some(spooled.agent.as_str()).filter(|agent| is_agent_id(agent)).and_then(normalizer);
            let Some(normalize) = normalize.filter(|_| first) else { continue };
            if let Some(mut event) = normalize(&(&spooled.body).into(), spooled.at.min(now)) {
                event.process = spooled.process;
                // Bounded by the spool itself, and already waited for long enough.
                self.inputs.push(Input::Hook(Box::new(event)));
                applied += 1;
            }
        }
        if applied > 0 {
            tracing::info!("took {applied} events from the spool (the instance had not answered them in time)");
        }
        if taken.dropped > 0 {
            let text = format!(
                "{} hook events were lost while Switchboard could not take them (the spool was full or unreadable): a badge may be out of date until its agent's next event.",
                taken.dropped
            );
            tracing::warn!("{text}");
            self.inputs.push(Input::Notice { source: "spool", text: Some(text) });
        }
    }
}

/// The routes, testable without a socket.
fn router(state: Arc<ServerState>) -> Router {
    let quick = Router::new()
        .route(routes::HOOK, post(hook::hook))
        .route(routes::SESSIONS, get(reads::sessions))
        .route(routes::SESSION, delete(reads::remove_session))
        .route(routes::REMOTES, get(remotes).post(reload_remotes))
        .route(routes::PHONE, get(reads::phone))
        .route(routes::PEEK, get(act::peek))
        .route(routes::END, post(act::end_agent))
        .layer(TimeoutLayer::with_status_code(StatusCode::REQUEST_TIMEOUT, READ_TIMEOUT));
    // A remote's decision waits for its box's word (5 s): the route outlasts that wait, so a
    // silent box is said as such, not as the route's 408 (issue 45).
    let decided = Router::new().route(routes::DECISION, post(act::decision)).layer(TimeoutLayer::with_status_code(
        StatusCode::REQUEST_TIMEOUT,
        crate::remote::follow::DECISION_TIMEOUT + READ_TIMEOUT,
    ));
    // A typed answer or reply waits for its CLI to take it (issue 33), a remote's for its box.
    let typed = Router::new().route(routes::ANSWER, post(act::answer)).route(routes::REPLY, post(act::reply)).layer(
        TimeoutLayer::with_status_code(
            StatusCode::REQUEST_TIMEOUT,
            crate::instance::act::answer::confirm_within() + READ_TIMEOUT * 6,
        ),
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
    let streamed = Router::new().route(routes::UPDATES, get(reads::updates));
    quick
        .merge(decided)
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

/// An answer after which the connection is not kept: a keyless request, a body too slow.
fn closing(status: StatusCode) -> Response {
    (status, [(axum::http::header::CONNECTION, "close")]).into_response()
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
    let agent = agent.as_ref().ok().map(|Path(agent)| agent.as_str());
    let mut event = match hook::read_event(agent, &headers, body).await {
        Ok(Some(event)) => event,
        Ok(None) => return StatusCode::NO_CONTENT.into_response(),
        Err(status) => return closing(status),
    };
    if !state.first_delivery(&headers) {
        return StatusCode::NO_CONTENT.into_response();
    }
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
        return (StatusCode::BAD_REQUEST, crate::instance::outputs::push::unknown_channel(channel)).into_response();
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
            phone: std::sync::OnceLock::new(),
            delivered: std::sync::Mutex::new(Delivered::new(spool::DELIVERED_IDS)),
        });
        let accept =
            tokio::spawn(accept_loop(listener, router(Arc::clone(&state)), Arc::clone(&state), shutdown.clone()));
        Ok(Self { addr, key, shutdown, accept, state })
    }

    /// Takes the events spooled in `state_dir` now, then whenever a forwarder spools more
    /// (issue 45), until the server stops. The folder is watched where it can be, so nothing wakes
    /// while nothing is spooled (issue 47: idle is idle).
    pub fn follow_spool(&self, state_dir: std::path::PathBuf) {
        // Watched before the first take: what is spooled after the take is seen, not left for
        // the next safety look.
        let mut watch = SpoolWatch::new(&state_dir);
        tracing::debug!(watched = watch.is_watched(), "following the spool in {}", state_dir.display());
        take_spool(&self.state, &state_dir);
        let (state, stop) = (Arc::clone(&self.state), self.shutdown.clone());
        tokio::spawn(async move {
            loop {
                tokio::select! {
                    _ = stop.cancelled() => return,
                    () = watch.changed() => {}
                }
                // Asked here, taken on a blocking thread: a look with nothing spooled wakes no
                // other thread.
                if matches!(spool::waiting(&state_dir), Ok(false)) {
                    continue;
                }
                let (dir, state) = (state_dir.clone(), Arc::clone(&state));
                let _ = tokio::task::spawn_blocking(move || take_spool(&state, &dir)).await;
            }
        });
    }

    /// Lets `POST /push/test` reach the instance's push channels.
    pub fn set_push(&self, push: Arc<Push>) {
        let _ = self.state.push.set(push);
    }

    pub fn set_phone(&self, phone: Arc<Phone>) {
        let _ = self.state.phone.set(phone);
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

#[cfg(test)]
mod tests;
