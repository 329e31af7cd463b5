//! `serve` and `status` as processes: the endpoint file's life, a second instance, the table.

use std::os::unix::fs::PermissionsExt;
use std::process::{Command, Stdio};

use serde_json::json;
use switchboard_engine::endpoint::Endpoint;

use crate::support::{fixture, run, temp_home, Serve, BIN};

#[test]
fn serve_writes_a_private_endpoint_file_and_removes_it_on_sigterm() {
    let mut serve = Serve::start();
    let path = Endpoint::path(serve.home());
    assert_eq!(std::fs::metadata(&path).unwrap().permissions().mode() & 0o777, 0o600);
    assert_eq!(serve.endpoint.pid, serve.child.id());
    assert_eq!(serve.endpoint.key.len(), 48);
    let status = serve.terminate();
    assert!(status.success(), "{status:?}");
    assert!(!path.exists());
}

#[test]
fn a_second_instance_does_not_clobber_a_live_one() {
    let serve = Serve::start();
    let output = run(serve.home(), &["serve", "--no-notify"], b"");
    assert!(!output.status.success());
    assert!(String::from_utf8_lossy(&output.stderr).contains("already running"), "{output:?}");
    assert_eq!(Endpoint::read(serve.home()), Some(serve.endpoint.clone()));
}

/// Issue 21 item 7: the table names each session's project and short id, so two sessions in
/// one folder are told apart, and fits in 80 columns; `--json` stays the one snapshot document.
#[test]
fn status_prints_a_table_and_the_json_snapshot() {
    let serve = Serve::start();
    serve.post("claude", &fixture("claude/PermissionRequest.json"));
    let mut prompt = fixture("claude/UserPromptSubmit.json");
    prompt["session_id"] = "5c1e9b2d-0f3a-4e1b-9a7c-2d8e6f4b1a90".into();
    prompt["prompt"] = "Fix the login redirect loop on Safari when the session cookie has expired".into();
    serve.post("claude", &prompt);
    serve.post("custom", &json!({"sessionId": "nightly", "status": "working", "title": "Nightly build"}));
    serve.wait_for("nightly", |_| true);
    serve.wait_for("00893aaf-19fa-41d2-8238-13269b9b3ca0", |_| true);
    serve.wait_for("5c1e9b2d-0f3a-4e1b-9a7c-2d8e6f4b1a90", |s| s["status"] == "working");

    let table = Command::new(BIN)
        .arg("status")
        .env("SWITCHBOARD_HOME", serve.home())
        .env_remove("COLUMNS")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(table.status.success(), "{table:?}");
    let table = String::from_utf8(table.stdout).unwrap();
    let rows: Vec<Vec<&str>> =
        table.lines().map(|line| line.split("  ").map(str::trim).filter(|cell| !cell.is_empty()).collect()).collect();
    assert_eq!(rows[0], ["STATUS", "AGENT", "ID", "PROJECT", "TITLE", "AGE", "DETAIL"], "{table}");
    assert_eq!(rows[1][..5], ["● blocked", "claude", "00893aaf", "webapp", "webapp"], "{table}");
    assert!(rows[1][6].starts_with("Bash rm -rf"), "{table}");
    let working: Vec<&[&str]> = rows[2..].iter().map(|row| &row[..5]).collect();
    assert!(working.contains(&&["working", "custom", "nightly", "-", "Nightly build"][..]), "{table}");
    let other = working.iter().find(|row| row[2] == "5c1e9b2d").unwrap_or_else(|| panic!("{table}"));
    assert_eq!(other[3], "webapp", "the same project, another id: {table}");
    assert!(other[4].starts_with("Fix the login") && other[4].ends_with('…'), "a long title is clipped: {table}");
    // Not a terminal and no $COLUMNS: 80 columns, one line a session.
    assert_eq!(table.lines().count(), 4, "{table}");
    assert!(table.lines().all(|line| line.chars().count() <= 80), "{table}");

    let json = run(serve.home(), &["status", "--json"], b"");
    let snapshot: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(snapshot["sessions"].as_array().unwrap().len(), 3);
}

#[test]
fn status_without_an_instance_fails_with_a_clear_message() {
    let output = run(&temp_home(), &["status"], b"");
    assert!(!output.status.success());
    assert!(String::from_utf8_lossy(&output.stderr).contains("not running"));
}

/// Issue 12 item 9: a state directory that cannot be used is said once, with the fix, and the
/// cause ("Not a directory" here; "Permission denied" for a read-only one) is not repeated.
#[test]
fn an_unusable_state_directory_is_reported_once_with_the_fix() {
    let home = temp_home();
    let file = home.join("a-file");
    std::fs::write(&file, "").unwrap();
    let output = run(&file.join("state"), &["serve", "--no-notify"], b"");
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("cannot use the state directory"), "{stderr}");
    assert!(stderr.contains("SWITCHBOARD_HOME"), "says what to do: {stderr}");
    assert_eq!(stderr.matches("Not a directory").count(), 1, "{stderr}");
    assert!(!stderr.contains("damaged"), "{stderr}");
}

/// Issue 22.1: a heavy user's snapshot passes 1 MiB (here ~3 MiB: 600 sessions whose last message
/// is 4,000 characters); `status` and `status --json` still read it whole.
#[test]
fn status_reads_a_snapshot_of_many_megabytes() {
    let serve = Serve::start();
    let long = "x".repeat(4_000);
    for n in 0..600 {
        let status =
            serve.post("custom", &json!({"sessionId": format!("big-{n:03}"), "status": "done", "message": long}));
        assert_eq!(status, 204);
    }
    serve.wait_for("big-599", |_| true);
    let json = run(serve.home(), &["status", "--json"], b"");
    assert!(json.status.success(), "{}", String::from_utf8_lossy(&json.stderr));
    assert!(json.stdout.len() > 2 * 1024 * 1024, "{} bytes", json.stdout.len());
    let snapshot: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(snapshot["sessions"].as_array().unwrap().len(), 600);
    let table = run(serve.home(), &["status"], b"");
    assert!(table.status.success(), "{}", String::from_utf8_lossy(&table.stderr));
    assert!(String::from_utf8_lossy(&table.stdout).contains("big-599") || table.stdout.len() > 600 * 10);
}
