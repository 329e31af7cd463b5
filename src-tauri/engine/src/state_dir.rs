//! Switchboard's state directory: `$SWITCHBOARD_HOME`, else the platform's app-data dir (the
//! same one Tauri uses for the app, so `serve` and the desktop app share one endpoint file).

use std::path::PathBuf;

/// Tauri's app identifier (tauri.conf.json); it names the app-data folder.
pub const APP_IDENTIFIER: &str = "dev.switchboard.app";

pub fn state_dir() -> Option<PathBuf> {
    match std::env::var_os("SWITCHBOARD_HOME") {
        Some(home) if !home.is_empty() => Some(PathBuf::from(home)),
        _ => dirs::data_dir().map(|dir| dir.join(APP_IDENTIFIER)),
    }
}
