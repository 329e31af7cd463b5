//! `switchboard install` end to end: install into a temporary home, then run every installed
//! command line exactly as the CLI would (`sh -c '<command>'`, the payload on stdin) against a
//! running `switchboard serve`.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

use serde_json::Value;

use crate::support::{fixture, Serve, BIN};

/// Every command registered for `event` in a Claude/Codex/Gemini-style hooks object.
fn commands_for(settings: &Value, event: &str) -> Vec<String> {
    settings["hooks"][event]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|group| group["hooks"].as_array().cloned().unwrap_or_default())
        .filter_map(|hook| hook["command"].as_str().map(str::to_owned))
        .collect()
}

fn run_as_the_cli(command: &str, payload: &Value, state_dir: &Path) -> std::process::Output {
    let mut child = Command::new("sh")
        .args(["-c", command])
        .env("SWITCHBOARD_HOME", state_dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(payload.to_string().as_bytes()).unwrap();
    child.wait_with_output().unwrap()
}

fn read_json(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[test]
fn installed_hooks_report_every_cli_to_a_running_instance() {
    let home = tempfile::tempdir().unwrap();
    // The three CLIs are used here (their settings folders exist): `install` sets up each.
    for dir in [".claude", ".codex", ".gemini"] {
        std::fs::create_dir(home.path().join(dir)).unwrap();
    }
    let output = Command::new(BIN)
        .args(["install", "all"])
        .env("HOME", home.path())
        .env_remove("CLAUDE_CONFIG_DIR")
        .env_remove("CODEX_HOME")
        .env_remove("GEMINI_CLI_HOME")
        .env("PATH", "/usr/bin:/bin")
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let said = String::from_utf8_lossy(&output.stdout);
    assert!(said.contains("Claude Code") && said.contains("Codex") && said.contains("Gemini"), "{said}");

    let serve = Serve::start();
    let cases = [
        (
            home.path().join(".claude/settings.json"),
            "PermissionRequest",
            "claude/PermissionRequest.json",
            "00893aaf-19fa-41d2-8238-13269b9b3ca0",
            "blocked",
        ),
        (
            home.path().join(".codex/hooks.json"),
            "PreToolUse",
            "codex/PreToolUse-request_user_input.json",
            "019fb3cc-0000-7000-8000-000000000001",
            "waiting",
        ),
        (
            home.path().join(".gemini/settings.json"),
            "AfterAgent",
            "gemini/AfterAgent.json",
            "7f1c2d3e-aaaa-4bbb-8ccc-0123456789ab",
            "done",
        ),
    ];
    for (settings, event, payload, session, status) in cases {
        let commands = commands_for(&read_json(&settings), event);
        assert_eq!(commands.len(), 1, "{}: {commands:?}", settings.display());
        let output = run_as_the_cli(&commands[0], &fixture(payload), serve.home());
        assert!(output.status.success(), "{}", commands[0]);
        let expected_stdout = if event == "AfterAgent" { "{}" } else { "" };
        assert_eq!(String::from_utf8_lossy(&output.stdout).trim(), expected_stdout);
        serve.wait_for(session, |s| s["status"] == status);
    }
}

#[test]
fn uninstall_takes_out_only_switchboards_hooks() {
    let home = tempfile::tempdir().unwrap();
    let claude = home.path().join(".claude");
    std::fs::create_dir_all(&claude).unwrap();
    let mine = r#"{"model": "opus", "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "say done"}]}]}}"#;
    std::fs::write(claude.join("settings.json"), mine).unwrap();
    let install = |args: &[&str]| {
        Command::new(BIN).args(args).env("HOME", home.path()).env("PATH", "/usr/bin:/bin").output().unwrap()
    };
    assert!(install(&["install", "claude"]).status.success());
    assert!(install(&["install", "claude"]).status.success(), "twice is once");
    assert_eq!(commands_for(&read_json(&claude.join("settings.json")), "Stop").len(), 2);
    assert!(install(&["install", "claude", "--uninstall"]).status.success());
    let after = read_json(&claude.join("settings.json"));
    assert_eq!(after, serde_json::from_str::<Value>(mine).unwrap(), "back to the user's own settings");
}

/// Issue 21.4: `install` (and the app's "Connect my CLIs") sets up only the CLIs this machine
/// uses; with none, it says so and writes nothing. A named CLI is set up all the same.
#[test]
fn install_all_connects_only_the_clis_that_are_here() {
    let home = tempfile::tempdir().unwrap();
    let run = |args: &[&str]| {
        Command::new(BIN)
            .args(args)
            .env("HOME", home.path())
            .env_remove("CLAUDE_CONFIG_DIR")
            .env_remove("CODEX_HOME")
            .env_remove("GEMINI_CLI_HOME")
            .env("PATH", "/usr/bin:/bin")
            .output()
            .unwrap()
    };
    let none = run(&["install"]);
    assert!(!none.status.success());
    let said = String::from_utf8_lossy(&none.stderr);
    assert!(said.contains("No agent CLI found") && said.contains("switchboard install claude"), "{said}");
    assert_eq!(std::fs::read_dir(home.path()).unwrap().count(), 0, "nothing written");

    std::fs::create_dir(home.path().join(".claude")).unwrap();
    let claude_only = run(&["install"]);
    assert!(claude_only.status.success(), "{}", String::from_utf8_lossy(&claude_only.stderr));
    assert!(home.path().join(".claude/settings.json").is_file());
    assert!(!home.path().join(".codex").exists() && !home.path().join(".gemini").exists(), "only Claude's");
    let said = String::from_utf8_lossy(&claude_only.stdout);
    assert!(!said.contains("Codex") && !said.contains("Gemini"), "{said}");

    let named = run(&["install", "codex"]);
    assert!(named.status.success(), "{}", String::from_utf8_lossy(&named.stderr));
    assert!(home.path().join(".codex/hooks.json").is_file(), "a named CLI is set up all the same");
}

/// Issue 21 item 7: `install --dry-run` tells each CLI's change in a few lines and writes
/// nothing; `--verbose` adds every entry as it would go into the file, for a user who audits.
#[test]
fn a_dry_run_is_brief_and_verbose_lists_every_entry() {
    let home = tempfile::tempdir().unwrap();
    std::fs::create_dir(home.path().join(".claude")).unwrap();
    let run = |args: &[&str]| {
        let output = Command::new(BIN)
            .args(args)
            .env("HOME", home.path())
            .env_remove("CLAUDE_CONFIG_DIR")
            .env_remove("CODEX_HOME")
            .env_remove("GEMINI_CLI_HOME")
            .env("PATH", "/usr/bin:/bin")
            .output()
            .unwrap();
        assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
        String::from_utf8(output.stdout).unwrap()
    };
    let events = switchboard_core::hook_config::Cli::from_agent("claude").unwrap().events();
    let brief = run(&["install", "--dry-run"]);
    assert!(brief.starts_with("Claude Code: would add the Switchboard hook for 16 events in "), "{brief}");
    assert!(events.iter().all(|event| brief.contains(event)), "names every event: {brief}");
    assert_eq!(brief.matches(" hook claude").count(), 1, "the command once: {brief}");
    assert!(
        brief.contains("\n  Next: ") && brief.ends_with("(Add --verbose to see every entry in full.)\n"),
        "{brief}"
    );
    assert!(brief.lines().count() <= 9 && !brief.contains("+ hooks."), "{brief}");
    assert_eq!(std::fs::read_dir(home.path().join(".claude")).unwrap().count(), 0, "nothing written");

    let verbose = run(&["install", "--dry-run", "--verbose"]);
    let entries: Vec<&str> = verbose.lines().filter(|line| line.starts_with("  + hooks.")).collect();
    assert_eq!(entries.len(), events.len(), "{verbose}");
    assert!(entries.iter().all(|entry| entry.contains(" hook claude\",\"timeout\":")), "{verbose}");
    assert!(!verbose.contains("--verbose"), "{verbose}");
    assert_eq!(std::fs::read_dir(home.path().join(".claude")).unwrap().count(), 0, "nothing written");
}
