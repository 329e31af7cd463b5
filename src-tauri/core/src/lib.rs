//! Switchboard's pure status core (docs/model.md §1 and §2).
//!
//! Everything here is a function of its inputs: no IO, no clock, no async. Time arrives as a
//! parameter (Unix milliseconds), so every rule — the 3 s done holdoff included — is testable
//! without sleeping.

pub mod agent;
pub mod hook_config;
pub mod json;
pub mod normalize;
pub mod notify;
pub mod question;
pub mod reducer;
pub mod session;
pub mod status;
pub mod turn;
pub mod usage;
pub mod view;

#[cfg(test)]
mod bindings;
#[cfg(test)]
mod fuzz_tests;
#[cfg(test)]
mod real_sequences;

pub use agent::{agent, normalize, normalizer, Agent, Normalizer, TitleSource, AGENTS};
pub use notify::{notification_text, should_notify, NotificationText, NotifyContext};
pub use reducer::{
    remote_id, Ages, Change, HistoryEntry, Position, Reducer, Restored, Session, SessionsChanged, Snapshot, EVICT_TO,
    MAX_HOST_SESSIONS, MAX_SESSIONS,
};
pub use status::{AgentProcess, AgentStatus, Cue, Lifecycle, Millis, SessionKind, StatusEvent, TERMINAL};
