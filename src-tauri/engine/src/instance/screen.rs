//! The third source (issue 20.3): what an agent in tmux shows on its screen. Read only for a
//! session that waits or is blocked, only while it does, at most every [`SCREEN_EVERY`], and
//! only for a CLI whose screen says something no hook or record says (`Agent::screen_cancel`:
//! Gemini CLI's "Request cancelled." after Esc at a question).

use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use switchboard_core::AgentProcess;

/// How often a waiting or blocked session's pane is looked at.
pub const SCREEN_EVERY: Duration = Duration::from_secs(1);
/// How long `tmux capture-pane` may take before it is given up on.
const CAPTURE_DEADLINE: Duration = Duration::from_secs(1);
/// The bottom of the screen, where a CLI writes what just happened above its prompt.
const BOTTOM_LINES: usize = 15;

/// The visible text of the agent's tmux pane, if it runs in one and tmux answers in time.
pub fn capture(process: &AgentProcess) -> Option<String> {
    let pane = process.tmux_pane.as_deref()?;
    let mut command = Command::new("tmux");
    if let Some(socket) = process.tmux_socket.as_deref() {
        command.arg("-S").arg(Path::new(socket));
    }
    let mut child = command
        .args(["capture-pane", "-p", "-t", pane])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .ok()?;
    let started = Instant::now();
    loop {
        match child.try_wait() {
            Ok(Some(status)) if status.success() => break,
            Ok(Some(_)) | Err(_) => return None,
            Ok(None) if started.elapsed() > CAPTURE_DEADLINE => {
                let _ = child.kill();
                let _ = child.wait();
                return None;
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(5)),
        }
    }
    let mut text = String::new();
    child.stdout.take()?.take(1024 * 1024).read_to_string(&mut text).ok()?;
    Some(text)
}

/// How often `marker` shows at the bottom of `screen`.
pub fn marks(screen: &str, marker: &str) -> usize {
    let lines: Vec<&str> = screen.lines().filter(|line| !line.trim().is_empty()).collect();
    let bottom = &lines[lines.len().saturating_sub(BOTTOM_LINES)..];
    bottom.iter().filter(|line| line.contains(marker)).count()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_bottom_of_the_screen_counts() {
        let old = format!("Request cancelled.\n{}", "line\n".repeat(20));
        assert_eq!(marks(&old, "Request cancelled."), 0, "scrolled up: an earlier one");
        let now = format!("{old}\n\n  Request cancelled.\n> Type your message\n");
        assert_eq!(marks(&now, "Request cancelled."), 1);
    }
}
