//! One connection's reading of a remote's link (issue 23), held to the bounds of issue 34: each
//! frame taken in order, a snapshot gathered (bounded in time and size), a chatty box cut off.

use std::collections::HashSet;

use switchboard_core::{Session, MAX_HOST_SESSIONS, MAX_SESSIONS};

use super::{now_millis, snapshot_within, Inputs, Position, Shared, ERROR_CHARS, ERROR_LOG_EVERY, RATE_WINDOW};
use crate::instance::hub::{Input, RemoteReport};
use crate::protocol::link::{LinkErrorKind, LinkFrame, PeerFrame, PROTOCOL_VERSION};
use crate::remote::{LinkState, RemoteDecideError};

/// One connection's reading of the link's frames.
pub(super) struct Link<'a> {
    pub(super) shared: &'a Shared,
    pub(super) inputs: &'a Inputs,
    pub(super) host: &'a str,
    pub(super) position: &'a mut Position,
    /// The remote instance's run, from its `hello`.
    pub(super) instance: Option<String>,
    /// A resume was sent: frames until `resumed` belong to the stream it replaces.
    pub(super) awaiting_resumed: bool,
    /// A snapshot being read: its number, its size, its sessions so far (at most
    /// [`MAX_HOST_SESSIONS`], the freshest), and when it was announced.
    pub(super) snapshot: Option<Snapshot>,
    pub(super) bad_lines: usize,
    /// This connection told the hub its sessions are reachable again: once is enough.
    pub(super) said_reachable: bool,
    /// Frames in the current rate window, and when it began.
    pub(super) window: (std::time::Instant, u32),
    /// When an error of the box's was last logged, and how many since were not.
    pub(super) errors_logged: Option<(std::time::Instant, u64)>,
}

pub(super) struct Snapshot {
    pub(super) seq: u64,
    pub(super) size: usize,
    pub(super) received: usize,
    pub(super) sessions: Vec<Session>,
    pub(super) since: std::time::Instant,
}

impl Link<'_> {
    /// What ends a connection whatever its frames say: a chatty box, a snapshot that never ends.
    pub(super) fn bounds(&mut self) -> Result<(), String> {
        let (started, frames) = &mut self.window;
        if started.elapsed() >= RATE_WINDOW {
            *started = std::time::Instant::now();
            *frames = 0;
        }
        *frames += 1;
        let most = super::max_frames_per_window();
        if *frames > most {
            return Err(format!("it sent more than {most} frames in {} s", RATE_WINDOW.as_secs()));
        }
        match &self.snapshot {
            Some(snapshot) if snapshot.since.elapsed() > snapshot_within() => Err(format!(
                "its snapshot of {} sessions was not whole after {} s ({} came)",
                snapshot.size,
                snapshot_within().as_secs_f32(),
                snapshot.received
            )),
            _ => Ok(()),
        }
    }

    /// Takes one frame; `Err` ends the connection.
    pub(super) fn frame(&mut self, frame: LinkFrame) -> Result<(), String> {
        match frame {
            LinkFrame::Hello { protocol, instance, version, .. } => {
                if protocol != PROTOCOL_VERSION {
                    return Err(format!(
                        "it speaks link protocol {protocol} (Switchboard {version}); this one speaks \
                         {PROTOCOL_VERSION}: run `switchboard remote install {}`",
                        self.host
                    ));
                }
                self.instance = Some(instance);
                let mut status = self.shared.status();
                status.state = LinkState::Connected;
                status.since = Some(now_millis());
                status.error = None;
                status.version = Some(version);
                return Ok(());
            }
            LinkFrame::Decided { session_id, id, request, .. } => {
                self.shared.answered(request, Some(&session_id), Some(id), Ok(serde_json::Value::Null));
                return Ok(());
            }
            LinkFrame::Answered { session_id, delivered, request } => {
                self.shared.answered(request, Some(&session_id), None, Ok(delivered));
                return Ok(());
            }
            LinkFrame::Error { kind, message, request } => return self.error(kind, message, request),
            // Only the answer to a resume this side asked for: any other is noise, ignored.
            LinkFrame::Resumed { .. } if self.awaiting_resumed => {
                self.awaiting_resumed = false;
                self.reachable();
                return Ok(());
            }
            LinkFrame::Resumed { .. } => return Ok(()),
            _ if self.awaiting_resumed || self.instance.is_none() => return Ok(()),
            _ => {}
        }
        match frame {
            LinkFrame::Snapshot { seq, sessions, .. } => {
                // A box holds at most MAX_SESSIONS of its own.
                if sessions > MAX_SESSIONS {
                    return Err(format!("it announced a snapshot of {sessions} sessions"));
                }
                let since = std::time::Instant::now();
                let kept = Vec::with_capacity(sessions.min(MAX_HOST_SESSIONS));
                self.snapshot = Some(Snapshot { seq, size: sessions, received: 0, sessions: kept, since });
                self.snapshot_done();
            }
            LinkFrame::Session { session } => {
                let Some(snapshot) = &mut self.snapshot else {
                    return Err("it sent a session outside a snapshot".into());
                };
                snapshot.keep(*session);
                self.snapshot_done();
            }
            LinkFrame::Changed { seq, session } if self.in_order(seq) => {
                let id = session.session_id.clone();
                let lag = now_millis().saturating_sub(session.last_event_at);
                if self.report(RemoteReport::Changed(session), seq) && self.position.known.len() < MAX_SESSIONS * 2 {
                    self.position.known.insert(id);
                }
                self.shared.status().lag_ms = Some(lag);
            }
            LinkFrame::Removed { seq, session_id }
                if self.in_order(seq) && self.report(RemoteReport::Removed(session_id.clone()), seq) =>
            {
                self.position.known.remove(&session_id);
            }
            LinkFrame::Notices { seq, .. } if self.in_order(seq) => self.applied(seq),
            _ => {}
        }
        self.shared.status().sessions = self.position.known.len();
        Ok(())
    }

    /// Logs a box's error — clipped, control characters made visible, and at most once per
    /// [`ERROR_LOG_EVERY`] (how many were not logged is said with the next).
    fn log_error(&mut self, message: &str) {
        let now = std::time::Instant::now();
        match &mut self.errors_logged {
            Some((at, skipped)) if now.duration_since(*at) < ERROR_LOG_EVERY => *skipped += 1,
            logged => {
                let skipped = logged.map_or(0, |(_, skipped)| skipped);
                let message = crate::text::printable(&crate::text::clip_chars(message, ERROR_CHARS));
                tracing::warn!(remote = %self.host, %message, skipped, "the remote's link refused a frame");
                *logged = Some((now, 0));
            }
        }
    }

    fn error(&mut self, kind: LinkErrorKind, message: String, request: Option<u64>) -> Result<(), String> {
        let message = crate::text::clip_chars(&message, ERROR_CHARS);
        match kind {
            LinkErrorKind::Decision | LinkErrorKind::Answer => {
                self.shared.answered(request, None, None, Err(RemoteDecideError::Refused(message)));
                Ok(())
            }
            LinkErrorKind::NotRunning | LinkErrorKind::InstanceGone => Err(message),
            LinkErrorKind::BadFrame | LinkErrorKind::TooLarge => {
                self.log_error(&message);
                Ok(())
            }
        }
    }

    /// Hands the snapshot to the hub once all its sessions came.
    fn snapshot_done(&mut self) {
        let Some(Snapshot { seq, sessions, .. }) = self.snapshot.take_if(|snapshot| snapshot.received >= snapshot.size)
        else {
            return;
        };
        let ids: HashSet<String> = sessions.iter().map(|session| session.session_id.clone()).collect();
        if self.report(RemoteReport::Snapshot(sessions), seq) {
            self.position.known = ids;
            self.reachable();
        }
    }

    /// The link is back and current: its sessions no longer say unreachable. Said once per
    /// connection (the hub walks the host's sessions for it).
    fn reachable(&mut self) {
        if self.said_reachable {
            return;
        }
        let status = self.shared.status();
        if status.state == LinkState::Connected {
            drop(status);
            self.said_reachable = true;
            self.inputs.push(Input::Remote { host: self.host.to_owned(), report: RemoteReport::Reachable });
        }
    }

    /// Whether update `seq` is the next one; if not, the link is asked to resume (a bug there, or
    /// frames lost here).
    fn in_order(&mut self, seq: u64) -> bool {
        let next = match (&self.position.applied, &self.instance) {
            (Some((instance, last)), Some(current)) if instance == current => Some(last + 1),
            _ => None,
        };
        if next == Some(seq) {
            return true;
        }
        tracing::warn!(remote = %self.host, seq, ?next, "an update out of order; resuming");
        self.resync();
        false
    }

    /// Hands a report to the hub and records `seq` as applied; when the hub's queue is full the
    /// report is dropped and the link asked to resume after the last applied.
    fn report(&mut self, report: RemoteReport, seq: u64) -> bool {
        if self.shared.stopped() {
            // No longer followed: its sessions have left the board, and must not come back.
            return false;
        }
        if self.inputs.send(Input::Remote { host: self.host.to_owned(), report }) {
            self.applied(seq);
            true
        } else {
            self.resync();
            false
        }
    }

    fn applied(&mut self, seq: u64) {
        if let Some(instance) = &self.instance {
            self.position.applied = Some((instance.clone(), seq));
            let mut status = self.shared.status();
            status.last_seq = Some(seq);
        }
    }

    /// Asks the link for what came after the last update applied (a replay, or a fresh snapshot).
    fn resync(&mut self) {
        let (instance, after) = self.position.applied.clone().unwrap_or_default();
        if self.shared.send(&PeerFrame::Resume { instance, after }) {
            self.awaiting_resumed = true;
            self.snapshot = None;
        }
    }
}

impl Snapshot {
    /// Keeps a session of the snapshot: all of them up to [`MAX_HOST_SESSIONS`] (what the board
    /// holds of one box), then only those fresher than the stalest kept.
    fn keep(&mut self, session: Session) {
        self.received += 1;
        let session = switchboard_core::reducer::mirror::bounded(session, now_millis());
        if self.sessions.len() < MAX_HOST_SESSIONS {
            self.sessions.push(session);
            return;
        }
        let stalest = self.sessions.iter().enumerate().min_by_key(|(_, kept)| kept.last_event_at).map(|(at, _)| at);
        if let Some(at) = stalest.filter(|at| self.sessions[*at].last_event_at < session.last_event_at) {
            self.sessions[at] = session;
        }
    }
}
