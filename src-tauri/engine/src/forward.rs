//! `switchboard hook <agent>`: the command the CLIs run on every hook event. It forwards stdin
//! to the running instance and always exits 0 quickly, also when no instance runs: it must never
//! block or fail the agent.

use std::io::{self, Read, Write};
use std::path::Path;
use std::time::{Duration, Instant};

use crate::client;
use crate::endpoint::Endpoint;
use crate::server::BODY_LIMIT;

/// Gives up on a wedged instance long before any CLI's hook timeout.
const SEND_TIMEOUT: Duration = Duration::from_millis(1_500);
/// A huge stdin is drained (so the CLI never sees a broken pipe) but not for longer than this.
const DRAIN_LIMIT: Duration = Duration::from_secs(2);

/// Forwards one hook event. Every failure is swallowed: the return is always success.
pub fn forward(agent: &str, stdin: impl Read, state_dir: Option<&Path>) {
    let body = read_bounded(stdin);
    if let (Some(body), Some(dir)) = (body, state_dir) {
        if let Some(endpoint) = Endpoint::read(dir) {
            let path = format!("/hook/{agent}?key={}", endpoint.key);
            let _ = client::request(endpoint.addr(), "POST", &path, &body, SEND_TIMEOUT);
        }
    }
}

/// What the CLI expects on stdout: nothing, except Gemini, which wants a JSON object.
pub fn reply(agent: &str, stdout: &mut impl Write) {
    if agent == "gemini" {
        let _ = stdout.write_all(b"{}\n");
        let _ = stdout.flush();
    }
}

/// The body if it fits the server's cap; a larger one is drained and dropped.
fn read_bounded(mut stdin: impl Read) -> Option<Vec<u8>> {
    let mut body = Vec::with_capacity(8 * 1024);
    let limit = u64::try_from(BODY_LIMIT).unwrap_or(u64::MAX) + 1;
    stdin.by_ref().take(limit).read_to_end(&mut body).ok()?;
    if body.len() <= BODY_LIMIT {
        return Some(body);
    }
    let started = Instant::now();
    let mut sink = [0u8; 64 * 1024];
    while started.elapsed() < DRAIN_LIMIT {
        match stdin.read(&mut sink) {
            Ok(0) | Err(_) => break,
            Ok(_) => {}
        }
    }
    None
}

/// The whole `switchboard hook <agent>` command.
pub fn run(agent: &str) {
    let state_dir = crate::state_dir::state_dir();
    forward(agent, io::stdin().lock(), state_dir.as_deref());
    reply(agent, &mut io::stdout().lock());
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_body_within_the_cap_is_read_whole() {
        assert_eq!(read_bounded(&b"{\"a\":1}"[..]), Some(b"{\"a\":1}".to_vec()));
    }

    #[test]
    fn a_body_over_the_cap_is_drained_and_dropped() {
        let huge = vec![b' '; BODY_LIMIT * 3];
        let mut reader = &huge[..];
        assert_eq!(read_bounded(&mut reader), None);
        assert!(reader.is_empty(), "stdin drained");
    }

    #[test]
    fn only_gemini_gets_a_reply() {
        let mut out = Vec::new();
        reply("claude", &mut out);
        assert!(out.is_empty());
        reply("gemini", &mut out);
        assert_eq!(out, b"{}\n");
    }
}
