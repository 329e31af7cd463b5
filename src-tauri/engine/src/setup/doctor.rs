//! `switchboard doctor`: is every agent CLI on this machine connected, and does an event get
//! through? The same report feeds the app's empty state and its Connections panel.
//!
//! Checks that only one CLI has are that CLI's file here (`doctor/codex.rs`, `doctor/gemini.rs`).
//!
//! Per CLI (Claude Code, Codex CLI, Gemini CLI): on `PATH` and its `--version` (run with a short
//! deadline, all three at once); Switchboard's hooks registered for this binary
//! ([`install::status`]); nothing in the settings switching hooks off; for Codex, each hook
//! trusted ([`codex_trust`]); for Gemini CLI, the folder trusted (`trustedFolders.json`), since
//! Gemini runs no hook at all in an untrusted folder. Then Switchboard itself: an instance
//! answering at the endpoint file, and a `custom` test event sent the way the CLIs send theirs
//! (the `hook` forwarder) that shows up in `GET /sessions`.
//!
//! Each failed check carries the one thing that fixes it. A CLI that is not on this machine at
//! all is skipped, not failed.

use std::ffi::OsString;
use std::fmt;
use std::io::Cursor;
use std::path::PathBuf;
use std::process::Command;
use std::time::{Duration, Instant};

use serde::Serialize;
use serde_json::json;

use crate::client::status;
use crate::endpoint::Endpoint;
use crate::hook;
use crate::setup::install::{self, Cli, CliStatus, ConfigDirs, HooksState, Version};

mod codex;
mod gemini;
mod instance;

use instance::switchboard_checks;
pub use instance::START_SWITCHBOARD;

use codex::codex_trust_check;
#[cfg(test)]
use gemini::folder_trust;

/// Test events are sent with session ids that start with this; the canvas and `status` hide them.
pub use crate::protocol::DOCTOR_SESSION_PREFIX;

/// How long each `<cli> --version` may take (they run side by side).
pub const VERSION_DEADLINE: Duration = Duration::from_secs(3);
/// How long the test event may take to show up in the snapshot.
const ROUND_TRIP_DEADLINE: Duration = Duration::from_secs(3);

/// Everything the doctor reads, so tests can point it at a temporary home.
#[derive(Debug, Clone)]
pub struct DoctorOptions {
    pub dirs: ConfigDirs,
    /// `$PATH`, where the CLIs are looked for.
    pub search_path: Option<OsString>,
    /// The `switchboard` binary the hooks should run.
    pub command_path: PathBuf,
    /// Switchboard's state directory (the endpoint file).
    pub state_dir: PathBuf,
    /// The folder whose Gemini CLI trust is checked (the current one); `None` in the app.
    pub folder: Option<PathBuf>,
    /// `$GEMINI_CLI_TRUST_WORKSPACE`: `true`/`false` overrides Gemini's folder trust.
    pub gemini_trust_workspace: Option<String>,
    /// `$GEMINI_CLI_TRUSTED_FOLDERS_PATH`, else `trustedFolders.json` in Gemini's folder.
    pub gemini_trusted_folders: PathBuf,
    pub version_deadline: Duration,
}

impl DoctorOptions {
    /// From this process's environment; `None` when `HOME` is unset and some CLI has no override.
    pub fn from_env(command_path: PathBuf, state_dir: PathBuf, folder: Option<PathBuf>) -> Option<Self> {
        Self::from_vars(|name| std::env::var_os(name), command_path, state_dir, folder)
    }

    pub fn from_vars(
        var: impl Fn(&str) -> Option<OsString>,
        command_path: PathBuf,
        state_dir: PathBuf,
        folder: Option<PathBuf>,
    ) -> Option<Self> {
        let dirs = ConfigDirs::from_vars(&var)?;
        let set = |name: &str| var(name).filter(|value| !value.is_empty());
        let gemini_trusted_folders = set("GEMINI_CLI_TRUSTED_FOLDERS_PATH")
            .map(PathBuf::from)
            .unwrap_or_else(|| gemini::default_trusted_folders(&dirs));
        Some(Self {
            search_path: set("PATH"),
            gemini_trust_workspace: set("GEMINI_CLI_TRUST_WORKSPACE").map(|value| value.to_string_lossy().into_owned()),
            gemini_trusted_folders,
            dirs,
            command_path,
            state_dir,
            folder,
            version_deadline: VERSION_DEADLINE,
        })
    }
}

/// What the doctor found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct DoctorReport {
    /// No check failed, and at least one agent CLI is on this machine.
    pub ok: bool,
    /// Claude Code, Codex CLI and Gemini CLI, in that order.
    pub agents: Vec<AgentReport>,
    /// The running instance and the test event.
    pub switchboard: Vec<Check>,
    /// The report in one line, the same for `doctor` and the app: how many checks failed, or
    /// that all passed, or that no agent CLI is on this machine at all.
    pub summary: String,
}

/// One CLI's connection.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct AgentReport {
    /// The agent id: `claude`, `codex`, `gemini`.
    pub agent: String,
    /// The product's name: "Claude Code".
    pub name: String,
    /// On `PATH`, or its config folder exists: it is used on this machine.
    pub found: bool,
    /// Where it is on `PATH`.
    pub path: Option<String>,
    /// What `<cli> --version` said (the release number when there is one).
    pub version: Option<String>,
    pub checks: Vec<Check>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct Check {
    /// Stable: `<agent>.path|hooks|enabled|trust|folder`, `switchboard.running|roundTrip`.
    pub id: String,
    /// What is checked, in a few words: "Hooks installed".
    pub label: String,
    pub outcome: Outcome,
    /// What was found.
    pub detail: String,
    /// The one command or step that fixes a failure (for a skip: how to get started).
    pub fix: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "lowercase")]
pub enum Outcome {
    Pass,
    Fail,
    /// Does not apply here (a CLI that is not installed, a check that needs a failed one).
    Skip,
}

impl Check {
    fn new(id: String, label: &str, outcome: Outcome, detail: impl Into<String>, fix: Option<String>) -> Self {
        Check { id, label: label.to_owned(), outcome, detail: detail.into(), fix }
    }
}

impl DoctorReport {
    pub fn checks(&self) -> impl Iterator<Item = &Check> {
        self.agents.iter().flat_map(|agent| &agent.checks).chain(&self.switchboard)
    }

    pub fn failed(&self) -> usize {
        self.checks().filter(|check| check.outcome == Outcome::Fail).count()
    }

    fn summarize(&self) -> String {
        let none_here = self.agents.iter().all(|agent| !agent.found);
        let failed = match self.failed() {
            0 if none_here => String::new(),
            0 => "All checks passed.".to_owned(),
            1 => "1 check failed.".to_owned(),
            failed => format!("{failed} checks failed."),
        };
        if none_here {
            let names: Vec<&str> = self.agents.iter().map(|agent| agent.name.as_str()).collect();
            format!("No agent CLI found on this machine: install {} first. {failed}", names.join(", "))
                .trim_end()
                .to_owned()
        } else {
            failed
        }
    }
}

/// Runs every check. `remove_test_session` is called with the test event's session id once it
/// has been seen (the app removes it from its hub; `switchboard doctor` has no way to, so the
/// session is sent as ended and hidden by its [`DOCTOR_SESSION_PREFIX`]).
pub fn examine(options: &DoctorOptions, remove_test_session: impl FnOnce(&str)) -> DoctorReport {
    let found = find_clis(options);
    let versions: Vec<(Cli, Version)> = Cli::all()
        .zip(&found)
        .filter_map(|(cli, (_, version))| Some((cli, version.as_deref().and_then(Version::parse)?)))
        .collect();
    let statuses = install::status(&options.dirs, &options.command_path, &versions);
    let agents: Vec<AgentReport> = statuses
        .iter()
        .zip(found)
        .map(|(status, (path, version))| agent_report(options, status, path, version))
        .collect();
    let switchboard = switchboard_checks(options, remove_test_session);
    let mut report = DoctorReport { ok: true, agents, switchboard, summary: String::new() };
    report.ok = report.failed() == 0 && report.agents.iter().any(|agent| agent.found);
    report.summary = report.summarize();
    report
}

/// Each CLI's place on `PATH` and `--version` output, looked up side by side.
fn find_clis(options: &DoctorOptions) -> Vec<(Option<PathBuf>, Option<String>)> {
    std::thread::scope(|scope| {
        let lookups: Vec<_> = Cli::all()
            .map(|cli| {
                scope.spawn(move || {
                    let path = on_path(cli.setup().program, options.search_path.as_deref())?;
                    let output =
                        install::version_output(Command::new(&path).arg("--version"), options.version_deadline);
                    Some((path, output))
                })
            })
            .collect();
        lookups
            .into_iter()
            .map(|lookup| match lookup.join().ok().flatten() {
                Some((path, output)) => (Some(path), output.as_deref().and_then(version_text)),
                None => (None, None),
            })
            .collect()
    })
}

/// The first executable file called `name` in `search_path`.
fn on_path(name: &str, search_path: Option<&std::ffi::OsStr>) -> Option<PathBuf> {
    std::env::split_paths(search_path?)
        .filter(|dir| dir.is_absolute())
        .find_map(|dir| crate::platform::program_in(&dir, name))
}

/// The release number in a `--version` output, else its first line (clipped).
fn version_text(output: &str) -> Option<String> {
    if let Some(version) = Version::parse(output) {
        return Some(version.to_string());
    }
    let line = output.lines().map(str::trim).find(|line| !line.is_empty())?;
    Some(line.chars().take(60).collect())
}

/// `doctor`'s check of a CLI's own (its module here), by agent id: the one place the doctor names
/// one: (the check's id after `<agent>.`, the check).
type OwnCheck = fn(&DoctorOptions, &CliStatus, String) -> Check;

fn own_check(cli: Cli) -> Option<(&'static str, OwnCheck)> {
    match cli.agent() {
        "codex" => Some(("trust", |_, status, id| codex_trust_check(status, id))),
        gemini::ID => Some(("folder", |options, status, id| gemini::gemini_folder_check(options, status.cli, id))),
        _ => None,
    }
}

fn agent_report(
    options: &DoctorOptions,
    status: &CliStatus,
    path: Option<PathBuf>,
    version: Option<String>,
) -> AgentReport {
    let cli = status.cli;
    let agent = cli.agent();
    let id = |check: &str| format!("{agent}.{check}");
    let install = format!("switchboard install {agent}");
    let mut checks = Vec::new();

    let found = path.is_some() || status.found;
    checks.push(match (&path, &version) {
        (Some(path), Some(version)) => {
            Check::new(id("path"), "Installed", Outcome::Pass, format!("{} {version}", path.display()), None)
        }
        (Some(path), None) => Check::new(
            id("path"),
            "Installed",
            Outcome::Pass,
            format!(
                "{}; `{agent} --version` gave no version within {} s",
                path.display(),
                options.version_deadline.as_secs_f32()
            ),
            None,
        ),
        (None, _) if status.found => Check::new(
            id("path"),
            "Not on PATH",
            Outcome::Skip,
            format!(
                "`{agent}` is not on PATH, but {} exists: checking its settings anyway",
                status.config_dir.display()
            ),
            None,
        ),
        (None, _) => Check::new(
            id("path"),
            "Not installed",
            Outcome::Skip,
            format!("not installed: no `{agent}` on PATH and no {}", status.config_dir.display()),
            Some(cli.setup().install_hint.to_owned()),
        ),
    });
    if !found {
        return AgentReport { agent: agent.into(), name: cli.name().into(), found, path: None, version: None, checks };
    }

    let file = status.settings_file.display();
    checks.push(match &status.hooks {
        HooksState::Installed { current: true } => {
            Check::new(id("hooks"), "Hooks installed", Outcome::Pass, format!("for every event, in {file}"), None)
        }
        HooksState::Installed { current: false } => Check::new(
            id("hooks"),
            "Hooks installed",
            Outcome::Fail,
            format!("the hooks in {file} run another switchboard binary than {}", options.command_path.display()),
            Some(install.clone()),
        ),
        HooksState::Partial { missing } => Check::new(
            id("hooks"),
            "Hooks installed",
            Outcome::Fail,
            format!("missing for {} in {file}", missing.join(", ")),
            Some(install.clone()),
        ),
        HooksState::NotInstalled => Check::new(
            id("hooks"),
            "Hooks installed",
            Outcome::Fail,
            format!("no Switchboard hook in {file}"),
            Some(install.clone()),
        ),
        HooksState::Unreadable { message } => Check::new(
            id("hooks"),
            "Hooks installed",
            Outcome::Fail,
            message.clone(),
            Some(format!("fix {file} (see above), then run {install}")),
        ),
    });

    let readable = !matches!(status.hooks, HooksState::Unreadable { .. });
    checks.push(match status.warnings.first() {
        _ if !readable => {
            Check::new(id("enabled"), "Hooks switched on", Outcome::Skip, "the settings cannot be read", None)
        }
        None => Check::new(id("enabled"), "Hooks switched on", Outcome::Pass, "no setting turns them off", None),
        Some(first) => Check::new(
            id("enabled"),
            "Hooks switched on",
            Outcome::Fail,
            status.warnings.iter().map(|warning| warning.message.as_str()).collect::<Vec<_>>().join("; "),
            Some(first.fix.clone()),
        ),
    });

    if let Some((check_id, check)) = own_check(cli) {
        checks.push(check(options, status, id(check_id)));
    }
    AgentReport {
        agent: agent.into(),
        name: cli.name().into(),
        found,
        path: path.map(|path| path.display().to_string()),
        version,
        checks,
    }
}

impl fmt::Display for DoctorReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let sections = self
            .agents
            .iter()
            .map(|agent| {
                let version = agent.version.as_deref().map(|version| format!(" {version}")).unwrap_or_default();
                (format!("{}{version}", agent.name), &agent.checks)
            })
            .chain(std::iter::once(("Switchboard".to_owned(), &self.switchboard)));
        for (heading, checks) in sections {
            writeln!(f, "{heading}")?;
            for check in checks {
                let mark = match check.outcome {
                    Outcome::Pass => "✓",
                    Outcome::Fail => "✗",
                    Outcome::Skip => "-",
                };
                writeln!(f, "  {mark} {:<20} {}", check.label, check.detail)?;
                if let Some(fix) = &check.fix {
                    let verb = if check.outcome == Outcome::Fail { "fix" } else { "hint" };
                    writeln!(f, "      {verb}: {fix}")?;
                }
            }
        }
        writeln!(f, "\n{}", self.summary)
    }
}

#[cfg(test)]
mod tests;
