//! `switchboard doctor` as a process: an unconfigured home, then one where every CLI is
//! connected and a `serve` instance answers.

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use serde_json::Value;

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

    /// Runs `switchboard <args>` in the project folder with only this machine's environment;
    /// Codex's folder is moved with `$CODEX_HOME`.
    fn run(&self, state_dir: &Path, args: &[&str]) -> Output {
        Command::new(BIN)
            .args(args)
            .env_clear()
            .env("HOME", self.path("home"))
            .env("PATH", self.path("bin"))
            .env("CODEX_HOME", self.path("codex-home"))
            .env("SWITCHBOARD_HOME", state_dir)
            .env("SWITCHBOARD_NO_NOTIFY", "1")
            .current_dir(self.path("home/project"))
            .stdin(Stdio::null())
            .output()
            .unwrap()
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

    // What Codex's "Trust all and continue" and Gemini's "Trust folder" write.
    let hooks_file = machine.path("codex-home/hooks.json");
    let hooks: Value = serde_json::from_slice(&fs::read(&hooks_file).unwrap()).unwrap();
    let trust = switchboard_engine::setup::codex_trust::trust_all(&hooks_file, &hooks);
    fs::write(machine.path("codex-home/config.toml"), trust).unwrap();
    let folder = machine.path("home/project").display().to_string();
    fs::write(
        machine.path("home/.gemini/trustedFolders.json"),
        serde_json::json!({ folder.clone(): "TRUST_FOLDER" }).to_string(),
    )
    .unwrap();

    let output = machine.run(serve.home(), &["doctor"]);
    let text = stdout(&output);
    assert_eq!(output.status.code(), Some(0), "{text}");
    let events = switchboard_core::hook_config::Cli::Codex.events().len();
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
