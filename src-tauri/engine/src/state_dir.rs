//! Switchboard's state directory: `$SWITCHBOARD_HOME`, else the platform's app-data dir (the
//! same one Tauri uses for the app, so `serve` and the desktop app share one endpoint file).
//! [`Config`](crate::config::Config) reads it for an instance; the `hook` forwarder, which must
//! start in a couple of milliseconds, reads it here directly.

use std::path::PathBuf;

/// Tauri's app identifier (tauri.conf.json); it names the app-data folder.
pub const APP_IDENTIFIER: &str = "dev.switchboard.app";

pub fn state_dir() -> Option<PathBuf> {
    match std::env::var_os("SWITCHBOARD_HOME") {
        Some(home) if !home.is_empty() => Some(PathBuf::from(home)),
        _ => default_state_dir(),
    }
}

pub fn default_state_dir() -> Option<PathBuf> {
    dirs::data_dir().map(|dir| dir.join(APP_IDENTIFIER))
}
