//! The link protocol (issue 23): how one machine's instance tells another what its sessions do,
//! over any byte pipe (`ssh host switchboard link`). One JSON object per line, each at most
//! [`MAX_FRAME`] bytes, with a `type`. The instance's `GET /updates` streams the same frames.
//!
//! From the instance (through `switchboard link`) to the peer:
//!
//! ```text
//! {"type":"hello","protocol":1,"instance":"9f2c…","host":"devbox","version":"0.1.0"}
//! {"type":"snapshot","seq":41,"sessions":2,"notices":[]}     then exactly 2 `session` frames:
//! {"type":"session","session":{"sessionId":"a",…}}
//! {"type":"session","session":{"sessionId":"b",…}}
//! {"type":"changed","seq":42,"session":{"sessionId":"a",…}}  each update numbered, +1 each time
//! {"type":"removed","seq":43,"sessionId":"b"}
//! {"type":"notices","seq":44,"notices":["…"]}
//! {"type":"alive","seq":44}                                  when nothing happened for a while
//! ```
//!
//! From the peer to the link:
//!
//! ```text
//! {"type":"resume","instance":"9f2c…","after":44}   replay what came after 44, or a fresh snapshot
//! {"type":"decide","sessionId":"a","id":3,"verdict":"allow"}
//! ```
//!
//! The link answers a resume with `{"type":"resumed","after":44}` and then the replay (updates 45…)
//! or, when it no longer has them (or the instance is another one), a `snapshot`; frames before
//! `resumed` belong to the stream the resume replaced. A decision is answered with `decided` or an
//! `error`. Anything the link cannot read is answered with `{"type":"error","kind":…,"message":…}`
//! and the link reads on.

use std::io::{self, BufRead};

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use switchboard_core::Session;

use super::Verdict;

/// The version in the `hello` frame: a peer that does not speak it hangs up.
pub const PROTOCOL_VERSION: u32 = 1;

/// The largest frame either side writes or reads, newline excluded. A session is far below it
/// (its texts are clipped to 4,000 characters); a snapshot is sent as one frame per session.
pub const MAX_FRAME: usize = 1024 * 1024;

/// What the instance (through the link) tells the peer.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", rename_all_fields = "camelCase")]
pub enum LinkFrame {
    /// The first frame of every stream.
    Hello {
        protocol: u32,
        /// This run of the instance: numbers are only comparable within one.
        instance: String,
        host: String,
        version: String,
    },
    /// The state as of update `seq`: the next `sessions` frames are its sessions, all of them.
    Snapshot { seq: u64, sessions: usize, notices: Vec<String> },
    /// One session of the snapshot before it.
    Session { session: Box<Session> },
    /// A session after a change.
    Changed { seq: u64, session: Box<Session> },
    /// A session taken off the board.
    Removed { seq: u64, session_id: String },
    /// The instance's notices, the full list.
    Notices { seq: u64, notices: Vec<String> },
    /// Nothing happened since `seq`: the pipe is alive.
    Alive { seq: u64 },
    /// The link took the peer's resume: what follows is the replay after `after`, or a snapshot.
    Resumed { after: u64 },
    /// The peer's decision reached the held permission.
    Decided {
        session_id: String,
        id: u64,
        verdict: Verdict,
        /// The peer's number for the request this answers (issue 34.8: answers matched by it,
        /// never by order); absent from older links.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        request: Option<u64>,
    },
    /// The peer's answer or reply reached the agent (issue 24): what was given, and where.
    Answered {
        session_id: String,
        delivered: serde_json::Value,
        /// The peer's number for the request this answers (issue 34.8: answers matched by it,
        /// never by order); absent from older links.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        request: Option<u64>,
    },
    /// Something the peer should know went wrong; see `kind`.
    Error {
        kind: LinkErrorKind,
        message: String,
        /// The peer's number for the request this answers (issue 34.8: answers matched by it,
        /// never by order); absent from older links.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        request: Option<u64>,
    },
}

/// What the peer asks of the link.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", rename_all_fields = "camelCase")]
pub enum PeerFrame {
    /// Continue after update `after` of `instance` (the last one the peer applied).
    Resume { instance: String, after: u64 },
    /// Allow or deny the held permission `id` of a session.
    Decide {
        session_id: String,
        id: u64,
        verdict: Verdict,
        /// The peer's number for this request, said again in the answer.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        request: Option<u64>,
    },
    /// Answer a session's question, or send it its next prompt (issue 24).
    Answer {
        session_id: String,
        said: Said,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        request: Option<u64>,
    },
}

/// What the peer says to an agent: an option of its question, an answer in words, or a reply.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Said {
    Option(usize),
    Text(String),
    Reply(String),
}

/// Why an `error` frame was sent.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LinkErrorKind {
    /// A line from the peer that is not a frame (not JSON, an unknown type, a missing field).
    BadFrame,
    /// A line from the peer over [`MAX_FRAME`]: skipped unread.
    TooLarge,
    /// No instance runs for this state directory, or it refused the link.
    NotRunning,
    /// The instance stopped; the link exits.
    InstanceGone,
    /// The decision did not reach a held permission (answered already, or none waits).
    Decision,
    /// The answer or reply was not given (the instance there said why).
    Answer,
}

/// Why a frame could not be read.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum FrameError {
    #[error("a frame of more than {MAX_FRAME} bytes was refused")]
    TooLarge,
    #[error("not a frame: {0}")]
    Bad(String),
}

impl FrameError {
    pub fn kind(&self) -> LinkErrorKind {
        match self {
            Self::TooLarge => LinkErrorKind::TooLarge,
            Self::Bad(_) => LinkErrorKind::BadFrame,
        }
    }
}

/// One frame as a line (newline included); refused when it would exceed [`MAX_FRAME`].
pub fn encode<T: Serialize>(frame: &T) -> Result<Vec<u8>, FrameError> {
    let mut line = serde_json::to_vec(frame).map_err(|error| FrameError::Bad(error.to_string()))?;
    if line.len() > MAX_FRAME {
        return Err(FrameError::TooLarge);
    }
    line.push(b'\n');
    Ok(line)
}

/// One frame from a line (without its newline).
pub fn decode<T: DeserializeOwned>(line: &[u8]) -> Result<T, FrameError> {
    if line.len() > MAX_FRAME {
        return Err(FrameError::TooLarge);
    }
    serde_json::from_slice(line).map_err(|error| FrameError::Bad(error.to_string()))
}

/// Splits a byte stream into frame lines, holding at most [`MAX_FRAME`] bytes of one: the rest
/// of a longer line is read and dropped, and reported once as [`FrameError::TooLarge`]. Blank
/// lines are skipped; a `\r` before the newline is dropped.
pub struct FrameReader<R> {
    input: R,
    line: Vec<u8>,
}

impl<R: BufRead> FrameReader<R> {
    pub fn new(input: R) -> Self {
        Self { input, line: Vec::new() }
    }

    /// The next line, `Ok(None)` at the end of the input, `Err` when reading failed. A last line
    /// without its newline still counts.
    pub fn next_line(&mut self) -> io::Result<Option<Result<Vec<u8>, FrameError>>> {
        loop {
            self.line.clear();
            let mut oversize = false;
            let ended = loop {
                let buffer = match self.input.fill_buf() {
                    Ok(buffer) => buffer,
                    Err(error) if error.kind() == io::ErrorKind::Interrupted => continue,
                    Err(error) => return Err(error),
                };
                if buffer.is_empty() {
                    break true;
                }
                let (part, found) = match buffer.iter().position(|&b| b == b'\n') {
                    Some(at) => (&buffer[..at], true),
                    None => (buffer, false),
                };
                let used = part.len() + usize::from(found);
                if !oversize && self.line.len() + part.len() <= MAX_FRAME + 1 {
                    self.line.extend_from_slice(part);
                } else {
                    oversize = true;
                    self.line.clear();
                }
                self.input.consume(used);
                if found {
                    break false;
                }
            };
            if self.line.last() == Some(&b'\r') {
                self.line.pop();
            }
            if oversize || self.line.len() > MAX_FRAME {
                self.line = Vec::new();
                return Ok(Some(Err(FrameError::TooLarge)));
            }
            if self.line.iter().all(u8::is_ascii_whitespace) {
                if ended {
                    return Ok(None);
                }
                continue;
            }
            return Ok(Some(Ok(std::mem::take(&mut self.line))));
        }
    }

    /// The next frame, decoded.
    pub fn next_frame<T: DeserializeOwned>(&mut self) -> io::Result<Option<Result<T, FrameError>>> {
        Ok(self.next_line()?.map(|line| line.and_then(|line| decode(&line))))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn lines(input: &[u8]) -> Vec<Result<Vec<u8>, FrameError>> {
        let mut reader = FrameReader::new(io::BufReader::with_capacity(7, input));
        std::iter::from_fn(|| reader.next_line().unwrap()).collect()
    }

    #[test]
    fn peer_frames_read_back_and_say_what_is_wrong_with_anything_else() {
        let resume = PeerFrame::Resume { instance: "ab".into(), after: 41 };
        let line = encode(&resume).unwrap();
        assert_eq!(line, b"{\"type\":\"resume\",\"instance\":\"ab\",\"after\":41}\n");
        assert_eq!(decode::<PeerFrame>(&line[..line.len() - 1]), Ok(resume));
        let decide = r#"{"type":"decide","sessionId":"s","id":3,"verdict":"deny"}"#;
        assert_eq!(
            decode::<PeerFrame>(decide.as_bytes()),
            Ok(PeerFrame::Decide { session_id: "s".into(), id: 3, verdict: Verdict::Deny, request: None })
        );
        // Numbered by the peer: the answer says the number again.
        let numbered = r#"{"type":"decide","sessionId":"s","id":3,"verdict":"deny","request":9}"#;
        assert!(matches!(decode::<PeerFrame>(numbered.as_bytes()), Ok(PeerFrame::Decide { request: Some(9), .. })));
        for (bad, says) in [
            ("resume from 4", "expected value"),
            (r#"{"type":"launch"}"#, "unknown variant `launch`"),
            (r#"{"type":"resume","after":4}"#, "missing field `instance`"),
            (r#"{"type":"resume","instance":"a","after":-1}"#, "invalid value"),
            (r#"{"type":"decide","sessionId":"s","id":1,"verdict":"maybe"}"#, "unknown variant `maybe`"),
            ("[]", "missing field `type`"),
        ] {
            let error = decode::<PeerFrame>(bad.as_bytes()).unwrap_err();
            assert_eq!(error.kind(), LinkErrorKind::BadFrame);
            assert!(error.to_string().contains(says), "{bad}: {error}");
        }
    }

    #[test]
    fn link_frames_carry_their_type_and_camel_case_fields() {
        let removed = LinkFrame::Removed { seq: 7, session_id: "s".into() };
        assert_eq!(encode(&removed).unwrap(), b"{\"type\":\"removed\",\"seq\":7,\"sessionId\":\"s\"}\n");
        let error = LinkFrame::Error { kind: LinkErrorKind::TooLarge, message: "m".into(), request: None };
        assert_eq!(encode(&error).unwrap(), b"{\"type\":\"error\",\"kind\":\"too_large\",\"message\":\"m\"}\n");
        let numbered = LinkFrame::Error { kind: LinkErrorKind::Answer, message: "m".into(), request: Some(4) };
        assert_eq!(
            encode(&numbered).unwrap(),
            b"{\"type\":\"error\",\"kind\":\"answer\",\"message\":\"m\",\"request\":4}\n"
        );
    }

    #[test]
    fn an_oversize_line_is_refused_once_and_the_next_line_still_reads() {
        let mut input = vec![b'x'; MAX_FRAME + 10];
        input.extend_from_slice(b"\n\r\n  \n{\"a\":1}\r\nlast");
        let got = lines(&input);
        assert_eq!(got, [Err(FrameError::TooLarge), Ok(b"{\"a\":1}".to_vec()), Ok(b"last".to_vec())]);
        // Exactly at the cap is still a frame.
        let mut input = vec![b'y'; MAX_FRAME];
        input.push(b'\n');
        assert_eq!(lines(&input), [Ok(vec![b'y'; MAX_FRAME])]);
        assert!(encode(&"z".repeat(MAX_FRAME)).is_err(), "the encoder keeps to the cap too");
    }

    #[test]
    fn the_reader_never_holds_more_than_one_frame() {
        // A newline-free stream of 5 MiB: read in small pieces, dropped past the cap.
        let input = vec![b'{'; 5 * MAX_FRAME];
        let mut reader = FrameReader::new(io::BufReader::with_capacity(4096, &input[..]));
        assert_eq!(reader.next_line().unwrap(), Some(Err(FrameError::TooLarge)));
        assert!(reader.line.capacity() <= MAX_FRAME + 4096 * 2);
        assert_eq!(reader.next_line().unwrap(), None);
    }

    fn verdict() -> impl Strategy<Value = Verdict> {
        prop_oneof![Just(Verdict::Allow), Just(Verdict::Deny)]
    }

    fn peer_frame() -> impl Strategy<Value = PeerFrame> {
        prop_oneof![
            (any::<String>(), any::<u64>()).prop_map(|(instance, after)| PeerFrame::Resume { instance, after }),
            (any::<String>(), any::<u64>(), verdict(), any::<Option<u64>>())
                .prop_map(|(session_id, id, verdict, request)| PeerFrame::Decide { session_id, id, verdict, request }),
            (any::<String>(), any::<String>(), any::<Option<u64>>()).prop_map(|(session_id, text, request)| {
                PeerFrame::Answer { session_id, said: Said::Reply(text), request }
            }),
        ]
    }

    proptest! {
        /// Whatever bytes come down the pipe: no panic, every line either a frame or a reason,
        /// and a frame's encoding always reads back as itself.
        #[test]
        fn any_bytes_are_frames_or_reasons(input in prop::collection::vec(
            prop_oneof![4 => any::<u8>(), 1 => Just(b'\n'), 1 => Just(b'{'), 1 => Just(b'"')], 0..2048)
        ) {
            for line in lines(&input) {
                match line {
                    Ok(line) => {
                        prop_assert!(line.len() <= MAX_FRAME && !line.contains(&b'\n'));
                        if let Ok(frame) = decode::<PeerFrame>(&line) {
                            prop_assert_eq!(decode::<PeerFrame>(&encode(&frame).unwrap()[..]).unwrap(), frame);
                        }
                        let _ = decode::<LinkFrame>(&line);
                    }
                    Err(error) => prop_assert_eq!(error, FrameError::TooLarge),
                }
            }
        }

        #[test]
        fn peer_frames_round_trip_through_the_reader(frames in prop::collection::vec(peer_frame(), 0..20)) {
            let input: Vec<u8> = frames.iter().flat_map(|frame| encode(frame).unwrap()).collect();
            let mut reader = FrameReader::new(io::BufReader::with_capacity(16, &input[..]));
            let read: Vec<PeerFrame> =
                std::iter::from_fn(|| reader.next_frame().unwrap()).map(Result::unwrap).collect();
            prop_assert_eq!(read, frames);
        }
    }
}
