//! The homes, options and files the installer's tests start from.

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use serde::Serialize;
use serde_json::{json, Value};

use super::{install, Cli, ConfigDirs, InstallOptions, InstallOutcome};

pub const PROGRAM: &str = "/opt/Switchboard/bin/switchboard";

/// The connectable CLI with that agent id.
pub fn cli(id: &str) -> Cli {
    Cli::from_agent(id).unwrap_or_else(|| panic!("{id} is not in the table"))
}

pub fn claude() -> Cli {
    cli("claude")
}

pub fn codex() -> Cli {
    cli("codex")
}

pub fn gemini() -> Cli {
    cli("gemini")
}

pub struct Home {
    _dir: tempfile::TempDir,
    pub dirs: ConfigDirs,
}

pub fn home() -> Home {
    let dir = tempfile::tempdir().unwrap();
    let dirs = ConfigDirs::in_home(dir.path());
    Home { _dir: dir, dirs }
}

pub fn options(home: &Home, cli: Cli) -> InstallOptions {
    InstallOptions {
        clis: vec![cli],
        uninstall: false,
        dry_run: false,
        command_path: PROGRAM.into(),
        dirs: home.dirs.clone(),
        versions: Vec::new(),
    }
}

pub fn run(options: &InstallOptions) -> InstallOutcome {
    install(options).pop().unwrap()
}

pub fn installed(home: &Home, cli: Cli) -> InstallOutcome {
    run(&options(home, cli))
}

pub fn uninstalled(home: &Home, cli: Cli) -> InstallOutcome {
    run(&InstallOptions { uninstall: true, ..options(home, cli) })
}

pub fn write(path: &Path, text: &str) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, text).unwrap();
}

pub fn json_at(path: &Path) -> Value {
    serde_json::from_slice(&fs::read(path).unwrap()).unwrap()
}

pub fn mode(path: &Path) -> u32 {
    fs::metadata(path).unwrap().permissions().mode() & 0o777
}

/// Everything in a folder, to show that a refused install left no stray file behind.
pub fn listing(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> =
        fs::read_dir(dir).unwrap().map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned()).collect();
    names.sort();
    names
}

/// A settings file a user already has: an event the CLI uses, other keys, a 4-space indent.
pub fn user_settings(cli: Cli) -> (&'static str, String) {
    let event = cli.events()[1];
    let value = json!({
        "theme": "dark",
        "hooks": {event: [{"hooks": [{"type": "command", "command": "./mine.sh"}]}]},
        "zzz": [1, 2],
    });
    let mut text = Vec::new();
    let formatter = serde_json::ser::PrettyFormatter::with_indent(b"    ");
    value.serialize(&mut serde_json::Serializer::with_formatter(&mut text, formatter)).unwrap();
    (event, String::from_utf8(text).unwrap())
}
