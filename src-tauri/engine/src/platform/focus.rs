//! Bringing forward the terminal tab an agent runs in, where the terminal lets a program find it
//! (issue 50): on a Mac, Terminal.app and iTerm2 are asked through AppleScript (`osascript`) for
//! the tab whose tty is the agent's; X11 windows are the jump's own (`xdotool`); Windows Terminal
//! can focus a tab by its place in a window, but nothing tells which tab runs the agent.

use std::time::Duration;

use super::Unsupported;

/// A terminal application the agent's `TERM_PROGRAM` names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TerminalApp {
    /// macOS's Terminal.app (`TERM_PROGRAM=Apple_Terminal`).
    AppleTerminal,
    /// iTerm2 (`TERM_PROGRAM=iTerm.app`).
    ITerm2,
}

impl TerminalApp {
    pub fn from_term_program(term_program: &str) -> Option<Self> {
        match term_program {
            "Apple_Terminal" => Some(Self::AppleTerminal),
            "iTerm.app" => Some(Self::ITerm2),
            _ => None,
        }
    }
}

/// The AppleScript that selects the tab (iTerm2: the session) whose tty is `tty`, raises its
/// window and brings the application forward; it says `found` when it did. `None` for a tty
/// that is not a plain device path (nothing else is put into the script).
pub fn apple_script(app: TerminalApp, tty: &str) -> Option<String> {
    let plain = tty.starts_with("/dev/") && tty.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'/');
    if !plain {
        return None;
    }
    Some(match app {
        TerminalApp::AppleTerminal => format!(
            "tell application \"Terminal\"\n\
             \trepeat with w in windows\n\
             \t\trepeat with t in tabs of w\n\
             \t\t\tif tty of t is \"{tty}\" then\n\
             \t\t\t\tset selected of t to true\n\
             \t\t\t\tset index of w to 1\n\
             \t\t\t\tactivate\n\
             \t\t\t\treturn \"found\"\n\
             \t\t\tend if\n\
             \t\tend repeat\n\
             \tend repeat\n\
             end tell\n\
             return \"absent\""
        ),
        TerminalApp::ITerm2 => format!(
            "tell application \"iTerm2\"\n\
             \trepeat with w in windows\n\
             \t\trepeat with t in tabs of w\n\
             \t\t\trepeat with s in sessions of t\n\
             \t\t\t\tif tty of s is \"{tty}\" then\n\
             \t\t\t\t\tselect w\n\
             \t\t\t\t\tselect t\n\
             \t\t\t\t\tselect s\n\
             \t\t\t\t\tactivate\n\
             \t\t\t\t\treturn \"found\"\n\
             \t\t\t\tend if\n\
             \t\t\tend repeat\n\
             \t\tend repeat\n\
             \tend repeat\n\
             end tell\n\
             return \"absent\""
        ),
    })
}

/// Brings forward the tab of `term_program` whose tty is `tty`: `Ok(true)` when the terminal
/// said it found it, `Ok(false)` when it has no such tab (or this is not its terminal), and
/// [`Unsupported`] where the OS or the terminal gives no way to find it.
pub fn focus_tab(term_program: Option<&str>, tty: Option<&str>) -> Result<bool, Unsupported> {
    if cfg!(windows) {
        return Err(Unsupported::new(
            "bringing the agent's terminal tab forward",
            "Windows Terminal's `wt focus-tab` takes a tab's place in a window, and nothing tells which tab runs the agent",
        ));
    }
    let Some(app) = term_program.and_then(TerminalApp::from_term_program) else { return Ok(false) };
    if !cfg!(target_os = "macos") {
        return Ok(false);
    }
    let Some(script) = tty.and_then(|tty| apple_script(app, tty)) else { return Ok(false) };
    let said =
        super::output_within(std::process::Command::new("osascript").args(["-e", &script]), Duration::from_secs(3));
    Ok(said.is_some_and(|said| said.trim() == "found"))
}

#[cfg(test)]
mod tests;
