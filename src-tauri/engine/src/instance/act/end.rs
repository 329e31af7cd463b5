//! "End agent" (issue 25): SIGTERM to the agent's own process group — the CLI and the tools it
//! runs — after the user confirmed, and never anything else: the process must still be the one its
//! hook reported (pid and start time), and its group must not be Switchboard's own or a session
//! leader's (a login shell, tmux's pane shell): then only the agent process itself is signalled.
//! Never the process that asked or what it runs under, never another user's (issue 45).

use switchboard_core::Session;

use crate::process;

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum EndError {
    #[error("{0} is another machine's agent: end it on that machine")]
    Remote(String),
    #[error("where its agent runs is not known (no process reported by its hooks)")]
    Unknown,
    #[error("its agent process has exited already")]
    Gone,
    #[error("the signal was refused: {0}")]
    Refused(String),
    /// Whatever a hook said, some processes are never an agent to end (issue 34.7).
    #[error("pid {0} is {1}: Switchboard never signals it")]
    Protected(u32, &'static str),
}

/// Programs that adopt orphans or supervise a whole login (subreapers, inits): a forwarder whose
/// parent died reports one of them as its "agent".
const SUPERVISORS: &[&str] = &[
    "systemd",
    "init",
    "tini",
    "dumb-init",
    "s6-svscan",
    "runit",
    "runsv",
    "supervisord",
    "launchd",
    "tmux: server",
    "sshd",
    "login",
];

/// The process that asked to end an agent (`switchboard end` sends its pid and start time): it
/// and everything it runs under are never signalled (issue 45).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Caller {
    pub pid: u32,
    pub start: u64,
}

/// How far up a process tree is walked: deeper than any real one, bounded against a racy read.
const MAX_DEPTH: usize = 64;

/// Whether `pid` is `from` or one of `from`'s ancestors.
fn runs_under(from: u32, pid: u32) -> bool {
    let mut ancestor = from;
    for _ in 0..MAX_DEPTH {
        if ancestor == pid {
            return true;
        }
        match process::stat(ancestor) {
            Some(stat) if stat.ppid > 0 => ancestor = stat.ppid,
            _ => return false,
        }
    }
    false
}

/// Why `pid` must never be signalled from here, if it must not: the first process (of the
/// machine or of a pid namespace); this process, one of its ancestors or a process it started
/// (its tree); the process that asked (`caller`) or one it runs under (the shell that typed
/// `switchboard end`); another user's process (an instance running as root would otherwise reach
/// every user's); or a supervisor.
pub fn protected(pid: u32, caller: Option<Caller>) -> Option<&'static str> {
    if pid <= 1 {
        return Some("the first process (init)");
    }
    let me = std::process::id();
    if runs_under(me, pid) {
        return Some("Switchboard itself or a process it runs under");
    }
    if runs_under(pid, me) {
        return Some("a process Switchboard itself started");
    }
    if let Some(caller) = caller {
        // The caller waits for the answer: a pid that is not the one that asked is a forged one.
        if process::stat(caller.pid).is_none_or(|stat| stat.start != caller.start) {
            return Some("asked for by a process that is not there (a forged caller)");
        }
        if runs_under(caller.pid, pid) {
            return Some("the process that asked to end it, or one it runs under (its shell)");
        }
    }
    match crate::platform::owned_by_me(pid) {
        Some(true) => {}
        Some(false) => return Some("another user's process"),
        None => return Some("a process whose owner cannot be read"),
    }
    let comm = process::stat(pid)?.comm;
    SUPERVISORS.iter().any(|name| comm == *name).then_some("a supervisor of other processes (a subreaper or init)")
}

/// What was signalled.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ended {
    /// The agent's own process group (the CLI and what it started).
    Group(i32),
    /// Only the agent's process (its group is shared with its shell or terminal).
    Process(i32),
}

/// Sends SIGTERM to the session's agent (see the module's rules); `caller` is the process that
/// asked, when another process asked (`switchboard end`).
pub fn end(session: &Session, caller: Option<Caller>) -> Result<Ended, EndError> {
    if !session.is_local() {
        return Err(EndError::Remote(session.host.clone()));
    }
    let agent = session.process.as_ref().ok_or(EndError::Unknown)?;
    if !process::is_alive(agent) {
        return Err(EndError::Gone);
    }
    if let Some(why) = protected(agent.pid, caller) {
        return Err(EndError::Protected(agent.pid, why));
    }
    let pid = i32::try_from(agent.pid).map_err(|_| EndError::Unknown)?;
    // The agent leads its own group (a job of its shell, or started in its own group): the group is
    // the agent and its tools. A group it only shares (its shell's, tmux's pane, ours) is not.
    let own_group = crate::platform::terminate(agent.pid).map_err(|error| EndError::Refused(error.to_string()))?;
    let ended = if own_group { Ended::Group(pid) } else { Ended::Process(pid) };
    tracing::info!(session = %session.session_id, ?ended, "ended the agent from Switchboard");
    Ok(ended)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::process::Command;
    use std::time::{Duration, Instant};
    use switchboard_core::{normalize, AgentProcess, Reducer};

    fn session_of(pid: u32) -> Session {
        let event = normalize("custom", &serde_json::json!({"sessionId": "s", "status": "working"}), 1).unwrap();
        let mut session = Reducer::new().apply(&event, false).unwrap().session;
        session.process =
            Some(AgentProcess { pid, start: process::stat(pid).unwrap().start, ..AgentProcess::default() });
        session
    }

    /// A process this one did not start (its parent exited at once), as a real agent is to the
    /// instance; `leads_group` puts it at the head of a process group of its own (a shell's job).
    fn agent(script: &str, leads_group: bool) -> u32 {
        let group = if leads_group { "perl -e 'setpgrp(0,0); exec @ARGV' " } else { "" };
        let run = format!("{group}sh -c '{script}'");
        let output = Command::new("sh").args(["-c", &format!("{run} >/dev/null 2>&1 & echo $!")]).output().unwrap();
        let pid: u32 = String::from_utf8_lossy(&output.stdout).trim().parse().unwrap();
        // Until the exec, it is a copy of the sh that started it.
        let started = (0..500).any(|_| {
            std::thread::sleep(Duration::from_millis(10));
            process::stat(pid).is_some_and(|stat| stat.ppid != std::process::id())
                && process::cmdline(pid).is_some_and(|line| line.contains("sleep"))
        });
        assert!(started, "{pid}");
        pid
    }

    #[test]
    fn pid_1_this_process_its_tree_and_supervisors_are_never_ended() {
        assert!(protected(1, None).is_some(), "init");
        assert!(protected(0, None).is_some());
        let me = std::process::id();
        assert!(protected(me, None).is_some(), "itself");
        let parent = process::stat(me).unwrap().ppid;
        assert!(protected(parent, None).is_some(), "its parent (cargo's harness, a shell)");
        // What a hook said does not matter: a session naming itself refuses to end it.
        let session = session_of(me);
        assert!(matches!(end(&session, None), Err(EndError::Protected(pid, _)) if pid == me));
        // A process it started is its own (a remote's pipe), not an agent.
        let mut child = Command::new("sleep").arg("30").spawn().unwrap();
        assert_eq!(protected(child.id(), None), Some("a process Switchboard itself started"));
        let _ = child.kill();
        let _ = child.wait();
        // An agent it did not start is not protected.
        let other = agent("exec sleep 30", false);
        assert_eq!(protected(other, None), None);
        let _ = crate::platform::terminate(other);
    }

    #[test]
    fn the_process_that_asked_and_what_it_runs_under_are_never_ended() {
        // The "shell" runs the "CLI" (sleep) that asks to end the shell's session.
        let shell = agent("sleep 30 & wait", false);
        let asking = process::children(shell).into_iter().next().expect("the shell's command runs");
        let caller = Caller { pid: asking, start: process::stat(asking).unwrap().start };
        assert_eq!(
            protected(shell, Some(caller)),
            Some("the process that asked to end it, or one it runs under (its shell)")
        );
        assert!(matches!(end(&session_of(shell), Some(caller)), Err(EndError::Protected(pid, _)) if pid == shell));
        assert!(process::stat(shell).is_some_and(|stat| stat.state != 'Z'), "the shell survives");
        // A caller that is not there (a forged pid or start time) proves nothing: refused.
        let forged = Caller { start: caller.start + 1, ..caller };
        assert!(protected(shell, Some(forged)).is_some_and(|why| why.contains("not there")));
        // Another process asking may end it.
        let me = Caller { pid: std::process::id(), start: process::stat(std::process::id()).unwrap().start };
        assert_eq!(protected(shell, Some(me)), None);
        let _ = crate::platform::terminate(shell);
        let _ = crate::platform::terminate(asking);
    }

    #[test]
    fn another_users_process_is_never_ended() {
        // Only root can start one; as another user this process has no one else's to try.
        // SAFETY: geteuid has no preconditions.
        if unsafe { libc::geteuid() } != 0 {
            assert_eq!(crate::platform::owned_by_me(std::process::id()), Some(true));
            return;
        }
        let theirs = agent("exec setpriv --reuid=65534 --regid=65534 --clear-groups sleep 30", false);
        assert!((0..500).any(|_| {
            std::thread::sleep(Duration::from_millis(10));
            crate::platform::owned_by_me(theirs) == Some(false)
        }));
        assert_eq!(protected(theirs, None), Some("another user's process"));
        assert!(matches!(end(&session_of(theirs), None), Err(EndError::Protected(pid, _)) if pid == theirs));
        assert!(process::stat(theirs).is_some_and(|stat| stat.state != 'Z'), "it runs on");
        let _ = crate::platform::terminate(theirs);
    }

    fn gone(pid: u32) -> bool {
        let deadline = Instant::now() + Duration::from_secs(20);
        while Instant::now() < deadline {
            if process::stat(pid).is_none_or(|stat| matches!(stat.state, 'Z' | 'X')) {
                return true;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        false
    }

    #[test]
    fn the_agent_and_its_tools_end_and_a_sibling_survives() {
        // The "agent": a shell leading its own group, with a tool (sleep) it started.
        let pid = agent("sleep 600 & wait", true);
        let sibling = agent("exec sleep 600", false);
        let tool = (0..500)
            .find_map(|_| {
                std::thread::sleep(Duration::from_millis(10));
                process::children(pid).into_iter().next()
            })
            .expect("the agent's tool runs");
        let ended = end(&session_of(pid), None).unwrap();
        assert_eq!(ended, Ended::Group(pid as i32));
        assert!(gone(pid), "the agent ended");
        assert!(gone(tool), "its tool ended with it");
        assert!(process::stat(sibling).is_some_and(|s| s.state != 'Z'), "a sibling survives");
        let _ = crate::platform::terminate(sibling);
        // Ended already (or a reused pid): nothing is signalled.
        assert_eq!(end(&session_of_gone(), None), Err(EndError::Gone));
    }

    fn session_of_gone() -> Session {
        let mut session = session_of(std::process::id());
        session.process.as_mut().unwrap().start += 1;
        session
    }

    #[test]
    fn an_agent_sharing_a_group_is_signalled_alone() {
        let agent = agent("exec sleep 600", false);
        let ended = end(&session_of(agent), None).unwrap();
        assert_eq!(ended, Ended::Process(agent as i32), "never a group it only shares");
        assert!(gone(agent));
    }
}
