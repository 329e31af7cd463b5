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
mod tests {
    fn cli(id: &str) -> Cli {
        Cli::from_agent(id).unwrap()
    }

    use super::*;
    use crate::setup::install::{install, InstallOptions};
    use serde_json::Value;
    use std::fs;
    use std::os::unix::fs::PermissionsExt;
    use std::path::Path;

    struct Machine {
        home: tempfile::TempDir,
        bin: tempfile::TempDir,
        options: DoctorOptions,
    }

    const PROGRAM: &str = "/opt/switchboard/bin/switchboard";

    /// A temporary home with fake CLIs that print a version, and no Switchboard running.
    fn machine(clis: &[(&str, &str)]) -> Machine {
        let home = tempfile::tempdir().unwrap();
        let bin = tempfile::tempdir().unwrap();
        for (name, script) in clis {
            let path = bin.path().join(name);
            fs::write(&path, format!("#!/bin/sh\n{script}\n")).unwrap();
            fs::set_permissions(&path, fs::Permissions::from_mode(0o755)).unwrap();
        }
        let folder = home.path().join("project");
        fs::create_dir_all(&folder).unwrap();
        let vars = |name: &str| match name {
            "HOME" => Some(home.path().as_os_str().to_owned()),
            "PATH" => Some(bin.path().as_os_str().to_owned()),
            _ => None,
        };
        let options = DoctorOptions::from_vars(vars, PROGRAM.into(), home.path().join("state"), Some(folder)).unwrap();
        Machine { home, bin, options }
    }

    /// Each CLI's program as it says its version (the formats differ), and the version read.
    const VERSIONS: &[(&str, &str, &str)] = &[
        ("claude", "echo '2.1.332 (Claude Code)'", "2.1.332"),
        ("codex", "echo 'codex-cli 0.171.0'", "0.171.0"),
        ("gemini", "echo 0.61.0", "0.61.0"),
        ("qwen", "echo 0.24.4", "0.24.4"),
        ("copilot", "echo 'GitHub Copilot CLI 1.0.102.'", "1.0.102"),
        ("pi", "echo 0.73.1", "0.73.1"),
        ("opencode", "echo 1.18.33", "1.18.33"),
    ];

    /// Every CLI of the registry on PATH; one not in [`VERSIONS`] says `1.0.0`.
    fn all_clis() -> Machine {
        let stubs: Vec<(&str, &str)> = Cli::all()
            .map(|cli| {
                let program = cli.setup().program;
                let said =
                    VERSIONS.iter().find(|(id, ..)| *id == cli.agent()).map_or("echo 1.0.0", |(_, said, _)| said);
                (program, said)
            })
            .collect();
        machine(&stubs)
    }

    fn install_all(machine: &Machine) {
        let options = InstallOptions {
            clis: Cli::all().collect(),
            uninstall: false,
            dry_run: false,
            command_path: PROGRAM.into(),
            dirs: machine.options.dirs.clone(),
            versions: Vec::new(),
        };
        assert!(install(&options).iter().all(|outcome| outcome.result.is_ok()));
    }

    fn trust_codex(machine: &Machine) {
        let hooks_file = machine.options.dirs.settings_file(cli("codex"));
        let hooks: Value = serde_json::from_slice(&fs::read(&hooks_file).unwrap()).unwrap();
        fs::write(
            machine.options.dirs.dir(cli("codex")).join("config.toml"),
            crate::setup::codex_trust::trust_all(&hooks_file, &hooks),
        )
        .unwrap();
    }

    fn trust_folder(machine: &Machine) {
        let folder = machine.options.folder.as_ref().unwrap();
        let rules = json!({ folder.display().to_string(): "TRUST_FOLDER" });
        fs::write(&machine.options.gemini_trusted_folders, rules.to_string()).unwrap();
    }

    fn check<'a>(report: &'a DoctorReport, id: &str) -> &'a Check {
        report.checks().find(|check| check.id == id).unwrap_or_else(|| panic!("no check {id} in {report:#?}"))
    }

    fn examine_quietly(options: &DoctorOptions) -> DoctorReport {
        examine(options, |_| panic!("nothing to remove without an instance"))
    }

    #[test]
    fn an_unconfigured_home_fails_with_the_install_command_for_each_cli() {
        let machine = all_clis();
        let report = examine_quietly(&machine.options);
        assert!(!report.ok);
        for agent in Cli::all().map(Cli::agent) {
            let path = check(&report, &format!("{agent}.path"));
            assert_eq!(path.outcome, Outcome::Pass, "{path:?}");
            let hooks = check(&report, &format!("{agent}.hooks"));
            assert_eq!(hooks.outcome, Outcome::Fail);
            assert_eq!(hooks.fix.as_deref(), Some(format!("switchboard install {agent}").as_str()));
        }
        let versions: Vec<_> = report.agents.iter().map(|agent| agent.version.as_deref()).collect();
        let expected: Vec<_> = Cli::all()
            .map(|cli| Some(VERSIONS.iter().find(|(id, ..)| *id == cli.agent()).map_or("1.0.0", |(.., read)| read)))
            .collect();
        assert_eq!(versions, expected);
        assert_eq!(report.agents[0].path.as_deref(), Some(machine.bin.path().join("claude").to_str().unwrap()));
        assert_eq!(check(&report, "codex.trust").outcome, Outcome::Skip);
        assert_eq!(check(&report, "gemini.folder").outcome, Outcome::Fail);
        let running = check(&report, "switchboard.running");
        assert_eq!((running.outcome, running.fix.as_deref()), (Outcome::Fail, Some(START_SWITCHBOARD)));
        assert!(running.detail.contains("not running"), "{running:?}");
        assert_eq!(check(&report, "switchboard.roundTrip").outcome, Outcome::Skip);

        let text = report.to_string();
        assert!(text.contains("Claude Code 2.1.332\n"), "{text}");
        assert!(text.contains("      fix: switchboard install codex\n"), "{text}");
        assert!(text.ends_with("\n9 checks failed.\n"), "{text}");
    }

    #[test]
    fn installing_leaves_only_codex_trust_gemini_s_folder_and_the_instance() {
        let machine = all_clis();
        install_all(&machine);
        let report = examine_quietly(&machine.options);
        for agent in ["claude", "codex", "gemini"] {
            assert_eq!(check(&report, &format!("{agent}.hooks")).outcome, Outcome::Pass);
            assert_eq!(check(&report, &format!("{agent}.enabled")).outcome, Outcome::Pass);
        }
        let trust = check(&report, "codex.trust");
        assert_eq!(trust.outcome, Outcome::Fail);
        assert!(trust.detail.contains("not trusted yet: SessionStart"), "{trust:?}");
        assert!(trust.fix.as_deref().unwrap().contains("Trust all and continue"));
        let folder = check(&report, "gemini.folder");
        assert!(folder.fix.as_deref().unwrap().starts_with("run gemini in "), "{folder:?}");

        trust_codex(&machine);
        trust_folder(&machine);
        let report = examine_quietly(&machine.options);
        assert_eq!(check(&report, "codex.trust").outcome, Outcome::Pass);
        assert_eq!(check(&report, "gemini.folder").outcome, Outcome::Pass);
        assert_eq!(report.failed(), 1, "only the instance is missing: {report}");
    }

    #[test]
    fn a_cli_that_is_not_installed_is_skipped_not_failed() {
        let machine = machine(&[("claude", "echo 2.1.90")]);
        let report = examine_quietly(&machine.options);
        let codex = &report.agents[1];
        assert!(!codex.found);
        assert_eq!(codex.checks.len(), 1, "nothing else to check: {codex:?}");
        assert_eq!(codex.checks[0].outcome, Outcome::Skip);
        assert_eq!(codex.checks[0].fix.as_deref(), Some("npm install -g @openai/codex"));
        assert_eq!(check(&report, "claude.hooks").outcome, Outcome::Fail);

        // Not on PATH, but its folder is there: its settings are still checked.
        fs::create_dir_all(machine.options.dirs.dir(cli("gemini"))).unwrap();
        let report = examine_quietly(&machine.options);
        assert!(report.agents[2].found);
        assert_eq!(check(&report, "gemini.path").outcome, Outcome::Skip);
        assert_eq!(check(&report, "gemini.hooks").outcome, Outcome::Fail);
    }

    /// Issue 21.4: with no agent CLI on this machine the report never says all is well; the app
    /// shows this same summary line.
    #[test]
    fn with_no_agent_cli_here_the_report_says_so_and_is_not_ok() {
        let bare = machine(&[]);
        let report = examine_quietly(&bare.options);
        assert!(report.agents.iter().all(|agent| !agent.found));
        assert!(!report.ok);
        assert!(report.summary.starts_with("No agent CLI found on this machine"), "{}", report.summary);
        assert!(report.to_string().ends_with(&format!("\n{}\n", report.summary)));
        // One CLI here: the summary is the count of failed checks, as `doctor` prints it.
        let one = machine(&[("claude", "echo 2.1.90")]);
        let report = examine_quietly(&one.options);
        let expected = match report.failed() {
            0 => "All checks passed.".to_owned(),
            1 => "1 check failed.".to_owned(),
            n => format!("{n} checks failed."),
        };
        assert_eq!(report.summary, expected);
    }

    #[test]
    fn a_hanging_version_is_cut_short_and_the_cli_still_counts_as_found() {
        // Hangs far longer than the bound below, which only turns a doctor that waits for it into
        // a failure instead of a hung test (`exec`: the kill at the deadline ends the sleep).
        let mut machine = machine(&[("gemini", "exec sleep 600")]);
        machine.options.version_deadline = Duration::from_millis(200);
        let (done, examined) = std::sync::mpsc::channel();
        let options = machine.options.clone();
        std::thread::spawn(move || {
            let _ = done.send(examine_quietly(&options));
        });
        let report = examined.recv_timeout(Duration::from_secs(60)).expect("examined, the hanging version cut short");
        let path = check(&report, "gemini.path");
        assert_eq!(path.outcome, Outcome::Pass);
        assert!(path.detail.contains("gave no version"), "{path:?}");
        assert_eq!(report.agents[2].version, None);
    }

    #[test]
    fn settings_that_switch_hooks_off_fail_with_their_own_fix() {
        let machine = all_clis();
        install_all(&machine);
        let gemini = machine.options.dirs.settings_file(cli("gemini"));
        let mut settings: Value = serde_json::from_slice(&fs::read(&gemini).unwrap()).unwrap();
        settings["hooksConfig"]["enabled"] = false.into();
        fs::write(&gemini, settings.to_string()).unwrap();
        fs::write(machine.options.dirs.dir(cli("codex")).join("config.toml"), "[features]\nhooks = false\n").unwrap();

        let report = examine_quietly(&machine.options);
        let enabled = check(&report, "gemini.enabled");
        assert_eq!(enabled.outcome, Outcome::Fail);
        assert!(enabled.detail.contains("`hooksConfig.enabled` is false"), "{enabled:?}");
        assert!(enabled.fix.as_deref().unwrap().contains("\"hooksConfig\": {\"enabled\": true}"), "{enabled:?}");
        let codex = check(&report, "codex.enabled");
        assert!(codex.fix.as_deref().unwrap().starts_with("delete `hooks = false` under [features]"), "{codex:?}");
        assert_eq!(check(&report, "claude.enabled").outcome, Outcome::Pass);
    }

    #[test]
    fn moved_or_partial_hooks_ask_for_a_new_install() {
        let machine = all_clis();
        install_all(&machine);
        let moved = DoctorOptions { command_path: "/elsewhere/switchboard".into(), ..machine.options.clone() };
        let hooks = check(&examine_quietly(&moved), "claude.hooks").clone();
        assert_eq!(hooks.outcome, Outcome::Fail);
        assert!(hooks.detail.contains("another switchboard binary"), "{hooks:?}");

        fs::write(machine.options.dirs.settings_file(cli("claude")), "{\"hooks\": [}").unwrap();
        let report = examine_quietly(&machine.options);
        let unreadable = check(&report, "claude.hooks");
        assert!(unreadable.detail.contains("not valid JSON"), "{unreadable:?}");
        assert_eq!(check(&report, "claude.enabled").outcome, Outcome::Skip);
    }

    #[test]
    fn gemini_folder_trust_follows_the_longest_rule() {
        let rules = |pairs: &[(&str, &str)]| -> Vec<(String, String)> {
            pairs.iter().map(|(path, level)| (path.to_string(), level.to_string())).collect()
        };
        let folder = Path::new("/nonexistent/src/app");
        assert_eq!(folder_trust(folder, &rules(&[("/nonexistent/src", "TRUST_FOLDER")])), Some(true));
        assert_eq!(folder_trust(folder, &rules(&[("/nonexistent/src/app/x", "TRUST_FOLDER")])), None);
        assert_eq!(folder_trust(folder, &rules(&[("/nonexistent/src/other", "TRUST_PARENT")])), Some(true));
        assert_eq!(folder_trust(Path::new("/nonexistent/srcx"), &rules(&[("/nonexistent/src", "TRUST_FOLDER")])), None);
        let mixed = rules(&[("/nonexistent", "TRUST_FOLDER"), ("/nonexistent/src", "DO_NOT_TRUST")]);
        assert_eq!(folder_trust(folder, &mixed), Some(false));
        assert_eq!(folder_trust(Path::new("/nonexistent/lib"), &mixed), Some(true));
    }

    #[test]
    fn gemini_folder_trust_can_be_overridden_or_switched_off() {
        let mut machine = all_clis();
        install_all(&machine);
        machine.options.gemini_trust_workspace = Some("true".into());
        assert_eq!(check(&examine_quietly(&machine.options), "gemini.folder").outcome, Outcome::Pass);
        machine.options.gemini_trust_workspace = None;
        let gemini = machine.options.dirs.settings_file(cli("gemini"));
        let mut settings: Value = serde_json::from_slice(&fs::read(&gemini).unwrap()).unwrap();
        settings["security"] = json!({"folderTrust": {"enabled": false}});
        fs::write(&gemini, settings.to_string()).unwrap();
        assert_eq!(check(&examine_quietly(&machine.options), "gemini.folder").outcome, Outcome::Pass);

        // In the app there is no current folder: the count of trusted folders, not a verdict.
        fs::write(&gemini, "{}").unwrap();
        trust_folder(&machine);
        machine.options.folder = None;
        let folder = check(&examine_quietly(&machine.options), "gemini.folder").clone();
        assert_eq!(folder.outcome, Outcome::Skip);
        assert!(folder.detail.contains("1 trusted in"), "{folder:?}");
        fs::write(&machine.options.gemini_trusted_folders, "[1").unwrap();
        assert_eq!(check(&examine_quietly(&machine.options), "gemini.folder").outcome, Outcome::Fail);
    }

    #[test]
    fn a_stale_endpoint_file_fails_the_instance_check() {
        let machine = all_clis();
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        drop(listener);
        Endpoint { port, key: "k".repeat(48), pid: 1, ..Endpoint::default() }
            .write(&machine.options.state_dir)
            .unwrap();
        let report = examine_quietly(&machine.options);
        let running = check(&report, "switchboard.running");
        assert_eq!(running.outcome, Outcome::Fail);
        assert!(running.detail.contains("not answering"), "{running:?}");
        assert_eq!(running.fix.as_deref(), Some(START_SWITCHBOARD));
        let _ = machine.home;
    }

    #[test]
    fn the_test_event_goes_through_a_running_instance_and_is_handed_back_for_removal() {
        let machine = all_clis();
        install_all(&machine);
        trust_codex(&machine);
        trust_folder(&machine);
        let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(1).enable_all().build().unwrap();
        let config = crate::Config {
            state_dir: machine.options.state_dir.clone(),
            notify: false,
            persist: false,
            ages: Default::default(),
            cli_dirs: None,
            decide: None,
        };
        let instance = runtime.block_on(crate::Instance::start(config)).unwrap();

        let mut removed = None;
        let report = examine(&machine.options, |id| removed = Some(id.to_owned()));
        let removed = removed.expect("the test session is handed back");
        assert!(removed.starts_with(DOCTOR_SESSION_PREFIX), "{removed}");
        let session = instance.hub.snapshot().sessions.into_iter().find(|s| s.session_id == removed).unwrap();
        assert!(session.ended && session.status.is_none() && !session.unread, "{session:?}");
        assert_eq!(check(&report, "switchboard.running").outcome, Outcome::Pass);
        assert_eq!(check(&report, "switchboard.roundTrip").outcome, Outcome::Pass, "{report}");
        assert!(report.ok, "{report}");
        assert!(report.to_string().ends_with("All checks passed.\n"));
        runtime.block_on(instance.stop());
    }
}
