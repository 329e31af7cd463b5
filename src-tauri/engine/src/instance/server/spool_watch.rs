//! When to look at the spool (issue 45) without waking for nothing (issue 47: idle is idle).
//!
//! Where the OS can watch a folder (Linux), the state folder is watched on the engine's own event
//! loop: a forwarder's append to `spool.jsonl` wakes the instance at once, and nothing wakes it
//! while nothing is spooled. A slow look every [`SAFETY_EVERY`] stays, for a notification the
//! kernel did not give. Elsewhere, or where the watch cannot be set or is lost, the instance looks
//! every [`POLL_EVERY`].

use std::io;
use std::path::Path;
use std::time::Duration;

use tokio::time::{interval, Interval, MissedTickBehavior};

use crate::platform::file_watch::{FileWatch, Seen};
use crate::spool::SPOOL_FILE;

/// How often the spool is looked at when its folder is not watched.
pub const POLL_EVERY: Duration = Duration::from_secs(1);
/// How often it is looked at anyway while it is watched.
pub const SAFETY_EVERY: Duration = Duration::from_secs(30);

/// Says when the spool may have something to take.
pub struct SpoolWatch {
    every: Interval,
    written: Option<FileWatch>,
}

impl SpoolWatch {
    /// Watches `state_dir` where it can; polls (and says why in the log, if it should have
    /// watched) where it cannot.
    pub fn new(state_dir: &Path) -> Self {
        let written = FileWatch::new(state_dir, SPOOL_FILE)
            .inspect_err(|error| {
                if error.kind() != io::ErrorKind::Unsupported {
                    tracing::warn!(
                        "cannot watch {} for spooled events ({error}): looking every second",
                        state_dir.display()
                    );
                }
            })
            .ok();
        let every = if written.is_some() { SAFETY_EVERY } else { POLL_EVERY };
        Self { every: ticks(every), written }
    }

    /// Whether the folder is watched (false: polled every [`POLL_EVERY`]).
    pub fn is_watched(&self) -> bool {
        self.written.is_some()
    }

    /// Returns when the spool may hold something: it was written, or a look is due.
    pub async fn changed(&mut self) {
        let Some(written) = self.written.as_mut() else {
            self.every.tick().await;
            return;
        };
        tokio::select! {
            seen = written.next() => {
                if seen == Seen::Lost {
                    tracing::warn!("the spool's folder is no longer watched: looking every second");
                    self.written = None;
                    self.every = ticks(POLL_EVERY);
                }
            }
            _ = self.every.tick() => {}
        }
    }
}

/// An interval whose first tick is one period away (the spool is taken once when following starts).
fn ticks(every: Duration) -> Interval {
    let mut ticks = interval(every);
    ticks.set_missed_tick_behavior(MissedTickBehavior::Delay);
    ticks.reset();
    ticks
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;
    use crate::spool::{self, Spooled};

    fn spooled() -> Spooled {
        Spooled {
            v: spool::VERSION,
            id: spool::new_id(),
            agent: "claude".into(),
            at: 1,
            process: None,
            body: serde_json::json!({"hook_event_name": "Stop", "session_id": "s"}),
        }
    }

    /// What a forwarder spools wakes the instance at once, not at the next look.
    #[tokio::test]
    async fn a_spooled_event_wakes_the_watch_at_once() {
        let dir = tempfile::tempdir().unwrap();
        let mut watch = SpoolWatch::new(dir.path());
        assert!(watch.is_watched());
        spool::append(dir.path(), &spooled()).unwrap();
        // Bounded by a condition far inside the safety look, so a pass is the notification.
        let woke = tokio::time::timeout(SAFETY_EVERY / 2, watch.changed()).await;
        assert!(woke.is_ok(), "the append did not wake the watch");
        assert!(spool::waiting(dir.path()).unwrap());
    }

    /// With nothing spooled (another file in the folder written meanwhile), nothing wakes the
    /// instance before the safety look: it used to look every second.
    #[tokio::test(start_paused = true)]
    async fn with_nothing_spooled_the_watch_sleeps_until_its_safety_look() {
        let dir = tempfile::tempdir().unwrap();
        let mut watch = SpoolWatch::new(dir.path());
        assert!(watch.is_watched());
        std::fs::write(dir.path().join("endpoint.json"), b"{}").unwrap();
        let start = tokio::time::Instant::now();
        watch.changed().await;
        assert!(start.elapsed() >= SAFETY_EVERY, "woke after {:?}", start.elapsed());
    }

    /// A folder that goes away is no longer watched: the instance looks every second again.
    #[tokio::test(start_paused = true)]
    async fn a_folder_gone_falls_back_to_looking_every_second() {
        let dir = tempfile::tempdir().unwrap();
        let state = dir.path().join("state");
        std::fs::create_dir(&state).unwrap();
        let mut watch = SpoolWatch::new(&state);
        std::fs::remove_dir(&state).unwrap();
        watch.changed().await;
        assert!(!watch.is_watched());
        let start = tokio::time::Instant::now();
        watch.changed().await;
        assert!(start.elapsed() <= POLL_EVERY, "looked after {:?}", start.elapsed());
    }

    /// A folder that cannot be watched is polled every second, as before.
    #[tokio::test(start_paused = true)]
    async fn a_folder_that_cannot_be_watched_is_polled() {
        let dir = tempfile::tempdir().unwrap();
        let mut watch = SpoolWatch::new(&dir.path().join("missing"));
        assert!(!watch.is_watched());
        let start = tokio::time::Instant::now();
        watch.changed().await;
        assert_eq!(start.elapsed(), POLL_EVERY);
    }
}
