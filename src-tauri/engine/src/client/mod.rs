//! A minimal blocking HTTP/1.1 client for loopback calls to our own server. `switchboard hook`
//! runs on every tool call of every agent, so it must start and finish in a few milliseconds:
//! no async runtime, no TLS, no connection pool — one request over one `TcpStream`. (`link` holds
//! one long-lived stream open the same way.)

use std::io::{self, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::{Duration, Instant};

pub mod act;
pub mod link;
pub mod status;

pub struct Response {
    pub status: u16,
    pub body: Vec<u8>,
}

/// Sends one request and reads the whole response (the server closes after `Connection: close`).
pub fn request(addr: SocketAddr, method: &str, path: &str, body: &[u8], timeout: Duration) -> io::Result<Response> {
    request_until(addr, method, path, "", body, Instant::now() + timeout)
}

/// Like [`request`], but the whole exchange — connect, write, every read — ends by `deadline`,
/// however slowly the peer answers (a per-read timeout alone lets a byte a second go on forever).
/// `headers` are extra header lines, each ending in `\r\n`.
pub fn request_until(
    addr: SocketAddr,
    method: &str,
    path: &str,
    headers: &str,
    body: &[u8],
    deadline: Instant,
) -> io::Result<Response> {
    exchange(addr, method, path, headers, body, deadline, crate::protocol::ANSWER_LIMIT)
}

/// A `GET` whose answer may be as large as a snapshot ([`crate::protocol::SNAPSHOT_LIMIT`]).
pub fn get_large(addr: SocketAddr, path: &str, timeout: Duration) -> io::Result<Response> {
    exchange(addr, "GET", path, "", b"", Instant::now() + timeout, crate::protocol::SNAPSHOT_LIMIT)
}

fn exchange(
    addr: SocketAddr,
    method: &str,
    path: &str,
    headers: &str,
    body: &[u8],
    deadline: Instant,
    limit: usize,
) -> io::Result<Response> {
    let remaining = || {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            Err(io::Error::new(io::ErrorKind::TimedOut, "deadline passed"))
        } else {
            Ok(left)
        }
    };
    let mut stream = TcpStream::connect_timeout(&addr, remaining()?)?;
    stream.set_nodelay(true)?;
    let head = format!(
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n{headers}Connection: close\r\n\r\n",
        body.len()
    );
    let mut message = Vec::with_capacity(head.len() + body.len());
    message.extend_from_slice(head.as_bytes());
    message.extend_from_slice(body);
    let mut written = 0;
    while written < message.len() {
        stream.set_write_timeout(Some(remaining()?))?;
        written += stream.write(&message[written..])?;
    }
    let mut response = Vec::new();
    let mut chunk = vec![0u8; 64 * 1024];
    loop {
        stream.set_read_timeout(Some(remaining()?))?;
        match stream.read(&mut chunk)? {
            0 => break,
            n => response.extend_from_slice(&chunk[..n]),
        }
        if response.len() > limit {
            return Err(io::Error::new(io::ErrorKind::InvalidData, "response too large"));
        }
    }
    if response.is_empty() {
        // Accepted and closed unanswered: the server shed the connection (its table was full).
        return Err(io::Error::new(io::ErrorKind::UnexpectedEof, "closed before answering"));
    }
    parse(&response)
}

/// An exchange that failed because the server shed the connection, not because none listens:
/// worth another try.
pub fn was_shed(error: &io::Error) -> bool {
    matches!(
        error.kind(),
        io::ErrorKind::ConnectionReset
            | io::ErrorKind::ConnectionAborted
            | io::ErrorKind::BrokenPipe
            | io::ErrorKind::UnexpectedEof
    )
}

fn parse(response: &[u8]) -> io::Result<Response> {
    let invalid = || io::Error::new(io::ErrorKind::InvalidData, "not an HTTP response");
    let head_end = response.windows(4).position(|w| w == b"\r\n\r\n").ok_or_else(invalid)?;
    let head = std::str::from_utf8(&response[..head_end]).map_err(|_| invalid())?;
    let status = head.split(' ').nth(1).and_then(|code| code.parse().ok()).ok_or_else(invalid)?;
    Ok(Response { status, body: response[head_end + 4..].to_vec() })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_response_is_split_into_status_and_body() {
        let response = parse(b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\n{}").unwrap();
        assert_eq!(response.status, 200);
        assert_eq!(response.body, b"{}");
        assert!(parse(b"garbage").is_err());
    }
}
