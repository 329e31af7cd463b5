//! The journal: the instance's updates, numbered, for links to other machines (issue 23).
//!
//! A subscriber of the hub like any other. It keeps the sessions as the updates left them (so a
//! snapshot and its number always agree: both are the journal's own) and the last updates, as
//! ready frames, in a ring bounded in count and bytes. A link reading `GET /updates` gets a
//! snapshot, or — resuming after a number the ring still holds — exactly the updates after it,
//! then each new update as it is numbered. The numbers belong to this run of the instance (its
//! `instance` id); they go up by one for every frame, so a gap is a bug, not a lost update.
//!
//! The hub's mailbox merges a lagging subscriber's changes per session: the journal may number
//! a session's merged change once rather than each step. A remote needs the final states.
//!
//! Readers pull at their own pace: a stream holds at most one batch, of frames the journal
//! shares, so a link that stalls costs the instance no more memory than its sessions.

use std::collections::{BTreeMap, VecDeque};
use std::convert::Infallible;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use axum::body::Bytes;
use rand::RngCore;
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;

use crate::instance::hub::mailbox::Updates;
use crate::instance::hub::{Hub, Update};
use crate::protocol::link::{encode, LinkFrame, PROTOCOL_VERSION};

/// Updates kept for a resume, at most: a link away longer is sent a snapshot.
pub const RING_FRAMES: usize = 4096;
/// And at most this many bytes of them.
pub const RING_BYTES: usize = 16 * 1024 * 1024;
/// A stream with nothing to say sends `alive` this often, so a dead pipe shows.
pub const HEARTBEAT: Duration = Duration::from_secs(15);
/// A stream hands its writer about this much at a time.
const CHUNK_BYTES: usize = 64 * 1024;

/// The numbered record of one instance's updates.
pub struct Journal {
    instance: String,
    hello: Bytes,
    record: Mutex<Record>,
    /// The last number recorded: readers wait on it.
    latest: watch::Sender<u64>,
}

struct Record {
    seq: u64,
    /// Each session's `session` frame, by id: the snapshot, as of `seq`.
    sessions: BTreeMap<String, Bytes>,
    notices: Vec<String>,
    /// The last updates, oldest first; their numbers run without a gap up to `seq`.
    ring: VecDeque<Bytes>,
    ring_bytes: usize,
    limits: (usize, usize),
}

impl Journal {
    /// Starts recording `hub`'s updates on a thread of its own, which ends with the hub.
    pub fn start(hub: &Hub) -> Arc<Self> {
        // Subscribed before the snapshot is read: an update in between is in both, and applying
        // it again leaves the same state (updates carry whole sessions).
        let updates = hub.updates();
        let journal = Arc::new(Self::new(hub.snapshot(), (RING_FRAMES, RING_BYTES)));
        let recorder = Arc::clone(&journal);
        let started =
            std::thread::Builder::new().name("switchboard-journal".into()).spawn(move || recorder.follow(&updates));
        if let Err(error) = started {
            tracing::error!(%error, "cannot start the journal; links see no updates");
        }
        journal
    }

    fn new(snapshot: switchboard_core::Snapshot, limits: (usize, usize)) -> Self {
        let mut bytes = [0u8; 8];
        rand::rng().fill_bytes(&mut bytes);
        let instance: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
        let hello = LinkFrame::Hello {
            protocol: PROTOCOL_VERSION,
            instance: instance.clone(),
            host: host_name(),
            version: env!("CARGO_PKG_VERSION").to_owned(),
        };
        let mut record = Record {
            seq: 0,
            sessions: BTreeMap::new(),
            notices: snapshot.notices.unwrap_or_default(),
            ring: VecDeque::new(),
            ring_bytes: 0,
            limits,
        };
        for session in snapshot.sessions {
            if let Some(frame) = frame(&LinkFrame::Session { session: Box::new(session.clone()) }) {
                record.sessions.insert(session.session_id, frame);
            }
        }
        Self {
            hello: frame(&hello).unwrap_or_default(),
            instance,
            record: Mutex::new(record),
            latest: watch::channel(0).0,
        }
    }

    /// This run's id: a resume names it, so numbers of an earlier run are never replayed.
    pub fn instance(&self) -> &str {
        &self.instance
    }

    fn record(&self) -> MutexGuard<'_, Record> {
        self.record.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn follow(&self, updates: &Updates) {
        while let Ok(update) = updates.recv() {
            let seq = {
                let mut record = self.record();
                record.add(&update);
                // What queued meanwhile goes in under the same lock.
                for update in updates.try_iter().take(1024) {
                    record.add(&update);
                }
                record.seq
            };
            self.latest.send_replace(seq);
        }
    }

    /// The stream of frames for one reader: `hello`, then a snapshot — or, with `after`, the
    /// updates after it if the ring still holds them all — then every update, until `stop`.
    pub fn stream(
        self: &Arc<Self>,
        after: Option<u64>,
        stop: CancellationToken,
    ) -> impl futures_util::Stream<Item = Result<Bytes, Infallible>> + Send + 'static {
        let reader = Reader {
            journal: Arc::clone(self),
            after,
            pending: VecDeque::from([self.hello.clone()]),
            latest: self.latest.subscribe(),
            stop,
        };
        futures_util::stream::unfold(reader, |mut reader| async move {
            let chunk = reader.next_chunk().await?;
            Some((Ok(chunk), reader))
        })
    }

    /// Appends what a reader that has seen up to `after` (`None`: nothing yet) is to be sent
    /// next, and returns the number it will have seen: the updates after `after`, at most a
    /// chunk's worth, or a whole snapshot when the ring no longer reaches back to `after`.
    fn catch_up(&self, after: Option<u64>, out: &mut VecDeque<Bytes>) -> u64 {
        let record = self.record();
        let start = record.seq + 1 - record.ring.len() as u64;
        match after {
            Some(after) if after <= record.seq && after + 1 >= start => {
                let mut size = 0;
                let mut seen = after;
                for frame in record.ring.iter().skip((after + 1 - start) as usize) {
                    if size >= CHUNK_BYTES {
                        break;
                    }
                    size += frame.len();
                    out.push_back(frame.clone());
                    seen += 1;
                }
                seen
            }
            _ => {
                let header = LinkFrame::Snapshot {
                    seq: record.seq,
                    sessions: record.sessions.len(),
                    notices: record.notices.clone(),
                };
                out.extend(frame(&header));
                out.extend(record.sessions.values().cloned());
                record.seq
            }
        }
    }
}

impl Record {
    /// Numbers and keeps one update; one that changes nothing the journal shows gets no number.
    fn add(&mut self, update: &Update) {
        let seq = self.seq + 1;
        match update {
            Update::Changed(changed) => {
                let session = &changed.change.session;
                let (Some(kept), Some(update)) = (
                    frame(&LinkFrame::Session { session: Box::new(session.clone()) }),
                    frame(&LinkFrame::Changed { seq, session: Box::new(session.clone()) }),
                ) else {
                    return;
                };
                self.sessions.insert(session.session_id.clone(), kept);
                self.push(update);
            }
            Update::Removed(id) => {
                if self.sessions.remove(id).is_some() {
                    self.push(frame(&LinkFrame::Removed { seq, session_id: id.clone() }).unwrap_or_default());
                }
            }
            Update::Notices(notices) => {
                if *notices != self.notices {
                    self.notices.clone_from(notices);
                    self.push(frame(&LinkFrame::Notices { seq, notices: notices.clone() }).unwrap_or_default());
                }
            }
        }
    }

    fn push(&mut self, frame: Bytes) {
        self.seq += 1;
        self.ring_bytes += frame.len();
        self.ring.push_back(frame);
        let (frames, bytes) = self.limits;
        while self.ring.len() > frames || (self.ring_bytes > bytes && self.ring.len() > 1) {
            if let Some(old) = self.ring.pop_front() {
                self.ring_bytes -= old.len();
            }
        }
    }
}

/// One reader's place in the journal.
struct Reader {
    journal: Arc<Journal>,
    /// The last number this reader was sent (`None`: it needs a snapshot).
    after: Option<u64>,
    pending: VecDeque<Bytes>,
    latest: watch::Receiver<u64>,
    stop: CancellationToken,
}

impl Reader {
    /// The next bytes to write; `None` when the stream ends (the instance stops).
    async fn next_chunk(&mut self) -> Option<Bytes> {
        loop {
            if !self.pending.is_empty() {
                return Some(self.take_chunk());
            }
            self.latest.borrow_and_update();
            self.after = Some(self.journal.catch_up(self.after, &mut self.pending));
            if !self.pending.is_empty() {
                continue;
            }
            tokio::select! {
                changed = self.latest.changed() => changed.ok()?,
                () = tokio::time::sleep(HEARTBEAT) => {
                    let seq = self.after.unwrap_or_default();
                    self.pending.extend(frame(&LinkFrame::Alive { seq }));
                }
                () = self.stop.cancelled() => return None,
            }
        }
    }

    fn take_chunk(&mut self) -> Bytes {
        if self.pending.len() == 1 || self.pending.front().is_some_and(|frame| frame.len() >= CHUNK_BYTES) {
            return self.pending.pop_front().unwrap_or_default();
        }
        let mut chunk = Vec::with_capacity(CHUNK_BYTES);
        while let Some(frame) = self.pending.front() {
            if !chunk.is_empty() && chunk.len() + frame.len() > CHUNK_BYTES {
                break;
            }
            chunk.extend_from_slice(frame);
            self.pending.pop_front();
        }
        chunk.into()
    }
}

/// A frame as a shared line; `None` (and a warning) for one over the cap, which a session's
/// clipped texts never reach.
fn frame(frame: &LinkFrame) -> Option<Bytes> {
    match encode(frame) {
        Ok(line) => Some(line.into()),
        Err(error) => {
            tracing::warn!(%error, "a link frame was left out");
            None
        }
    }
}

/// This machine's name, for the board's host groups.
fn host_name() -> String {
    crate::platform::host_name().unwrap_or_else(|| "localhost".to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::instance::hub::Changed;
    use crate::protocol::link::decode;
    use serde_json::json;
    use switchboard_core::{normalize, Reducer, Snapshot};

    fn changes(reducer: &mut Reducer, events: &[(&str, &str)]) -> Vec<Update> {
        events
            .iter()
            .filter_map(|(id, status)| {
                let event = normalize("custom", &json!({"sessionId": id, "status": status}), 1).unwrap();
                reducer.apply(&event, false)
            })
            .map(|change| {
                Update::Changed(Arc::new(Changed {
                    change,
                    event_title: None,
                    agent_title: None,
                    history: None,
                    transcript_from: None,
                }))
            })
            .collect()
    }

    fn frames(out: &VecDeque<Bytes>) -> Vec<LinkFrame> {
        out.iter().map(|line| decode(&line[..line.len() - 1]).unwrap()).collect()
    }

    fn journal(limits: (usize, usize)) -> Journal {
        Journal::new(Snapshot::default(), limits)
    }

    fn seqs(frames: &[LinkFrame]) -> Vec<u64> {
        frames
            .iter()
            .filter_map(|frame| match frame {
                LinkFrame::Changed { seq, .. } | LinkFrame::Removed { seq, .. } | LinkFrame::Notices { seq, .. } => {
                    Some(*seq)
                }
                _ => None,
            })
            .collect()
    }

    #[test]
    fn updates_are_numbered_without_gaps_and_replayed_after_any_number_the_ring_holds() {
        let journal = journal((RING_FRAMES, RING_BYTES));
        let mut reducer = Reducer::new();
        for update in changes(&mut reducer, &[("a", "working"), ("b", "working"), ("a", "done")]) {
            journal.record().add(&update);
        }
        journal.record().add(&Update::Removed("b".into()));
        journal.record().add(&Update::Removed("never-seen".into()));
        journal.record().add(&Update::Notices(Vec::new()));
        assert_eq!(journal.record().seq, 4, "a removal of nothing and unchanged notices get no number");
        let mut out = VecDeque::new();
        assert_eq!(journal.catch_up(Some(1), &mut out), 4);
        let replay = frames(&out);
        assert_eq!(seqs(&replay), [2, 3, 4]);
        assert!(matches!(&replay[2], LinkFrame::Removed { session_id, .. } if session_id == "b"));
        out.clear();
        assert_eq!(journal.catch_up(Some(4), &mut out), 4);
        assert!(out.is_empty(), "nothing after the latest");
    }

    #[test]
    fn a_reader_the_ring_no_longer_reaches_gets_a_snapshot_of_the_final_states() {
        let journal = journal((3, RING_BYTES));
        let mut reducer = Reducer::new();
        let events: Vec<(String, &str)> =
            (0..20).map(|n| (format!("s{}", n % 4), if n % 3 == 0 { "done" } else { "working" })).collect();
        let events: Vec<(&str, &str)> = events.iter().map(|(id, status)| (id.as_str(), *status)).collect();
        for update in changes(&mut reducer, &events) {
            journal.record().add(&update);
        }
        let latest = journal.record().seq;
        for stale in [Some(0), Some(latest - 4), Some(latest + 1), None] {
            let mut out = VecDeque::new();
            assert_eq!(journal.catch_up(stale, &mut out), latest, "{stale:?}");
            let got = frames(&out);
            assert_eq!(got[0], LinkFrame::Snapshot { seq: latest, sessions: 4, notices: Vec::new() });
            let sessions: Vec<_> = got[1..]
                .iter()
                .map(|frame| match frame {
                    LinkFrame::Session { session } => (**session).clone(),
                    other => panic!("{other:?}"),
                })
                .collect();
            let mut expected = reducer.snapshot().sessions;
            expected.sort_by(|a, b| a.session_id.cmp(&b.session_id));
            assert_eq!(sessions, expected);
        }
        let mut out = VecDeque::new();
        journal.catch_up(Some(latest - 3), &mut out);
        assert_eq!(seqs(&frames(&out)), [latest - 2, latest - 1, latest], "the ring still reaches back 3");
    }

    #[test]
    fn the_ring_is_bounded_in_bytes_too() {
        let journal = journal((RING_FRAMES, 1));
        let mut reducer = Reducer::new();
        for update in changes(&mut reducer, &[("a", "working"), ("a", "done"), ("b", "working")]) {
            journal.record().add(&update);
        }
        assert_eq!(journal.record().ring.len(), 1, "the latest is kept, whatever its size");
    }

    #[tokio::test]
    async fn a_stream_says_hello_then_a_snapshot_then_each_update_and_ends_with_the_instance() {
        use futures_util::StreamExt;
        let hub = Hub::new();
        let journal = Journal::start(&hub);
        let stop = CancellationToken::new();
        let mut stream = Box::pin(journal.stream(None, stop.clone()));
        let mut lines = Vec::new();
        let mut next = async || {
            while lines.is_empty() {
                let chunk = stream.next().await.unwrap().unwrap();
                lines.extend(chunk.split(|&b| b == b'\n').filter(|l| !l.is_empty()).map(<[u8]>::to_vec));
            }
            decode::<LinkFrame>(&lines.remove(0)).unwrap()
        };
        assert!(matches!(next().await, LinkFrame::Hello { protocol: PROTOCOL_VERSION, .. }));
        assert_eq!(next().await, LinkFrame::Snapshot { seq: 0, sessions: 0, notices: Vec::new() });
        // One at a time: two changes of a session that meet in the journal's mailbox are one.
        for (seq, status) in [(1, "working"), (2, "done")] {
            let event = normalize("custom", &json!({"sessionId": "a", "status": status}), 1).unwrap();
            hub.apply(crate::instance::hub::Input::Hook(Box::new(event)));
            let LinkFrame::Changed { seq: got, session } = next().await else { panic!("an update") };
            assert_eq!((got, serde_json::to_value(session.status).unwrap()), (seq, json!(status)));
        }
        stop.cancel();
        assert!(stream.next().await.is_none());
    }
}
