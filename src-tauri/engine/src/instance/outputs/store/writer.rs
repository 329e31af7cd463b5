//! The store's write-behind thread: it takes the hub's updates into one [`Batch`] and commits it at
//! most [`FLUSH_EVERY`] later, off the ingestion path; a failed write is said once, as a notice.

use std::collections::HashSet;
use std::path::PathBuf;
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use rusqlite::{Connection, OpenFlags};
use switchboard_core::HistoryEntry;

use super::{history, Batch, Store, StoreError, FLUSH_EVERY};
use crate::instance::hub::{Hub, Input, Inputs};

/// What the hub and the writer thread share.
#[derive(Default)]
struct Shared {
    batch: Batch,
    /// The sessions on disk once every taken batch commits: a removal of any other needs no write.
    saved: HashSet<String>,
    /// When the oldest change in `batch` arrived.
    since: Option<Instant>,
    /// Flushes asked for, and the last one whose changes are committed.
    asked: u64,
    flushed: u64,
    /// The handle is gone: commit what waits and stop.
    closed: bool,
}

struct Writer {
    shared: Mutex<Shared>,
    /// The writer waits on it for work; flushers, for their commit.
    wake: Condvar,
    committed: Condvar,
}

impl Writer {
    fn lock(&self) -> MutexGuard<'_, Shared> {
        self.shared.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// The store as a subscriber of the hub: the hub lays each update into the waiting [`Batch`]
/// (bounded by the sessions), a writer thread commits it; reads use their own connection.
pub struct StoreHandle {
    writer: Arc<Writer>,
    reader: Mutex<Connection>,
}

impl StoreHandle {
    /// Starts the writer thread that owns `store`, and subscribes it to `hub`. A commit that
    /// fails is reported once to `notices` (with what to do), and cleared when one succeeds.
    pub fn start(store: Store, hub: &Hub, notices: Option<Inputs>) -> Result<Self, StoreError> {
        let sqlite = |source| StoreError::Sqlite { path: store.path.clone(), source };
        let reader = Connection::open_with_flags(&store.path, OpenFlags::SQLITE_OPEN_READ_ONLY).map_err(sqlite)?;
        let saved = store.saved_ids().map_err(sqlite)?;
        let writer = Arc::new(Writer {
            shared: Mutex::new(Shared { saved, ..Shared::default() }),
            wake: Condvar::new(),
            committed: Condvar::new(),
        });
        let thread_writer = Arc::clone(&writer);
        std::thread::Builder::new()
            .name("store".into())
            // At the hook path's own priority: a niced writer starved by a busy machine let
            // acknowledged changes wait over a second (SPEC §7; `kill_9_in_a_burst_…`).
            .spawn(move || write_behind(store, &thread_writer, notices.as_ref()))
            .map_err(|source| StoreError::SetAside { path: PathBuf::new(), source })?;
        let hub_writer = Arc::clone(&writer);
        // A batch of the hub's at a time: one lock per wake of the reducer, not one per event.
        hub.subscribe_batches(move |updates| {
            let mut shared = hub_writer.lock();
            let Shared { batch, saved, since, closed, .. } = &mut *shared;
            if *closed {
                return false;
            }
            for update in updates {
                batch.add(update, saved);
            }
            if since.is_none() && !batch.is_empty() {
                *since = Some(Instant::now());
                drop(shared);
                hub_writer.wake.notify_one();
            }
            true
        });
        Ok(Self { writer, reader: Mutex::new(reader) })
    }

    /// Waits until everything published so far is committed (at most `limit`).
    pub fn flush(&self, limit: Duration) -> bool {
        let deadline = Instant::now() + limit;
        let mut shared = self.writer.lock();
        shared.asked += 1;
        let asked = shared.asked;
        self.writer.wake.notify_one();
        while shared.flushed < asked {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return false;
            }
            shared = self.writer.committed.wait_timeout(shared, left).unwrap_or_else(PoisonError::into_inner).0;
        }
        true
    }

    /// Sessions waiting for their commit.
    pub fn waiting(&self) -> usize {
        self.writer.lock().batch.len()
    }

    /// The committed history of a session, oldest first.
    pub fn history(&self, session_id: &str) -> Vec<HistoryEntry> {
        let reader = self.reader.lock().unwrap_or_else(PoisonError::into_inner);
        history(&reader, session_id).unwrap_or_else(|error| {
            tracing::warn!(%error, "cannot read a session's history");
            Vec::new()
        })
    }
}

impl Drop for StoreHandle {
    fn drop(&mut self) {
        self.writer.lock().closed = true;
        self.writer.wake.notify_one();
    }
}

/// The writer thread: commits what waits [`FLUSH_EVERY`] after its first change, or at once when
/// a flush is asked for; a failed commit is kept and tried again, with what came since.
fn write_behind(mut store: Store, writer: &Writer, notices: Option<&Inputs>) {
    let mut failing = false;
    loop {
        let mut shared = writer.lock();
        loop {
            let asked = shared.asked > shared.flushed;
            let due = shared.since.map(|since| since + if failing { FLUSH_EVERY * 4 } else { FLUSH_EVERY });
            if asked || shared.closed || due.is_some_and(|due| Instant::now() >= due) {
                break;
            }
            shared = match due {
                None => writer.wake.wait(shared).unwrap_or_else(PoisonError::into_inner),
                Some(due) => {
                    let left = due.saturating_duration_since(Instant::now());
                    writer.wake.wait_timeout(shared, left).unwrap_or_else(PoisonError::into_inner).0
                }
            };
        }
        let (asked, closed) = (shared.asked, shared.closed);
        let batch = std::mem::take(&mut shared.batch);
        shared.since = None;
        for (id, pending) in &batch.sessions {
            if pending.state.is_some() {
                shared.saved.insert(id.clone());
            } else {
                shared.saved.remove(id);
            }
        }
        drop(shared);
        let result = if batch.is_empty() { Ok(()) } else { store.write(&batch) };
        let mut shared = writer.lock();
        match result {
            Ok(()) => {
                shared.flushed = asked;
                if failing {
                    failing = false;
                    tracing::info!("sessions are being saved again");
                    if let Some(notices) = notices {
                        notices.send(Input::Notice { source: "store", text: None });
                    }
                }
            }
            Err(error) => {
                if !failing {
                    // Once, not at every retry: the notice says it until it is fixed.
                    let text = format!(
                        "Sessions are not being saved: {error}. Check that {} and its folder are writable and the \
                         disk has room; Switchboard keeps retrying.",
                        store.path.display()
                    );
                    tracing::error!("{text}");
                    if let Some(notices) = notices {
                        notices.send(Input::Notice { source: "store", text: Some(text) });
                    }
                    failing = true;
                }
                // Kept, under what came since: the next commit tries again with it.
                let newer = std::mem::take(&mut shared.batch);
                shared.batch = batch.then(newer);
                shared.since.get_or_insert_with(Instant::now);
            }
        }
        writer.committed.notify_all();
        if closed && (shared.batch.is_empty() || failing) {
            return;
        }
    }
}
