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
            let said = VERSIONS.iter().find(|(id, ..)| *id == cli.agent()).map_or("echo 1.0.0", |(_, said, _)| said);
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
    Endpoint { port, key: "k".repeat(48), pid: 1, ..Endpoint::default() }.write(&machine.options.state_dir).unwrap();
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
