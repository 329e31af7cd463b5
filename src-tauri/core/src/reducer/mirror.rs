//! Sessions of other machines (issue 23). A remote's own instance reduces its agents' events; this
//! board keeps what it last said of each session, under the id `<host>:<id>`, with what belongs to
//! this board alone: the node's place, its unread dot, whether to notify (this window's focus) and
//! the arrival order. A remote session changes only through its link; when the link is down its
//! sessions say since when, and keep their last known state.

use super::{Reducer, SessionState};
use crate::notify::{should_notify, NotifyContext};
use crate::session::{Change, Session};
use crate::status::Millis;

/// The id of a remote's session on this board.
pub fn remote_id(host: &str, session_id: &str) -> String {
    format!("{host}:{session_id}")
}

impl Reducer {
    /// A session as remote `host` reported it. `None` when nothing this board shows changed.
    pub fn mirror(&mut self, host: &str, remote: Session, window_focused: bool) -> Option<Change> {
        if remote.session_id.is_empty() || remote.session_id.len() > crate::normalize::MAX_ID_LEN {
            return None;
        }
        let remote = bounded(remote);
        let id = remote_id(host, &remote.session_id);
        let existing = self.sessions.get(&id);
        if existing.is_some_and(|state| state.session.is_local()) {
            // A local session that happens to have that id: never overwritten from outside.
            return None;
        }
        let previous = existing.and_then(|state| state.session.status);
        let notify = match remote.status {
            Some(next) if remote.status != previous => {
                !remote.interrupted
                    && should_notify(previous, next, NotifyContext { known_session: true, window_focused })
            }
            _ => false,
        };
        let session = Session {
            session_id: id.clone(),
            host: host.to_owned(),
            unreachable_since: None,
            position: existing.and_then(|state| state.session.position),
            unread: notify || existing.is_some_and(|state| state.session.unread),
            // Its files and processes are the remote's: nothing here can read them.
            restored: false,
            ..remote
        };
        if let Some(state) = self.sessions.get_mut(&id) {
            let mut next = state.clone();
            next.event_title = session.title.clone();
            next.session = session;
            next.refresh();
            if next.session == state.session {
                return None;
            }
            *state = next;
            return Some(Change { session: state.session.clone(), previous, notify });
        }
        if self.sessions.len() >= super::MAX_SESSIONS {
            self.evict();
        }
        let seq = self.next_seq;
        self.next_seq += 1;
        let title = session.title.clone();
        let mut state =
            SessionState { session, seq, event_title: title, agent_title: None, subagents: Vec::new(), done_at: None };
        state.refresh();
        let change = Change { session: state.session.clone(), previous, notify };
        self.sessions.insert(id, state);
        Some(change)
    }

    /// Remote `host` said it no longer has this session.
    pub fn unmirror(&mut self, host: &str, session_id: &str) -> Option<Session> {
        let id = remote_id(host, session_id);
        if self.sessions.get(&id).is_some_and(|state| state.session.host == host) {
            return self.remove(&id);
        }
        None
    }

    /// The ids of remote `host`'s sessions on this board, in arrival order.
    pub fn host_sessions(&self, host: &str) -> Vec<String> {
        let mut states: Vec<&SessionState> =
            self.sessions.values().filter(|state| state.session.host == host && !state.session.is_local()).collect();
        states.sort_by_key(|state| state.seq);
        states.into_iter().map(|state| state.session.session_id.clone()).collect()
    }

    /// Remote `host`'s link went down at `since`: its sessions say so (those not saying it yet).
    pub fn host_unreachable(&mut self, host: &str, since: Millis) -> Vec<Session> {
        let mut changed = Vec::new();
        for id in self.host_sessions(host) {
            if let Some(state) = self.sessions.get_mut(&id) {
                if state.session.unreachable_since.is_none() {
                    state.session.unreachable_since = Some(since);
                    changed.push(state.session.clone());
                }
            }
        }
        changed
    }

    /// Remote `host`'s link is back: its sessions no longer say unreachable.
    pub fn host_reachable(&mut self, host: &str) -> Vec<Session> {
        let mut changed = Vec::new();
        for id in self.host_sessions(host) {
            if let Some(state) = self.sessions.get_mut(&id) {
                if state.session.unreachable_since.take().is_some() {
                    changed.push(state.session.clone());
                }
            }
        }
        changed
    }
}

/// A remote's session held to the bounds of this board's own: texts clipped as at ingest, the
/// question lists bounded — whatever a remote sends, each session costs what a local one may.
fn bounded(mut session: Session) -> Session {
    use super::clip;
    let short = |text: &mut String, most: usize| {
        if text.len() > most {
            *text = text.chars().take(most).collect();
        }
    };
    short(&mut session.agent, 64);
    for text in [
        &mut session.title,
        &mut session.cwd,
        &mut session.tool,
        &mut session.question,
        &mut session.message,
        &mut session.transcript_path,
        &mut session.command,
    ] {
        *text = clip(text);
    }
    session.questions.truncate(crate::session::MAX_QUESTIONS);
    for question in &mut session.questions {
        short(&mut question.question, 1_000);
        if let Some(header) = &mut question.header {
            short(header, 1_000);
        }
        question.options.truncate(crate::session::MAX_OPTIONS);
        for option in &mut question.options {
            short(&mut option.label, 1_000);
            if let Some(description) = &mut option.description {
                short(description, 1_000);
            }
        }
    }
    if let Some(process) = &mut session.process {
        for text in [
            &mut process.tty,
            &mut process.tmux_pane,
            &mut process.tmux_socket,
            &mut process.window_id,
            &mut process.term_program,
        ]
        .into_iter()
        .flatten()
        {
            short(text, 256);
        }
    }
    session
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::status::{AgentStatus, StatusEvent};
    use crate::Position;

    /// The remote's own reducer: what it would send down the link.
    fn remote(id: &str, status: AgentStatus, at: Millis) -> Session {
        let mut there = Reducer::new();
        let event = StatusEvent {
            agent: "claude".into(),
            session_id: id.into(),
            status: Some(status),
            cwd: Some("/srv/api".into()),
            ts: at,
            ..StatusEvent::default()
        };
        there.apply(&event, false).unwrap().session
    }

    #[test]
    fn a_remote_session_is_kept_under_its_host_with_this_boards_dot_and_place() {
        let mut board = Reducer::new();
        let change = board.mirror("devbox", remote("a", AgentStatus::Working, 1), false).unwrap();
        assert_eq!(change.session.session_id, "devbox:a");
        assert_eq!(change.session.host, "devbox");
        assert_eq!(change.session.title.as_deref(), Some("api"));
        assert!(!change.notify && !change.session.unread);

        board.set_position("devbox:a", Position { x: 5, y: 6 }).unwrap();
        let blocked = board.mirror("devbox", remote("a", AgentStatus::Blocked, 2), false).unwrap();
        assert!(blocked.notify && blocked.session.unread, "needs you, window unfocused");
        assert_eq!(blocked.previous, Some(AgentStatus::Working));
        assert_eq!(blocked.session.position, Some(Position { x: 5, y: 6 }), "the place is this board's");
        assert_eq!(blocked.session.attention.map(|a| a.rank), Some(0));

        // The same state again is not a change; the dot stays until the user looks here.
        assert!(board.mirror("devbox", remote("a", AgentStatus::Blocked, 2), false).is_none());
        board.clear_unread("devbox:a").unwrap();
        let done = board.mirror("devbox", remote("a", AgentStatus::Done, 3), true).unwrap();
        assert!(!done.notify && !done.session.unread, "a focused window is not notified");
    }

    #[test]
    fn hosts_never_touch_each_other_or_local_sessions() {
        let mut board = Reducer::new();
        board.mirror("one", remote("a", AgentStatus::Working, 1), false).unwrap();
        board.mirror("two", remote("a", AgentStatus::Done, 1), false).unwrap();
        // A local hook claiming a remote's id changes nothing there.
        let spoof = StatusEvent {
            agent: "claude".into(),
            session_id: "one:a".into(),
            status: Some(AgentStatus::Done),
            ts: 5,
            ..StatusEvent::default()
        };
        assert!(board.apply(&spoof, false).is_none());
        assert_eq!(board.get("one:a").unwrap().status, Some(AgentStatus::Working));
        assert_eq!(board.host_sessions("one"), ["one:a"]);

        let gone = board.host_unreachable("one", 99);
        assert_eq!(gone.len(), 1);
        assert_eq!(gone[0].unreachable_since, Some(99));
        assert!(board.host_unreachable("one", 120).is_empty(), "since when it first went");
        assert_eq!(board.host_reachable("one").len(), 1);
        assert!(board.host_reachable("one").is_empty());
        board.host_unreachable("one", 130);
        assert_eq!(board.get("two:a").unwrap().unreachable_since, None);
        // Back: the next report clears it.
        let back = board.mirror("one", remote("a", AgentStatus::Working, 1), false).unwrap();
        assert_eq!(back.session.unreachable_since, None);

        assert!(board.unmirror("two", "a").is_some());
        assert!(board.unmirror("two", "a").is_none());
        assert!(board.unmirror("one", "missing").is_none());
        // A silent remote is flagged by its own instance, not by this board's clock; and it is not
        // restored from this board's store.
        assert!(board.mark_silence(u64::MAX / 2, crate::Ages::default()).is_empty());
        let saved = board.saved("one:a").unwrap();
        let mut restarted = Reducer::new();
        restarted.restore([saved]);
        assert!(restarted.is_empty());
    }

    #[test]
    fn whatever_a_remote_sends_a_session_costs_what_a_local_one_may() {
        let mut board = Reducer::new();
        let mut huge = remote("a", AgentStatus::Done, 1);
        huge.message = Some("m".repeat(900_000));
        huge.agent = "x".repeat(10_000);
        huge.questions = vec![
            crate::session::Question {
                question: "q".repeat(50_000),
                options: vec![crate::session::QuestionOption { label: "l".repeat(9_000), description: None }; 500],
                ..Default::default()
            };
            100
        ];
        let kept = board.mirror("box", huge, false).unwrap().session;
        assert_eq!(kept.message.unwrap().chars().count(), super::super::MAX_TEXT);
        assert_eq!(kept.agent.len(), 64);
        assert_eq!(kept.questions.len(), crate::session::MAX_QUESTIONS);
        assert_eq!(kept.questions[0].options.len(), crate::session::MAX_OPTIONS);
        assert_eq!(kept.questions[0].options[0].label.len(), 1_000);
        let mut long_id = remote("a", AgentStatus::Done, 1);
        long_id.session_id = "i".repeat(300);
        assert!(board.mirror("box", long_id, false).is_none(), "an id this board would refuse from a hook");
    }

    #[test]
    fn remote_sessions_count_in_the_cap() {
        let mut board = Reducer::new();
        for n in 0..super::super::MAX_SESSIONS + 1 {
            board.mirror("box", remote(&n.to_string(), AgentStatus::Working, n as Millis), false);
        }
        assert!(board.len() <= super::super::MAX_SESSIONS);
        assert!(!board.take_evicted().is_empty());
    }
}
