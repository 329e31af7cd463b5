//! `switchboard doctor` as a process: an unconfigured home, then one where every CLI is
//! connected and a `serve` instance answers; and in both, the app's Connections panel says the
//! same, check by check.

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use serde_json::Value;
use switchboard_engine::api;
use switchboard_engine::setup::doctor::{self, DoctorReport};

use crate::support::{Serve, BIN};

/// A home with fake `claude`, `codex` and `gemini` that print a version, and a project folder.
struct Machine {
    root: tempfile::TempDir,
}

impl Machine {
    fn new() -> Self {
        let root = tempfile::tempdir().unwrap();
        let bin = root.path().join("bin");
        fs::create_dir_all(&bin).unwrap();
        for (name, version) in
            [("claude", "2.1.332 (Claude Code)"), ("codex", "codex-cli 0.171.0"), ("gemini", "0.61.0")]
        {
            let path = bin.join(name);
            fs::write(&path, format!("#!/bin/sh\necho '{version}'\n")).unwrap();
            fs::set_permissions(&path, fs::Permissions::from_mode(0o755)).unwrap();
        }
        fs::create_dir_all(root.path().join("home/project")).unwrap();
        Self { root }
    }

    fn path(&self, relative: &str) -> PathBuf {
        self.root.path().join(relative)
    }

    /// This machine's whole environment, with Switchboard's state in `state_dir`; Codex's folder
    /// is moved with `$CODEX_HOME`.
    fn env(&self, state_dir: &Path) -> Vec<(&'static str, PathBuf)> {
        vec![
            ("HOME", self.path("home")),
            ("PATH", self.path("bin")),
            ("CODEX_HOME", self.path("codex-home")),
            ("SWITCHBOARD_HOME", state_dir.to_owned()),
            ("SWITCHBOARD_NO_NOTIFY", "1".into()),
        ]
    }

    /// Runs `switchboard <args>` in the project folder with only this machine's environment.
    fn run(&self, state_dir: &Path, args: &[&str]) -> Output {
        Command::new(BIN)
            .args(args)
            .env_clear()
            .envs(self.env(state_dir))
            .current_dir(self.path("home/project"))
            .stdin(Stdio::null())
            .output()
            .unwrap()
    }

    /// The report the app's Connections panel gets on this machine: `api::doctor` with no folder,
    /// its hooks running the `switchboard` beside the app's binary (this one, as the running
    /// process names itself), read from this machine's environment rather than the test's.
    fn app_report(&self, state_dir: &Path) -> DoctorReport {
        let env = self.env(state_dir);
        let var = |name: &str| env.iter().find(|(key, _)| *key == name).map(|(_, value)| value.clone().into());
        let command_path = fs::canonicalize(BIN).unwrap();
        // The very function the app's command calls, on this machine's environment.
        api::doctor_in(var, command_path, state_dir.to_owned(), None, |session_id| {
            api::remove_through_instance(state_dir, session_id);
        })
        .unwrap()
    }

    /// What Codex's "Trust all and continue" writes.
    fn trust_codex_hooks(&self) {
        let hooks_file = self.path("codex-home/hooks.json");
        let hooks: Value = serde_json::from_slice(&fs::read(&hooks_file).unwrap()).unwrap();
        let trust = switchboard_engine::setup::codex_trust::trust_all(&hooks_file, &hooks);
        fs::write(self.path("codex-home/config.toml"), trust).unwrap();
    }

    /// What Gemini CLI's "Trust folder" writes, run in the project folder.
    fn trust_project_folder(&self) {
        let folder = self.path("home/project").display().to_string();
        fs::create_dir_all(self.path("home/.gemini")).unwrap();
        fs::write(
            self.path("home/.gemini/trustedFolders.json"),
            serde_json::json!({ folder: "TRUST_FOLDER" }).to_string(),
        )
        .unwrap();
    }
}

fn stdout(output: &Output) -> String {
    String::from_utf8(output.stdout.clone()).unwrap()
}

#[test]
fn an_unconfigured_home_fails_and_names_the_fix_for_each_check() {
    let machine = Machine::new();
    let state = tempfile::tempdir().unwrap();
    let output = machine.run(state.path(), &["doctor"]);
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    let text = stdout(&output);
    assert!(text.starts_with("Claude Code 2.1.332\n"), "{text}");
    assert!(text.contains("Codex CLI 0.171.0\n") && text.contains("Gemini CLI 0.61.0\n"), "{text}");
    for agent in ["claude", "codex", "gemini"] {
        assert!(text.contains(&format!("      fix: switchboard install {agent}\n")), "{text}");
    }
    let codex_hooks = machine.path("codex-home/hooks.json").display().to_string();
    assert!(text.contains(&format!("no Switchboard hook in {codex_hooks}")), "CODEX_HOME is followed: {text}");
    assert!(text.contains("fix: run gemini in ") && text.contains("choose \"Trust folder\""), "{text}");
    assert!(
        text.contains("      fix: start the app (`switchboard`), or `switchboard serve` where there is no display\n"),
        "{text}"
    );
    assert!(text.ends_with("\n5 checks failed.\n"), "{text}");

    let json = machine.run(state.path(), &["doctor", "--json"]);
    assert_eq!(json.status.code(), Some(1));
    let report: Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(report["ok"], false);
    assert_eq!(report["agents"][1]["version"], "0.171.0");
    let running = &report["switchboard"][0];
    assert_eq!((&running["id"], &running["outcome"]), (&"switchboard.running".into(), &"fail".into()));
    assert_eq!(report["switchboard"][1]["outcome"], "skip");
}

#[test]
fn a_connected_home_with_a_running_instance_passes_and_its_test_event_arrives() {
    let machine = Machine::new();
    let serve = Serve::start();
    let install = machine.run(serve.home(), &["install"]);
    assert!(install.status.success(), "{install:?}");

    // Before Codex trusts the hooks and Gemini the folder, those two fail with their fixes.
    let half = machine.run(serve.home(), &["doctor"]);
    assert_eq!(half.status.code(), Some(1));
    let text = stdout(&half);
    assert!(text.contains("✗ Hooks trusted") && text.contains("not trusted yet: SessionStart"), "{text}");
    assert!(text.contains("Trust all and continue"), "{text}");
    assert!(text.ends_with("\n2 checks failed.\n"), "{text}");

    machine.trust_codex_hooks();
    machine.trust_project_folder();
    let folder = machine.path("home/project").display().to_string();

    let output = machine.run(serve.home(), &["doctor"]);
    let text = stdout(&output);
    assert_eq!(output.status.code(), Some(0), "{text}");
    let events = switchboard_core::hook_config::Cli::from_agent("codex").unwrap().events().len();
    assert!(
        text.contains(&format!("✓ Hooks trusted        Codex trusts all {events} of Switchboard's hooks")),
        "{text}"
    );
    assert!(text.contains(&format!("✓ Folder trusted       {folder} is trusted")), "{text}");
    assert!(text.contains(&format!("pid {}", serve.child.id())), "{text}");
    assert!(text.contains("✓ Test event"), "{text}");
    assert!(text.ends_with("\nAll checks passed.\n"), "{text}");

    // The test events went through the real server, and doctor removed them again afterwards.
    let sessions = serve.sessions();
    let left = sessions["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["sessionId"].as_str().unwrap().starts_with("switchboard-doctor-"))
        .count();
    assert_eq!(left, 0, "doctor cleans up its test sessions: {sessions}");
    let status = machine.run(serve.home(), &["status"]);
    assert!(stdout(&status).starts_with("No sessions yet"), "{status:?}");
}

/// Runs `switchboard doctor --json` in the project folder and the app's doctor for the same
/// machine, and checks that they agree: the same CLIs, the same checks in the same order, each
/// with the same outcome, detail and fix. The one difference by design is Gemini CLI's folder
/// trust, which only the command line can judge (it knows the folder it runs in); the app skips
/// it with the general rule. Returns that check as each tells it: (command line, app).
fn doctor_and_app(machine: &Machine, state_dir: &Path) -> (Value, Value, Value, Value) {
    let output = machine.run(state_dir, &["doctor", "--json"]);
    let cli: Value = serde_json::from_slice(&output.stdout).unwrap_or_else(|e| panic!("{e}: {output:?}"));
    let app = serde_json::to_value(machine.app_report(state_dir)).unwrap();
    assert_eq!(output.status.code(), Some(if cli["ok"] == true { 0 } else { 1 }), "{output:?}");

    let (cli_agents, app_agents) = (cli["agents"].as_array().unwrap(), app["agents"].as_array().unwrap());
    assert_eq!(cli_agents.len(), app_agents.len());
    for (cli_agent, app_agent) in cli_agents.iter().zip(app_agents) {
        let about = |agent: &Value| {
            let mut agent = agent.clone();
            agent.as_object_mut().unwrap().remove("checks");
            agent
        };
        assert_eq!(about(cli_agent), about(app_agent), "CLI found, path and version");
    }
    let checks = |report: &Value| -> Vec<Value> {
        let agents = report["agents"].as_array().unwrap().iter().flat_map(|agent| agent["checks"].as_array().unwrap());
        agents.chain(report["switchboard"].as_array().unwrap()).cloned().collect()
    };
    let (cli_checks, app_checks) = (checks(&cli), checks(&app));
    let ids =
        |checks: &[Value]| checks.iter().map(|check| check["id"].as_str().unwrap().to_owned()).collect::<Vec<_>>();
    assert_eq!(ids(&cli_checks), ids(&app_checks), "the same checks in the same order");
    assert!(ids(&cli_checks).contains(&"gemini.folder".to_owned()), "{cli:#}");

    let mut folder = None;
    for (mut on_cli, mut in_app) in cli_checks.into_iter().zip(app_checks) {
        if on_cli["id"] == "gemini.folder" {
            folder = Some((on_cli, in_app));
            continue;
        }
        if on_cli["id"] == "switchboard.roundTrip" {
            for check in [&mut on_cli, &mut in_app] {
                check["detail"] = without_timing(check["detail"].as_str().unwrap()).into();
            }
        }
        assert_eq!(on_cli, in_app, "the command line and the app disagree");
    }
    let (on_cli, in_app) = folder.unwrap();
    (cli, app, on_cli, in_app)
}

/// The test event's detail without how many milliseconds it took (each run has its own).
fn without_timing(detail: &str) -> String {
    match detail.split_once("seen in ") {
        Some((before, after)) => format!("{before}seen in N{}", after.trim_start_matches(|c: char| c.is_ascii_digit())),
        None => detail.to_owned(),
    }
}

fn failed(report: &Value) -> usize {
    let agents = report["agents"].as_array().unwrap().iter().flat_map(|agent| agent["checks"].as_array().unwrap());
    agents.chain(report["switchboard"].as_array().unwrap()).filter(|check| check["outcome"] == "fail").count()
}

/// The app's rule for the folder, with no folder to judge: a skip that counts the trusted ones.
fn assert_app_gives_the_general_rule(in_app: &Value, trusted: usize) {
    assert_eq!(in_app["outcome"], "skip", "{in_app}");
    let detail = in_app["detail"].as_str().unwrap();
    assert!(detail.starts_with("Gemini CLI runs hooks only in folders you trust;"), "{detail}");
    assert!(detail.contains(&format!("; {trusted} trusted in ")), "{detail}");
}

#[test]
fn the_app_and_doctor_agree_check_by_check_on_an_unconfigured_home() {
    let machine = Machine::new();
    let state = tempfile::tempdir().unwrap();
    let project = machine.path("home/project").display().to_string();

    let (cli, app, on_cli, in_app) = doctor_and_app(&machine, state.path());
    assert_eq!(on_cli["outcome"], "fail", "{on_cli}");
    assert!(on_cli["detail"].as_str().unwrap().starts_with(&format!("{project} is not a trusted folder")), "{on_cli}");
    assert_app_gives_the_general_rule(&in_app, 0);
    assert_eq!(failed(&cli), failed(&app) + 1, "only the folder's failure is the command line's own");
    assert_eq!((&cli["summary"], &app["summary"]), (&"5 checks failed.".into(), &"4 checks failed.".into()));
    assert_eq!((&cli["ok"], &app["ok"]), (&false.into(), &false.into()));

    machine.trust_project_folder();
    let (cli, app, on_cli, in_app) = doctor_and_app(&machine, state.path());
    assert_eq!(on_cli["outcome"], "pass", "{on_cli}");
    assert_eq!(on_cli["detail"], format!("{project} is trusted"));
    assert_app_gives_the_general_rule(&in_app, 1);
    assert_eq!(failed(&cli), failed(&app));
    assert_eq!(cli["summary"], app["summary"]);
    assert_eq!(cli["summary"], "4 checks failed.");
}

#[test]
fn the_app_and_doctor_agree_check_by_check_on_a_connected_home() {
    let machine = Machine::new();
    let serve = Serve::start();
    let install = machine.run(serve.home(), &["install"]);
    assert!(install.status.success(), "{install:?}");

    // Installed, but Codex has not trusted the hooks nor Gemini CLI the folder.
    let (cli, app, on_cli, in_app) = doctor_and_app(&machine, serve.home());
    assert_eq!(on_cli["outcome"], "fail", "{on_cli}");
    assert_app_gives_the_general_rule(&in_app, 0);
    assert_eq!(failed(&app), 1, "Codex's trust, in both: {app:#}");
    assert_eq!(failed(&cli), 2, "{cli:#}");

    machine.trust_codex_hooks();
    machine.trust_project_folder();
    let (cli, app, on_cli, in_app) = doctor_and_app(&machine, serve.home());
    assert_eq!(on_cli["outcome"], "pass", "{on_cli}");
    assert_app_gives_the_general_rule(&in_app, 1);
    assert_eq!((failed(&cli), failed(&app)), (0, 0));
    assert_eq!((&cli["summary"], &app["summary"]), (&"All checks passed.".into(), &"All checks passed.".into()));
    assert_eq!((&cli["ok"], &app["ok"]), (&true.into(), &true.into()));
    let round_trip = &cli["switchboard"][1];
    assert_eq!((&round_trip["id"], &round_trip["outcome"]), (&"switchboard.roundTrip".into(), &"pass".into()));

    // Both test events went through the running instance and were taken away again.
    let left = serve.sessions()["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["sessionId"].as_str().unwrap().starts_with(doctor::DOCTOR_SESSION_PREFIX))
        .count();
    assert_eq!(left, 0);
}
