//! What the engine checks for a CLI beyond its row in the core table: files of its own besides
//! the settings file (Codex's `config.toml` and hook trust, Gemini CLI's trusted folders). Each is
//! said in that CLI's own module (`codex_trust.rs`, `doctor/<cli>.rs`) and listed here once; a
//! CLI without such files has no entry.

use std::path::Path;

use serde_json::Value;

use super::codex_trust::HookTrust;
use super::doctor::{Check, DoctorOptions};
use super::install::{Cli, CliStatus, Warning};

/// Which of our hooks a CLI will run: (config folder, settings file, parsed settings, the CLI).
pub(crate) type TrustReader = fn(&Path, &Path, &Value, Cli) -> HookTrust;
/// `doctor`'s own check of a CLI.
pub(crate) type DoctorCheck = fn(&DoctorOptions, &CliStatus, String) -> Check;

/// One CLI's own checks.
pub(crate) struct Extras {
    pub id: &'static str,
    /// What in its own files (in its config folder) keeps it from running our hooks.
    pub warnings: fn(&Path) -> Vec<Warning>,
    /// Which of our hooks it will run, once they are in its settings: (config folder, settings
    /// file, parsed settings, the CLI).
    pub trust: Option<TrustReader>,
    /// What the user does while some of our hooks are not trusted yet.
    pub untrusted_step: &'static str,
    /// `doctor`'s own check: its id after `<agent>.`, and the check.
    pub doctor: Option<(&'static str, DoctorCheck)>,
}

static EXTRAS: &[&Extras] = &[&super::codex_trust::EXTRAS, &super::doctor::GEMINI];

/// `cli`'s own checks, if it has any.
pub(crate) fn extras(cli: Cli) -> Option<&'static Extras> {
    EXTRAS.iter().copied().find(|extras| extras.id == cli.agent())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_entry_is_a_cli_of_the_table() {
        for entry in EXTRAS {
            assert!(Cli::from_agent(entry.id).is_some(), "{}", entry.id);
        }
    }
}
