//! The routes that read or forget sessions: the snapshot, a link's stream of updates, and a
//! session removed by `doctor` or a script.

use std::sync::Arc;

use axum::body::Body;
use axum::extract::rejection::PathRejection;
use axum::extract::{Path, RawQuery, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};

use super::{key_matches, query_param, ServerState};
use crate::instance::hub::journal::Journal;
use crate::instance::hub::Input;

/// Forgets a session (what the app's remove button does), for `switchboard doctor`'s test event
/// and scripts.
pub(super) async fn remove_session(
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

/// The snapshot is built and serialized on the blocking pool, so a large one never holds up
/// the workers that answer hooks.
pub(super) async fn sessions(State(state): State<Arc<ServerState>>, RawQuery(query): RawQuery) -> Response {
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
pub(super) async fn updates(State(state): State<Arc<ServerState>>, RawQuery(query): RawQuery) -> Response {
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

/// `GET /phone`: answering from the phone, for Diagnostics (issue 49): whether it is on, the reply
/// topic's subscription, and what came of the taps.
pub(super) async fn phone(State(state): State<Arc<ServerState>>, RawQuery(query): RawQuery) -> Response {
    if !key_matches(query.as_deref(), &state.key) {
        return StatusCode::UNAUTHORIZED.into_response();
    }
    match state.phone.get() {
        Some(phone) => axum::Json(phone.state()).into_response(),
        None => StatusCode::NOT_FOUND.into_response(),
    }
}
