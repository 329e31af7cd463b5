//! When to look at the spool (issue 45) without waking for nothing (issue 47: idle is idle).
//!
//! On Linux the state folder is watched (inotify, on the engine's own event loop): a forwarder's
//! append to `spool.jsonl` wakes the instance at once, and nothing wakes it while nothing is
//! spooled. A slow look every [`SAFETY_EVERY`] stays, for a notification the kernel did not
//! give (its queue overflowed, the folder was replaced). Elsewhere, or where the watch cannot be
//! set, the instance looks every [`POLL_EVERY`].

use std::path::Path;
use std::time::Duration;

use tokio::time::{interval, Interval, MissedTickBehavior};

/// How often the spool is looked at when its folder cannot be watched.
pub const POLL_EVERY: Duration = Duration::from_secs(1);
/// How often it is looked at anyway while it is watched.
#[cfg(target_os = "linux")]
pub const SAFETY_EVERY: Duration = Duration::from_secs(30);

/// Says when the spool may have something to take.
pub struct SpoolWatch {
    every: Interval,
    #[cfg(target_os = "linux")]
    written: Option<linux::Written>,
}

impl SpoolWatch {
    /// Watches `state_dir`; falls back to polling (and says why in the log) if it cannot.
    pub fn new(state_dir: &Path) -> Self {
        #[cfg(target_os = "linux")]
        {
            let written = linux::Written::new(state_dir)
                .inspect_err(|error| {
                    tracing::warn!(
                        "cannot watch {} for spooled events ({error}): looking every second",
                        state_dir.display()
                    )
                })
                .ok();
            let every = if written.is_some() { SAFETY_EVERY } else { POLL_EVERY };
            Self { every: ticks(every), written }
        }
        #[cfg(not(target_os = "linux"))]
        {
            let _ = state_dir;
            Self { every: ticks(POLL_EVERY) }
        }
    }

    /// Whether the folder is watched (false: polled every [`POLL_EVERY`]).
    pub fn is_watched(&self) -> bool {
        #[cfg(target_os = "linux")]
        return self.written.is_some();
        #[cfg(not(target_os = "linux"))]
        return false;
    }

    /// Returns when the spool may hold something: it was written, or a look is due.
    pub async fn changed(&mut self) {
        #[cfg(target_os = "linux")]
        if let Some(written) = self.written.as_mut() {
            tokio::select! {
                lost = written.next() => {
                    if lost {
                        tracing::warn!("the spool's folder is no longer watched: looking every second");
                        self.written = None;
                        self.every = ticks(POLL_EVERY);
                    }
                }
                _ = self.every.tick() => {}
            }
            return;
        }
        self.every.tick().await;
    }
}

/// An interval whose first tick is one period away (the spool is taken once when following starts).
fn ticks(every: Duration) -> Interval {
    let mut ticks = interval(every);
    ticks.set_missed_tick_behavior(MissedTickBehavior::Delay);
    ticks.reset();
    ticks
}

#[cfg(target_os = "linux")]
mod linux {
    use std::io;
    use std::path::Path;

    use futures_util::StreamExt;
    use inotify::{EventMask, EventStream, Inotify, WatchMask};

    use crate::spool::SPOOL_FILE;

    /// The state folder's inotify watch, on the runtime it was made on.
    pub struct Written {
        events: EventStream<[u8; 1024]>,
    }

    impl Written {
        pub fn new(state_dir: &Path) -> io::Result<Self> {
            let inotify = Inotify::init()?;
            // Appends (modify), a file written whole and closed, or renamed in; the folder gone.
            let mask = WatchMask::MODIFY
                | WatchMask::CLOSE_WRITE
                | WatchMask::MOVED_TO
                | WatchMask::CREATE
                | WatchMask::DELETE_SELF
                | WatchMask::MOVE_SELF
                | WatchMask::ONLYDIR;
            inotify.watches().add(state_dir, mask)?;
            Ok(Self { events: inotify.into_event_stream([0u8; 1024])? })
        }

        /// Waits for the spool file to be written; true when the watch is lost (the folder moved
        /// or went, or the watch failed), after which it gives nothing more.
        pub async fn next(&mut self) -> bool {
            loop {
                match self.events.next().await {
                    None | Some(Err(_)) => return true,
                    Some(Ok(event)) => {
                        if event.mask.intersects(EventMask::DELETE_SELF | EventMask::MOVE_SELF | EventMask::IGNORED) {
                            return true;
                        }
                        // An overflowed queue may have dropped the spool's own event.
                        if event.mask.contains(EventMask::Q_OVERFLOW)
                            || event.name.is_some_and(|name| name == SPOOL_FILE)
                        {
                            return false;
                        }
                    }
                }
            }
        }
    }
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
