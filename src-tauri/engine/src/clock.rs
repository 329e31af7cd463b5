//! The wall clock, read in one place: the instance stamps events and ticks with it; the core
//! never reads it (time is a parameter there).

use std::time::{SystemTime, UNIX_EPOCH};

use switchboard_core::Millis;

/// Unix time in milliseconds (0 before 1970, saturating far in the future).
pub fn now_millis() -> Millis {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}
