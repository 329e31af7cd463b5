//! The third source (issue 20.3): what an agent in tmux shows on its screen. Read only for a
//! session that waits or is blocked, only while it does, at most every [`SCREEN_EVERY`], and
//! only for a CLI whose screen says something no hook or record says (`Agent::screen_cancel`:
//! Gemini CLI's "Request cancelled." after Esc at a question).

use std::path::Path;
use std::time::Duration;

use switchboard_core::AgentProcess;

/// How often a waiting or blocked session's pane is looked at.
pub const SCREEN_EVERY: Duration = Duration::from_secs(1);
/// The bottom of the screen, where a CLI writes what just happened above its prompt.
const BOTTOM_LINES: usize = 15;

/// The visible text of the agent's tmux pane, if it runs in one and tmux answers in time.
pub fn capture(process: &AgentProcess) -> Option<String> {
    let pane = process.tmux_pane.as_deref()?;
    crate::terminal::tmux::run(process.tmux_socket.as_deref().map(Path::new), &["capture-pane", "-p", "-t", pane])
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
