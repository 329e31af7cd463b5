//! Issue 45: under `umask 000` every file Switchboard creates is 0600 and every folder 0700 (or a
//! file it rewrites keeps the mode it had), and a link planted at its log's path is not followed.
//! Each command runs as the real binary under `sh -c 'umask 000; exec …'`.

use std::collections::BTreeMap;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::Duration;

use serde_json::json;

use crate::support::{eventually, BIN};

/// `switchboard <args>` under `umask 000`, with `env`.
fn under_umask_000(bin: &str, args: &[&str], env: &[(&str, &Path)]) -> Command {
    let mut command = Command::new("sh");
    command.args(["-c", "umask 000; exec \"$@\"", "sh", bin]).args(args).envs(env.iter().copied());
    command.stdin(Stdio::null());
    command
}

fn output(mut command: Command) -> Output {
    let output = command.output().unwrap();
    assert!(
        output.status.success(),
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    output
}

/// Every file and folder under `root` (links not followed), with its permission bits.
fn modes(root: &Path) -> BTreeMap<PathBuf, (bool, u32)> {
    let mut found = BTreeMap::new();
    let mut folders = vec![root.to_path_buf()];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).unwrap().flatten() {
            // A file renamed into place (a temporary one) may be gone since the listing: skip it.
            let Ok(meta) = std::fs::symlink_metadata(entry.path()) else { continue };
            found.insert(entry.path(), (meta.is_dir(), meta.permissions().mode() & 0o777));
            if meta.is_dir() {
                folders.push(entry.path());
            }
        }
    }
    found
}

/// Asserts every entry not in `before` is 0700 (folders) or 0600 (anything else).
fn assert_private(root: &Path, before: &BTreeMap<PathBuf, (bool, u32)>) -> usize {
    let after = modes(root);
    let created: Vec<(&PathBuf, &(bool, u32))> = after.iter().filter(|(path, _)| !before.contains_key(*path)).collect();
    for (path, (folder, mode)) in &created {
        let wanted = if *folder { 0o700 } else { 0o600 };
        assert_eq!(*mode, wanted, "{} is {mode:o}; every entry: {after:#?}", path.display());
    }
    created.len()
}

#[test]
fn remote_add_with_no_instance_leaves_a_private_home() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("state");
    output(under_umask_000(BIN, &["remote", "add", "box", "--", "ssh", "box"], &[("SWITCHBOARD_HOME", &home)]));
    let root_mode = std::fs::metadata(&home).unwrap().permissions().mode() & 0o777;
    assert_eq!(root_mode, 0o700);
    assert!(assert_private(&home, &BTreeMap::new()) >= 1, "the settings were written");
}

#[test]
fn install_writes_new_files_0600_in_0700_folders_and_keeps_an_existing_files_mode() {
    let home = tempfile::tempdir().unwrap();
    // The CLIs are "used here" (their folders exist, as their owner made them).
    for dir in [".claude", ".codex", ".gemini", ".pi/agent", ".config/opencode"] {
        std::fs::create_dir_all(home.path().join(dir)).unwrap();
    }
    // Claude's settings exist already, readable by the group: the mode the user chose stays.
    let claude = home.path().join(".claude/settings.json");
    std::fs::write(&claude, "{\"model\": \"opus\"}\n").unwrap();
    std::fs::set_permissions(&claude, std::fs::Permissions::from_mode(0o640)).unwrap();
    let before = modes(home.path());
    let mut command = under_umask_000(BIN, &["install", "all"], &[("HOME", home.path())]);
    command.env_remove("CLAUDE_CONFIG_DIR").env_remove("CODEX_HOME").env_remove("GEMINI_CLI_HOME");
    command.env_remove("XDG_CONFIG_HOME").env_remove("PI_CODING_AGENT_DIR").env("PATH", "/usr/bin:/bin");
    let installed = output(command);
    let said = String::from_utf8_lossy(&installed.stdout);
    assert!(said.contains("pi") && said.contains("OpenCode"), "{said}");
    // Its settings were rewritten, their mode kept; the backup no looser than the original.
    let after = modes(home.path());
    assert_eq!(after[&claude], (false, 0o640));
    let backup = home.path().join(".claude/settings.json.switchboard.bak");
    assert_eq!(after[&backup].1 & !0o640, 0, "{:o}", after[&backup].1);
    let before = before.into_iter().chain([(backup, (false, 0))]).collect();
    let created = assert_private(home.path(), &before);
    // Codex's and Gemini's hooks, pi's and OpenCode's hooks files, the bridges and their folders.
    assert!(created >= 8, "{created} created: {after:#?}");
    for bridge in [".pi/agent/extensions/switchboard.ts", ".config/opencode/plugin/switchboard.js"] {
        assert_eq!(after[&home.path().join(bridge)], (false, 0o600), "{bridge}");
    }
}

#[test]
fn serve_keeps_its_home_database_and_endpoint_private() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("state");
    let mut command = under_umask_000(BIN, &["serve", "--no-notify"], &[("SWITCHBOARD_HOME", &home)]);
    let mut serve = command.stdout(Stdio::null()).stderr(Stdio::null()).spawn().unwrap();
    let endpoint = eventually(Duration::from_secs(20), || switchboard_engine::endpoint::Endpoint::read(&home))
        .expect("endpoint.json appears");
    // An event, so the store writes (its WAL and shared memory too).
    let path = format!("/hook/custom?key={}", endpoint.key);
    let body = json!({"sessionId": "modes", "status": "working"}).to_string();
    let (status, _) = crate::support::request(endpoint.addr(), "POST", &path, body.as_bytes());
    assert_eq!(status, 204);
    let saved = eventually(Duration::from_secs(20), || {
        switchboard_engine::instance::outputs::store::saved_state(&home, "modes")
            .filter(|state| state.contains("working"))
    });
    assert!(saved.is_some(), "the store wrote the session");
    let root_mode = std::fs::metadata(&home).unwrap().permissions().mode() & 0o777;
    assert_eq!(root_mode, 0o700);
    let created = assert_private(&home, &BTreeMap::new());
    assert!(created >= 3, "{:#?}", modes(&home));
    // SAFETY: sends SIGTERM to our own child process.
    unsafe { libc::kill(libc::pid_t::try_from(serve.id()).unwrap(), libc::SIGTERM) };
    assert!(serve.wait().unwrap().success());
    assert_private(&home, &BTreeMap::new());
}

/// The desktop app as far as it gets without a display: it sets up its log and writes its first
/// line before the window fails to open.
fn app_without_a_display(home: &Path) {
    let mut command = under_umask_000(env!("CARGO_BIN_EXE_switchboard-app"), &[], &[("SWITCHBOARD_HOME", home)]);
    command.env_remove("DISPLAY").env_remove("WAYLAND_DISPLAY").stdout(Stdio::null()).stderr(Stdio::null());
    let mut app = command.spawn().unwrap();
    let ended = eventually(Duration::from_secs(60), || app.try_wait().unwrap());
    if ended.is_none() {
        let _ = app.kill();
        let _ = app.wait();
        panic!("the app ran on with no display");
    }
}

fn todays_log(home: &Path) -> PathBuf {
    let log = switchboard_engine::log_file::DailyFile::new(&home.join("logs")).unwrap();
    log.path_of(switchboard_engine::clock::now_millis() / 86_400_000)
}

#[test]
fn the_apps_log_is_private_and_a_link_planted_at_its_path_is_not_followed() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("state");
    app_without_a_display(&home);
    // Before anything here touches the folder.
    assert_private(&home, &BTreeMap::new());
    assert!(std::fs::read_to_string(todays_log(&home)).unwrap().contains("the desktop app starts"));

    // Another user planted a link at today's name, pointing at the user's ~/.bashrc.
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("state");
    let bashrc = dir.path().join(".bashrc");
    std::fs::write(&bashrc, "# mine\n").unwrap();
    let log = todays_log(&home);
    std::os::unix::fs::symlink(&bashrc, &log).unwrap();
    app_without_a_display(&home);
    assert_eq!(std::fs::read_to_string(&bashrc).unwrap(), "# mine\n", "the link's target is unchanged");
    assert!(std::fs::symlink_metadata(&log).unwrap().file_type().is_symlink());
}

/// The desktop app with a window (under Xvfb, where `xvfb-run` is installed) and `umask 000`: its
/// state folder, log, `app.sock`, config folder and the web view's folder are the user's alone
/// (what WebKit puts inside its folder keeps WebKit's modes, behind that folder).
#[test]
fn the_running_app_keeps_its_folders_and_socket_private() {
    use std::os::unix::process::CommandExt;
    let found = Command::new("sh").args(["-c", "command -v xvfb-run"]).output().unwrap();
    if !found.status.success() {
        eprintln!("skipped: no xvfb-run to give the app a display");
        return;
    }
    let home = tempfile::tempdir().unwrap();
    let (state, config, data) =
        (home.path().join("state"), home.path().join(".config"), home.path().join(".local/share"));
    let app = env!("CARGO_BIN_EXE_switchboard-app");
    let mut command = Command::new("xvfb-run");
    command.args(["-a", "sh", "-c", "umask 000; exec \"$0\"", app]);
    command.env("HOME", home.path()).env("XDG_CONFIG_HOME", &config).env("XDG_DATA_HOME", &data);
    command.env("SWITCHBOARD_HOME", &state).env("SWITCHBOARD_NO_NOTIFY", "1").env_remove("DISPLAY");
    command.stdin(Stdio::null()).stdout(Stdio::null()).stderr(Stdio::null()).process_group(0);
    let mut running = command.spawn().unwrap();
    let up = eventually(Duration::from_secs(60), || state.join("app.sock").exists().then_some(()));
    let modes_then = (modes(&state), modes(&config), std::fs::metadata(data.join("dev.switchboard.app")));
    // SAFETY: ends the process group this test started (xvfb-run, Xvfb and the app).
    unsafe { libc::kill(-libc::pid_t::try_from(running.id()).unwrap(), libc::SIGTERM) };
    let _ = running.wait();
    assert!(up.is_some(), "the app answered on app.sock");
    let (state_modes, config_modes, webview) = modes_then;
    for (path, (folder, mode)) in state_modes.iter().chain(config_modes.iter()) {
        assert_eq!(*mode, if *folder { 0o700 } else { 0o600 }, "{}", path.display());
    }
    assert_eq!(state_modes[&state.join("app.sock")], (false, 0o600));
    assert_eq!(std::fs::metadata(config.join("dev.switchboard.app")).unwrap().permissions().mode() & 0o777, 0o700);
    assert_eq!(webview.unwrap().permissions().mode() & 0o777, 0o700, "the web view's folder");
}
