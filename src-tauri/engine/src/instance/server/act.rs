//! The routes that act on a session (issues 14, 24, 25, 33): Allow / Deny, an answer, a reply,
//! peek and End agent — each keyed, each refused with the reason rather than guessed.

use std::sync::Arc;

use axum::body::Body;
use axum::extract::rejection::PathRejection;
use axum::extract::{Path, RawQuery, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};

use super::{key_matches, query_param, ServerState, BODY_LIMIT, READ_TIMEOUT};
use crate::protocol::Verdict;

/// The board's answer to a held permission, for scripts and `switchboard` itself:
/// `POST /decision/<session>?key=…&id=<hold>&verdict=allow|deny`. `409` when nothing waits for it;
/// for a box's session, `502` when its link is down and `504` with why when the box is silent.
pub(super) async fn decision(
    State(state): State<Arc<ServerState>>,
    id: Result<Path<String>, PathRejection>,
    RawQuery(query): RawQuery,
) -> Response {
    decide(&state, id, query.as_deref()).await.unwrap_or_else(IntoResponse::into_response)
}

async fn decide(
    state: &ServerState,
    id: Result<Path<String>, PathRejection>,
    query: Option<&str>,
) -> Result<Response, StatusCode> {
    use crate::instance::act::decide::DecideError;
    use crate::remote::RemoteDecideError;
    if !key_matches(query, &state.key) {
        return Err(StatusCode::UNAUTHORIZED);
    }
    let Ok(Path(session_id)) = id else { return Err(StatusCode::NOT_FOUND) };
    let hold = query_param(query, "id").and_then(|id| id.parse::<u64>().ok());
    let verdict = match query_param(query, "verdict") {
        Some("allow") => Verdict::Allow,
        Some("deny") => Verdict::Deny,
        _ => return Err(StatusCode::BAD_REQUEST),
    };
    let hold = hold.ok_or(StatusCode::BAD_REQUEST)?;
    let decisions = Arc::clone(&state.decisions);
    // The session's own host says where it runs (a local id may hold a `:`).
    let host = state.hub.session(&session_id).map(|session| session.host).ok_or(StatusCode::CONFLICT)?;
    // A remote's answer waits for its link (seconds at worst): not on an async worker.
    let answered =
        tokio::task::spawn_blocking(move || decisions.answer_anywhere(&host, &session_id, hold, verdict)).await;
    match answered.map_err(|_| StatusCode::INTERNAL_SERVER_ERROR)? {
        Ok(()) => Ok(StatusCode::NO_CONTENT.into_response()),
        Err(DecideError::Remote(RemoteDecideError::Unreachable(_))) => Err(StatusCode::BAD_GATEWAY),
        Err(DecideError::Remote(silent @ RemoteDecideError::NoAnswer(..))) => {
            let said = serde_json::json!({ "error": silent.to_string() });
            Ok((StatusCode::GATEWAY_TIMEOUT, axum::Json(said)).into_response())
        }
        Err(_) => Err(StatusCode::CONFLICT),
    }
}

/// `POST /answer/<session>?key=…&option=N`: that option of the question on screen (issue 24),
/// through the CLI's hook or typed into the agent's own pane; without `option`, the body is a
/// written answer (through the hook only).
pub(super) async fn answer(
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
            Ok(option) => crate::instance::act::answer::Answer::Option(option),
            Err(_) => return StatusCode::BAD_REQUEST.into_response(),
        },
        None => match read_text(body).await {
            Ok(text) if !text.trim().is_empty() => crate::instance::act::answer::Answer::Text(text),
            Ok(_) => return StatusCode::BAD_REQUEST.into_response(),
            Err(status) => return status.into_response(),
        },
    };
    deliver(&state, &id, answer).await
}

/// A request's body as text, within [`READ_TIMEOUT`] and [`BODY_LIMIT`]: `413` when it is too
/// large or too slow, `400` when it is not UTF-8.
async fn read_text(body: Body) -> Result<String, StatusCode> {
    let Ok(Ok(bytes)) = tokio::time::timeout(READ_TIMEOUT, axum::body::to_bytes(body, BODY_LIMIT)).await else {
        return Err(StatusCode::PAYLOAD_TOO_LARGE);
    };
    String::from_utf8(bytes.to_vec()).map_err(|_| StatusCode::BAD_REQUEST)
}

/// `POST /reply/<session>?key=…` with the text as the body: the agent's next prompt (issue 24).
pub(super) async fn reply(
    State(state): State<Arc<ServerState>>,
    id: Result<Path<String>, PathRejection>,
    RawQuery(query): RawQuery,
    body: Body,
) -> Response {
    if !key_matches(query.as_deref(), &state.key) {
        return StatusCode::UNAUTHORIZED.into_response();
    }
    let Ok(Path(id)) = id else { return StatusCode::NOT_FOUND.into_response() };
    match read_text(body).await {
        Ok(text) => deliver(&state, &id, crate::instance::act::answer::Answer::Reply(text)).await,
        Err(status) => status.into_response(),
    }
}

/// `200` with what was typed where, once its CLI took it; `404` unknown session; `409` with the
/// reason it was not given (or typed and not taken).
pub(super) async fn deliver(
    state: &ServerState,
    session_id: &str,
    what: crate::instance::act::answer::Answer,
) -> Response {
    use crate::instance::act::answer::GiveError;
    match crate::instance::act::answer::give(&state.hub, &state.inputs, &state.decisions, session_id, what).await {
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
pub(super) async fn peek(
    State(state): State<Arc<ServerState>>,
    id: Result<Path<String>, PathRejection>,
    RawQuery(query): RawQuery,
) -> Response {
    let session = match keyed_session(&state, query.as_deref(), id) {
        Ok(session) => session,
        Err(status) => return status.into_response(),
    };
    let looked = session.clone();
    let read = tokio::task::spawn_blocking(move || {
        (crate::instance::act::peek::Screen::of(&looked), crate::instance::act::peek::last_turn(&looked))
    });
    let (screen, turn) = read.await.unwrap_or_else(|_| {
        let unread =
            crate::instance::act::peek::Screen { text: None, reason: Some("the screen could not be read".to_owned()) };
        (unread, Vec::new())
    });
    axum::Json(serde_json::json!({
        "session": session, "screen": screen.text, "noScreen": screen.reason, "lastTurn": turn,
    }))
    .into_response()
}

/// `POST /end/<session>?key=…&caller=<pid>:<start>`: SIGTERM to its agent (issue 25), never to
/// the caller or what it runs under (issue 45). `204`, `404`, or `409` with why.
pub(super) async fn end_agent(
    State(state): State<Arc<ServerState>>,
    id: Result<Path<String>, PathRejection>,
    RawQuery(query): RawQuery,
) -> Response {
    let session = match keyed_session(&state, query.as_deref(), id) {
        Ok(session) => session,
        Err(status) => return status.into_response(),
    };
    let caller = match crate::protocol::end_caller(query.as_deref().unwrap_or_default()) {
        Ok(caller) => caller.map(|(pid, start)| crate::instance::act::end::Caller { pid, start }),
        Err(why) => return (StatusCode::BAD_REQUEST, axum::Json(serde_json::json!({ "error": why }))).into_response(),
    };
    match crate::instance::act::end::end(&session, caller) {
        Ok(_) => StatusCode::NO_CONTENT.into_response(),
        Err(refused) => conflict(&refused),
    }
}
