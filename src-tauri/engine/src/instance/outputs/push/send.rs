//! Sending one message: the HTTP client, the attempts, and header text as ntfy reads it.

use std::time::Duration;

use super::{Delivery, PushOutcome, Request, ANSWER_LIMIT, ATTEMPTS};

pub(super) fn client(timeout: Duration) -> ureq::Agent {
    ureq::Agent::config_builder()
        .timeout_global(Some(timeout))
        .http_status_as_error(false)
        // A message goes where the user said, not on to wherever that server points.
        .max_redirects(0)
        .max_redirects_will_error(false)
        .user_agent(concat!("switchboard/", env!("CARGO_PKG_VERSION")))
        .build()
        .into()
}

/// Up to [`ATTEMPTS`] attempts, waiting `backoff`, then twice that, between them. Only a failure
/// that may pass is tried again (no answer, a 5xx); a 4xx (or a redirect) is the server's word.
pub(super) fn deliver(client: &ureq::Agent, delivery: &Delivery, backoff: Duration) -> PushOutcome {
    let mut wait = backoff;
    let mut sent = attempt(client, delivery, 1);
    // 429: a rate limit (ntfy's per-visitor limits) passes; any other 4xx is the server's word.
    while !sent.ok && sent.attempts < ATTEMPTS && sent.status.is_none_or(|status| status >= 500 || status == 429) {
        std::thread::sleep(wait);
        wait *= 2;
        sent = attempt(client, delivery, sent.attempts + 1);
    }
    sent
}

pub(super) fn attempt(client: &ureq::Agent, delivery: &Delivery, attempts: u32) -> PushOutcome {
    let result = match &delivery.request {
        Request::Webhook { json } => client.post(&delivery.url).content_type("application/json").send(json.as_slice()),
        Request::Ntfy { title, body, tags, priority, actions } => {
            let mut request = client
                .post(&delivery.url)
                .header("Title", header_text(title))
                .header("Tags", *tags)
                .header("Priority", *priority);
            if let Some(actions) = actions {
                request = request.header("Actions", header_text(actions));
            }
            request.content_type("text/plain; charset=utf-8").send(body.as_bytes())
        }
    };
    match result {
        Ok(mut answer) => {
            let status = answer.status().as_u16();
            // Read (a little of) the answer, so the connection can be reused.
            let _ = answer.body_mut().with_config().limit(ANSWER_LIMIT).read_to_vec();
            PushOutcome { ok: (200..300).contains(&status), status: Some(status), error: None, attempts }
        }
        Err(error) => PushOutcome { ok: false, status: None, error: Some(error.to_string()), attempts },
    }
}

/// A header value as ntfy reads it: ASCII as is, anything else as an RFC 2047 encoded word.
pub(super) fn header_text(text: &str) -> String {
    let text = crate::text::printable_line(text);
    if text.is_ascii() {
        return text;
    }
    format!("=?UTF-8?B?{}?=", base64(text.as_bytes()))
}

pub(super) fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let n = chunk.iter().enumerate().fold(0u32, |n, (i, b)| n | u32::from(*b) << (16 - 8 * i));
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(ALPHABET[(n >> (18 - 6 * i) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}
