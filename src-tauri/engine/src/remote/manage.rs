//! `switchboard remote add | list | remove | install`: the remotes kept in the settings, and
//! this version of Switchboard put on a remote through its own command.
//!
//! The settings file is the record; a running instance is told to read it again
//! (`POST /remotes`), so `serve` and the app follow a new remote at once.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use sha2::{Digest, Sha256};

use super::builds::{self, Platform};
use super::{LinkState, RemoteState};
use crate::endpoint::Endpoint;
use crate::instance::settings::{RemoteSpec, Settings, MAX_REMOTES};
use crate::protocol::remotes_path;

#[derive(Debug, thiserror::Error)]
pub enum RemoteError {
    #[error("{0}")]
    Invalid(String),
    #[error("there is already a remote named `{0}` (`switchboard remote remove {0}` first)")]
    Exists(String),
    #[error("no remote is named `{0}` (see `switchboard remote list`)")]
    Unknown(String),
    #[error("at most {MAX_REMOTES} remotes can be followed")]
    TooMany,
    #[error(transparent)]
    Settings(#[from] crate::instance::settings::SettingsError),
    #[error("cannot run `{command}`: {source}")]
    Run { command: String, source: std::io::Error },
    #[error("`{command}` failed ({status}){said}")]
    Failed { command: String, status: String, said: String },
    #[error("cannot read the binary to send, {}: {source}", path.display())]
    Binary { path: PathBuf, source: std::io::Error },
    #[error(transparent)]
    NoBuild(#[from] builds::NoBuild),
}

/// Keeps a new remote in the settings and tells the running instance, if any, to follow it.
pub fn add(state_dir: &Path, name: &str, command: Vec<String>) -> Result<RemoteSpec, RemoteError> {
    let spec = RemoteSpec { name: name.to_owned(), command };
    if let Some(problem) = spec.problem() {
        return Err(RemoteError::Invalid(problem));
    }
    let mut settings = Settings::load(state_dir);
    if settings.remotes.iter().any(|remote| remote.name == spec.name) {
        return Err(RemoteError::Exists(spec.name));
    }
    if settings.remotes.len() >= MAX_REMOTES {
        return Err(RemoteError::TooMany);
    }
    settings.remotes.push(spec.clone());
    // Private before anything is written in it, even with no instance running (issue 45).
    crate::state_dir::make_private(state_dir)
        .map_err(|source| crate::instance::settings::SettingsError::Write { path: state_dir.to_owned(), source })?;
    settings.save(state_dir)?;
    tell_instance(state_dir);
    Ok(spec)
}

/// Stops following a remote: it leaves the settings and its sessions leave the board.
pub fn remove(state_dir: &Path, name: &str) -> Result<RemoteSpec, RemoteError> {
    let mut settings = Settings::load(state_dir);
    let at = settings.remotes.iter().position(|remote| remote.name == name);
    let spec = settings.remotes.remove(at.ok_or_else(|| RemoteError::Unknown(name.to_owned()))?);
    settings.save(state_dir)?;
    tell_instance(state_dir);
    Ok(spec)
}

/// The remotes: as the running instance follows them, or as the settings keep them.
pub fn list(state_dir: &Path) -> Vec<RemoteState> {
    let kept = Settings::load(state_dir).remotes;
    let followed: Vec<RemoteState> = Endpoint::read(state_dir)
        .and_then(|endpoint| {
            let response = crate::client::request(
                endpoint.addr(),
                "GET",
                &remotes_path(&endpoint.key),
                b"",
                Duration::from_secs(2),
            )
            .ok()?;
            (response.status == 200).then(|| serde_json::from_slice(&response.body).ok()).flatten()
        })
        .unwrap_or_default();
    kept.iter()
        .map(|spec| {
            followed
                .iter()
                .find(|state| state.name == spec.name)
                .cloned()
                .unwrap_or_else(|| RemoteState::not_followed(spec))
        })
        .collect()
}

/// Asks the running instance (if any) to read the remotes again.
fn tell_instance(state_dir: &Path) {
    if let Some(endpoint) = Endpoint::read(state_dir) {
        let path = remotes_path(&endpoint.key);
        let _ = crate::client::request(endpoint.addr(), "POST", &path, b"", Duration::from_secs(2));
    }
}

/// `remote list`'s table.
pub fn table(remotes: &[RemoteState], now: switchboard_core::Millis) -> String {
    if remotes.is_empty() {
        return "No remotes. Add one: switchboard remote add NAME -- ssh HOST\n".into();
    }
    let mut out = String::new();
    for remote in remotes {
        let ago = |since: Option<u64>| {
            since.map(|since| crate::client::status::age(now.saturating_sub(since))).unwrap_or_default()
        };
        let state = match remote.state {
            LinkState::Connected => format!("connected {}", ago(remote.since)),
            LinkState::Connecting => "connecting".into(),
            LinkState::Unreachable => format!("unreachable since {}", ago(remote.since)),
            LinkState::NotFollowed => "not followed (no Switchboard running here)".into(),
        };
        out.push_str(&format!(
            "{:<16} {:<36} {:>4} sessions  last #{}  {}\n",
            remote.name,
            state.trim(),
            remote.sessions,
            remote.last_seq.map_or("-".into(), |seq| seq.to_string()),
            remote.command.join(" ")
        ));
        if let Some(error) = remote.error.as_ref().filter(|_| remote.state != LinkState::Connected) {
            out.push_str(&format!("{:<16} {error}\n", ""));
        }
    }
    out
}

/// What `remote install` did.
#[derive(Debug)]
pub struct Installed {
    /// What the box runs (`uname -sm`).
    pub platform: Platform,
    /// The build chosen for it.
    pub binary: PathBuf,
    /// The binary was copied (it was missing or another build).
    pub copied: bool,
    /// Where it is on the remote.
    pub path: String,
    /// What `switchboard install` printed there.
    pub output: String,
}

/// Where Switchboard lives on a remote (the link looks there first).
const REMOTE_BINARY: &str = "$HOME/.local/bin/switchboard";

/// Asks the box what it runs (`uname -sm`), puts the build made for it there (through the
/// remote's own command) unless the same build is there, then runs `switchboard install` there so
/// its agent CLIs report to its instance. A box no build here runs is refused before anything
/// is sent ([`builds::choose`]; `SWITCHBOARD_REMOTE_BINARY` names the program to send instead).
pub fn install(spec: &RemoteSpec) -> Result<Installed, RemoteError> {
    // macOS has `shasum -a 256` where Linux has `sha256sum`.
    let probe = format!(
        "uname -sm; p=\"{REMOTE_BINARY}\"; if [ -x \"$p\" ]; then sha256sum \"$p\" 2>/dev/null || shasum -a 256 \"$p\" 2>/dev/null || echo unknown; else echo missing; fi; exit 0\n"
    );
    let there = run(spec, probe.as_bytes(), None)?;
    let mut lines = there.lines();
    let uname = lines.next().unwrap_or_default();
    let platform = Platform::parse(uname).ok_or_else(|| builds::NoBuild::Unknown(uname.to_owned()))?;
    let me = std::env::current_exe().map_err(|source| RemoteError::Binary { path: "this program".into(), source })?;
    let binary = builds::choose(&platform, std::env::var_os("SWITCHBOARD_REMOTE_BINARY").map(PathBuf::from), &me)?;
    let bytes = std::fs::read(&binary).map_err(|source| RemoteError::Binary { path: binary.clone(), source })?;
    let digest: String = Sha256::digest(&bytes).iter().map(|b| format!("{b:02x}")).collect();
    let copied = !lines.next().unwrap_or_default().trim_start().starts_with(&digest);
    if copied {
        // The binary is sent only once the shell there runs this line (it says `ready`): a shell
        // reading its script from a pipe may read ahead, and what it read would be lost.
        let script = format!(
            "set -e; d=\"$HOME/.local/bin\"; mkdir -p \"$d\"; echo ready; head -c {} > \"$d/.switchboard.new\"; \
             chmod 755 \"$d/.switchboard.new\"; mv -f \"$d/.switchboard.new\" \"$d/switchboard\"; exit 0\n",
            bytes.len()
        );
        run(spec, script.as_bytes(), Some(&bytes))?;
    }
    let output = run(spec, format!("\"{REMOTE_BINARY}\" install 2>&1; exit 0\n").as_bytes(), None)?;
    Ok(Installed { platform, binary, copied, path: REMOTE_BINARY.replace("$HOME", "~"), output })
}

/// Runs `script` (one line) with `sh -s` through the remote's command; its stdout. With a
/// `payload`, the script first prints `ready` and then reads the payload from its stdin.
fn run(spec: &RemoteSpec, script: &[u8], payload: Option<&[u8]>) -> Result<String, RemoteError> {
    let shown = format!("{} sh -s", spec.command.join(" "));
    let mut child = Command::new(&spec.command[0])
        .args(&spec.command[1..])
        .args(["sh", "-s"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|source| RemoteError::Run { command: shown.clone(), source })?;
    let (Some(mut stdin), Some(out)) = (child.stdin.take(), child.stdout.take()) else {
        return Err(RemoteError::Run { command: shown, source: std::io::ErrorKind::BrokenPipe.into() });
    };
    let mut out = std::io::BufReader::new(out);
    let sends = payload.is_some();
    let (script, payload) = (script.to_vec(), payload.map(<[u8]>::to_vec));
    let (ready, readied) = std::sync::mpsc::channel::<()>();
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(&script).and_then(|()| stdin.flush());
        if let Some(payload) = payload {
            if readied.recv().is_ok() {
                let _ = stdin.write_all(&payload);
            }
        }
    });
    let mut stdout = String::new();
    if sends {
        let mut line = String::new();
        let _ = std::io::BufRead::read_line(&mut out, &mut line);
        if line.trim() == "ready" {
            let _ = ready.send(());
        } else {
            stdout.push_str(&line);
        }
    }
    drop(ready);
    let _ = out.read_to_string(&mut stdout);
    let mut stderr = String::new();
    if let Some(mut err) = child.stderr.take() {
        let _ = err.read_to_string(&mut stderr);
    }
    let _ = writer.join();
    let status = child.wait().map_err(|source| RemoteError::Run { command: shown.clone(), source })?;
    if !status.success() {
        let said = stderr.trim().lines().last().map(|line| format!(": {line}")).unwrap_or_default();
        return Err(RemoteError::Failed { command: shown, status: status.to_string(), said });
    }
    Ok(stdout)
}
