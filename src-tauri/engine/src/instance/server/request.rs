//! What a request carries, read with care: the key (in constant time), a query parameter, the
//! forwarder's report of the agent's process, and whether a body was refused for its size.

use std::future::Future;
use std::task::Poll;
use std::time::Duration;

use axum::http::{HeaderMap, HeaderName};
use switchboard_core::AgentProcess;

use crate::protocol::{EVENT_ID_HEADER, PROCESS_HEADER, PROCESS_HEADER_LIMIT};

/// The forwarder's headers as names made once: looked up by a `&str`, a header name is parsed
/// again on every request.
pub(super) static PROCESS: HeaderName = HeaderName::from_static(PROCESS_HEADER);
pub(super) static EVENT_ID: HeaderName = HeaderName::from_static(EVENT_ID_HEADER);

pub(super) fn query_param<'a>(query: Option<&'a str>, name: &str) -> Option<&'a str> {
    query?.split('&').find_map(|pair| pair.strip_prefix(name)?.strip_prefix('='))
}

/// The forwarder's report of the agent's process, if well-formed and small.
pub(super) fn agent_process(headers: &HeaderMap) -> Option<AgentProcess> {
    let value = headers.get(&PROCESS)?;
    if value.len() > PROCESS_HEADER_LIMIT {
        return None;
    }
    serde_json::from_slice(value.as_bytes()).ok()
}

pub(super) fn is_too_large(error: &axum::Error) -> bool {
    let mut source: Option<&(dyn std::error::Error + 'static)> = Some(error);
    while let Some(error) = source {
        if error.is::<http_body_util::LengthLimitError>() {
            return true;
        }
        source = error.source();
    }
    false
}

pub(super) fn is_agent_id(agent: &str) -> bool {
    !agent.is_empty() && agent.bytes().all(|b| b.is_ascii_lowercase() || b == b'-')
}

/// The `key` query parameter against the secret, in constant time. A missing key is compared
/// like a wrong one.
pub(super) fn key_matches(query: Option<&str>, secret: &str) -> bool {
    let given = query.unwrap_or_default().split('&').find_map(|pair| pair.strip_prefix("key=")).unwrap_or_default();
    constant_time_eq::constant_time_eq(given.as_bytes(), secret.as_bytes())
}

/// `future`'s output, or `Err(())` once `limit` has passed. The timer is made only if the
/// future is not ready when first asked: a hook's body nearly always comes in with its head,
/// and a timer made, polled and dropped for every request was about 1,250 of a hook's 50,000
/// instructions (issue 47).
pub(super) async fn within<F: Future>(limit: Duration, future: F) -> Result<F::Output, ()> {
    let mut future = std::pin::pin!(future);
    let mut timer = None;
    std::future::poll_fn(|context| {
        if let Poll::Ready(output) = future.as_mut().poll(context) {
            return Poll::Ready(Ok(output));
        }
        let timer = timer.get_or_insert_with(|| Box::pin(tokio::time::sleep(limit)));
        timer.as_mut().poll(context).map(|()| Err(()))
    })
    .await
}
