//! `switchboard link`: this machine's sessions, as the link protocol's frames on stdout, for a
//! peer that follows it over a pipe it opened itself (`ssh devbox switchboard link`). It attaches
//! to the instance already running for the state directory and relays its `GET /updates`
//! stream; the instance's key never leaves this machine. On stdin the peer may resume after the
//! last number it applied, and decide held permissions (see [`crate::protocol::link`]).
//!
//! Two threads feed one loop, through a small bounded channel: the instance's stream, and the
//! peer's frames. A slow peer slows the relay, which slows the instance's stream, which the
//! instance simply stops polling: nothing piles up on either side.

use std::io::{self, BufRead, BufReader, Read, Write};
use std::net::{Shutdown, TcpStream};
use std::path::{Path, PathBuf};
use std::sync::mpsc::{sync_channel, Receiver, SyncSender};
use std::time::Duration;

use crate::endpoint::Endpoint;
use crate::instance::hub::journal::HEARTBEAT;
use crate::protocol::link::{encode, FrameError, FrameReader, LinkErrorKind, LinkFrame, PeerFrame, Said};
use crate::protocol::{decision_path, updates_path, Verdict};

/// The instance sends at least an `alive` every [`HEARTBEAT`]: silence thrice as long means it
/// is wedged.
const STREAM_SILENCE: Duration = Duration::from_secs(HEARTBEAT.as_secs() * 3);
/// A decision's round trip to the instance.
const DECISION_TIMEOUT: Duration = Duration::from_secs(5);
/// An answer is typed, then waits for the CLI to take it (`answer::confirm_within`).
const ANSWER_TIMEOUT: Duration = Duration::from_secs(25);
/// The longest response head and chunk-size line read from the instance.
const HEAD_LIMIT: usize = 64 * 1024;

#[derive(Debug, thiserror::Error)]
pub enum LinkError {
    #[error("no Switchboard instance is running for {0} (start `switchboard serve` or the app there first)")]
    NotRunning(PathBuf),
    #[error("the running instance refused the link (HTTP {0}); is it the same version of Switchboard?")]
    Refused(u16),
    #[error("the instance stopped: {0}")]
    Gone(String),
}

impl LinkError {
    fn kind(&self) -> LinkErrorKind {
        match self {
            Self::NotRunning(_) | Self::Refused(_) => LinkErrorKind::NotRunning,
            Self::Gone(_) => LinkErrorKind::InstanceGone,
        }
    }
}

enum Event {
    /// A line of stream `stream` (the first line of each is its `hello`).
    Frame {
        stream: u64,
        line: Vec<u8>,
        first: bool,
    },
    /// Stream `stream` ended: the instance stopped, or the stream was replaced.
    Ended {
        stream: u64,
        why: String,
    },
    Peer(Result<PeerFrame, FrameError>),
    /// The peer closed its end (or reading it failed): the link is done.
    PeerDone,
}

/// Relays until the peer hangs up (`Ok`) or the instance goes (`Err`, also told on `output` as
/// an `error` frame, as is an instance that is not running). With `start`, an instance is
/// started first when none runs (`switchboard serve --no-notify`, detached: it outlives the link).
/// With `resume` (an instance's run and the last number the peer applied), the stream starts
/// as a resume would: the updates after it, or a snapshot.
pub fn run(
    state_dir: &Path,
    start: bool,
    resume: Option<(String, u64)>,
    input: impl Read + Send + 'static,
    output: impl Write,
) -> Result<(), LinkError> {
    let (events, inbox) = sync_channel(64);
    let mut link = Link { output, current: 0, said_hello: false, events, inbox };
    let result = if start { start_instance(state_dir) } else { Ok(()) };
    let result = result.and_then(|()| link.relay(state_dir, resume, input));
    if let Err(error) = &result {
        link.send(&LinkFrame::Error { kind: error.kind(), message: error.to_string(), request: None });
    }
    result
}

struct Link<W> {
    output: W,
    /// The stream whose frames are relayed; earlier ones are being torn down.
    current: u64,
    said_hello: bool,
    events: SyncSender<Event>,
    inbox: Receiver<Event>,
}

impl<W: Write> Link<W> {
    fn relay(
        &mut self,
        state_dir: &Path,
        resume: Option<(String, u64)>,
        input: impl Read + Send + 'static,
    ) -> Result<(), LinkError> {
        let endpoint = Endpoint::read(state_dir).ok_or_else(|| LinkError::NotRunning(state_dir.to_owned()))?;
        let resume = resume.as_ref().map(|(instance, after)| (instance.as_str(), *after));
        let mut stream = follow(&endpoint, resume, self.current, &self.events)
            .map_err(|error| error.unwrap_or_else(|| LinkError::NotRunning(state_dir.to_owned())))?;
        let peer = self.events.clone();
        std::thread::Builder::new()
            .name("switchboard-link-peer".into())
            .spawn(move || read_peer(input, &peer))
            .map_err(|error| LinkError::Gone(error.to_string()))?;
        while let Ok(event) = self.inbox.recv() {
            let open = match event {
                Event::Frame { stream, line, first } if stream == self.current => {
                    // One `hello` per link: a resumed stream's own is not news.
                    let repeated = first && std::mem::replace(&mut self.said_hello, true);
                    repeated || self.write_line(&line)
                }
                Event::Ended { stream, why } if stream == self.current => return Err(LinkError::Gone(why)),
                Event::Frame { .. } | Event::Ended { .. } => true,
                Event::Peer(Ok(PeerFrame::Resume { instance, after })) => {
                    // Frames of the old stream still queued are dropped by their number.
                    self.current += 1;
                    let _ = stream.shutdown(Shutdown::Both);
                    stream = follow(&endpoint, Some((&instance, after)), self.current, &self.events)
                        .map_err(|error| error.unwrap_or_else(|| LinkError::Gone("it refuses connections".into())))?;
                    self.send(&LinkFrame::Resumed { after })
                }
                Event::Peer(Ok(PeerFrame::Decide { session_id, id, verdict, request })) => {
                    let answer = decide(&endpoint, &session_id, id, verdict, request);
                    self.send(&answer)
                }
                Event::Peer(Ok(PeerFrame::Answer { session_id, said, request })) => {
                    let answer = answer(&endpoint, &session_id, &said, request);
                    self.send(&answer)
                }
                Event::Peer(Err(error)) => {
                    let message = format!("refused a line from the peer: {error}");
                    self.send(&LinkFrame::Error { kind: error.kind(), message, request: None })
                }
                Event::PeerDone => return Ok(()),
            };
            if !open {
                // The peer is gone: nobody to tell.
                return Ok(());
            }
        }
        Ok(())
    }

    /// Writes a frame; `false` when the peer is gone.
    fn send(&mut self, frame: &LinkFrame) -> bool {
        match encode(frame) {
            Ok(line) => self.output.write_all(&line).and_then(|()| self.output.flush()).is_ok(),
            Err(_) => true,
        }
    }

    fn write_line(&mut self, line: &[u8]) -> bool {
        let written = self.output.write_all(line).and_then(|()| self.output.write_all(b"\n"));
        written.and_then(|()| self.output.flush()).is_ok()
    }
}

/// How long a started instance has to write its endpoint file.
const START_TIMEOUT: Duration = Duration::from_secs(10);

/// Starts `switchboard serve` for the state directory unless an instance answers there already,
/// and waits for its endpoint.
fn start_instance(state_dir: &Path) -> Result<(), LinkError> {
    let answers = || {
        Endpoint::read(state_dir)
            .is_some_and(|endpoint| TcpStream::connect_timeout(&endpoint.addr(), Duration::from_secs(1)).is_ok())
    };
    if answers() {
        return Ok(());
    }
    let failed = |error: io::Error| LinkError::Gone(format!("cannot start `switchboard serve`: {error}"));
    let exe = std::env::current_exe().map_err(failed)?;
    // Private before the log is written in it, and the log never a planted link (issue 45).
    crate::state_dir::make_private(state_dir).map_err(failed)?;
    let log = crate::platform::open_private_append(&state_dir.join("serve.log")).map_err(failed)?;
    let mut command = std::process::Command::new(exe);
    command.args(["serve", "--no-notify"]).stdin(std::process::Stdio::null()).stdout(std::process::Stdio::null());
    command.stderr(log);
    // Its own session: the link's end (and its SSH session's) does not end it.
    crate::platform::detach(&mut command);
    let mut child = command.spawn().map_err(failed)?;
    let deadline = std::time::Instant::now() + START_TIMEOUT;
    while std::time::Instant::now() < deadline {
        if answers() {
            // Reaped by whoever inherits it once this process exits; it runs on meanwhile.
            std::mem::forget(child);
            return Ok(());
        }
        if let Ok(Some(status)) = child.try_wait() {
            // Another link may have started one at the same moment (the lock refused this one).
            if answers() {
                return Ok(());
            }
            return Err(LinkError::Gone(format!(
                "`switchboard serve` exited ({status}); see {}",
                state_dir.join("serve.log").display()
            )));
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    Err(LinkError::NotRunning(state_dir.to_owned()))
}

/// Reads the peer's frames until it closes its end.
fn read_peer(input: impl Read, events: &SyncSender<Event>) {
    let mut frames = FrameReader::new(BufReader::new(input));
    while let Ok(Some(frame)) = frames.next_frame::<PeerFrame>() {
        if events.send(Event::Peer(frame)).is_err() {
            return;
        }
    }
    let _ = events.send(Event::PeerDone);
}

/// Opens the instance's stream — from a snapshot, or after `after` of `instance` — and relays
/// its lines as stream `id` from a thread of its own; the socket is returned to cut it short.
/// `Err(None)`: nothing answers on the endpoint's port.
fn follow(
    endpoint: &Endpoint,
    resume: Option<(&str, u64)>,
    id: u64,
    events: &SyncSender<Event>,
) -> Result<TcpStream, Option<LinkError>> {
    let socket = TcpStream::connect_timeout(&endpoint.addr(), DECISION_TIMEOUT).map_err(|_| None)?;
    let gone = |error: io::Error| Some(LinkError::Gone(error.to_string()));
    socket.set_read_timeout(Some(STREAM_SILENCE)).map_err(gone)?;
    let request = format!(
        "GET {} HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n\r\n",
        updates_path(&endpoint.key, resume),
        endpoint.addr()
    );
    (&socket).write_all(request.as_bytes()).map_err(gone)?;
    let mut reader = BufReader::new(socket.try_clone().map_err(gone)?);
    let (status, chunked) = response_head(&mut reader).map_err(gone)?;
    if status != 200 {
        return Err(Some(LinkError::Refused(status)));
    }
    let body: Box<dyn BufRead + Send> = if chunked {
        Box::new(BufReader::new(Chunked { input: reader, left: 0, done: false }))
    } else {
        Box::new(reader)
    };
    let events = events.clone();
    std::thread::Builder::new()
        .name("switchboard-link-stream".into())
        .spawn(move || {
            let mut lines = FrameReader::new(body);
            let mut first = true;
            let why = loop {
                match lines.next_line() {
                    Ok(Some(Ok(line))) => {
                        if events.send(Event::Frame { stream: id, line, first }).is_err() {
                            return;
                        }
                        first = false;
                    }
                    Ok(Some(Err(error))) => break error.to_string(),
                    Ok(None) => break "it closed the stream".to_owned(),
                    Err(error)
                        if error.kind() == io::ErrorKind::WouldBlock || error.kind() == io::ErrorKind::TimedOut =>
                    {
                        break format!("it said nothing for {} s", STREAM_SILENCE.as_secs());
                    }
                    Err(error) => break error.to_string(),
                }
            };
            let _ = events.send(Event::Ended { stream: id, why });
        })
        .map_err(gone)?;
    Ok(socket)
}

/// The status and whether the body is chunked; the reader is left at the body.
fn response_head(reader: &mut impl BufRead) -> io::Result<(u16, bool)> {
    let invalid = |what: &str| io::Error::new(io::ErrorKind::InvalidData, format!("not an HTTP response: {what}"));
    let mut limited = reader.take(HEAD_LIMIT as u64);
    let mut line = Vec::new();
    limited.read_until(b'\n', &mut line)?;
    let status_line = String::from_utf8_lossy(&line).into_owned();
    let status = status_line.split(' ').nth(1).and_then(|code| code.parse().ok()).ok_or_else(|| invalid("status"))?;
    let mut chunked = false;
    loop {
        line.clear();
        if limited.read_until(b'\n', &mut line)? == 0 {
            return Err(invalid("the head ended early"));
        }
        let header = String::from_utf8_lossy(&line).to_ascii_lowercase();
        let header = header.trim();
        if header.is_empty() {
            return Ok((status, chunked));
        }
        if let Some(value) = header.strip_prefix("transfer-encoding:") {
            chunked = value.trim() == "chunked";
        }
    }
}

/// An HTTP/1.1 chunked body as plain bytes; each chunk-size line is bounded.
struct Chunked<R> {
    input: R,
    left: u64,
    done: bool,
}

impl<R: BufRead> Chunked<R> {
    fn line(&mut self) -> io::Result<String> {
        let mut line = Vec::new();
        (&mut self.input).take(HEAD_LIMIT as u64).read_until(b'\n', &mut line)?;
        if !line.ends_with(b"\n") {
            return Err(io::Error::new(io::ErrorKind::UnexpectedEof, "the chunked body was cut"));
        }
        Ok(String::from_utf8_lossy(&line).trim().to_owned())
    }
}

impl<R: BufRead> Read for Chunked<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.done || buf.is_empty() {
            return Ok(0);
        }
        if self.left == 0 {
            let line = self.line()?;
            let size = line.split(';').next().unwrap_or_default().trim();
            self.left = u64::from_str_radix(size, 16)
                .map_err(|_| io::Error::new(io::ErrorKind::InvalidData, "a bad chunk size"))?;
            if self.left == 0 {
                self.done = true;
                return Ok(0);
            }
        }
        let want = buf.len().min(usize::try_from(self.left).unwrap_or(usize::MAX));
        let read = self.input.read(&mut buf[..want])?;
        if read == 0 {
            return Err(io::Error::new(io::ErrorKind::UnexpectedEof, "the chunked body was cut"));
        }
        self.left -= read as u64;
        if self.left == 0 && !self.line()?.is_empty() {
            return Err(io::Error::new(io::ErrorKind::InvalidData, "a chunk ran past its size"));
        }
        Ok(read)
    }
}

/// Hands the peer's decision to the held permission, through the instance's `POST /decision`.
fn decide(endpoint: &Endpoint, session_id: &str, id: u64, verdict: Verdict, request: Option<u64>) -> LinkFrame {
    let path = decision_path(session_id, &endpoint.key, id, verdict);
    let error = |message: String| LinkFrame::Error { kind: LinkErrorKind::Decision, message, request };
    match super::request(endpoint.addr(), "POST", &path, b"", DECISION_TIMEOUT) {
        Ok(response) if response.status == 204 => {
            LinkFrame::Decided { session_id: session_id.to_owned(), id, verdict, request }
        }
        Ok(response) if response.status == 409 => {
            error(format!("nothing waits for decision {id} of session {session_id} (answered already, or it ended)"))
        }
        Ok(response) => error(format!("the instance refused the decision (HTTP {})", response.status)),
        Err(failed) => error(format!("the decision did not reach the instance: {failed}")),
    }
}

/// Hands the peer's answer or reply to the instance (`POST /answer` or `/reply`), which gives it
/// through the CLI's hook or types it into the agent's own pane — or says why not.
fn answer(endpoint: &Endpoint, session_id: &str, said: &Said, request: Option<u64>) -> LinkFrame {
    let action = |action: &str| crate::protocol::session_action_path(action, session_id, &endpoint.key);
    let (path, body) = match said {
        Said::Option(n) => (format!("{}&option={n}", action("answer")), Vec::new()),
        Said::Text(text) => (action("answer"), text.as_bytes().to_vec()),
        Said::Reply(text) => (action("reply"), text.as_bytes().to_vec()),
    };
    let error = |message: String| LinkFrame::Error { kind: LinkErrorKind::Answer, message, request };
    match super::request(endpoint.addr(), "POST", &path, &body, ANSWER_TIMEOUT) {
        Ok(response) if response.status == 200 => LinkFrame::Answered {
            session_id: session_id.to_owned(),
            delivered: serde_json::from_slice(&response.body).unwrap_or(serde_json::Value::Null),
            request,
        },
        Ok(response) if response.status == 409 => {
            let why: serde_json::Value = serde_json::from_slice(&response.body).unwrap_or_default();
            error(why["error"].as_str().unwrap_or("the instance there refused it").to_owned())
        }
        Ok(response) if response.status == 404 => error(format!("no session {session_id} there any more")),
        Ok(response) => error(format!("the instance refused the answer (HTTP {})", response.status)),
        Err(failed) => error(format!("the answer did not reach the instance: {failed}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_chunked_body_reads_as_its_bytes_and_a_cut_one_is_an_error() {
        let body = b"5\r\nhello\r\n7;ext=1\r\n, world\r\n0\r\n\r\n";
        let mut text = String::new();
        Chunked { input: &body[..], left: 0, done: false }.read_to_string(&mut text).unwrap();
        assert_eq!(text, "hello, world");
        for bad in [&b"5\r\nhel"[..], b"zz\r\nhello\r\n", b"2\r\nhello\r\n", b"5\r\nhello"] {
            let mut sink = Vec::new();
            assert!(Chunked { input: bad, left: 0, done: false }.read_to_end(&mut sink).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn a_response_head_gives_its_status_and_framing() {
        let mut head = &b"HTTP/1.1 200 OK\r\nContent-Type: x\r\nTransfer-Encoding: chunked\r\n\r\nrest"[..];
        assert_eq!(response_head(&mut head).unwrap(), (200, true));
        assert_eq!(head, b"rest");
        assert_eq!(response_head(&mut &b"HTTP/1.1 401 Unauthorized\r\n\r\n"[..]).unwrap(), (401, false));
        assert!(response_head(&mut &b"garbage"[..]).is_err());
    }

    #[test]
    fn with_no_instance_the_link_says_so_on_its_output_and_fails() {
        let dir = tempfile::tempdir().unwrap();
        let mut output = Vec::new();
        let error = run(dir.path(), false, None, io::empty(), &mut output).unwrap_err();
        assert!(matches!(error, LinkError::NotRunning(_)), "{error}");
        let frame: LinkFrame = crate::protocol::link::decode(output.trim_ascii_end()).unwrap();
        assert!(matches!(frame, LinkFrame::Error { kind: LinkErrorKind::NotRunning, .. }), "{frame:?}");
    }
}
