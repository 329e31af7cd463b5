//! Switchboard's state directory: `$SWITCHBOARD_HOME`, else the platform's app-data dir (the
//! same one Tauri uses for the app, so `serve` and the desktop app share one endpoint file).
//! [`Config`](crate::config::Config) reads it for an instance; the `hook` forwarder, which must
//! start in a couple of milliseconds, reads it here directly.

use std::io;
use std::path::{Path, PathBuf};

use crate::platform;

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

/// Where the desktop app's web view keeps its data (storage, caches): Tauri's local app-data
/// folder. On Linux it is the default state directory itself.
pub fn webview_data_dir() -> Option<PathBuf> {
    dirs::data_local_dir().map(|dir| dir.join(APP_IDENTIFIER))
}

/// The state directory 0700 and what is in it 0600 (folders 0700), tightening what is looser,
/// created so if missing. Every process that writes in it calls this first (issue 45: a home
/// made 0777 under `umask 000` by `remote add` let another user plant links in it); it holds
/// prompts, commands and the hook secret.
pub fn make_private(state_dir: &Path) -> io::Result<()> {
    platform::create_private_dir(state_dir)?;
    platform::tighten(state_dir, 0o700)?;
    tighten_inside(state_dir, 2)
}

/// Links are left alone (`read_dir`'s types do not follow them): their targets are not ours.
fn tighten_inside(folder: &Path, depth: u8) -> io::Result<()> {
    for entry in std::fs::read_dir(folder)? {
        let entry = entry?;
        let kind = entry.file_type()?;
        if kind.is_file() {
            platform::tighten(&entry.path(), 0o600)?;
        } else if kind.is_dir() {
            platform::tighten(&entry.path(), 0o700)?;
            if depth > 0 {
                // Best effort below the top (old logs): the folder itself is private already.
                let _ = tighten_inside(&entry.path(), depth - 1);
            }
        }
    }
    Ok(())
}
