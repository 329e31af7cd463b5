//! tmux, run on the agent's own server (`-S <socket>`) with a deadline. Keys are always sent
//! literally (`send-keys -l`): tmux never parses a reply's `;` or `\;` as its own separator.

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use crate::process;

/// Runs tmux with a deadline; its stdout when it succeeded.
pub fn run(socket: Option<&Path>, args: &[&str]) -> Option<String> {
    let mut command = Command::new("tmux");
    if let Some(socket) = socket {
        command.arg("-S").arg(socket);
    }
    process::output_within(command.args(args), Duration::from_secs(2))
}

/// The pid of the process tmux started in the pane (its shell, or the agent itself).
pub fn pane_pid(socket: Option<&Path>, pane: &str) -> Option<u32> {
    run(socket, &["display-message", "-p", "-t", pane, "#{pane_pid}"])?.trim().parse().ok()
}

/// Every pane of the server: its id and its process.
pub fn panes(socket: Option<&Path>) -> Vec<(String, u32)> {
    let Some(out) = run(socket, &["list-panes", "-a", "-F", "#{pane_id} #{pane_pid}"]) else { return Vec::new() };
    out.lines()
        .filter_map(|line| {
            let (pane, pid) = line.split_once(' ')?;
            Some((pane.to_owned(), pid.trim().parse().ok()?))
        })
        .collect()
}

/// Types `text` as it is: every character a key, nothing parsed by tmux.
pub fn type_literally(socket: Option<&Path>, pane: &str, text: &str) -> bool {
    // tmux reads an argument ending in `;` as a command separator, and `\;` as a literal `;`.
    let escaped;
    let text = match text.strip_suffix(';') {
        Some(rest) => {
            escaped = format!("{rest}\\;");
            escaped.as_str()
        }
        None => text,
    };
    run(socket, &["send-keys", "-t", pane, "-l", "--", text]).is_some()
}

/// Presses a named key (`Enter`, `BSpace`) `times` times.
pub fn press(socket: Option<&Path>, pane: &str, key: &str, times: usize) -> bool {
    let mut args = vec!["send-keys", "-t", pane];
    if times > 1 {
        args.push("-N");
    }
    let count = times.to_string();
    if times > 1 {
        args.push(&count);
    }
    args.push(key);
    run(socket, &args).is_some()
}

/// The pane's visible screen, with the `history` lines above it, wrapped lines joined.
pub fn capture(socket: Option<&Path>, pane: &str, history: usize) -> Option<String> {
    let start = format!("-{history}");
    let mut args = vec!["capture-pane", "-p", "-J", "-t", pane];
    if history > 0 {
        args.extend(["-S", &start]);
    }
    run(socket, &args)
}

/// Whether any terminal is attached to the tmux server.
pub fn has_clients(socket: Option<&Path>) -> bool {
    run(socket, &["list-clients", "-F", "#{client_name}"]).is_some_and(|out| !out.trim().is_empty())
}
