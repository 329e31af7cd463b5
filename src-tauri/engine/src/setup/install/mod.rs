//! `switchboard install` (docs/model.md §5): registers `"<switchboard>" hook <agent>` in each
//! CLI's own settings, or takes it out again, without putting the user's config at risk. (About
//! 400 lines: the options, the per-CLI config places and the errors the user is told are one
//! vocabulary.)
//!
//! What the settings become is planned in `switchboard_core::hook_config`; this module is the IO
//! around that plan, one stage a file:
//! - where each CLI keeps its hooks ([`ConfigDirs`], here) and which release it is (`version.rs`);
//! - reading and parsing (`read.rs`): a file that does not parse is refused with its name and
//!   line, and left byte for byte as it was;
//! - writing (`write.rs`): a one-time backup `<file>.switchboard.bak` of the user's original, then
//!   an atomic write (a temporary file in the same folder, fsync, rename) that keeps the file's
//!   permissions; a symlinked settings file is written through the link, so the link stays a
//!   link; `--dry-run` plans and reports and writes nothing;
//! - what the user reads (`messages.rs`), including what they still have to do in the CLI (Codex
//!   runs a new hook only once it is trusted);
//! - [`status`] (`status.rs`), for the Connections panel and `switchboard doctor`.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use switchboard_core::agent::Layout;
use switchboard_core::hook_config::{self, Edit, EditAction, ShapeError};

mod bridge;
mod messages;
mod read;
mod status;
mod version;
mod write;

pub use status::{status, CliStatus, HooksState, Warning};
pub use switchboard_core::hook_config::{Cli, ConfigDirs, Version};
pub use version::{cli_version, cli_versions};

pub(crate) use read::without_comments;
pub(crate) use version::version_output;

#[derive(Debug, Clone)]
pub struct InstallOptions {
    pub clis: Vec<Cli>,
    pub uninstall: bool,
    pub dry_run: bool,
    /// The absolute path of the `switchboard` binary the hooks will run.
    pub command_path: PathBuf,
    pub dirs: ConfigDirs,
    /// The installed releases ([`cli_versions`]) of the CLIs that skip a settings file with an
    /// event they do not know: events a release predates are left out. A CLI not listed gets
    /// every event.
    pub versions: Vec<(Cli, Version)>,
}

/// The CLIs `switchboard install <target>` names: one by its agent id, or `all`.
pub fn clis_named(target: &str) -> Option<Vec<Cli>> {
    match target {
        "all" => Some(Cli::all().collect()),
        agent => Cli::from_agent(agent).map(|cli| vec![cli]),
    }
}

/// Whether `cli` is used on this machine: on `search_path`, or its settings folder exists (the
/// same test `doctor` uses to tell a CLI that is not installed).
pub fn used_here(cli: Cli, dirs: &ConfigDirs, search_path: Option<&std::ffi::OsStr>) -> bool {
    let on_path = search_path.is_some_and(|paths| {
        std::env::split_paths(paths)
            .filter(|dir| dir.is_absolute())
            .any(|dir| crate::platform::program_in(&dir, cli.setup().program).is_some())
    });
    on_path || dirs.dir(cli).is_dir()
}

impl InstallOptions {
    /// For the user's own settings (found through the environment), registering `command_path`.
    /// `None` when `HOME` is unset and some CLI has no override.
    pub fn for_user(clis: Vec<Cli>, uninstall: bool, dry_run: bool, command_path: PathBuf) -> Option<Self> {
        Some(Self { clis, uninstall, dry_run, command_path, dirs: ConfigDirs::from_env()?, versions: cli_versions() })
    }
}

/// Installs (or uninstalls) for each CLI in turn; one CLI's failure does not stop the others.
pub fn install(options: &InstallOptions) -> Vec<InstallOutcome> {
    options
        .clis
        .iter()
        .map(|&cli| {
            let path = options.dirs.settings_file(cli);
            let result = install_one(cli, &path, options);
            InstallOutcome { cli, path, result }
        })
        .collect()
}

/// What happened to one CLI's settings. Its `Display` is the message for the user.
#[derive(Debug)]
pub struct InstallOutcome {
    pub cli: Cli,
    /// The settings file, as the CLI names it (it may be a symlink).
    pub path: PathBuf,
    pub result: Result<InstallReport, InstallError>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct InstallReport {
    pub uninstall: bool,
    pub dry_run: bool,
    /// The file actually written: `path` itself, or the target of the link `path` is.
    pub target: PathBuf,
    /// What changed (or would change, on a dry run); empty when the file was already right.
    pub edits: Vec<Edit>,
    /// The file did not exist before.
    pub created: bool,
    /// The copy of the previous file this run made, if it made one (only the first run does).
    pub backup: Option<PathBuf>,
    /// Settings that will keep the CLI from running the hook even so.
    pub warnings: Vec<String>,
    /// The CLI's bridge file (pi's extension), when this run writes, updates or removes it.
    pub bridge: Option<(EditAction, PathBuf)>,
}

impl InstallReport {
    pub fn changed(&self) -> bool {
        !self.edits.is_empty() || self.bridge.is_some()
    }

    pub fn count(&self, action: EditAction) -> usize {
        self.edits.iter().filter(|edit| edit.action == action).count()
    }
}

#[derive(Debug, thiserror::Error)]
pub enum InstallError {
    #[error(
        "{} is not valid JSON (line {line}, column {column}: {reason}); Switchboard left it unchanged. \
         Fix it, then install again",
        path.display()
    )]
    Unparsable { path: PathBuf, line: usize, column: usize, reason: String },
    #[error(
        "{} has comments, which Switchboard cannot keep when it rewrites the file, so it left the file unchanged. \
         Remove the comments (or add the hooks by hand), then install again",
        path.display()
    )]
    HasComments { path: PathBuf },
    #[error("{}: {problem}, so Switchboard has no safe place for its hook there and left the file unchanged", path.display())]
    Shape { path: PathBuf, problem: ShapeError },
    #[error("{} is read-only, so Switchboard left it unchanged; make it writable, then install again", path.display())]
    ReadOnly { path: PathBuf },
    #[error("cannot {action} {}: {source}", path.display())]
    Io {
        action: &'static str,
        path: PathBuf,
        #[source]
        source: io::Error,
    },
    #[error(
        "{} exists and was not written by Switchboard, so Switchboard left it (and the CLI's settings) unchanged; \
         move it away, then install again",
        path.display()
    )]
    NotOurs { path: PathBuf },
    #[error("the switchboard binary's path {} is not an absolute UTF-8 path", path.display())]
    CommandPath { path: PathBuf },
}

fn install_one(cli: Cli, path: &Path, options: &InstallOptions) -> Result<InstallReport, InstallError> {
    let read::SettingsFile { target, original, settings } = read::load(cli, path)?;
    let events = version::wanted_events(cli, &options.versions);
    let plan = if options.uninstall {
        hook_config::plan_uninstall(&settings, cli)
    } else {
        hook_config::plan_install(&settings, cli, program(&options.command_path)?, &events)
    }
    .map_err(|problem| InstallError::Shape { path: target.clone(), problem })?;
    let bridge = bridge::plan(cli, &options.dirs, options.uninstall)?;

    let warnings = if options.uninstall {
        Vec::new()
    } else {
        let mut warnings: Vec<String> =
            status::settings_warnings(cli, &plan.settings, &options.dirs).into_iter().map(|w| w.message).collect();
        warnings.extend(messages::left_out(cli, &events, version::release_of(cli, &options.versions)));
        warnings
    };
    let mut report = InstallReport {
        uninstall: options.uninstall,
        dry_run: options.dry_run,
        target: target.clone(),
        edits: plan.edits,
        created: original.is_none(),
        backup: None,
        warnings,
        bridge,
    };
    // A hooks file of Switchboard's own (a flat layout) that uninstalling leaves empty goes: the
    // CLI reads every file of its hooks folder.
    let own_file_emptied = options.uninstall
        && cli.setup().layout != Layout::Groups
        && plan.settings.as_object().is_some_and(serde_json::Map::is_empty);
    let settings_changed = !report.edits.is_empty();
    if settings_changed && !options.dry_run && own_file_emptied {
        fs::remove_file(&target).map_err(|error| io_error("remove", &target, error))?;
    } else if settings_changed && !options.dry_run {
        let bytes = write::render(&plan.settings, original.as_ref().map(|original| original.bytes.as_slice()));
        report.backup = write::write_settings(path, &target, original.as_ref(), &bytes)?;
    }
    // After the hooks file: the bridge reads it when the CLI loads the bridge.
    if let (Some(change), Some(source), false) = (&report.bridge, cli.setup().bridge, options.dry_run) {
        bridge::apply(&source, change)?;
    }
    Ok(report)
}

fn program(command_path: &Path) -> Result<&str, InstallError> {
    command_path
        .to_str()
        .filter(|_| command_path.is_absolute())
        .ok_or_else(|| InstallError::CommandPath { path: command_path.to_owned() })
}

fn io_error(action: &'static str, path: &Path, source: io::Error) -> InstallError {
    let denied = matches!(source.kind(), io::ErrorKind::PermissionDenied | io::ErrorKind::ReadOnlyFilesystem);
    if denied && !action.starts_with("read") {
        InstallError::ReadOnly { path: path.to_owned() }
    } else {
        InstallError::Io { action, path: path.to_owned(), source }
    }
}

/// The homes, options and files the tests of every stage start from.
#[cfg(all(test, unix))]
mod testing;

#[cfg(all(test, unix))]
mod tests {
    use super::testing::*;
    use super::*;
    use serde_json::{json, Value};
    use std::fs;

    #[test]
    fn a_fresh_home_gets_one_hook_per_event_in_a_new_file() {
        for cli in Cli::all() {
            let home = home();
            let outcome = installed(&home, cli);
            let report = outcome.result.as_ref().unwrap();
            assert!(report.created && report.backup.is_none(), "{cli:?}");
            assert_eq!(report.count(EditAction::Add), cli.events().len());
            assert_eq!(outcome.path, home.dirs.settings_file(cli));
            let found = hook_config::installed(&json_at(&outcome.path), cli, cli.events());
            assert!(found.missing.is_empty(), "{cli:?}: {found:?}");
            assert_eq!(found.commands, [hook_config::hook_command(PROGRAM, cli)]);
            let message = outcome.to_string();
            assert!(
                message.contains(&format!("added the Switchboard hook for {} events", cli.events().len())),
                "{message}"
            );
            assert!(message.contains("(new file)"), "{message}");
        }
    }

    #[test]
    fn installing_twice_is_installing_once() {
        for cli in Cli::all() {
            let home = home();
            installed(&home, cli).result.unwrap();
            let path = home.dirs.settings_file(cli);
            let first = fs::read(&path).unwrap();
            let again = installed(&home, cli);
            assert!(!again.result.as_ref().unwrap().changed(), "{cli:?}");
            assert_eq!(fs::read(&path).unwrap(), first);
            assert!(again.to_string().contains("already connected"), "{again}");
        }
    }

    #[test]
    fn uninstall_leaves_the_user_s_settings_as_they_were() {
        for cli in Cli::all() {
            let home = home();
            let path = home.dirs.settings_file(cli);
            let (_, text) = user_settings(cli);
            write(&path, &text);
            installed(&home, cli).result.unwrap();
            let outcome = uninstalled(&home, cli);
            assert_eq!(outcome.result.as_ref().unwrap().count(EditAction::Remove), cli.events().len());
            assert!(outcome.to_string().contains("removed the Switchboard hook from"), "{outcome}");

            let mut expected: Value = serde_json::from_str(&text).unwrap();
            if cli == gemini() {
                expected["hooksConfig"] = json!({"enabled": true});
            }
            if let Layout::Flat { version } = cli.setup().layout {
                // Kept while the user's own hooks remain in the file.
                expected["version"] = json!(version);
            }
            assert_eq!(json_at(&path), expected, "{cli:?}");
            let backup = fs::read_to_string(format!("{}.switchboard.bak", path.display())).unwrap();
            assert_eq!(backup, text, "the backup is the user's original");
            assert!(uninstalled(&home, cli).to_string().contains("nothing to remove"));
        }
    }

    #[test]
    fn uninstall_with_no_settings_file_creates_nothing() {
        let home = home();
        let outcome = uninstalled(&home, claude());
        assert!(!outcome.result.unwrap().changed());
        assert!(!home.dirs.dir(claude()).exists());
    }

    #[test]
    fn settings_with_no_place_for_a_hook_are_refused() {
        let home = home();
        let path = home.dirs.settings_file(claude());
        write(&path, "{\"hooks\": []}");
        let error = installed(&home, claude()).result.unwrap_err();
        assert!(matches!(error, InstallError::Shape { .. }), "{error:?}");
        assert!(error.to_string().contains("`hooks` is not an object"), "{error}");
        assert_eq!(fs::read_to_string(&path).unwrap(), "{\"hooks\": []}");
    }

    #[test]
    fn the_command_path_must_be_absolute() {
        let home = home();
        let outcome = run(&InstallOptions { command_path: "switchboard".into(), ..options(&home, claude()) });
        assert!(matches!(outcome.result, Err(InstallError::CommandPath { .. })), "{:?}", outcome.result);
        assert!(!home.dirs.dir(claude()).exists());
    }

    #[test]
    fn uninstalling_leaves_no_empty_hooks_file_of_our_own() {
        let home = home();
        let copilot = cli("copilot");
        let path = home.dirs.settings_file(copilot);
        installed(&home, copilot).result.unwrap();
        assert_eq!(json_at(&path)["version"], 1);
        uninstalled(&home, copilot).result.unwrap();
        assert!(!path.exists(), "the file was Switchboard's alone");
        assert_eq!(listing(path.parent().unwrap()), Vec::<String>::new());
    }

    #[test]
    fn one_cli_failing_does_not_stop_the_others() {
        let home = home();
        write(&home.dirs.settings_file(claude()), "nope");
        let outcomes = install(&InstallOptions { clis: Cli::all().collect(), ..options(&home, claude()) });
        let ok: Vec<bool> = outcomes.iter().map(|outcome| outcome.result.is_ok()).collect();
        assert_eq!(ok.len(), Cli::all().count());
        assert_eq!((ok[0], ok[1..].iter().all(|ok| *ok)), (false, true), "{ok:?}");
    }

    #[test]
    fn config_dirs_follow_each_cli_s_environment_variables() {
        let vars = |pairs: &'static [(&'static str, &'static str)]| {
            move |name: &str| {
                pairs.iter().find(|(key, _)| *key == name).map(|(_, value)| std::ffi::OsString::from(value))
            }
        };
        let defaults = ConfigDirs::from_vars(vars(&[("HOME", "/home/u"), ("CODEX_HOME", "")])).unwrap();
        assert_eq!(defaults, ConfigDirs::in_home(Path::new("/home/u")));
        assert_eq!(defaults.settings_file(codex()), Path::new("/home/u/.codex/hooks.json"));
        let custom = ConfigDirs::from_vars(vars(&[
            ("HOME", "/home/u"),
            ("CLAUDE_CONFIG_DIR", "/cfg/claude"),
            ("CODEX_HOME", "/cfg/codex"),
            ("GEMINI_CLI_HOME", "/cfg"),
            ("XDG_CONFIG_HOME", "/xdg"),
            ("PI_CODING_AGENT_DIR", "/cfg/pi"),
        ]))
        .unwrap();
        let opencode = Cli::from_agent("opencode").unwrap();
        assert_eq!(custom.settings_file(opencode), Path::new("/xdg/opencode/switchboard-hooks.json"));
        assert_eq!(defaults.settings_file(opencode), Path::new("/home/u/.config/opencode/switchboard-hooks.json"));
        assert_eq!(custom.settings_file(Cli::from_agent("pi").unwrap()), Path::new("/cfg/pi/switchboard-hooks.json"));
        assert_eq!(custom.settings_file(claude()), Path::new("/cfg/claude/settings.json"));
        assert_eq!(custom.settings_file(codex()), Path::new("/cfg/codex/hooks.json"));
        assert_eq!(custom.settings_file(gemini()), Path::new("/cfg/.gemini/settings.json"));
        assert_eq!(ConfigDirs::from_vars(vars(&[("CODEX_HOME", "/cfg/codex")])), None);
        // Windows (issue 38): no HOME, the profile folder instead; HOME wins where both are set.
        let windows = ConfigDirs::from_vars(vars(&[("USERPROFILE", "/users/me")])).unwrap();
        assert_eq!(windows, ConfigDirs::in_home(Path::new("/users/me")));
        let both = ConfigDirs::from_vars(vars(&[("HOME", "/home/u"), ("USERPROFILE", "/users/me")])).unwrap();
        assert_eq!(both, defaults);
    }

    #[test]
    fn an_older_claude_code_is_not_given_an_event_it_would_reject_the_file_for() {
        let home = home();
        let old = Version(2, 1, 70);
        let outcome = run(&InstallOptions { versions: vec![(claude(), old)], ..options(&home, claude()) });
        let settings = json_at(&home.dirs.settings_file(claude()));
        assert!(!settings["hooks"].as_object().unwrap().contains_key("StopFailure"));
        assert_eq!(outcome.result.as_ref().unwrap().count(EditAction::Add), claude().events().len() - 1);
        let message = outcome.to_string();
        assert!(message.contains("Claude Code 2.1.70 predates the StopFailure hook event"), "{message}");
        assert_eq!(
            status(&home.dirs, Path::new(PROGRAM), &[(claude(), old)])[0].hooks,
            HooksState::Installed { current: true }
        );

        // After an update of Claude Code, installing again adds it.
        let newer = run(&InstallOptions { versions: vec![(claude(), Version(2, 1, 90))], ..options(&home, claude()) });
        assert_eq!(newer.result.unwrap().count(EditAction::Add), 1);
    }
}
