//! The meter's slow thread: a folder's git state (git may be slow; it runs with
//! `GIT_OPTIONAL_LOCKS=0`, so it never takes a lock the agent's own git needs), and whether a
//! session is one its CLI runs in the background (`background.rs`).

use std::collections::HashMap;
use std::path::Path;
use std::process::Command;
use std::sync::mpsc::Receiver;
use std::time::{Duration, Instant};

use switchboard_core::usage::{GitInfo, Reading};

use super::background::Look;
use super::GIT_FRESH;
use crate::instance::hub::{Input, Inputs};
use crate::process;

/// How long git may take before it is given up on.
const GIT_DEADLINE: Duration = Duration::from_secs(5);

/// What the thread is asked.
pub enum Ask {
    /// The git state of a session's folder: (session id, folder).
    Git(String, String),
    /// Whether the session is a background one.
    Background(Box<Look>),
}

pub fn git_worker(queue: Receiver<Ask>, inputs: Inputs) {
    let mut recent: HashMap<String, (Option<GitInfo>, Instant)> = HashMap::new();
    for ask in queue {
        let (session_id, cwd) = match ask {
            Ask::Git(session_id, cwd) => (session_id, cwd),
            Ask::Background(look) => {
                if let Some(attach) = look.run() {
                    inputs.send(Input::Reading {
                        session_id: look.session_id.clone(),
                        reading: Reading::Background(Some(attach)),
                    });
                }
                continue;
            }
        };
        // Sessions sharing a folder and ending together need one look.
        let fresh = recent.get(&cwd).filter(|(_, at)| at.elapsed() < GIT_FRESH).map(|(git, _)| git.clone());
        let git = fresh.unwrap_or_else(|| git_info(Path::new(&cwd)));
        recent.retain(|_, (_, at)| at.elapsed() < GIT_FRESH);
        recent.insert(cwd, (git.clone(), Instant::now()));
        inputs.send(Input::Reading { session_id, reading: Reading::Git(git) });
    }
}

/// The git state of `dir`, or `None` when it is not in a repository (or git is missing or slow).
pub fn git_info(dir: &Path) -> Option<GitInfo> {
    let git = |args: &[&str]| {
        let mut command = Command::new("git");
        command.arg("-C").arg(dir).args(args).env("GIT_OPTIONAL_LOCKS", "0").env("LC_ALL", "C");
        process::output_within(&mut command, GIT_DEADLINE)
    };
    let paths = git(&["rev-parse", "--path-format=absolute", "--show-toplevel", "--git-dir", "--git-common-dir"])?;
    let mut paths = paths.lines();
    let (top, git_dir, common_dir) = (paths.next()?, paths.next()?, paths.next()?);
    let status = git(&["status", "--porcelain=v2", "--branch", "--untracked-files=normal"])?;
    let head = status.lines().find_map(|line| line.strip_prefix("# branch.head "));
    Some(GitInfo {
        branch: head.filter(|head| *head != "(detached)").map(str::to_owned),
        worktree: (git_dir != common_dir).then(|| top.to_owned()),
        dirty: status.lines().any(|line| !line.starts_with('#') && !line.is_empty()),
    })
}
