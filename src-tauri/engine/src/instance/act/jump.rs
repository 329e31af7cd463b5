//! Jump to the agent's terminal (issue "act from the board"): from what the forwarder reported
//! about the agent's process, bring its tmux pane or its terminal window forward; when neither
//! is possible, hand back the command that resumes the session, for the user to paste.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use serde::Serialize;
use switchboard_core::Session;

use crate::process;

/// What the jump did.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase", tag = "how")]
pub enum Jump {
    /// The agent's tmux pane is now the active pane of its window, and its window the current
    /// one of every client attached to its session.
    Tmux { pane: String },
    /// The terminal window holding the agent has the input focus.
    Window { window: String },
    /// The Mac terminal's tab (Terminal.app, iTerm2) whose tty is the agent's is selected and
    /// its application in front.
    Tab { tty: String },
    /// Nothing to focus: this command resumes the session in a new terminal.
    Resume { command: String },
    /// The agent still runs, in a terminal Switchboard cannot bring forward (no tmux, no window
    /// it can find): resuming it elsewhere would run the session twice, so where it runs is told.
    Elsewhere { pid: u32, tty: Option<String> },
    /// The session's CLI ran its hook in a process that serves several windows, and no pane
    /// proves it shows this one (issue 33): nothing was focused, and why.
    Refused { reason: String },
    /// A remote's session (issue 23): `command` reaches its tmux pane (or resumes it) over the
    /// remote's own command; `opened` when a terminal was started with it, else it is to be
    /// copied (a remote reached by something other than ssh has no terminal to give).
    Remote { host: String, command: String, opened: bool },
}

/// Jumps to a remote's session through `reach`, the remote's command (`ssh devbox`): its tmux
/// pane attached in a new terminal (`ssh -t devbox tmux attach …`), or the session resumed there
/// once its agent is gone.
pub fn jump_remote(session: &Session, reach: &[String]) -> Jump {
    let (argv, is_ssh) = remote_command(session, reach);
    let command = argv.iter().map(|word| shell_quote(word)).collect::<Vec<_>>().join(" ");
    let opened = is_ssh
        && crate::platform::own_group(
            Command::new("x-terminal-emulator").arg("-e").args(&argv).stdin(Stdio::null()).stdout(Stdio::null()),
        )
        .stderr(Stdio::null())
        .spawn()
        .is_ok();
    Jump::Remote { host: session.host.clone(), command, opened }
}

/// The command that reaches a remote's session, and whether it is ssh's (a terminal can take it).
fn remote_command(session: &Session, reach: &[String]) -> (Vec<String>, bool) {
    let host = &session.host;
    let process = session.process.as_ref();
    let there = match process.and_then(|p| p.tmux_pane.as_deref()) {
        Some(pane) => {
            let tmux = match process.and_then(|p| p.tmux_socket.as_deref()) {
                Some(socket) => format!("tmux -S {}", shell_quote(socket)),
                None => "tmux".into(),
            };
            let pane = shell_quote(pane);
            format!("{tmux} attach-session -t {pane} \\; select-window -t {pane} \\; select-pane -t {pane}")
        }
        None if session.ended || session.exited => {
            let id = session.session_id.strip_prefix(&format!("{host}:")).unwrap_or(&session.session_id);
            resume_command(&Session { session_id: id.to_owned(), ..session.clone() })
        }
        // Running there, not in tmux: nothing can reach its terminal from here.
        None => String::new(),
    };
    let is_ssh = reach.first().is_some_and(|program| Path::new(program).file_name().is_some_and(|name| name == "ssh"));
    let mut argv: Vec<String> = reach.to_vec();
    if is_ssh {
        // ssh runs its last argument through the remote's shell, and `-t` gives it a terminal.
        argv.insert(1, "-t".into());
        if !there.is_empty() {
            argv.push(there);
        }
    } else if !there.is_empty() {
        // `docker exec`, `kubectl exec --`: a program and its arguments, no shell: hand the line to
        // one. tmux needs a terminal there, which such a command gives with its own flag (`-t`).
        argv.extend(["sh".to_owned(), "-c".to_owned(), there]);
    }
    (argv, is_ssh)
}

/// Jumps to the session's terminal: the tmux pane tied to it (never merely the one its hook
/// reported), else its terminal window, else where it runs or how to resume it.
pub fn jump(session: &Session) -> Jump {
    use crate::terminal::TieError;
    // A session its CLI runs in the background has no terminal: its CLI's own command opens it
    // in one (`claude attach <id>`).
    if let Some(attach) = session.background.as_ref().filter(|_| !session.ended) {
        return Jump::Resume { command: attach.clone() };
    }
    let process = session.process.as_ref();
    let reported = process.and_then(|p| p.tmux_pane.as_deref());
    if reported.is_some() {
        match crate::terminal::tied_pane(session) {
            Ok(pane) if focus_tmux_pane(pane.socket(), &pane.id) => {
                let socket = pane.socket();
                // An agent started from the board, in Switchboard's own tmux server that nobody looks
                // at: a terminal attached to it shows the pane.
                let ours = socket
                    .and_then(Path::file_name)
                    .is_some_and(|name| *name == *crate::instance::act::launch::server());
                if ours && !crate::terminal::tmux::has_clients(socket) {
                    attach_in_terminal(socket, &pane.id);
                }
                // The terminal that shows tmux may be a window of its own: raise it too — only when
                // the pane is the one the hook ran in (its window is that pane's terminal).
                if reported == Some(pane.id.as_str()) {
                    if let Some(window) = process.and_then(|p| p.window_id.as_deref()) {
                        focus_window(window);
                    }
                }
                return Jump::Tmux { pane: pane.id };
            }
            // The hook's window may show another session: nothing is focused.
            Err(refused @ (TieError::Shared { .. } | TieError::SeveralPanes(..))) => {
                return Jump::Refused { reason: refused.to_string() }
            }
            Ok(_) | Err(_) => {}
        }
    }
    // A Mac's Terminal.app or iTerm2: the tab whose tty is the agent's.
    if let Some(p) = process {
        if crate::platform::focus::focus_tab(p.term_program.as_deref(), p.tty.as_deref()) == Ok(true) {
            return Jump::Tab { tty: p.tty.clone().unwrap_or_default() };
        }
    }
    let window = process.and_then(|p| p.window_id.clone()).or_else(|| process.and_then(|p| window_of(p.pid)));
    if let Some(window) = window {
        if focus_window(&window) {
            return Jump::Window { window };
        }
    }
    if let Some(running) = process.filter(|p| !session.ended && process::is_alive(p)) {
        return Jump::Elsewhere { pid: running.pid, tty: running.tty.clone() };
    }
    Jump::Resume { command: resume_command(session) }
}

/// `tmux select-window` + `select-pane` on the pane, and `switch-client` for clients attached
/// elsewhere; `true` when the pane exists and was selected.
pub fn focus_tmux_pane(socket: Option<&Path>, pane: &str) -> bool {
    let tmux = |args: &[&str]| {
        let mut command = Command::new("tmux");
        if let Some(socket) = socket {
            command.arg("-S").arg(socket);
        }
        run(command.args(args))
    };
    if !tmux(&["select-window", "-t", pane]) || !tmux(&["select-pane", "-t", pane]) {
        return false;
    }
    // Clients attached to another session follow; none attached is fine.
    let _ = tmux(&["switch-client", "-t", pane]);
    true
}

/// Opens the user's terminal (`x-terminal-emulator`) attached to the pane's session.
fn attach_in_terminal(socket: Option<&Path>, pane: &str) -> bool {
    let mut command = Command::new("x-terminal-emulator");
    command.args(["-e", "tmux"]);
    if let Some(socket) = socket {
        command.arg("-S").arg(socket);
    }
    command.args(["attach-session", "-t", pane]).stdin(Stdio::null()).stdout(Stdio::null()).stderr(Stdio::null());
    crate::platform::own_group(&mut command).spawn().is_ok()
}

/// Gives the X11 window the input focus (and asks the window manager to raise it).
pub fn focus_window(window: &str) -> bool {
    if !window.bytes().all(|b| b.is_ascii_digit()) || window.is_empty() {
        return false;
    }
    // `windowactivate` needs a window manager (EWMH); `windowfocus` works without one.
    let activated = run(Command::new("xdotool").args(["windowactivate", window]));
    activated || run(Command::new("xdotool").args(["windowfocus", window]))
}

/// The X11 window of the terminal running the agent: the first ancestor of the agent process
/// that owns a window (`_NET_WM_PID`).
fn window_of(pid: u32) -> Option<String> {
    let mut pid = pid;
    for _ in 0..8 {
        let output = Command::new("xdotool")
            .args(["search", "--onlyvisible", "--pid", &pid.to_string()])
            .stderr(Stdio::null())
            .output()
            .ok()?;
        if let Some(window) = String::from_utf8_lossy(&output.stdout).lines().next() {
            return Some(window.trim().to_owned());
        }
        pid = process::stat(pid)?.ppid;
        if pid <= 1 {
            return None;
        }
    }
    None
}

/// The command that resumes the session, run from its folder.
pub fn resume_command(session: &Session) -> String {
    let id = shell_quote(&session.session_id);
    let resume = switchboard_core::agent(&session.agent)
        .and_then(|agent| agent.resume_command(&id))
        .unwrap_or_else(|| format!("{} # session {id}", session.agent));
    match &session.cwd {
        Some(cwd) => format!("cd {} && {resume}", shell_quote(cwd)),
        None => resume,
    }
}

fn shell_quote(text: &str) -> String {
    if !text.is_empty() && text.bytes().all(|b| b.is_ascii_alphanumeric() || b"-_./:@%+".contains(&b)) {
        text.to_owned()
    } else {
        format!("'{}'", text.replace('\'', r"'\''"))
    }
}

/// Runs a short helper command with a deadline; `true` when it exits 0.
fn run(command: &mut Command) -> bool {
    let Ok(mut child) = command.stdin(Stdio::null()).stdout(Stdio::null()).stderr(Stdio::null()).spawn() else {
        return false;
    };
    for _ in 0..100 {
        match child.try_wait() {
            Ok(Some(status)) => return status.success(),
            Ok(None) => std::thread::sleep(Duration::from_millis(20)),
            Err(_) => return false,
        }
    }
    let _ = child.kill();
    let _ = child.wait();
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use switchboard_core::{normalize, AgentProcess, Reducer};

    fn session(agent: &str, id: &str, cwd: &str) -> Session {
        let event = normalize("custom", &serde_json::json!({"sessionId": id, "agent": agent, "cwd": cwd}), 1).unwrap();
        Reducer::new().apply(&event, false).unwrap().session
    }

    #[test]
    fn a_remote_tmux_pane_is_attached_over_ssh_and_an_ended_session_resumed_there() {
        let mut board = Reducer::new();
        let mut there = session("claude", "abc", "/srv/api");
        there.process = Some(switchboard_core::AgentProcess {
            pid: 7,
            start: 1,
            tty: None,
            tmux_pane: Some("%3".into()),
            tmux_socket: Some("/tmp/tmux-1001/default".into()),
            window_id: None,
            term_program: None,
        });
        let remote = board.mirror("devbox", there.clone(), false, u64::MAX).unwrap().session;
        let ssh = ["ssh".to_owned(), "devbox".to_owned()];
        let (argv, is_ssh) = remote_command(&remote, &ssh);
        assert!(is_ssh);
        assert_eq!(argv[..3], ["ssh", "-t", "devbox"]);
        assert_eq!(
            argv[3],
            r"tmux -S /tmp/tmux-1001/default attach-session -t %3 \; select-window -t %3 \; select-pane -t %3"
        );
        there.process = None;
        there.ended = true;
        let ended = board.mirror("devbox", there, false, u64::MAX).unwrap().session;
        let docker = ["docker".to_owned(), "exec".to_owned(), "-i".to_owned(), "box".to_owned()];
        let (argv, is_ssh) = remote_command(&ended, &docker);
        assert!(!is_ssh, "no terminal to give: the command is copied");
        assert_eq!(argv[4..6], ["sh", "-c"], "a program, not a shell, runs there: the line goes to one");
        assert_eq!(argv.last().unwrap(), "cd /srv/api && claude --resume abc", "its own id there, not this board's");
    }

    #[test]
    fn the_resume_command_names_the_cli_the_folder_and_the_session() {
        assert_eq!(
            resume_command(&session("claude", "00893aaf-19fa", "/home/ana/src/webapp")),
            "cd /home/ana/src/webapp && claude --resume 00893aaf-19fa"
        );
        assert_eq!(resume_command(&session("codex", "019f", "/w/my app")), "cd '/w/my app' && codex resume 019f");
        assert_eq!(resume_command(&session("gemini", "g1", "/w")), "cd /w && gemini --resume g1");
        assert_eq!(shell_quote("it's"), r"'it'\''s'");
    }

    #[test]
    fn without_a_terminal_to_focus_the_jump_hands_back_the_resume_command() {
        let mut s = session("claude", "abc", "/w");
        s.process =
            Some(AgentProcess { pid: u32::MAX - 1, window_id: Some("not-a-window".into()), ..Default::default() });
        assert_eq!(jump(&s), Jump::Resume { command: "cd /w && claude --resume abc".into() });
    }

    /// Issue 21.6: a session whose agent still runs is not offered `--resume` (a second copy).
    #[test]
    fn a_running_agent_out_of_reach_is_told_where_it_runs_not_resumed() {
        let me = std::process::id();
        let start = process::stat(me).unwrap().start;
        let mut s = session("claude", "abc", "/w");
        s.process = Some(AgentProcess {
            pid: me,
            start,
            tty: Some("/dev/pts/7".into()),
            window_id: Some("not-a-window".into()),
            ..Default::default()
        });
        assert_eq!(jump(&s), Jump::Elsewhere { pid: me, tty: Some("/dev/pts/7".into()) });
        s.ended = true;
        assert!(matches!(jump(&s), Jump::Resume { .. }), "an ended session is resumed");
    }

    #[test]
    fn a_tmux_pane_among_several_is_selected() {
        if !run(Command::new("tmux").arg("-V")) {
            eprintln!("tmux is not installed: skipped");
            return;
        }
        let dir = tempfile::tempdir().unwrap();
        let socket = dir.path().join("tmux.sock");
        let tmux = |args: &[&str]| {
            let output = Command::new("tmux").arg("-S").arg(&socket).args(args).output().unwrap();
            String::from_utf8_lossy(&output.stdout).trim().to_owned()
        };
        tmux(&["-f", "/dev/null", "new-session", "-d", "-s", "agents", "sleep 60"]);
        let target = tmux(&["new-window", "-P", "-F", "#{pane_id}", "sleep 60"]);
        tmux(&["split-window", "-P", "-F", "#{pane_id}", "sleep 60"]);
        tmux(&["new-window", "sleep 60"]);
        assert_ne!(tmux(&["display", "-p", "#{pane_id}"]), target, "another pane is active first");
        let mut s = session("claude", "abc", "/w");
        // The agent is the pane's own process: Jump goes only to a pane tied to it.
        let pid: u32 = tmux(&["display", "-p", "-t", &target, "#{pane_pid}"]).parse().unwrap();
        s.process = Some(AgentProcess {
            pid,
            start: process::stat(pid).unwrap().start,
            tmux_pane: Some(target.clone()),
            tmux_socket: Some(socket.to_string_lossy().into_owned()),
            ..Default::default()
        });
        assert_eq!(jump(&s), Jump::Tmux { pane: target.clone() });
        assert_eq!(tmux(&["display", "-p", "#{pane_id}"]), target);
        tmux(&["kill-server"]);
    }
}
