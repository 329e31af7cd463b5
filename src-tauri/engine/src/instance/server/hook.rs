//! `POST /hook/<agent>`: the one route every tool call of every agent takes, so it is served
//! straight from the connection (issue 47) — the router, its layers and its extractors are for
//! the other routes. What it answers is what the router's route answers: a body over the cap
//! refused from its declared length (413), a keyless request answered and closed, an event
//! normalized and queued for the hub, `204` at once.

use std::sync::Arc;

use axum::body::Body;
use axum::extract::rejection::PathRejection;
use axum::extract::{Path, RawQuery, State};
use axum::http::{header, HeaderMap, Method, Request, StatusCode};
use axum::response::{IntoResponse, Response};
use switchboard_core::{normalizer, StatusEvent};

use super::request::{agent_process, is_agent_id, is_too_large, key_matches, within};
use super::{closing, ServerState, BODY_TIMEOUT};
use crate::clock::now_millis;
use crate::instance::hub::Input;
use crate::protocol::BODY_LIMIT;

/// The agent segment of a `POST /hook/<agent>`, still percent-encoded; `None` for any other
/// request (the router answers those, a wrong method on this path included).
pub(super) fn hook_segment<B>(request: &Request<B>) -> Option<&str> {
    if request.method() != Method::POST {
        return None;
    }
    let agent = request.uri().path().strip_prefix("/hook/")?;
    (!agent.is_empty() && !agent.contains('/')).then_some(agent)
}

/// Serves a request [`hook_segment`] picked.
pub(super) async fn serve(state: &ServerState, request: Request<hyper::body::Incoming>) -> Response {
    let (parts, body) = request.into_parts();
    let declared =
        parts.headers.get(header::CONTENT_LENGTH).and_then(|length| length.to_str().ok()?.parse::<u64>().ok());
    if declared.is_some_and(|length| length > BODY_LIMIT as u64) {
        // As the router's body limit answers it: from the header alone, before anything is read.
        return StatusCode::PAYLOAD_TOO_LARGE.into_response();
    }
    let segment = parts.uri.path().strip_prefix("/hook/").unwrap_or_default();
    // As `Path<String>` reads it: percent-decoded, and nothing if that is not UTF-8.
    let agent = percent_encoding::percent_decode_str(segment).decode_utf8().ok();
    answer(state, parts.uri.query(), agent.as_deref(), &parts.headers, Body::new(body)).await
}

/// The route as the router holds it (the same answer; its tests go through the router).
pub(super) async fn hook(
    State(state): State<Arc<ServerState>>,
    // Not `Path<String>`: a segment that is not UTF-8 must not be refused before the key is.
    agent: Result<Path<String>, PathRejection>,
    RawQuery(query): RawQuery,
    headers: HeaderMap,
    body: Body,
) -> Response {
    let agent = agent.as_ref().ok().map(|Path(agent)| agent.as_str());
    answer(&state, query.as_deref(), agent, &headers, body).await
}

/// The key and the agent are checked before the body is read: a keyless flood costs no memory.
async fn answer(
    state: &ServerState,
    query: Option<&str>,
    agent: Option<&str>,
    headers: &HeaderMap,
    body: Body,
) -> Response {
    if !key_matches(query, &state.key) {
        // Answered like any other (fail-open), but the connection is not kept for more.
        return closing(StatusCode::NO_CONTENT);
    }
    let status = match read_event(agent, headers, body).await {
        Ok(Some(event)) => {
            if state.first_delivery(headers) {
                state.inputs.send(Input::Hook(Box::new(event)));
            }
            StatusCode::NO_CONTENT
        }
        Ok(None) => StatusCode::NO_CONTENT,
        Err(status) => status,
    };
    match status {
        StatusCode::REQUEST_TIMEOUT => closing(StatusCode::REQUEST_TIMEOUT),
        status => status.into_response(),
    }
}

/// The normalized event of a request whose key was checked: `Ok(None)` for what is dropped
/// silently (unknown agent, not JSON, an event that means nothing), `Err` for a body that is too
/// large or too slow.
pub(super) async fn read_event(
    agent: Option<&str>,
    headers: &HeaderMap,
    body: Body,
) -> Result<Option<StatusEvent>, StatusCode> {
    let Some(normalize) = agent.filter(|agent| is_agent_id(agent)).and_then(normalizer) else {
        return Ok(None);
    };
    let body = match within(BODY_TIMEOUT, axum::body::to_bytes(body, BODY_LIMIT)).await {
        Err(_) => return Err(StatusCode::REQUEST_TIMEOUT),
        Ok(Ok(body)) => body,
        Ok(Err(error)) if is_too_large(&error) => return Err(StatusCode::PAYLOAD_TOO_LARGE),
        Ok(Err(_)) => return Ok(None),
    };
    // Borrowed from the body: the normalizer reads a few fields and drops the rest (issue 47).
    let Ok(raw) = switchboard_core::json::Value::parse(&body) else { return Ok(None) };
    Ok(normalize(&raw, now_millis()).map(|mut event| {
        event.process = agent_process(headers);
        event
    }))
}
