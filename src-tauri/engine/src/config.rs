//! The one place Switchboard reads its environment. Everything else gets a [`Config`] passed in.

use std::path::PathBuf;

use switchboard_core::Ages;

/// How a running instance (`serve` or the app) is set up.
#[derive(Clone, Debug, PartialEq)]
pub struct Config {
    /// `$SWITCHBOARD_HOME`, else the platform's app-data dir.
    pub state_dir: PathBuf,
    /// OS notifications (`SWITCHBOARD_NO_NOTIFY` set to anything but empty/`0`/`false` turns them off).
    pub notify: bool,
    /// The SQLite store (`SWITCHBOARD_NO_PERSIST` turns it off).
    pub persist: bool,
    /// `SWITCHBOARD_STALE_MINUTES` (10) and `SWITCHBOARD_ARCHIVE_HOURS` (24).
    pub ages: Ages,
    /// Each CLI's folder (its row's, moved by its variable): where a title index is kept.
    pub cli_dirs: Option<switchboard_core::hook_config::ConfigDirs>,
    /// `SWITCHBOARD_DECIDE=claude,codex`: for this run, these CLIs' permissions wait for an answer
    /// from Switchboard, whatever the saved settings say (`serve` has no settings screen); empty
    /// turns it off. Unset: the saved settings decide.
    pub decide: Option<Vec<String>>,
}

#[derive(Debug, thiserror::Error)]
#[error("no state directory: set SWITCHBOARD_HOME or HOME")]
pub struct NoStateDir;

impl Config {
    pub fn from_env() -> Result<Self, NoStateDir> {
        Self::from_vars(|name| std::env::var(name).ok())
    }

    /// The same, from any source of variables (tests pass a map).
    pub fn from_vars(var: impl Fn(&str) -> Option<String>) -> Result<Self, NoStateDir> {
        let state_dir = match var("SWITCHBOARD_HOME").filter(|home| !home.is_empty()) {
            Some(home) => PathBuf::from(home),
            None => crate::state_dir::default_state_dir().ok_or(NoStateDir)?,
        };
        let number = |name: &str| var(name).and_then(|v| v.trim().parse::<f64>().ok()).filter(|v| *v > 0.0);
        let defaults = Ages::default();
        Ok(Self {
            state_dir,
            notify: !flag(var("SWITCHBOARD_NO_NOTIFY")),
            persist: !flag(var("SWITCHBOARD_NO_PERSIST")),
            ages: Ages {
                stale_after: number("SWITCHBOARD_STALE_MINUTES")
                    .map_or(defaults.stale_after, |m| (m * 60_000.0) as u64),
                archive_after: number("SWITCHBOARD_ARCHIVE_HOURS")
                    .map_or(defaults.archive_after, |h| (h * 3_600_000.0) as u64),
            },
            cli_dirs: switchboard_core::hook_config::ConfigDirs::from_vars(|name| {
                match name {
                    // `dirs` knows the home folder where `$HOME` is not how it is found.
                    "HOME" => var(name).map(Into::into).or_else(|| dirs::home_dir().map(Into::into)),
                    _ => var(name).map(Into::into),
                }
            }),
            decide: var("SWITCHBOARD_DECIDE").map(|list| {
                list.split(',').map(|cli| cli.trim().to_ascii_lowercase()).filter(|cli| !cli.is_empty()).collect()
            }),
        })
    }
}

/// What only the desktop app reads (apart from [`Config`], which `serve` shares, so that adding a
/// window setting does not touch every place a `Config` is built).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AppConfig {
    /// Closing the window hides it to the tray icon; `SWITCHBOARD_CLOSE_TO_TRAY=0` (or `false`,
    /// `no`, `off`) makes closing the window quit the app.
    pub close_to_tray: bool,
}

impl AppConfig {
    pub fn from_env() -> Self {
        Self::from_vars(|name| std::env::var(name).ok())
    }

    pub fn from_vars(var: impl Fn(&str) -> Option<String>) -> Self {
        // On unless switched off: unset and empty keep the default.
        let close_to_tray = match var("SWITCHBOARD_CLOSE_TO_TRAY") {
            Some(value) if !value.trim().is_empty() => flag(Some(value)),
            _ => true,
        };
        Self { close_to_tray }
    }
}

/// A switch variable: unset, empty, `0`, `false`, `no` and `off` mean off.
pub fn flag(value: Option<String>) -> bool {
    value.is_some_and(|v| !matches!(v.trim().to_ascii_lowercase().as_str(), "" | "0" | "false" | "no" | "off"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn config(vars: &[(&str, &str)]) -> Config {
        let vars: HashMap<String, String> = vars.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        Config::from_vars(|name| vars.get(name).cloned()).unwrap()
    }

    #[test]
    fn no_notify_zero_means_notifications_on() {
        assert!(config(&[("SWITCHBOARD_HOME", "/x"), ("SWITCHBOARD_NO_NOTIFY", "0")]).notify);
        assert!(config(&[("SWITCHBOARD_HOME", "/x"), ("SWITCHBOARD_NO_NOTIFY", "")]).notify);
        assert!(config(&[("SWITCHBOARD_HOME", "/x")]).notify);
        assert!(!config(&[("SWITCHBOARD_HOME", "/x"), ("SWITCHBOARD_NO_NOTIFY", "1")]).notify);
    }

    #[test]
    fn every_setting_is_read_from_its_variable() {
        let c = config(&[
            ("SWITCHBOARD_HOME", "/state"),
            ("SWITCHBOARD_NO_PERSIST", "yes"),
            ("SWITCHBOARD_STALE_MINUTES", "2"),
            ("SWITCHBOARD_ARCHIVE_HOURS", "0.5"),
            ("CODEX_HOME", "/codex"),
            ("SWITCHBOARD_DECIDE", " Claude, gemini,"),
        ]);
        assert_eq!(c.decide, Some(vec!["claude".to_owned(), "gemini".to_owned()]));
        assert_eq!(config(&[("SWITCHBOARD_HOME", "/s")]).decide, None, "unset: the saved settings decide");
        assert_eq!(c.state_dir, PathBuf::from("/state"));
        assert!(!c.persist);
        assert_eq!(c.ages, Ages { stale_after: 120_000, archive_after: 1_800_000 });
        let codex = switchboard_core::hook_config::Cli::from_agent("codex").unwrap();
        assert_eq!(c.cli_dirs.unwrap().dir(codex), std::path::Path::new("/codex"));
        assert_eq!(config(&[("SWITCHBOARD_HOME", "/s"), ("SWITCHBOARD_STALE_MINUTES", "-3")]).ages, Ages::default());
    }

    #[test]
    fn closing_the_window_hides_it_to_the_tray_unless_switched_off() {
        let app = |value: Option<&str>| {
            AppConfig::from_vars(|name| {
                (name == "SWITCHBOARD_CLOSE_TO_TRAY").then(|| value.map(str::to_owned)).flatten()
            })
        };
        assert!(app(None).close_to_tray);
        assert!(app(Some("")).close_to_tray);
        assert!(app(Some("1")).close_to_tray);
        assert!(app(Some("yes")).close_to_tray);
        for off in ["0", "false", "no", "off", " OFF "] {
            assert!(!app(Some(off)).close_to_tray, "{off:?}");
        }
    }
}
