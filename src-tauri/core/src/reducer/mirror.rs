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
    /// A session as remote `host` reported it, at `now` by this board's clock. `None` when
    /// nothing this board shows changed.
    pub fn mirror(&mut self, host: &str, remote: Session, window_focused: bool, now: Millis) -> Option<Change> {
        if remote.session_id.is_empty() || remote.session_id.len() > crate::normalize::MAX_ID_LEN {
            return None;
        }
        let remote = bounded(remote, now);
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
        if self.count(host) >= super::MAX_HOST_SESSIONS {
            // Its own longest silent make room: never this machine's, nor another box's.
            self.evict(host, super::MAX_HOST_SESSIONS * 9 / 10);
        }
        let seq = self.next_seq;
        self.next_seq += 1;
        let title = session.title.clone();
        let mut state =
            SessionState { session, seq, event_title: title, agent_title: None, subagents: Vec::new(), done_at: None };
        state.refresh();
        let change = Change { session: state.session.clone(), previous, notify };
        self.insert(id, state);
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
        if self.count(host) == 0 {
            return Vec::new();
        }
        let mut states: Vec<&SessionState> = self
            .sessions
            .values()
            .filter(|state| state.session.host == host && !state.session.is_local())
            .map(|state| &**state)
            .collect();
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

/// Texts from a box (characters): names and paths short, what the user reads whole as a local
/// session's. Whatever a box claims, one of its sessions costs at most a few tens of KiB here.
const NAME_CHARS: usize = 200;
const PATH_CHARS: usize = 1_000;
/// Questions and options kept of a box's session, and their texts' lengths.
const REMOTE_QUESTIONS: usize = 4;
const REMOTE_OPTIONS: usize = 8;
const OPTION_CHARS: usize = 400;

/// A remote's session held to this board's bounds (issue 34): every text clipped (names and
/// paths shorter than a local session's), the question lists bounded, and its times clamped to
/// `now` — a box's clock (or a lie such as `lastEventAt: 2^63`) never orders it before this
/// machine's sessions.
pub fn bounded(mut session: Session, now: Millis) -> Session {
    use super::clip;
    let short = |text: &mut String, most: usize| {
        if text.chars().count() > most {
            *text = text.chars().take(most).collect();
        }
    };
    let short_opt = |text: &mut Option<String>, most: usize| {
        if let Some(text) = text {
            short(text, most);
        }
    };
    short(&mut session.agent, 64);
    short(&mut session.host, NAME_CHARS);
    for text in [&mut session.question, &mut session.message, &mut session.command] {
        *text = clip(text);
    }
    for text in [&mut session.title, &mut session.tool] {
        short_opt(text, NAME_CHARS);
    }
    for text in [&mut session.cwd, &mut session.transcript_path] {
        short_opt(text, PATH_CHARS);
    }
    if let Some(usage) = &mut session.usage {
        short_opt(&mut usage.model, NAME_CHARS);
    }
    if let Some(git) = &mut session.git {
        short_opt(&mut git.branch, NAME_CHARS);
        short_opt(&mut git.worktree, PATH_CHARS);
    }
    if let Some(edit) = &mut session.edit {
        short(&mut edit.file, PATH_CHARS);
    }
    session.questions.truncate(REMOTE_QUESTIONS);
    for question in &mut session.questions {
        short(&mut question.question, 1_000);
        short_opt(&mut question.header, NAME_CHARS);
        question.options.truncate(REMOTE_OPTIONS);
        for option in &mut question.options {
            short(&mut option.label, NAME_CHARS);
            short_opt(&mut option.description, OPTION_CHARS);
        }
    }
    let clamp = |at: &mut Millis| *at = (*at).min(now);
    clamp(&mut session.first_event_at);
    clamp(&mut session.last_event_at);
    for at in [&mut session.status_changed_at, &mut session.turn_started_at, &mut session.unreachable_since]
        .into_iter()
        .flatten()
    {
        clamp(at);
    }
    if let Some(attention) = &mut session.attention {
        clamp(&mut attention.since);
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
        let change = board.mirror("devbox", remote("a", AgentStatus::Working, 1), false, u64::MAX).unwrap();
        assert_eq!(change.session.session_id, "devbox:a");
        assert_eq!(change.session.host, "devbox");
        assert_eq!(change.session.title.as_deref(), Some("api"));
        assert!(!change.notify && !change.session.unread);

        board.set_position("devbox:a", Position { x: 5, y: 6 }).unwrap();
        let blocked = board.mirror("devbox", remote("a", AgentStatus::Blocked, 2), false, u64::MAX).unwrap();
        assert!(blocked.notify && blocked.session.unread, "needs you, window unfocused");
        assert_eq!(blocked.previous, Some(AgentStatus::Working));
        assert_eq!(blocked.session.position, Some(Position { x: 5, y: 6 }), "the place is this board's");
        assert_eq!(blocked.session.attention.map(|a| a.rank), Some(0));

        // The same state again is not a change; the dot stays until the user looks here.
        assert!(board.mirror("devbox", remote("a", AgentStatus::Blocked, 2), false, u64::MAX).is_none());
        board.clear_unread("devbox:a").unwrap();
        let done = board.mirror("devbox", remote("a", AgentStatus::Done, 3), true, u64::MAX).unwrap();
        assert!(!done.notify && !done.session.unread, "a focused window is not notified");
    }

    #[test]
    fn hosts_never_touch_each_other_or_local_sessions() {
        let mut board = Reducer::new();
        board.mirror("one", remote("a", AgentStatus::Working, 1), false, u64::MAX).unwrap();
        board.mirror("two", remote("a", AgentStatus::Done, 1), false, u64::MAX).unwrap();
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
        let back = board.mirror("one", remote("a", AgentStatus::Working, 1), false, u64::MAX).unwrap();
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

    /// Issue 45: this machine's `evil:sq2` and box `evil`'s `sq2` share an id on this board; the
    /// local one is shown whichever came first, and the box's frames never change it.
    #[test]
    fn a_local_id_is_never_hidden_by_a_boxs_session_of_the_same_board_id() {
        let local = |status, cue| StatusEvent {
            agent: "claude".into(),
            session_id: "evil:sq2".into(),
            status: Some(status),
            cue,
            ts: 5,
            ..StatusEvent::default()
        };
        // The box's first.
        let mut board = Reducer::new();
        board.mirror("evil", remote("sq2", AgentStatus::Blocked, 1), false, u64::MAX).unwrap();
        // An event that only settles a session of this machine's has none to settle.
        assert!(board.apply(&local(AgentStatus::Done, crate::status::Cue::Settle), false).is_none());
        assert_eq!(board.get("evil:sq2").unwrap().host, "evil", "left as it was");
        let mine = board.apply(&local(AgentStatus::Working, crate::status::Cue::default()), false).unwrap();
        assert_eq!((mine.session.host.as_str(), mine.session.status), ("local", Some(AgentStatus::Working)));
        assert_eq!(mine.session.decision, None, "nothing of the box's session is kept");
        assert_eq!((board.count("evil"), board.count("local")), (0, 1));
        assert!(board.host_sessions("evil").is_empty());
        // The box's later frames for it, and its saying it has it no more, leave it.
        assert!(board.mirror("evil", remote("sq2", AgentStatus::Done, 2), false, u64::MAX).is_none());
        assert!(board.unmirror("evil", "sq2").is_none());
        assert_eq!(board.get("evil:sq2").unwrap().status, Some(AgentStatus::Working));

        // This machine's first: the box's never takes its place.
        let mut board = Reducer::new();
        board.apply(&local(AgentStatus::Working, crate::status::Cue::default()), false).unwrap();
        assert!(board.mirror("evil", remote("sq2", AgentStatus::Blocked, 1), false, u64::MAX).is_none());
        assert_eq!(board.get("evil:sq2").unwrap().host, "local");
    }

    #[test]
    fn whatever_a_remote_sends_a_session_costs_what_a_local_one_may() {
        let mut board = Reducer::new();
        let mut huge = remote("a", AgentStatus::Done, 1);
        huge.message = Some("m".repeat(900_000));
        huge.agent = "x".repeat(10_000);
        huge.usage = Some(crate::usage::Usage { model: Some("m".repeat(1_000_000)), ..Default::default() });
        huge.git = Some(crate::usage::GitInfo {
            branch: Some("b".repeat(1_000_000)),
            worktree: Some("w".repeat(1_000_000)),
            ..Default::default()
        });
        huge.questions = vec![
            crate::session::Question {
                question: "q".repeat(50_000),
                options: vec![crate::session::QuestionOption { label: "l".repeat(9_000), description: None }; 500],
                ..Default::default()
            };
            100
        ];
        let kept = board.mirror("box", huge, false, u64::MAX).unwrap().session;
        assert_eq!(kept.message.unwrap().chars().count(), super::super::MAX_TEXT);
        assert_eq!(kept.agent.len(), 64);
        assert_eq!(kept.questions.len(), REMOTE_QUESTIONS);
        assert_eq!(kept.questions[0].options.len(), REMOTE_OPTIONS);
        assert_eq!(kept.questions[0].options[0].label.len(), NAME_CHARS);
        assert_eq!(kept.usage.unwrap().model.unwrap().len(), NAME_CHARS, "usage.model clipped");
        let git = kept.git.unwrap();
        assert_eq!((git.branch.unwrap().len(), git.worktree.unwrap().len()), (NAME_CHARS, PATH_CHARS));
        let weight = serde_json::to_vec(&board.get("box:a").unwrap()).unwrap().len();
        assert!(weight < 64 * 1024, "one remote session weighs {weight} bytes");
        let mut long_id = remote("a", AgentStatus::Done, 1);
        long_id.session_id = "i".repeat(300);
        assert!(board.mirror("box", long_id, false, u64::MAX).is_none(), "an id this board would refuse from a hook");
    }

    /// Issue 34.2: a box that floods new ids claiming to be the freshest evicts only its own
    /// sessions: this machine's (and another box's) stay, a held local permission too.
    #[test]
    fn a_box_evicts_only_its_own_sessions_and_its_clock_cannot_jump_the_queue() {
        let mut board = Reducer::new();
        let local = StatusEvent {
            agent: "claude".into(),
            session_id: "mine".into(),
            status: Some(AgentStatus::Blocked),
            decision: Some(7),
            ts: 10,
            ..StatusEvent::default()
        };
        board.apply(&local, false).unwrap();
        board.mirror("quiet", remote("q", AgentStatus::Working, 5), false, 100);
        for n in 0..5_001u64 {
            let mut lie = remote(&n.to_string(), AgentStatus::Working, 1);
            lie.last_event_at = u64::MAX / 2;
            let kept = board.mirror("evil", lie, false, 1_000).unwrap();
            assert!(kept.session.last_event_at <= 1_000, "clamped to the link's clock");
        }
        assert!(board.count("evil") <= super::super::MAX_HOST_SESSIONS);
        let evicted = board.take_evicted();
        assert!(!evicted.is_empty() && evicted.iter().all(|id| id.starts_with("evil:")), "only its own");
        let mine = board.get("mine").expect("this machine's session stays");
        assert_eq!((mine.status, mine.decision), (Some(AgentStatus::Blocked), Some(7)), "and its hold");
        assert!(board.get("quiet:q").is_some(), "another box's session stays");
        assert_eq!(board.count(crate::session::LOCAL_HOST), 1);
    }
}
