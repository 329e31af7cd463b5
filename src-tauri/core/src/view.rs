//! The display rules, said once: how a session is named, when it needs the user and in which
//! order, and how long texts are clipped. The reducer stamps them on every session it hands out
//! (`title`, `attention`), so the board, the tray and the notifications read them instead of
//! each working them out again.

mod face;
#[cfg(test)]
pub(crate) mod fixtures;

pub use crate::session::Attention;
use crate::session::Session;
use crate::status::AgentStatus;
pub use face::{
    badge, category, why, Badge, Category, HistoryView, Look, Reason, Tone, LEGEND, REASON_CHARS, STARTING_GRACE_MS,
};

/// Stamps every display fact on the session from its fields: its place in the queue and on the
/// board, its badge, chip and reason. The reducer calls it on every change, so what the board,
/// the tray and the notifications read is always the session's own.
pub fn stamp(session: &mut Session) {
    // Once it reports a status it has started, for good.
    session.starting &= session.status.is_none();
    session.attention = attention(session);
    session.board_rank = board_rank(session);
    session.badge = badge(session);
    session.category = category(session);
    session.reason = why(session);
}

/// Whether, and why, the session needs the user. Ended and archived sessions never ask; archived
/// ones are off the canvas, so their unread dot does not count either.
pub fn attention(session: &Session) -> Option<Attention> {
    if session.archived {
        return None;
    }
    let since = session.status_changed_at.unwrap_or(session.last_event_at);
    // A failed turn asks too: the user has to retry or look (issue 21.5).
    let failed = session.status == Some(AgentStatus::Done) && session.errored;
    let asking =
        !session.ended && (failed || matches!(session.status, Some(AgentStatus::Waiting | AgentStatus::Blocked)));
    if asking {
        Some(Attention { rank: 0, since })
    } else if session.unread {
        Some(Attention { rank: 1, since })
    } else {
        None
    }
}

/// Cards ranked at or below this go to the "Needs you" lane: blocked, waiting, a failed turn.
pub const RANK_NEEDS_YOU: u8 = 1;
/// An ended session's rank, the last.
pub const RANK_ENDED: u8 = 6;

/// A card's place among the cards of its region, what needs the user first: 0 blocked, 1 waiting
/// (or a failed turn, which asks too), 2 unread, 3 working, 4 no status yet, 5 done and read,
/// 6 ended. The board sorts by it (issue 35: the rule once, here).
pub fn board_rank(session: &Session) -> u8 {
    if session.ended {
        return RANK_ENDED;
    }
    match session.status {
        Some(AgentStatus::Blocked) => 0,
        Some(AgentStatus::Waiting) => 1,
        Some(AgentStatus::Done) if session.errored => 1,
        Some(AgentStatus::Done) if session.unread => 2,
        Some(AgentStatus::Done) => 5,
        Some(AgentStatus::Working) => 3,
        None if session.unread => 2,
        None => 4,
    }
}

/// This machine's permission held for the board: its agent waits on the user, against the
/// hold's timer. It goes first wherever sessions are listed by what needs the user (issue 45):
/// a box sets its own times (clamped to this clock) and may send hundreds of blocked rows, which
/// otherwise sorted above it.
pub fn held_here(session: &Session) -> bool {
    session.is_local() && session.decision.is_some()
}

/// The sessions that need the user, in queue order (`sessions` in arrival order): this
/// machine's held permissions first ([`held_here`]), then by [`Attention`].
pub fn needs_you(sessions: &[Session]) -> Vec<&Session> {
    let mut queue: Vec<(bool, Attention, usize, &Session)> =
        sessions.iter().enumerate().filter_map(|(n, s)| Some((!held_here(s), s.attention?, n, s))).collect();
    queue.sort_by_key(|(elsewhere, attention, n, _)| (*elsewhere, *attention, *n));
    queue.into_iter().map(|(_, _, _, session)| session).collect()
}

/// The node title: the agent's own name for the session, else the event's title, else the last
/// folder of `cwd`, else the first 8 characters of the id.
pub fn title(agent_title: Option<&str>, event_title: Option<&str>, cwd: Option<&str>, session_id: &str) -> String {
    let named = |t: Option<&str>| t.map(str::trim).filter(|t| !t.is_empty()).map(str::to_owned);
    named(agent_title)
        .or_else(|| named(event_title))
        .or_else(|| cwd.and_then(last_folder))
        .unwrap_or_else(|| short_id(session_id))
}

/// A session's name from the user's prompt: its first line, clipped; not a slash command or a
/// message the CLI wrote itself (`<task-notification>`, `<command-name>`).
pub fn prompt_title(prompt: &str) -> Option<String> {
    const TITLE_CHARS: usize = 60;
    let line = prompt.lines().map(str::trim).find(|line| !line.is_empty())?;
    if line.starts_with('/') || line.starts_with('<') {
        return None;
    }
    Some(clip(line, TITLE_CHARS))
}

/// The last folder of a path (`/src/api/` → `api`).
pub fn last_folder(path: &str) -> Option<String> {
    path.split(['/', '\\']).rfind(|part| !part.is_empty()).map(str::to_owned)
}

pub fn short_id(session_id: &str) -> String {
    session_id.chars().take(8).collect()
}

/// Whitespace collapsed, at most `max` characters (an ellipsis marks the cut).
pub fn clip(text: &str, max: usize) -> String {
    // Most text is tidy already (single spaces, nothing around) and short: copied as it is, not
    // split into words and joined again for every change the reducer stamps (issue 47).
    if text.len() <= max && tidy(text) {
        return text.to_owned();
    }
    collapsed(text, max)
}

/// [`clip`] the long way: every whitespace run made one space, then cut.
fn collapsed(text: &str, max: usize) -> String {
    let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if text.chars().count() <= max {
        return text;
    }
    let mut clipped: String = text.chars().take(max.saturating_sub(1)).collect();
    clipped.truncate(clipped.trim_end().len());
    clipped.push('…');
    clipped
}

/// Whether `split_whitespace` and a join with single spaces would give `text` back: no
/// whitespace but single ASCII spaces between words.
fn tidy(text: &str) -> bool {
    let mut after_space = true;
    for c in text.chars() {
        if c == ' ' {
            if after_space {
                return false;
            }
            after_space = true;
        } else if c.is_whitespace() {
            return false;
        } else {
            after_space = false;
        }
    }
    !after_space || text.is_empty()
}

/// Why the session needs the user, in the notifications' words ("needs permission", "has a
/// question", "finished", "failed", "interrupted"); `None` while it works.
pub fn reason(session: &Session) -> Option<&'static str> {
    Some(match session.status? {
        AgentStatus::Working => return None,
        AgentStatus::Blocked => "needs permission",
        AgentStatus::Waiting => "has a question",
        AgentStatus::Done if session.errored => "failed",
        AgentStatus::Done if session.interrupted => "interrupted",
        AgentStatus::Done => "finished",
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reducer::Reducer;
    use serde_json::json;

    fn sessions(events: &[serde_json::Value]) -> Vec<Session> {
        let mut reducer = Reducer::new();
        for (n, body) in events.iter().enumerate() {
            let event = crate::agent::normalize("custom", body, 1_000 + n as u64 * 1_000).unwrap();
            reducer.apply(&event, false);
        }
        reducer.snapshot().sessions
    }

    #[test]
    fn a_cards_rank_puts_what_needs_the_user_first() {
        let ranked = sessions(&[
            json!({"sessionId": "blocked", "status": "blocked"}),
            json!({"sessionId": "waiting", "status": "waiting"}),
            json!({"sessionId": "failed", "status": "done", "errored": true}),
            json!({"sessionId": "working", "status": "working"}),
            json!({"sessionId": "quiet", "lifecycle": "start"}),
            json!({"sessionId": "ended", "status": "done", "lifecycle": "end"}),
        ]);
        let rank = |id: &str| ranked.iter().find(|s| s.session_id == id).unwrap().board_rank;
        assert_eq!(
            [rank("blocked"), rank("waiting"), rank("failed"), rank("working"), rank("quiet"), rank("ended")],
            [0, 1, 1, 3, 4, 6]
        );
        let mut read = ranked.iter().find(|s| s.session_id == "working").unwrap().clone();
        read.status = Some(AgentStatus::Done);
        assert_eq!(board_rank(&read), 5, "done and read");
        read.unread = true;
        assert_eq!(board_rank(&read), 2, "done and unread");
    }

    #[test]
    fn the_queue_is_asking_first_then_unread_each_longest_waiting_first() {
        let all = sessions(&[
            json!({"sessionId": "done-early", "status": "done"}),
            json!({"sessionId": "asks-late", "status": "working"}),
            json!({"sessionId": "blocked-early", "status": "blocked"}),
            json!({"sessionId": "asks-late", "status": "waiting", "question": "?"}),
            json!({"sessionId": "working", "status": "working"}),
            json!({"sessionId": "ended", "status": "blocked"}),
            json!({"sessionId": "ended", "lifecycle": "end"}),
        ]);
        let order: Vec<&str> = needs_you(&all).iter().map(|s| s.session_id.as_str()).collect();
        // An ended session no longer asks, but its unread dot still needs a look.
        assert_eq!(order, ["blocked-early", "asks-late", "done-early", "ended"]);
        let working = all.iter().find(|s| s.session_id == "working").unwrap();
        assert_eq!(working.attention, None);
    }

    /// Issue 45: hundreds of a box's blocked rows, asking since long before (or clamped to now),
    /// never put this machine's held permission below them.
    #[test]
    fn this_machines_held_permission_comes_before_any_boxs_rows() {
        let mut board = Reducer::new();
        for n in 0..900 {
            let mut there = Reducer::new();
            let event = crate::status::StatusEvent {
                agent: "claude".into(),
                session_id: format!("b{n}"),
                status: Some(AgentStatus::Blocked),
                ts: if n % 2 == 0 { 1 } else { u64::MAX / 2 },
                ..Default::default()
            };
            let mut blocked = there.apply(&event, false).unwrap().session;
            blocked.decision = Some(1);
            board.mirror("evil", blocked, false, 50_000);
        }
        let mut asks = crate::agent::normalize(
            "claude",
            &json!({"hook_event_name": "PermissionRequest", "session_id": "mine", "tool_name": "Bash"}),
            40_000,
        )
        .unwrap();
        asks.decision = Some(7);
        board.apply(&asks, false).unwrap();
        let all = board.snapshot().sessions;
        let order = needs_you(&all);
        assert_eq!(order.len(), 901);
        assert_eq!((order[0].session_id.as_str(), order[0].host.as_str()), ("mine", "local"));
        assert!(held_here(order[0]) && !held_here(order[1]), "a box's hold is not held here");
    }

    /// The quick way for tidy text gives what the long way gives.
    #[test]
    fn clipping_tidy_text_as_it_is_gives_what_collapsing_it_gives() {
        let texts =
            ["", " ", "a", "a b", "a  b", " a", "a ", "a\tb", "a\nb", "a\u{a0}b", "a\u{2003}b", "é ü ß", "rm -rf dist"];
        for text in texts {
            for max in [0, 1, 2, 3, 4, 5, 11, 240] {
                assert_eq!(clip(text, max), collapsed(text, max), "{text:?} at {max}");
            }
        }
        assert!(tidy("rm -rf dist") && tidy("") && !tidy("a  b") && !tidy("a\u{a0}b") && !tidy(" a"));
    }

    #[test]
    fn a_title_falls_back_to_the_folder_then_a_short_id_and_clips_say_where_they_cut() {
        assert_eq!(title(Some(" "), Some("Fix login"), Some("/src/api"), "0123456789"), "Fix login");
        assert_eq!(title(None, None, Some("/src/api/"), "0123456789"), "api");
        assert_eq!(title(None, None, None, "0123456789"), "01234567");
        assert_eq!(clip("git  push\n--force origin main", 14), "git push --fo…");
        assert_eq!(clip("short", 14), "short");
        assert_eq!(
            prompt_title("\n  Fix the login bug on Safari\nand add a test").as_deref(),
            Some("Fix the login bug on Safari")
        );
        assert_eq!(prompt_title("/compact"), None);
        assert_eq!(prompt_title("<task-notification>done</task-notification>"), None);
        assert_eq!(prompt_title(&"x".repeat(100)).map(|t| t.chars().count()), Some(60));
    }
}
