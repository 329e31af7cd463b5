//! The wall clock, read in one place: the instance stamps events and ticks with it; the core
//! never reads it (time is a parameter there).

use std::time::{SystemTime, UNIX_EPOCH};

use switchboard_core::Millis;

/// Unix time in milliseconds (0 before 1970, saturating far in the future).
pub fn now_millis() -> Millis {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

/// The minute of the local day now (0..1440), for quiet hours; UTC when the zone cannot be read.
pub fn local_minute() -> u16 {
    let now = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs());
    let seconds = libc::time_t::try_from(now).unwrap_or(0);
    // SAFETY: `localtime_r` writes only into `local`, which outlives the call.
    let mut local: libc::tm = unsafe { std::mem::zeroed() };
    let read = unsafe { !libc::localtime_r(&seconds, &mut local).is_null() };
    if read {
        (local.tm_hour * 60 + local.tm_min).clamp(0, 1439) as u16
    } else {
        ((now / 60) % 1440) as u16
    }
}

/// This machine's host name, for push messages about its own sessions.
pub fn host_name() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .ok()
        .or_else(|| std::env::var("HOSTNAME").ok())
        .map(|name| name.trim().to_owned())
        .filter(|name| !name.is_empty())
        .unwrap_or_else(|| switchboard_core::session::LOCAL_HOST.to_owned())
}
