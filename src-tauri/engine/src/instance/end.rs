//! "End agent" (issue 25): SIGTERM to the agent's own process group — the CLI and the tools it
//! runs — after the user confirmed, and never anything else: the process must still be the one its
//! hook reported (pid and start time), and its group must not be Switchboard's own or a session
//! leader's (a login shell, tmux's pane shell): then only the agent process itself is signalled.

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

/// Why `pid` must never be signalled from here, if it must not: the first process (of the
/// machine or of a pid namespace), this process or one of its ancestors, or a supervisor.
pub fn protected(pid: u32) -> Option<&'static str> {
    if pid <= 1 {
        return Some("the first process (init)");
    }
    let mut ancestor = std::process::id();
    for _ in 0..64 {
        if ancestor == pid {
            return Some("Switchboard itself or a process it runs under");
        }
        match process::stat(ancestor) {
            Some(stat) if stat.ppid > 0 => ancestor = stat.ppid,
            _ => break,
        }
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

/// Sends SIGTERM to the session's agent (see the module's rules).
pub fn end(session: &Session) -> Result<Ended, EndError> {
    if !session.is_local() {
        return Err(EndError::Remote(session.host.clone()));
    }
    let agent = session.process.as_ref().ok_or(EndError::Unknown)?;
    if !process::is_alive(agent) {
        return Err(EndError::Gone);
    }
    if let Some(why) = protected(agent.pid) {
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
    use std::os::unix::process::CommandExt;
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

    #[test]
    fn pid_1_this_process_its_ancestors_and_supervisors_are_never_ended() {
        assert!(protected(1).is_some(), "init");
        assert!(protected(0).is_some());
        let me = std::process::id();
        assert!(protected(me).is_some(), "itself");
        let parent = process::stat(me).unwrap().ppid;
        assert!(protected(parent).is_some(), "its parent (cargo's harness, a shell)");
        // What a hook said does not matter: a session naming itself refuses to end it.
        let mut session = session_of(me);
        assert!(matches!(end(&session), Err(EndError::Protected(pid, _)) if pid == me));
        // An ordinary child is not protected.
        let mut child = Command::new("sleep").arg("30").spawn().unwrap();
        assert_eq!(protected(child.id()), None);
        session.process = None;
        let _ = child.kill();
        let _ = child.wait();
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
        let mut agent = Command::new("sh").args(["-c", "sleep 600 & wait"]).process_group(0).spawn().unwrap();
        let sibling = Command::new("sleep").arg("600").spawn().unwrap();
        let pid = agent.id();
        let tool = (0..500)
            .find_map(|_| {
                std::thread::sleep(Duration::from_millis(10));
                process::children(pid).into_iter().next()
            })
            .expect("the agent's tool runs");
        let ended = end(&session_of(pid)).unwrap();
        assert_eq!(ended, Ended::Group(pid as i32));
        let _ = agent.wait();
        assert!(gone(tool), "its tool ended with it");
        assert!(process::stat(sibling.id()).is_some_and(|s| s.state != 'Z'), "a sibling survives");
        let mut sibling = sibling;
        let _ = sibling.kill();
        let _ = sibling.wait();
        // Ended already (or a reused pid): nothing is signalled.
        assert_eq!(end(&session_of_gone()), Err(EndError::Gone));
    }

    fn session_of_gone() -> Session {
        let mut session = session_of(std::process::id());
        session.process.as_mut().unwrap().start += 1;
        session
    }

    #[test]
    fn an_agent_sharing_our_group_is_signalled_alone() {
        let mut agent = Command::new("sleep").arg("600").spawn().unwrap();
        let ended = end(&session_of(agent.id())).unwrap();
        assert_eq!(ended, Ended::Process(agent.id() as i32), "never our own group");
        let _ = agent.wait();
    }
}
