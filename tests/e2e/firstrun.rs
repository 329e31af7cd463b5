//! The first run in a fresh HOME (issue 44), in the real app: no agent CLI → install one (a
//! stand-in `claude` on PATH) → check again → Connect's dry run says what it would change →
//! Connect writes the hooks → the CLI's first hook, through the command Connect wrote, brings the
//! first session onto the board.

use std::io::Write;
use std::os::unix::fs::PermissionsExt;
use std::process::{Command, Stdio};

use serde_json::Value;

use crate::harness::wait_for;
use crate::harness::{hook, App, Notify};

/// The first `command` under `key` anywhere in the hooks file.
fn hook_command(settings: &Value, event: &str) -> Option<String> {
    let entries = settings["hooks"][event].as_array()?;
    entries
        .iter()
        .flat_map(|entry| entry["hooks"].as_array().cloned().unwrap_or_default())
        .find_map(|h| h["command"].as_str().map(str::to_owned))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_fresh_home_goes_from_no_cli_to_its_first_session() {
    let root = tempfile::tempdir().expect("a temp dir");
    let home = root.path().join("home");
    let bin = root.path().join("bin");
    std::fs::create_dir_all(&home).expect("HOME");
    std::fs::create_dir_all(&bin).expect("bin");
    // Only the system's tools and the WebDriver: no agent CLI anywhere on PATH.
    let driver = which("tauri-driver");
    let path = format!("{}:{}:/usr/bin:/bin", bin.display(), driver.parent().expect("its folder").display());
    let app = App::start_with(Notify::Off, &[("HOME", home.to_str().unwrap()), ("PATH", &path)]).await;
    app.client.set_window_size(1280, 800).await.expect("resize");

    // No CLI: the one next step is installing one.
    wait_for(
        &app,
        "the install steps",
        r#"return document.querySelectorAll('[data-testid="install-step"]').length >= 7;"#,
        vec![],
    )
    .await;

    // The user installs Claude Code (a stand-in that answers --version), then checks again.
    let claude = bin.join("claude");
    std::fs::write(&claude, "#!/bin/sh\necho '2.0.0 (Claude Code)'\n").expect("the stand-in CLI");
    std::fs::set_permissions(&claude, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    app.click_test_id("empty-check-again").await;
    wait_for(&app, "Connect offered", r#"return !!document.querySelector('[data-testid="install-hooks"]');"#, vec![])
        .await;

    // Connect shows what it would change first, and writes nothing.
    app.click_test_id("install-hooks").await;
    let plan = wait_for(
        &app,
        "the dry run's plan",
        r#"const p = document.querySelector('[data-testid="install-plan"]'); return p ? p.textContent : null;"#,
        vec![],
    )
    .await;
    let plan = plan.as_str().unwrap_or_default().to_owned();
    assert!(plan.contains(".claude/settings.json"), "the plan names Claude's file: {plan}");
    let settings_file = home.join(".claude/settings.json");
    assert!(!settings_file.exists(), "the dry run wrote nothing");

    app.click_test_id("install-confirm").await;
    wait_for(&app, "Connect's result", r#"const r = document.querySelector('[data-testid="install-result"]'); return r && r.classList.contains('is-ok');"#, vec![]).await;
    let settings: Value =
        serde_json::from_str(&std::fs::read_to_string(&settings_file).expect("Connect wrote Claude's hooks"))
            .expect("JSON");
    let command =
        hook_command(&settings, "UserPromptSubmit").unwrap_or_else(|| panic!("a UserPromptSubmit hook: {settings}"));

    // Claude's first prompt runs the hook Connect wrote: the first session appears.
    let mut child = Command::new("sh")
        .args(["-c", &command])
        .env("HOME", &home)
        .env("SWITCHBOARD_HOME", app.state_dir())
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("run the hook");
    let payload = hook("claude/UserPromptSubmit.json", "first-session", Some("/src/webapp")).to_string();
    child.stdin.take().expect("stdin").write_all(payload.as_bytes()).expect("the payload");
    assert!(child.wait().expect("the hook ran").success(), "the hook command succeeds: {command}");
    app.wait_node("first-session", "on the board", |n| n.status == "working").await;
    wait_for(&app, "the empty state gone", r#"return !document.querySelector('[data-testid="empty-state"]');"#, vec![])
        .await;
    app.close().await;
}

fn which(program: &str) -> std::path::PathBuf {
    std::env::var_os("PATH")
        .and_then(|paths| std::env::split_paths(&paths).map(|dir| dir.join(program)).find(|p| p.is_file()))
        .unwrap_or_else(|| panic!("{program} on PATH"))
}
