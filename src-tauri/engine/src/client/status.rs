//! `switchboard status [--json]`: the sessions of the running instance.

use std::path::Path;
use std::time::Duration;

use switchboard_core::{AgentStatus, Millis, Snapshot};

use crate::client;
use crate::endpoint::Endpoint;
use crate::protocol::DOCTOR_SESSION_PREFIX;

#[derive(Debug, thiserror::Error)]
pub enum StatusError {
    #[error(
        "Switchboard is not running (no endpoint file in {0}). Start it with `switchboard` or `switchboard serve`."
    )]
    NotRunning(String),
    #[error("Switchboard is not answering on port {port} ({source}); the endpoint file may be stale.")]
    Unreachable { port: u16, source: std::io::Error },
    #[error("Switchboard answered {0}: the endpoint file does not match the running instance.")]
    Refused(u16),
    #[error("Switchboard sent a snapshot that cannot be read: {0}")]
    BadSnapshot(serde_json::Error),
}

pub fn fetch(state_dir: &Path) -> Result<(Snapshot, Vec<u8>), StatusError> {
    let endpoint = Endpoint::read(state_dir).ok_or_else(|| StatusError::NotRunning(state_dir.display().to_string()))?;
    let path = crate::protocol::sessions_path(&endpoint.key);
    // A snapshot of thousands of sessions with long texts is tens of MB: read it whole.
    let response = client::get_large(endpoint.addr(), &path, Duration::from_secs(20))
        .map_err(|source| StatusError::Unreachable { port: endpoint.port, source })?;
    if response.status != 200 {
        return Err(StatusError::Refused(response.status));
    }
    let snapshot = serde_json::from_slice(&response.body).map_err(StatusError::BadSnapshot)?;
    Ok((snapshot, response.body))
}

/// A readable table: the sessions that need you first, then the rest by last activity.
/// `switchboard doctor`'s test sessions are left out.
pub fn table(snapshot: &Snapshot, now: Millis) -> String {
    let notices: String = snapshot.notices.iter().flatten().map(|notice| format!("! {notice}\n")).collect();
    notices + &sessions_table(snapshot, now)
}

fn sessions_table(snapshot: &Snapshot, now: Millis) -> String {
    let mut sessions: Vec<_> =
        snapshot.sessions.iter().filter(|s| !s.session_id.starts_with(DOCTOR_SESSION_PREFIX)).collect();
    if sessions.is_empty() {
        return "No sessions yet. Agents appear here once their hooks report (see `switchboard install`).\n".into();
    }
    sessions.sort_by_key(|s| (rank(s.status), std::cmp::Reverse(s.last_event_at)));
    let rows: Vec<[String; 5]> = sessions
        .iter()
        .map(|s| {
            let mut status = match s.status {
                None => "-".to_owned(),
                Some(AgentStatus::Done) if s.errored => "error".into(),
                Some(AgentStatus::Done) if s.interrupted => "interrupted".into(),
                Some(status) => {
                    serde_json::to_value(status).ok().and_then(|v| v.as_str().map(str::to_owned)).unwrap_or_default()
                }
            };
            if s.unread {
                status.insert_str(0, "● ");
            }
            if s.ended {
                status.push_str(" (ended)");
            }
            let title = s.title.clone().unwrap_or_else(|| s.session_id.chars().take(8).collect());
            let detail = match s.status {
                Some(AgentStatus::Waiting) => s.question.clone().or_else(|| s.message.clone()),
                Some(AgentStatus::Blocked) => Some(
                    format!("{} {}", s.tool.as_deref().unwrap_or(""), s.message.as_deref().unwrap_or(""))
                        .trim()
                        .to_owned(),
                ),
                Some(AgentStatus::Done) => s.message.clone(),
                _ => s.tool.clone(),
            };
            [
                status,
                s.agent.clone(),
                clip(&title, 32),
                age(now.saturating_sub(s.last_event_at)),
                clip(detail.as_deref().unwrap_or(""), 60),
            ]
        })
        .collect();
    let header = ["STATUS", "AGENT", "TITLE", "AGE", "DETAIL"].map(str::to_owned);
    let widths: Vec<usize> = (0..5)
        .map(|i| std::iter::once(&header).chain(&rows).map(|row| row[i].chars().count()).max().unwrap_or(0))
        .collect();
    let mut out = String::new();
    for row in std::iter::once(&header).chain(&rows) {
        let line: Vec<String> = row.iter().zip(&widths).map(|(cell, width)| format!("{cell:<width$}")).collect();
        out.push_str(line.join("  ").trim_end());
        out.push('\n');
    }
    out
}

fn rank(status: Option<AgentStatus>) -> u8 {
    match status {
        Some(AgentStatus::Blocked) => 0,
        Some(AgentStatus::Waiting) => 1,
        Some(AgentStatus::Working) => 2,
        Some(AgentStatus::Done) => 3,
        None => 4,
    }
}

fn clip(text: &str, max: usize) -> String {
    let line = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if line.chars().count() <= max {
        return line;
    }
    line.chars().take(max - 1).collect::<String>() + "…"
}

fn age(ms: Millis) -> String {
    let seconds = ms / 1000;
    match seconds {
        0..=9 => "just now".into(),
        10..=59 => format!("{seconds}s ago"),
        60..=3599 => format!("{} min ago", seconds / 60),
        3600..=86_399 => format!("{} h ago", seconds / 3600),
        _ => format!("{} d ago", seconds / 86_400),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use switchboard_core::{normalize, Reducer};

    #[test]
    fn the_table_lists_sessions_that_need_you_first() {
        let mut reducer = Reducer::new();
        for body in [
            json!({"sessionId": "a", "status": "working", "title": "build", "tool": "Bash"}),
            json!({"sessionId": "b", "status": "blocked", "title": "deploy", "tool": "Bash", "message": "rm -rf dist"}),
        ] {
            reducer.apply(&normalize("custom", &body, 1_000).unwrap(), false);
        }
        let table = table(&reducer.snapshot(), 121_000);
        let lines: Vec<&str> = table.lines().collect();
        assert!(lines[0].starts_with("STATUS"));
        assert!(lines[1].contains("blocked") && lines[1].contains("deploy") && lines[1].contains("Bash rm -rf dist"));
        assert!(lines[1].starts_with("● "), "unread is marked");
        assert!(lines[2].contains("working") && lines[2].contains("2 min ago"));
    }

    #[test]
    fn an_empty_snapshot_says_how_to_connect() {
        assert!(table(&Snapshot::default(), 0).contains("switchboard install"));
    }

    #[test]
    fn doctor_test_sessions_are_not_listed() {
        let mut reducer = Reducer::new();
        let id = format!("{DOCTOR_SESSION_PREFIX}1-2");
        reducer.apply(&normalize("custom", &json!({"sessionId": id, "lifecycle": "end"}), 1_000).unwrap(), false);
        assert!(table(&reducer.snapshot(), 2_000).starts_with("No sessions yet"));
    }

    #[test]
    fn status_without_an_instance_says_it_is_not_running() {
        let dir = tempfile::tempdir().unwrap();
        let error = fetch(dir.path()).unwrap_err();
        assert!(error.to_string().contains("not running"), "{error}");
    }
}
