//! The tie between a session and the tmux pane that shows it (issue 33), by its CLI's rule
//! ([`switchboard_core::agent::Tie`]). What the hook reported (its process, `$TMUX_PANE`) is only
//! where to start looking: Codex runs every window's hooks in one daemon, started from the first
//! window's pane, so the pane a hook reports may show another session. A pane counts only when a
//! process in it that serves this one session proves it; a process that serves several (a daemon
//! holding every session's rollout) proves nothing.

use std::path::{Path, PathBuf};

use switchboard_core::agent::Tie;
use switchboard_core::Session;

use super::tmux;
use crate::process;

/// How far up the process tree the agent may sit below its pane's shell.
const MAX_DEPTH: usize = 16;
/// The most processes looked at under one pane.
const MAX_TREE: usize = 256;

/// A tmux pane proven to show one session: its id (`%3`) and its server's socket.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pane {
    pub id: String,
    pub socket: Option<PathBuf>,
}

impl Pane {
    pub fn socket(&self) -> Option<&Path> {
        self.socket.as_deref()
    }
}

/// Why no pane is tied to the session: nothing is typed, shown or attached.
#[derive(Clone, Debug, thiserror::Error, PartialEq, Eq)]
pub enum TieError {
    #[error("it does not run in tmux ({0}): use Jump to go to its terminal")]
    NotInTmux(String),
    #[error("its tmux pane {0} is gone, or tmux does not answer")]
    PaneGone(String),
    #[error("its tmux pane {0} runs something else now (not this agent's process): nothing was typed")]
    NotThisAgent(String),
    #[error("its agent process has exited")]
    Exited,
    /// The hook ran in a process that serves several sessions, and no pane proves it shows this one.
    #[error("{name} runs this session in a process that serves all its windows, and no tmux pane proves it shows this one (pane {pane} is where that process was started): nothing was typed. To answer it from the board, {fix}; meanwhile answer it in its own window")]
    Shared { name: &'static str, pane: String, fix: &'static str },
    /// More than one pane shows the session (two windows resumed it): which one is meant is not known.
    #[error("{0} panes show this session ({1}): nothing was typed; answer it in the one you use")]
    SeveralPanes(usize, String),
}

/// The pane that shows `session`, proven by its CLI's rule; or why there is none.
pub fn tied_pane(session: &Session) -> Result<Pane, TieError> {
    let Some(agent) = session.process.as_ref() else {
        return Err(TieError::NotInTmux("where it runs is not known".into()));
    };
    let Some(reported) = agent.tmux_pane.clone() else {
        let tty = agent.tty.as_deref().map_or("no terminal Switchboard can see".into(), |tty| format!("tty {tty}"));
        return Err(TieError::NotInTmux(tty));
    };
    if !process::is_alive(agent) {
        return Err(TieError::Exited);
    }
    let socket = agent.tmux_socket.as_deref().map(PathBuf::from);
    let pane_pid = tmux::pane_pid(socket.as_deref(), &reported).ok_or_else(|| TieError::PaneGone(reported.clone()))?;
    let cli = switchboard_core::agent(&session.agent);
    match cli.map_or(Tie::HookProcess, |cli| cli.tie) {
        Tie::HookProcess => {
            if descends_from(agent.pid, pane_pid) {
                Ok(Pane { id: reported, socket })
            } else {
                Err(TieError::NotThisAgent(reported))
            }
        }
        Tie::SessionFile { servers, prefix, suffix, fix } => {
            let name = cli.map_or("the CLI", |cli| cli.name);
            let shared = || TieError::Shared { name, pane: reported.clone(), fix };
            let proof =
                Proof { transcript: session.transcript_path.as_deref().map(Path::new), servers, prefix, suffix };
            // The reported pane first: in the common case (one window, in-process) it is the one.
            if proof.shown_under(pane_pid) {
                return Ok(Pane { id: reported, socket });
            }
            let showing: Vec<String> = tmux::panes(socket.as_deref())
                .into_iter()
                .filter(|(pane, pid)| *pane != reported && proof.shown_under(*pid))
                .map(|(pane, _)| pane)
                .collect();
            match showing.as_slice() {
                [] => Err(shared()),
                [one] => Ok(Pane { id: one.clone(), socket }),
                many => Err(TieError::SeveralPanes(many.len(), many.join(", "))),
            }
        }
    }
}

/// What proves a process shows one session of a CLI whose hooks may run in a shared server.
struct Proof<'a> {
    transcript: Option<&'a Path>,
    servers: &'a [&'a str],
    prefix: &'a str,
    suffix: &'a str,
}

impl Proof<'_> {
    /// Whether a process in `root`'s tree that serves no other session holds this one: the
    /// session's transcript open. A server's subtree is skipped. (A command line naming the
    /// session, `codex resume <id>`, is not proof: it stays after `/clear` or a thread switch.)
    fn shown_under(&self, root: u32) -> bool {
        let mut queue = vec![root];
        let mut seen = 0;
        while let Some(pid) = queue.pop() {
            seen += 1;
            if seen > MAX_TREE {
                return false;
            }
            let command = process::cmdline(pid).unwrap_or_default();
            let words: Vec<&str> = command.split_whitespace().collect();
            if self.servers.iter().any(|server| words.contains(server)) {
                continue;
            }
            match self.holds(pid) {
                Holds::This => return true,
                Holds::Others => continue,
                Holds::Nothing => queue.extend(process::children(pid)),
            }
        }
        false
    }

    fn holds(&self, pid: u32) -> Holds {
        let mut this = false;
        // Where the OS cannot list a process's open files, nothing proves a pane (and so the
        // tie is refused with its reason, `Shared`).
        for target in crate::platform::open_files(pid).unwrap_or_default() {
            if Some(target.as_path()) == self.transcript {
                this = true;
            } else if self.is_session_file(&target) {
                return Holds::Others;
            }
        }
        if this {
            Holds::This
        } else {
            Holds::Nothing
        }
    }

    fn is_session_file(&self, path: &Path) -> bool {
        path.file_name()
            .and_then(|name| name.to_str())
            .is_some_and(|name| name.starts_with(self.prefix) && name.ends_with(self.suffix))
    }
}

enum Holds {
    This,
    Others,
    Nothing,
}

/// Whether `pid` is `root` or below it.
fn descends_from(pid: u32, root: u32) -> bool {
    let mut current = pid;
    for _ in 0..MAX_DEPTH {
        if current == root {
            return true;
        }
        match process::stat(current) {
            Some(stat) if stat.ppid > 1 => current = stat.ppid,
            _ => return false,
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    fn proof(transcript: &Path) -> Proof<'_> {
        Proof { transcript: Some(transcript), servers: &["app-server"], prefix: "rollout-", suffix: ".jsonl" }
    }

    fn wait_for_exec(child: &std::process::Child, word: &str) {
        wait_for(child, |command| command.contains(word));
    }

    fn wait_for(child: &std::process::Child, started: impl Fn(&str) -> bool) {
        for _ in 0..2_000 {
            if process::cmdline(child.id()).is_some_and(|c| started(&c)) {
                return;
            }
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        panic!("{} did not start", child.id());
    }

    #[test]
    fn a_process_holding_one_sessions_file_shows_it_and_one_holding_several_shows_none() {
        let dir = tempfile::tempdir().unwrap();
        let (one, two) = (dir.path().join("rollout-1.jsonl"), dir.path().join("rollout-2.jsonl"));
        std::fs::write(&one, "").unwrap();
        std::fs::write(&two, "").unwrap();
        let holder = |files: &[&Path]| {
            let redirects: String =
                files.iter().enumerate().map(|(n, f)| format!(" {}<'{}'", n + 3, f.display())).collect();
            let child =
                std::process::Command::new("sh").args(["-c", &format!("exec sleep 30 {redirects}")]).spawn().unwrap();
            // Its command line says `sleep` only once `exec` ran (the shell's own line says it
            // too, before the redirects are open: waiting on that was a race).
            wait_for(&child, |command| command.split_whitespace().next() == Some("sleep"));
            child
        };
        let mut alone = holder(&[&one]);
        let mut shared = holder(&[&one, &two]);
        assert!(proof(&one).shown_under(alone.id()), "its only session's file");
        assert!(!proof(&two).shown_under(alone.id()), "another session's file is not open there");
        assert!(!proof(&one).shown_under(shared.id()), "a process holding two sessions proves neither");
        for child in [&mut alone, &mut shared] {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    #[test]
    fn a_server_holding_the_file_shows_nothing_and_hides_its_children() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("rollout-x.jsonl");
        std::fs::write(&file, "").unwrap();
        let mut server = std::process::Command::new("sh")
            .args(["-c", &format!("exec 3<'{}'; sleep 30; : app-server", file.display())])
            .spawn()
            .unwrap();
        wait_for_exec(&server, "app-server");
        assert!(!proof(&file).shown_under(server.id()), "a server's open file proves nothing");
        let _ = server.kill();
        let _ = server.wait();
    }
}
