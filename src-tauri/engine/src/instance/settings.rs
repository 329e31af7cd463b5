//! What the user chose in the app and the instance must know: `<state dir>/settings.json`
//! (0600, written atomically). A missing or unreadable file means the defaults; `serve` can be
//! given the same through `SWITCHBOARD_DECIDE` (see [`crate::config::Config`]).

use std::collections::BTreeSet;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::protocol::{DEFAULT_HOLD, MAX_HOLD};

pub const SETTINGS_FILE: &str = "settings.json";

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase", default)]
pub struct Settings {
    /// CLIs whose permission prompts wait for Allow / Deny from Switchboard (off by default).
    pub decide: BTreeSet<String>,
    /// How long such a prompt waits before the CLI asks in its own terminal as usual.
    pub hold_seconds: u32,
    /// Other machines whose agents are on this board (issue 23), each reached by its command.
    pub remotes: Vec<RemoteSpec>,
}

/// A remote: a name for the board, and the command that gives a pipe to it (`ssh devbox`,
/// `docker exec -i box`); Switchboard appends `sh -s` and speaks to the shell there.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct RemoteSpec {
    pub name: String,
    pub command: Vec<String>,
}

/// Remotes followed at once, at most.
pub const MAX_REMOTES: usize = 32;

impl RemoteSpec {
    /// Why this remote cannot be kept, if it cannot.
    pub fn problem(&self) -> Option<String> {
        let name = &self.name;
        let valid = !name.is_empty()
            && name.len() <= 40
            && name.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
            && !name.starts_with(['-', '.']);
        if !valid {
            return Some(format!(
                "`{name}` cannot name a remote: use 1 to 40 letters, digits, `-`, `_` or `.` (not first)"
            ));
        }
        if name == switchboard_core::session::LOCAL_HOST {
            return Some("`local` names this machine; pick another name".into());
        }
        if self.command.is_empty() || self.command[0].trim().is_empty() {
            return Some(format!("remote `{name}` needs a command, e.g. `-- ssh {name}`"));
        }
        None
    }
}

impl Default for Settings {
    fn default() -> Self {
        Self { decide: BTreeSet::new(), hold_seconds: DEFAULT_HOLD.as_secs() as u32, remotes: Vec::new() }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum SettingsError {
    #[error("cannot save the settings to {}: {source}", path.display())]
    Write { path: PathBuf, source: std::io::Error },
}

impl Settings {
    pub fn path(state_dir: &Path) -> PathBuf {
        state_dir.join(SETTINGS_FILE)
    }

    /// The saved settings, cleaned up; the defaults when there are none or they cannot be read.
    pub fn load(state_dir: &Path) -> Self {
        let text = crate::files::read_small(&Self::path(state_dir), 64 * 1024);
        let settings: Self = text.and_then(|text| serde_json::from_slice(&text).ok()).unwrap_or_default();
        settings.cleaned()
    }

    pub fn save(&self, state_dir: &Path) -> Result<(), SettingsError> {
        let path = Self::path(state_dir);
        let json = serde_json::to_vec_pretty(&self.clone().cleaned()).unwrap_or_default();
        crate::files::write_atomic(&path, &json, Some(std::fs::Permissions::from_mode(0o600)))
            .map_err(|source| SettingsError::Write { path, source })
    }

    /// Only CLIs that can take a decision, and a hold between 5 s and [`MAX_HOLD`].
    pub fn cleaned(mut self) -> Self {
        // Only CLIs whose permission hook takes a decision (`Agent::decision_event`).
        self.decide.retain(|cli| switchboard_core::agent::deciding().any(|id| id == cli));
        self.hold_seconds = self.hold_seconds.clamp(5, MAX_HOLD.as_secs() as u32);
        let mut names = BTreeSet::new();
        self.remotes.retain(|remote| remote.problem().is_none() && names.insert(remote.name.clone()));
        self.remotes.truncate(MAX_REMOTES);
        self
    }

    pub fn hold(&self) -> Duration {
        Duration::from_secs(u64::from(self.hold_seconds))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_round_trip_privately_and_bad_values_are_cleaned() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(Settings::load(dir.path()), Settings::default(), "none saved: the defaults, nothing held");
        assert!(Settings::default().decide.is_empty());
        let chosen = Settings {
            decide: ["claude".to_owned(), "cursor".to_owned(), "gemini".to_owned()].into(),
            hold_seconds: 9_999,
            remotes: vec![
                RemoteSpec { name: "devbox".into(), command: vec!["ssh".into(), "devbox".into()] },
                RemoteSpec { name: "devbox".into(), command: vec!["ssh".into(), "other".into()] },
                RemoteSpec { name: "local".into(), command: vec!["ssh".into(), "x".into()] },
                RemoteSpec { name: "a b".into(), command: vec!["ssh".into()] },
                RemoteSpec { name: "empty".into(), command: vec![] },
            ],
        };
        chosen.save(dir.path()).unwrap();
        let loaded = Settings::load(dir.path());
        assert_eq!(loaded.decide, ["claude".to_owned()].into(), "only CLIs that can take a decision");
        assert_eq!(loaded.hold(), MAX_HOLD);
        assert_eq!(loaded.remotes, chosen.remotes[..1], "one per name, valid names, a command each");
        let mode = std::fs::metadata(Settings::path(dir.path())).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
        std::fs::write(Settings::path(dir.path()), b"{not json").unwrap();
        assert_eq!(Settings::load(dir.path()), Settings::default());
    }
}
