//! Starting agents from the board (issue 24): `switchboard new <cli>` runs the CLI (its row's `start`)
//! in Switchboard's own tmux server (`tmux -L switchboard`), optionally in a new git worktree. Its
//! hooks report as any agent's do (the forwarder sees the pane), so its node appears with its
//! first event, answers and replies reach it, and tmux keeps it when the app closes.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde::Serialize;

/// The tmux server's name (`tmux -L`); `SWITCHBOARD_TMUX` names another (tests).
pub const TMUX_SERVER: &str = "switchboard";

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum LaunchError {
    #[error("Switchboard starts {clis}; not `{0}`", clis = startable().join(", "))]
    UnknownCli(String),
    #[error("`{0}` is not on PATH: install it first")]
    NotInstalled(String),
    #[error("the folder {0} does not exist")]
    NoFolder(String),
    #[error("cannot make a worktree: {0}")]
    Worktree(String),
    #[error("`{0}` is not a branch name git takes")]
    BadBranch(String),
    #[error("tmux could not start it: {0}")]
    Tmux(String),
}

/// An agent started in Switchboard's tmux server.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct Launched {
    /// The tmux session (`tmux -L switchboard attach -t <session>` shows it).
    pub session: String,
    pub pane: String,
    pub cwd: String,
    /// The command that attaches a terminal to it.
    pub attach: String,
}

/// What to start.
#[derive(Clone, Debug, Default)]
pub struct Launch {
    pub cli: String,
    pub cwd: Option<PathBuf>,
    pub worktree: Option<String>,
    pub prompt: Option<String>,
}

pub(crate) fn server() -> String {
    std::env::var("SWITCHBOARD_TMUX").ok().filter(|name| !name.is_empty()).unwrap_or_else(|| TMUX_SERVER.to_owned())
}

/// The CLI's command line (its row's `start`): interactive, with the first prompt when given.
fn argv(cli: &str, prompt: Option<&str>) -> Result<Vec<String>, LaunchError> {
    switchboard_core::agent(cli)
        .and_then(|agent| agent.start_argv(prompt))
        .ok_or_else(|| LaunchError::UnknownCli(cli.to_owned()))
}

/// The ids of the CLIs `switchboard new` starts, in the table's order.
pub fn startable() -> Vec<&'static str> {
    switchboard_core::AGENTS.iter().filter(|agent| agent.start.is_some()).map(|agent| agent.id).collect()
}

/// Starts the agent; returns where.
pub fn launch(launch: &Launch) -> Result<Launched, LaunchError> {
    let argv = argv(&launch.cli, launch.prompt.as_deref())?;
    if !on_path(&launch.cli) {
        return Err(LaunchError::NotInstalled(launch.cli.clone()));
    }
    let mut cwd = match &launch.cwd {
        Some(cwd) => cwd.clone(),
        None => std::env::current_dir().map_err(|error| LaunchError::NoFolder(error.to_string()))?,
    };
    if !cwd.is_dir() {
        return Err(LaunchError::NoFolder(cwd.display().to_string()));
    }
    if let Some(branch) = &launch.worktree {
        cwd = worktree(&cwd, branch)?;
    }
    let name = format!("{}-{}", launch.cli, unique_suffix());
    let server = server();
    let output = Command::new("tmux")
        .args([
            "-L",
            &server,
            "new-session",
            "-d",
            "-P",
            "-F",
            "#{pane_id}",
            "-s",
            &name,
            "-x",
            "200",
            "-y",
            "50",
            "-c",
        ])
        .arg(&cwd)
        .arg("--")
        .args(&argv)
        .stdin(Stdio::null())
        .output()
        .map_err(|error| LaunchError::Tmux(error.to_string()))?;
    if !output.status.success() {
        return Err(LaunchError::Tmux(String::from_utf8_lossy(&output.stderr).trim().to_owned()));
    }
    let pane = String::from_utf8_lossy(&output.stdout).trim().to_owned();
    Ok(Launched {
        attach: format!("tmux -L {server} attach -t {name}"),
        session: name,
        pane,
        cwd: cwd.display().to_string(),
    })
}

/// A new worktree beside the repository, on a new branch `branch` (or the existing one).
fn worktree(repo: &Path, branch: &str) -> Result<PathBuf, LaunchError> {
    let valid = Command::new("git")
        .args(["check-ref-format", "--branch", branch])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|status| status.success());
    if !valid || branch.starts_with('-') {
        return Err(LaunchError::BadBranch(branch.to_owned()));
    }
    let top = git(repo, &["rev-parse", "--show-toplevel"])?;
    let top = PathBuf::from(top.trim());
    let folder = format!(
        "{}-{}",
        top.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| "repo".into()),
        branch.replace('/', "-")
    );
    let path = top.parent().unwrap_or(&top).join(folder);
    let path_text = path.display().to_string();
    let exists = git(repo, &["rev-parse", "--verify", "--quiet", &format!("refs/heads/{branch}")]).is_ok();
    if exists {
        git(repo, &["worktree", "add", "--", &path_text, branch])?;
    } else {
        git(repo, &["worktree", "add", "-b", branch, "--", &path_text])?;
    }
    Ok(path)
}

fn git(dir: &Path, args: &[&str]) -> Result<String, LaunchError> {
    let output = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .stdin(Stdio::null())
        .output()
        .map_err(|error| LaunchError::Worktree(error.to_string()))?;
    if !output.status.success() {
        return Err(LaunchError::Worktree(String::from_utf8_lossy(&output.stderr).trim().to_owned()));
    }
    Ok(String::from_utf8_lossy(&output.stdout).into_owned())
}

fn on_path(program: &str) -> bool {
    std::env::var_os("PATH").is_some_and(|path| {
        std::env::split_paths(&path).any(|dir| crate::platform::program_in(&dir, program).is_some())
    })
}

fn unique_suffix() -> String {
    let millis = crate::clock::now_millis();
    let mut n = millis % 36u64.pow(6);
    let mut out = String::new();
    for _ in 0..6 {
        let digit = (n % 36) as u32;
        out.insert(0, char::from_digit(digit, 36).unwrap_or('0'));
        n /= 36;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_cli_starts_interactive_with_its_first_prompt() {
        assert_eq!(argv("claude", Some("fix it")).unwrap(), ["claude", "fix it"]);
        assert_eq!(argv("codex", Some("  ")).unwrap(), ["codex"]);
        assert_eq!(argv("gemini", Some("fix it")).unwrap(), ["gemini", "--prompt-interactive", "fix it"]);
        assert_eq!(argv("bash", None), Err(LaunchError::UnknownCli("bash".into())));
    }

    #[test]
    fn a_worktree_is_made_beside_the_repository_on_a_new_branch() {
        let dir = tempfile::tempdir().unwrap();
        let repo = dir.path().join("api");
        std::fs::create_dir(&repo).unwrap();
        for args in [
            &["init", "-q", "-b", "main"][..],
            &["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "x"],
        ] {
            assert!(Command::new("git").arg("-C").arg(&repo).args(args).status().unwrap().success());
        }
        let made = worktree(&repo, "feature/login").unwrap();
        assert_eq!(made, dir.path().join("api-feature-login"));
        assert!(made.join(".git").exists());
        assert_eq!(git(&made, &["branch", "--show-current"]).unwrap().trim(), "feature/login");
        assert_eq!(worktree(&repo, "-x"), Err(LaunchError::BadBranch("-x".into())));
        assert_eq!(worktree(&repo, "a..b"), Err(LaunchError::BadBranch("a..b".into())));
    }
}
