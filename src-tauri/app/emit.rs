//! The web view's subscriber: the hub's updates become `sessions-changed` events, merged per
//! session and paced (the one place updates are paced; the web view applies what it is sent).

use std::collections::HashMap;
use std::time::Duration;

use switchboard_core::{Session, SessionsChanged};
use switchboard_engine::Update;
use tauri::{AppHandle, Emitter, Runtime};

/// Changes are coalesced: at most one `sessions-changed` per frame, however many events arrive.
const FRAME: Duration = Duration::from_millis(16);
/// Under a stream of changes (many agents busy at once) the web view is told at most this often:
/// each message costs it a render of the board, and ten a second keep the badges live.
const BUSY_FRAME: Duration = Duration::from_millis(100);
/// Emits in the last second that make the stream busy, and below which it is quiet again.
const BUSY_ABOVE: usize = 20;
const QUIET_BELOW: usize = 5;

/// The events the web view listens to (their names are generated into `ui/src/bindings/events.ts`).
pub const SESSIONS_CHANGED: &str = "sessions-changed";
/// A notification was clicked: the payload is the session id to bring into view.
pub const FOCUS_SESSION: &str = "focus-session";
/// The instance's notices changed (e.g. sessions cannot be saved): the payload is the full list.
pub const NOTICES_CHANGED: &str = "notices-changed";
/// The board's tone is due (Rust decides: `push::chimes`); the payload is the session id.
pub const CHIME: &str = "chime";

/// How long to gather changes after an emit: a frame, or [`BUSY_FRAME`] while changes stream in
/// (more than [`BUSY_ABOVE`] emits in the last second, until fewer than [`QUIET_BELOW`]). The
/// first change after a quiet spell still goes out at once.
#[derive(Default)]
struct Pace {
    emits: std::collections::VecDeque<std::time::Instant>,
    busy: bool,
}

impl Pace {
    fn after_emit(&mut self, now: std::time::Instant) -> Duration {
        self.emits.push_back(now);
        while self.emits.front().is_some_and(|&at| now.duration_since(at) > Duration::from_secs(1)) {
            self.emits.pop_front();
        }
        if self.emits.len() > BUSY_ABOVE {
            self.busy = true;
        } else if self.emits.len() < QUIET_BELOW {
            self.busy = false;
        }
        if self.busy {
            BUSY_FRAME
        } else {
            FRAME
        }
    }
}

/// Updates waiting for the next frame's emit.
#[derive(Default)]
struct Pending {
    changed: HashMap<String, Session>,
    order: Vec<String>,
    removed: Vec<String>,
}

impl Pending {
    fn push(&mut self, update: Update) {
        match update {
            Update::Changed(changed) => {
                let session = changed.change.session.clone();
                let id = session.session_id.clone();
                self.removed.retain(|removed| *removed != id);
                if self.changed.insert(id.clone(), session).is_none() {
                    self.order.push(id);
                }
            }
            Update::Notices(_) => {}
            Update::Removed(id) => {
                if self.changed.remove(&id).is_some() {
                    self.order.retain(|changed| *changed != id);
                }
                self.removed.push(id);
            }
        }
    }

    fn extend(&mut self, updates: impl IntoIterator<Item = Update>) {
        for update in updates {
            self.push(update);
        }
    }

    fn take(&mut self) -> Option<SessionsChanged> {
        if self.order.is_empty() && self.removed.is_empty() {
            return None;
        }
        let mut changed = std::mem::take(&mut self.changed);
        let sessions = std::mem::take(&mut self.order).into_iter().filter_map(|id| changed.remove(&id)).collect();
        Some(SessionsChanged { changed: sessions, removed: std::mem::take(&mut self.removed) })
    }
}

/// The web view's subscriber: the first change of a burst goes out at once; whatever follows
/// within the frame is gathered into the next `sessions-changed`.
pub fn emit_changes<R: Runtime>(handle: AppHandle<R>, updates: switchboard_engine::instance::hub::mailbox::Updates) {
    let spawned = std::thread::Builder::new().name("emit".into()).spawn(move || {
        let mut pending = Pending::default();
        let mut pace = Pace::default();
        while let Ok(update) = updates.recv() {
            if let Update::Notices(notices) = &update {
                let _ = handle.emit(NOTICES_CHANGED, notices.clone());
                continue;
            }
            pending.push(update);
            pending.extend(updates.try_iter());
            if let Some(batch) = pending.take() {
                let _ = handle.emit(SESSIONS_CHANGED, batch);
            }
            std::thread::sleep(pace.after_emit(std::time::Instant::now()));
        }
    });
    if let Err(error) = spawned {
        tracing::error!(%error, "cannot start the web view's updates");
    }
}

/// Tells the web view to sound its tone for each change that calls for one (the rule is Rust's:
/// a new need, a chosen status, outside quiet hours — `push::chimes`), on a thread of its own.
pub fn emit_chimes<R: Runtime>(
    handle: AppHandle<R>,
    updates: switchboard_engine::instance::hub::mailbox::Updates,
    push: std::sync::Arc<switchboard_engine::instance::outputs::push::Push>,
) {
    let spawned = std::thread::Builder::new().name("chime".into()).spawn(move || {
        while let Ok(update) = updates.recv() {
            if let Update::Changed(changed) = &update {
                if push.chime(&changed.change) {
                    let _ = handle.emit(CHIME, changed.change.session.session_id.clone());
                }
            }
        }
    });
    if let Err(error) = spawned {
        tracing::error!(%error, "cannot start the board's tone");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use switchboard_core::{normalize, Change};
    use switchboard_engine::instance::hub::Changed;

    fn update(id: &str, status: &str) -> Update {
        let event = normalize("custom", &json!({"sessionId": id, "status": status}), 1).unwrap();
        let session = switchboard_core::Reducer::new().apply(&event, false).unwrap().session;
        let change = Change { session, previous: None, notify: false };
        Update::Changed(std::sync::Arc::new(Changed {
            change,
            event_title: None,
            agent_title: None,
            history: None,
            transcript_from: None,
        }))
    }

    #[test]
    fn a_stream_of_changes_is_paced_to_ten_a_second_and_a_quiet_spell_restores_frames() {
        let start = std::time::Instant::now();
        let at = |ms: u64| start + Duration::from_millis(ms);
        let mut pace = Pace::default();
        // An agent or two: every change goes out a frame apart.
        assert_eq!(pace.after_emit(at(0)), FRAME);
        assert_eq!(pace.after_emit(at(300)), FRAME);
        // Fifty a second (what 50 busy agents send): after a dozen frames, a tenth of a second.
        let paced: Vec<Duration> = (0..30).map(|n| pace.after_emit(at(400 + n * 20))).collect();
        assert_eq!(paced[..BUSY_ABOVE - 3], vec![FRAME; BUSY_ABOVE - 3], "not before the stream is busy");
        assert_eq!(*paced.last().unwrap(), BUSY_FRAME);
        // Still streaming at the paced rate (ten a second): it stays paced, no flapping.
        for n in 0..20 {
            assert_eq!(pace.after_emit(at(1_000 + n * 100)), BUSY_FRAME, "emit {n}");
        }
        // Quiet for a second: the next change is told at once, and frames come back.
        assert_eq!(pace.after_emit(at(5_000)), FRAME);
    }

    #[test]
    fn a_burst_is_coalesced_into_one_change_per_session_in_arrival_order() {
        let mut pending = Pending::default();
        for i in 0..10_000 {
            let status = if i % 2 == 0 { "working" } else { "done" };
            pending.push(update(&format!("s{}", i % 50), status));
        }
        let batch = pending.take().unwrap();
        assert_eq!(batch.changed.len(), 50);
        assert_eq!(batch.changed[0].session_id, "s0");
        assert_eq!(batch.changed[49].session_id, "s49");
        for session in &batch.changed {
            let odd = session.session_id[1..].parse::<u32>().unwrap() % 2 == 1;
            let done = session.status == Some(switchboard_core::AgentStatus::Done);
            assert_eq!(done, odd, "{} carries its last state", session.session_id);
        }
        assert!(pending.take().is_none(), "nothing left to emit");
    }

    #[test]
    fn a_removal_after_a_change_in_the_same_frame_wins() {
        let mut pending = Pending::default();
        pending.push(update("a", "working"));
        pending.push(update("b", "working"));
        pending.push(Update::Removed("a".into()));
        let batch = pending.take().unwrap();
        assert_eq!(batch.changed.iter().map(|s| s.session_id.as_str()).collect::<Vec<_>>(), ["b"]);
        assert_eq!(batch.removed, ["a"]);
        pending.push(Update::Removed("c".into()));
        pending.push(update("c", "done"));
        let batch = pending.take().unwrap();
        assert!(batch.removed.is_empty(), "it came back within the frame");
        assert_eq!(batch.changed.len(), 1);
    }
}
