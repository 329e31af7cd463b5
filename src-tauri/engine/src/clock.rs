//! The wall clock, read in one place: the instance stamps events and ticks with it; the core
//! never reads it (time is a parameter there).

use std::time::{SystemTime, UNIX_EPOCH};

use switchboard_core::Millis;

/// Unix time in milliseconds (0 before 1970, saturating far in the future).
pub fn now_millis() -> Millis {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

/// Unix time in whole seconds (ntfy's `time` and `since=`).
pub fn now_secs() -> u64 {
    now_millis() / 1000
}

/// The minute of the local day now (0..1440), for quiet hours; UTC when the zone cannot be read.
pub fn local_minute() -> u16 {
    crate::platform::local_minute().unwrap_or_else(|| {
        let now = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs());
        ((now / 60) % 1440) as u16
    })
}

/// This machine's host name, for push messages about its own sessions.
pub fn host_name() -> String {
    crate::platform::host_name()
        .or_else(|| std::env::var("HOSTNAME").ok())
        .map(|name| name.trim().to_owned())
        .filter(|name| !name.is_empty())
        .unwrap_or_else(|| switchboard_core::session::LOCAL_HOST.to_owned())
}
