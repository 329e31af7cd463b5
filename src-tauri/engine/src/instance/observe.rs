//! What watches the agents for what no hook says (docs/model.md §8): their transcripts and
//! processes (`watch`), their own names for their sessions (`titles`), their usage, footprint and
//! git state (`meter`), their panes' screens (`screen`), and which transcript may be read at all
//! (`transcript`). Each sends what it finds to the hub as an input.

pub mod meter;
pub mod screen;
pub mod titles;
/// Which transcript file may be read (issue 45: confined to its CLI's folder).
pub mod transcript;
pub mod watch;

/// For the observers' tests: hook events applied to a hub, and what it says of them.
#[cfg(test)]
pub(crate) mod testing {
    use std::time::Instant;

    use crate::instance::hub::follow::Follower;
    use crate::instance::hub::mailbox::Updates;
    use crate::instance::hub::{Hub, Input};

    /// One hook event of `agent`, applied to `hub`.
    pub(crate) fn hook(hub: &Hub, agent: &str, payload: serde_json::Value) {
        let event = switchboard_core::normalize(agent, &payload, 1).expect("a hook event");
        hub.apply(Input::Hook(Box::new(event)));
    }

    /// Twenty working sessions of a custom source: no transcript, no process.
    pub(crate) fn twenty_custom(hub: &Hub) {
        for i in 0..20 {
            hook(hub, "custom", serde_json::json!({"sessionId": format!("w{i}"), "status": "working"}));
        }
    }

    /// What `updates` holds, shown to `follower`.
    pub(crate) fn show(updates: &Updates, follower: &mut dyn Follower, now: Instant) {
        for update in updates.try_iter() {
            follower.see(&update, now);
        }
    }
}
