//! `switchboard status [--json]`: the sessions of the running instance.

use std::path::Path;
use std::time::Duration;

use switchboard_core::{view, AgentStatus, Millis, Session, Snapshot};
use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

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
    #[error("Switchboard took too long to answer (HTTP {0}): it is busy; try again.")]
    Busy(u16),
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
        return Err(match response.status {
            408 | 503 | 504 => StatusError::Busy(response.status),
            status => StatusError::Refused(status),
        });
    }
    let snapshot = serde_json::from_slice(&response.body).map_err(StatusError::BadSnapshot)?;
    Ok((snapshot, response.body))
}

/// A readable table, at most `width` columns wide (see [`terminal_width`]): the sessions that
/// need you first, then the rest by last activity. `switchboard doctor`'s test sessions are left
/// out.
pub fn table(snapshot: &Snapshot, now: Millis, width: usize) -> String {
    let notices: String = snapshot.notices.iter().flatten().map(|notice| format!("! {notice}\n")).collect();
    notices + &sessions_table(snapshot, now, width)
}

/// The width `status` may fill: the terminal's when stdout is one, else `$COLUMNS`, else 80.
pub fn terminal_width() -> usize {
    if let Some(width) = crate::platform::terminal_width() {
        return width;
    }
    std::env::var("COLUMNS").ok().and_then(|columns| columns.trim().parse().ok()).filter(|&c| c > 0).unwrap_or(80)
}

/// The table's columns: a heading, the widest a cell may be, and for the columns that give up
/// width when a row would not fit, the narrowest they go (the others are never cut: a status or
/// an id cut short would mislead).
struct Column {
    heading: &'static str,
    most: usize,
    least: Option<usize>,
}

const COLUMNS: [Column; 8] = [
    Column { heading: "STATUS", most: usize::MAX, least: None },
    Column { heading: "AGENT", most: usize::MAX, least: None },
    Column { heading: "ID", most: usize::MAX, least: None },
    Column { heading: "PROJECT", most: 20, least: Some(8) },
    Column { heading: "TITLE", most: 32, least: Some(10) },
    Column { heading: "AGE", most: usize::MAX, least: None },
    Column { heading: "COST", most: usize::MAX, least: None },
    Column { heading: "DETAIL", most: 60, least: Some(10) },
];
/// The COST column: left out when no session has a usage (a board of custom agents).
const COST: usize = 6;
const GAP: &str = "  ";

fn sessions_table(snapshot: &Snapshot, now: Millis, width: usize) -> String {
    let mut sessions: Vec<_> =
        snapshot.sessions.iter().filter(|s| !s.session_id.starts_with(DOCTOR_SESSION_PREFIX)).collect();
    if sessions.is_empty() {
        return "No sessions yet. Agents appear here once their hooks report (see `switchboard install`).\n".into();
    }
    sessions.sort_by_key(|s| (!view::held_here(s), rank(s.status), std::cmp::Reverse(s.last_event_at)));
    let kept = |s: &Session| if s.is_local() { 0 } else { s.host.len() + 1 };
    let ids = shown_ids_after(&sessions.iter().map(|s| (s.session_id.as_str(), kept(s))).collect::<Vec<_>>());
    let rows: Vec<[String; 8]> = sessions
        .iter()
        .zip(ids)
        .map(|(s, id)| {
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
            if s.unreachable_since.is_some() {
                status.push_str(" (unreachable)");
            }
            let mut project = s.cwd.as_deref().and_then(view::last_folder).unwrap_or_else(|| "-".into());
            if !s.is_local() {
                // Where it runs, before what it works on.
                project = format!("{}:{project}", s.host);
            }
            let title = s.title.clone().unwrap_or_else(|| view::short_id(&s.session_id));
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
            let age = age(now.saturating_sub(s.last_event_at));
            let cost = s.usage.as_ref().map(spent).unwrap_or_else(|| "-".into());
            [status, s.agent.clone(), id, project, title, age, cost, detail.unwrap_or_default()]
                .map(|cell| clip(&cell, usize::MAX))
        })
        .collect();
    let shown: Vec<usize> = if sessions.iter().any(|s| s.usage.is_some()) {
        (0..COLUMNS.len()).collect()
    } else {
        (0..COLUMNS.len()).filter(|i| *i != COST).collect()
    };
    let header = COLUMNS.map(|column| column.heading.to_owned());
    let mut widths: Vec<usize> = shown
        .iter()
        .map(|&i| {
            let widest = std::iter::once(&header).chain(&rows).map(|row| row[i].width()).max().unwrap_or(0);
            widest.min(COLUMNS[i].most)
        })
        .collect();
    let columns: Vec<&Column> = shown.iter().map(|&i| &COLUMNS[i]).collect();
    fit(&mut widths, &columns, width);
    let mut out = String::new();
    for row in std::iter::once(&header).chain(&rows) {
        let cells: Vec<String> = shown
            .iter()
            .map(|&i| &row[i])
            .zip(&widths)
            .map(|(cell, &width)| {
                let cell = clip(cell, width);
                let pad = width.saturating_sub(cell.width());
                cell + &" ".repeat(pad)
            })
            .collect();
        out.push_str(cells.join(GAP).trim_end());
        out.push('\n');
    }
    out
}

/// What a session's tokens cost, and how full its context is: `$0.42 23%`.
fn spent(usage: &switchboard_core::usage::Usage) -> String {
    let cost = match usage.cost_micros {
        None => "?".to_owned(),
        Some(micros) if micros < 10_000 => "<$0.01".to_owned(),
        Some(micros) => format!("${:.2}", micros as f64 / 1e6),
    };
    match usage.context_percent() {
        Some(percent) => format!("{cost} {percent}%"),
        None => cost,
    }
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

/// Narrows the columns that may give up width, the widest first, until a row fits in `width`
/// (or none can give up more: a terminal narrower than the fixed columns wraps the row itself).
fn fit(widths: &mut [usize], columns: &[&Column], width: usize) {
    let total = |widths: &[usize]| widths.iter().sum::<usize>() + GAP.len() * widths.len().saturating_sub(1);
    while total(widths) > width {
        let narrowable = columns.iter().zip(widths.iter()).enumerate().filter_map(|(i, (column, &now))| {
            let least = column.least?.max(column.heading.len());
            (now > least).then_some((now, i))
        });
        let Some((_, widest)) = narrowable.max() else { break };
        widths[widest] -= 1;
    }
}

/// Each session's id as the table shows it: its short id (`view::short_id`, as the board shows
/// it), longer where two listed sessions share those first characters (Codex's ids begin with
/// their start time, so two started in the same minute do).
#[cfg(test)]
fn shown_ids(ids: &[&str]) -> Vec<String> {
    shown_ids_after(&ids.iter().map(|id| (*id, 0)).collect::<Vec<_>>())
}

/// The same, each id kept whole for its first `n` bytes (a remote's `<host>:`).
fn shown_ids_after(ids: &[(&str, usize)]) -> Vec<String> {
    let mut sorted: Vec<&str> = ids.iter().map(|(id, _)| *id).collect();
    sorted.sort_unstable();
    let common = |a: &str, b: &str| a.chars().zip(b.chars()).take_while(|(x, y)| x == y).count();
    ids.iter()
        .map(|&(id, kept)| {
            let at = sorted.binary_search(&id).unwrap_or(0);
            let neighbours = [at.checked_sub(1).and_then(|i| sorted.get(i)), sorted.get(at + 1)];
            let shared = neighbours.into_iter().flatten().map(|other| common(id, other)).max().unwrap_or(0);
            let (head, rest) = id.split_at(kept.min(id.len()));
            let short = format!("{head}{}", view::short_id(rest));
            if shared < short.chars().count() {
                short
            } else {
                id.chars().take(shared + 1).collect()
            }
        })
        .collect()
}

/// One line of at most `max` terminal columns: control characters and runs of whitespace become
/// one space, and an ellipsis marks a cut.
fn clip(text: &str, max: usize) -> String {
    let line = crate::text::printable_line(text);
    let line = line.split(char::is_whitespace).filter(|word| !word.is_empty()).collect::<Vec<_>>().join(" ");
    if line.width() <= max {
        return line;
    }
    let mut clipped = String::new();
    let mut used = 0;
    for c in line.chars() {
        let next = used + c.width().unwrap_or(0);
        if next + 1 > max {
            break;
        }
        clipped.push(c);
        used = next;
    }
    clipped.truncate(clipped.trim_end().len());
    clipped + "…"
}

pub fn age(ms: Millis) -> String {
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

    fn snapshot(bodies: &[serde_json::Value]) -> Snapshot {
        let mut reducer = Reducer::new();
        for body in bodies {
            reducer.apply(&normalize("custom", body, 1_000).unwrap(), false);
        }
        reducer.snapshot()
    }

    /// The cells of a table line (columns are two or more spaces apart; no cell holds two).
    fn cells(line: &str) -> Vec<&str> {
        line.split("  ").map(str::trim).filter(|cell| !cell.is_empty()).collect()
    }

    #[test]
    fn the_table_lists_sessions_that_need_you_first() {
        let snapshot = snapshot(&[
            json!({"sessionId": "a", "status": "working", "title": "build", "tool": "Bash"}),
            json!({"sessionId": "b", "status": "blocked", "title": "deploy", "tool": "Bash", "message": "rm -rf dist"}),
        ]);
        let table = table(&snapshot, 121_000, 80);
        let lines: Vec<&str> = table.lines().collect();
        assert_eq!(cells(lines[0]), ["STATUS", "AGENT", "ID", "PROJECT", "TITLE", "AGE", "DETAIL"]);
        assert_eq!(cells(lines[1]), ["● blocked", "custom", "b", "-", "deploy", "2 min ago", "Bash rm -rf dist"]);
        assert_eq!(cells(lines[2]), ["working", "custom", "a", "-", "build", "2 min ago", "Bash"]);
    }

    /// Issue 21 item 7: two sessions in one folder, with one title, are told apart by their ids,
    /// which are the ones their cards show.
    #[test]
    fn sessions_in_one_folder_are_told_apart_by_project_and_short_id() {
        let first = "5c1e9b2d-0f3a-4e1b-9a7c-2d8e6f4b1a90";
        let second = "a71f03c4-6b2e-4d5f-8e9a-0c1b2d3e4f56";
        let snapshot = snapshot(&[
            json!({"sessionId": first, "status": "working", "cwd": "/home/ana/src/webapp/"}),
            json!({"sessionId": second, "status": "working", "cwd": "/home/ana/src/webapp"}),
        ]);
        let table = table(&snapshot, 2_000, 80);
        let rows: Vec<Vec<&str>> = table.lines().skip(1).map(cells).collect();
        let ids: Vec<&str> = rows.iter().map(|row| row[2]).collect();
        assert_eq!(ids, [view::short_id(first), view::short_id(second)]);
        assert!(rows.iter().all(|row| row[3] == "webapp"), "{table}");
    }

    #[test]
    fn a_remote_session_says_where_it_runs_and_when_its_box_is_unreachable() {
        let there = snapshot(&[json!({"sessionId": "r1", "status": "working", "cwd": "/srv/api"})]);
        let mut board = Reducer::new();
        board.mirror("devbox", there.sessions[0].clone(), false, u64::MAX).unwrap();
        board.host_unreachable("devbox", 1_500);
        let table = table(&board.snapshot(), 2_000, 100);
        let row = cells(table.lines().nth(1).unwrap());
        assert_eq!(row[..4], ["working (unreachable)", "custom", "devbox:r1", "devbox:api"], "{table}");
    }

    #[test]
    fn ids_that_share_their_first_characters_are_shown_longer() {
        // Codex's ids start with the time: two sessions started in the same minute share 8.
        let ids = ["019fb3cc-1a2b-7000-8000-0000000000a1", "019fb3cc-7f00-7000-8000-0000000000b2", "nightly", "night"];
        assert_eq!(shown_ids(&ids), ["019fb3cc-1", "019fb3cc-7", "nightly", "night"]);
        assert_eq!(shown_ids(&["abcdefgh1", "abcdefgh"]), ["abcdefgh1", "abcdefgh"]);
    }

    #[test]
    fn long_titles_folders_and_details_are_clipped_to_the_width_never_wrapped() {
        let long = "a long title that goes on and on about the login redirect loop on Safari";
        let snapshot = snapshot(&[
            json!({"sessionId": "019fb3cc-1a2b-7000-8000-0000000000a1", "status": "blocked", "title": long,
                   "cwd": "/srv/a-very-long-monorepo-folder-name-indeed", "tool": "Bash",
                   "message": "rm -rf node_modules && npm install && npm run build:all -- --verbose"}),
            json!({"sessionId": "jp", "status": "done", "title": "ログインのリダイレクトを直す長いタイトルです",
                   "cwd": "/srv/日本語のフォルダ", "message": "完了しました。\nテストは\tすべて通りました。"}),
            json!({"sessionId": "esc", "status": "working", "title": "red\u{1b}[31m title"}),
        ]);
        for width in [80, 100] {
            let table = table(&snapshot, 1_000, width);
            assert_eq!(table.lines().count(), 4, "one line a session: {table}");
            for line in table.lines() {
                assert!(line.width() <= width, "{} columns at {width}: {line}", line.width());
            }
            assert!(table.contains("a long ti") && table.contains('…'), "{table}");
            assert!(table.contains("a-very-") && table.contains("ログイン"), "{table}");
            // The escape sequence goes whole (`text::printable_line`), not leaving `[31m` behind.
            assert!(!table.contains('\u{1b}') && !table.contains("[31m") && table.contains("red title"), "{table}");
            // The columns line up as a terminal draws them, wide characters and all.
            let age_at: Vec<usize> = table
                .lines()
                .map(|line| {
                    line[..line.find(" AGE ").map(|at| at + 1).or_else(|| line.find("just now")).unwrap()].width()
                })
                .collect();
            assert!(age_at.iter().all(|&at| at == age_at[0]), "{age_at:?}\n{table}");
        }
        // A wide terminal leaves short texts whole.
        let wide = table(&snapshot, 1_000, 200);
        assert!(wide.contains("a-very-long-monorep…") && wide.contains("rm -rf node_modules && npm install"), "{wide}");
    }

    #[test]
    fn the_cost_column_shows_once_a_session_has_a_usage() {
        let mut reducer = Reducer::new();
        for id in ["a", "b"] {
            let body = json!({"sessionId": id, "status": "working"});
            reducer.apply(&normalize("custom", &body, 1_000).unwrap(), false);
        }
        let usage = switchboard_core::usage::Usage {
            cost_micros: Some(1_234_567),
            context_tokens: 46_000,
            context_window: Some(200_000),
            ..Default::default()
        };
        reducer.set_reading("a", switchboard_core::usage::Reading::Usage(usage));
        let table = table(&reducer.snapshot(), 2_000, 100);
        let lines: Vec<&str> = table.lines().collect();
        assert_eq!(cells(lines[0])[6], "COST", "{table}");
        let costs: Vec<&str> = lines[1..].iter().map(|line| cells(line)[6]).collect();
        assert!(costs.contains(&"$1.23 23%") && costs.contains(&"-"), "{table}");
    }

    #[test]
    fn an_empty_snapshot_says_how_to_connect() {
        assert!(table(&Snapshot::default(), 0, 80).contains("switchboard install"));
    }

    #[test]
    fn doctor_test_sessions_are_not_listed() {
        let mut reducer = Reducer::new();
        let id = format!("{DOCTOR_SESSION_PREFIX}1-2");
        reducer.apply(&normalize("custom", &json!({"sessionId": id, "lifecycle": "end"}), 1_000).unwrap(), false);
        assert!(table(&reducer.snapshot(), 2_000, 80).starts_with("No sessions yet"));
    }

    #[test]
    fn status_without_an_instance_says_it_is_not_running() {
        let dir = tempfile::tempdir().unwrap();
        let error = fetch(dir.path()).unwrap_err();
        assert!(error.to_string().contains("not running"), "{error}");
    }
}
