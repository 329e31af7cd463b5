//! Where each CLI keeps its configuration, from the environment: the row's folder in the home
//! folder, unless the row's variable moves it. Read by the installer, `doctor` and the title
//! watch (Codex's `session_index.jsonl`).

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use super::Cli;
use crate::agent::DirVar;

/// Where each CLI keeps its configuration: its row's folder in the home folder, unless the
/// row's variable moves it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigDirs(Vec<(Cli, PathBuf)>);

impl ConfigDirs {
    /// From this process's environment; `None` when `HOME` (and, as on Windows, `USERPROFILE`) is
    /// unset and some CLI has no override.
    pub fn from_env() -> Option<Self> {
        Self::from_vars(|name| std::env::var_os(name))
    }

    /// From the environment variables `var` returns (an empty value counts as unset).
    pub fn from_vars(var: impl Fn(&str) -> Option<OsString>) -> Option<Self> {
        let set = |name: &str| var(name).filter(|value| !value.is_empty()).map(PathBuf::from);
        // Windows has no `HOME` (Git Bash sets it to the profile): the CLIs, on Node, look in
        // `USERPROFILE` there.
        let home = set("HOME").or_else(|| set("USERPROFILE"));
        Cli::all()
            .map(|cli| {
                let setup = cli.setup();
                let moved = match setup.dir_var {
                    Some(DirVar::Folder(name)) => set(name),
                    Some(DirVar::Home(name)) => set(name).map(|home| home.join(setup.dir)),
                    Some(DirVar::Base(name, folder)) => set(name).map(|base| base.join(folder)),
                    None => None,
                };
                Some((cli, moved.or_else(|| home.as_ref().map(|home| home.join(setup.dir)))?))
            })
            .collect::<Option<_>>()
            .map(ConfigDirs)
    }

    /// The default folders under `home`, with no overrides.
    pub fn in_home(home: &Path) -> Self {
        ConfigDirs(Cli::all().map(|cli| (cli, home.join(cli.setup().dir))).collect())
    }

    pub fn dir(&self, cli: Cli) -> &Path {
        let found = self.0.iter().find(|(of, _)| *of == cli);
        found.map(|(_, dir)| dir.as_path()).expect("ConfigDirs holds every CLI of the table")
    }

    /// The file that holds the CLI's hooks.
    pub fn settings_file(&self, cli: Cli) -> PathBuf {
        self.dir(cli).join(cli.setup().file)
    }
}
