//! The reducer (docs/model.md §2): folds the normalized event stream into per-session state.
//!
//! Its output is a [`Change`] per accepted event — the new session snapshot, the status before,
//! and whether the change deserves a notification — which the shell persists, emits and
//! notifies on. Time comes from the events (`ts`, stamped by the normalizer's clock).
//!
//! How one event folds into one session (the rules of docs/model.md §2.1–2.2) is
//! `reducer/event.rs`; a remote's sessions, `reducer/mirror.rs`; what the clock and a restart
//! do, `reducer/silence.rs`; the tests, `reducer/tests.rs`.

use foldhash::HashMap;

use crate::session::LOCAL_HOST;
pub use crate::session::{Ages, Change, HistoryEntry, Position, Restored, Session, SessionsChanged, Snapshot};
use crate::status::{AgentStatus, Cue, Millis, SessionKind, StatusEvent};

/// A `working` that is not a new turn and lands this soon after the main agent's `done` is a
/// late hook (CLIs run hooks in parallel), not new work (rule 2.1.3).
pub const DONE_HOLDOFF_MS: Millis = 3_000;

#[derive(Clone, Debug)]
struct SessionState {
    session: Session,
    /// Arrival order, for a stable canvas layout.
    seq: u64,
    /// The title the event stream carried (SessionStart's `session_title`, custom `title`).
    event_title: Option<String>,
    /// The agent's own name for the session (transcript, `session_index.jsonl`), set by the shell.
    agent_title: Option<String>,
    /// Ids of the running subagents.
    subagents: Vec<String>,
    /// When the main agent's `done` (or a `done` held as `waiting`) that is still the current
    /// state was committed; drives the done holdoff.
    done_at: Option<Millis>,
}

impl SessionState {
    fn new(event: &StatusEvent, seq: u64) -> Self {
        Self {
            session: Session {
                session_id: event.session_id.clone(),
                agent: event.agent.clone(),
                status: None,
                kind: SessionKind::Session,
                tool: None,
                title: None,
                cwd: None,
                awaiting_input: false,
                question: None,
                message: None,
                interrupted: false,
                errored: false,
                ended: false,
                unread: false,
                subagents: 0,
                first_event_at: event.ts,
                last_event_at: event.ts,
                status_changed_at: None,
                transcript_path: None,
                stale: false,
                restored: false,
                archived: false,
                position: None,
                process: None,
                exited: false,
                decision: None,
                decision_until: None,
                command: None,
                edit: None,
                attention: None,
                host: crate::session::LOCAL_HOST.to_owned(),
                unreachable_since: None,
                questions: Vec::new(),
                usage: None,
                footprint: None,
                git: None,
                background: None,
                idle_holding: false,
                turn_started_at: None,
                board_rank: 0,
                starting: true,
                badge: crate::view::Badge::default(),
                category: None,
                reason: None,
            },
            seq,
            event_title: None,
            agent_title: None,
            subagents: Vec::new(),
            done_at: None,
        }
    }

    /// The `request_user_input` hold (2.2): an open question that outlives the turn.
    fn holding(&self) -> bool {
        self.session.awaiting_input
    }

    /// A transcript's interrupt that lands just after the turn's end hook: Gemini CLI fires an
    /// ordinary AfterAgent when the user presses Esc while the answer streams (docs/model.md §8),
    /// and its chat file says "Request cancelled." around the same moment. Within
    /// [`DONE_HOLDOFF_MS`] of the done, with no new turn since, the done was the user's interrupt.
    fn late_settle(&self, event: &StatusEvent) -> bool {
        let session = &self.session;
        crate::agent::agent(&session.agent).is_some_and(|agent| agent.turn_end_hides_interrupts)
            // It corrects the done (interrupted), never moves the session out of it.
            && event.status == Some(AgentStatus::Done)
            && session.status == Some(AgentStatus::Done)
            && !session.interrupted
            && !session.errored
            && self.done_at.is_some_and(|at| event.ts.saturating_sub(at) <= DONE_HOLDOFF_MS)
    }

    fn clear_hold(&mut self) {
        self.session.awaiting_input = false;
        self.session.question = None;
        self.session.questions = Vec::new();
    }

    /// Whether the event is to be ignored outright, before it touches anything.
    fn ignores(&self, event: &StatusEvent) -> bool {
        let status = self.session.status;
        match event.cue {
            Cue::IdleRescue => status != Some(AgentStatus::Working),
            Cue::IdleReminder => status == Some(AgentStatus::Done),
            Cue::NewTurn => false,
            // A question on screen is not a permission, whatever Claude's notice says; and a
            // notice landing after the turn ended is late.
            Cue::PermissionNotice => matches!(status, Some(AgentStatus::Waiting | AgentStatus::Done)),
            Cue::ModelCall => {
                let question_returned = status == Some(AgentStatus::Waiting) && self.holding();
                let retrying = status == Some(AgentStatus::Done) && self.session.errored;
                event.is_subagent() || !(question_returned || retrying)
            }
            // An interrupt settles an open turn or a question on screen; a done only just after it.
            Cue::Settle => {
                let open = matches!(status, Some(AgentStatus::Working | AgentStatus::Blocked | AgentStatus::Waiting));
                !(open || self.late_settle(event))
            }
            Cue::Approved => status != Some(AgentStatus::Blocked),
            Cue::Exited => false,
            Cue::Plain | Cue::SubagentStart => {
                event.status == Some(AgentStatus::Working)
                    && !event.is_subagent()
                    && self.done_at.is_some_and(|done_at| event.ts.saturating_sub(done_at) < DONE_HOLDOFF_MS)
            }
        }
    }

    fn refresh(&mut self) {
        if self.session.is_local() {
            // (A remote's count is its own: the ids behind it stay there.)
            self.session.subagents = u32::try_from(self.subagents.len()).unwrap_or(u32::MAX);
        }
        let session = &self.session;
        self.session.title = Some(crate::view::title(
            self.agent_title.as_deref(),
            self.event_title.as_deref(),
            session.cwd.as_deref(),
            &session.session_id,
        ));
        crate::view::stamp(&mut self.session);
    }
}

/// Sessions held at once. Past it, a new session evicts ended and archived sessions first, then
/// the longest silent, down to [`EVICT_TO`] in one pass (amortized: a flood of new ids costs
/// O(log n) each, not a scan each).
pub const MAX_SESSIONS: usize = 5_000;
pub const EVICT_TO: usize = MAX_SESSIONS * 9 / 10;
/// Sessions held at once for one remote (issue 34): a box has its own bound, evicts only its
/// own sessions past it, and can never push this machine's out.
pub const MAX_HOST_SESSIONS: usize = 1_000;
/// Running subagents tracked per session; more are not counted.
pub const MAX_SUBAGENTS: usize = 256;
/// Longest text kept per field (characters): a 250 KiB message is clipped at ingest.
pub const MAX_TEXT: usize = 4_000;

#[derive(Clone, Debug, Default)]
pub struct Reducer {
    sessions: HashMap<String, Box<SessionState>>,
    next_seq: u64,
    evicted: Vec<String>,
    /// How many sessions each host has here (this machine's under [`LOCAL_HOST`]): kept as
    /// sessions come and go, so a bound is checked without a scan.
    per_host: HashMap<String, usize>,
}

impl Reducer {
    pub fn new() -> Self {
        Self::default()
    }

    /// Folds one event in. `None` when the event changes nothing (a held-off late `working`, an
    /// idle rescue of a session that is not working, an idle reminder after a finished turn).
    pub fn apply(&mut self, event: &StatusEvent, window_focused: bool) -> Option<Change> {
        if self.sessions.get(&event.session_id).is_some_and(|state| state.session.is_local() && state.ignores(event)) {
            return None;
        }
        let needs_a_session = matches!(event.cue, Cue::IdleRescue | Cue::Settle | Cue::Approved | Cue::Exited);
        let of_a_box = self.sessions.get(&event.session_id).is_some_and(|state| !state.session.is_local());
        if needs_a_session && (of_a_box || !self.sessions.contains_key(&event.session_id)) {
            return None;
        }
        if of_a_box {
            // A box's session is never changed by a hook here (only through its link), and never
            // hides this machine's: a local id such as `evil:sq2` takes the place a box's `sq2`
            // held under the same id on this board (issue 45). The box's frames for it are
            // refused from now on (`mirror`); the update of the id tells the board and links.
            self.remove(&event.session_id);
        }
        if !self.sessions.contains_key(&event.session_id) {
            if self.count(LOCAL_HOST) >= MAX_SESSIONS {
                self.evict(LOCAL_HOST, EVICT_TO);
            }
            *self.per_host.entry(LOCAL_HOST.to_owned()).or_default() += 1;
        }
        let seq = self.next_seq;
        let state =
            self.sessions.entry(event.session_id.clone()).or_insert_with(|| Box::new(SessionState::new(event, seq)));
        if state.seq == seq {
            self.next_seq += 1;
        }
        let previous = state.session.status;
        apply_metadata(state, event);
        let commit = commit_for(state, event);
        let notify = match commit {
            None => false,
            Some(commit) => apply_commit(state, event, commit, window_focused),
        };
        track_decision(&mut state.session, event);
        state.refresh();
        Some(Change { session: state.session.clone(), previous, notify })
    }

    /// How many sessions `host` has here.
    pub fn count(&self, host: &str) -> usize {
        self.per_host.get(host).copied().unwrap_or(0)
    }

    /// Makes room among `host`'s own sessions, down to `keep`: ended and archived sessions go
    /// first, then the longest silent. Another host's sessions are never touched.
    fn evict(&mut self, host: &str, keep: usize) {
        let mut order: Vec<(bool, Millis, u64, String)> = self
            .sessions
            .values()
            .filter(|s| s.session.host == host)
            .map(|s| {
                (!(s.session.ended || s.session.archived), s.session.last_event_at, s.seq, s.session.session_id.clone())
            })
            .collect();
        order.sort_unstable();
        let excess = order.len().saturating_sub(keep);
        for (_, _, _, id) in order.into_iter().take(excess) {
            self.remove(&id);
            self.evicted.push(id);
        }
    }

    /// Sessions evicted to stay under [`MAX_SESSIONS`] since the last call (the shell tells the
    /// store and the UI they are gone).
    pub fn take_evicted(&mut self) -> Vec<String> {
        std::mem::take(&mut self.evicted)
    }

    /// The hold `id` ended without an answer from the board (it timed out, or the CLI gave up on
    /// its hook): the session no longer offers Allow / Deny.
    pub fn end_decision(&mut self, session_id: &str, id: u64) -> Option<Session> {
        let state = self.sessions.get_mut(session_id)?;
        (state.session.decision == Some(id)).then(|| {
            state.session.decision = None;
            state.session.clone()
        })
    }

    /// The user answered the held permission `id` from Switchboard: the agent goes on (a refused
    /// tool goes back to the model too), so the session is `working`, with what was decided in
    /// its message and history. Only for the hold still on offer: an answer that lost the race to
    /// the terminal changes nothing.
    pub fn decided(
        &mut self,
        session_id: &str,
        id: u64,
        allow: bool,
        said: Option<&str>,
        at: Millis,
        window_focused: bool,
    ) -> Option<Change> {
        let session = self.get(session_id).filter(|s| s.decision == Some(id))?;
        let verb = if allow { "Allowed" } else { "Denied" };
        let message = match (said, &session.message) {
            (Some(said), _) => format!("Answered from Switchboard: {said}"),
            (None, Some(what)) => format!("{verb} from Switchboard: {what}"),
            (None, None) => format!("{verb} from Switchboard"),
        };
        let event = StatusEvent {
            agent: session.agent.clone(),
            session_id: session_id.to_owned(),
            status: Some(AgentStatus::Working),
            // A held question's answer goes on like the CLI's own next event would.
            cue: if said.is_some() { Cue::Plain } else { Cue::Approved },
            message: Some(message),
            ts: at,
            ..StatusEvent::default()
        };
        self.apply(&event, window_focused)
    }

    /// The user opened the node (click, keyboard or its notification).
    pub fn clear_unread(&mut self, session_id: &str) -> Option<Session> {
        let state = self.sessions.get_mut(session_id)?;
        state.session.unread = false;
        state.refresh();
        Some(state.session.clone())
    }

    /// Forgets the session; if it reports again it starts afresh.
    pub fn remove(&mut self, session_id: &str) -> Option<Session> {
        let state = self.sessions.remove(session_id)?;
        if let Some(count) = self.per_host.get_mut(&state.session.host) {
            *count = count.saturating_sub(1);
        }
        Some(state.session)
    }

    /// Holds a new session (its host counted).
    fn insert(&mut self, id: String, state: SessionState) {
        *self.per_host.entry(state.session.host.clone()).or_default() += 1;
        if let Some(replaced) = self.sessions.insert(id, Box::new(state)) {
            if let Some(count) = self.per_host.get_mut(&replaced.session.host) {
                *count = count.saturating_sub(1);
            }
        }
    }

    /// Sets the agent's own name for the session (from its transcript or session index).
    /// `None` when the session is unknown or the title did not change.
    pub fn set_agent_title(&mut self, session_id: &str, title: Option<String>) -> Option<Session> {
        let state = self.sessions.get_mut(session_id)?;
        let title = title.filter(|t| !t.trim().is_empty());
        if state.agent_title == title {
            return None;
        }
        state.agent_title = title;
        state.refresh();
        Some(state.session.clone())
    }

    /// Keeps what the meter read about a local session (its tokens, footprint or git state).
    /// `None` when the session is unknown, not this machine's, or nothing changed.
    pub fn set_reading(&mut self, session_id: &str, reading: crate::usage::Reading) -> Option<Session> {
        use crate::usage::Reading;
        let session = &mut self.sessions.get_mut(session_id).filter(|state| state.session.is_local())?.session;
        let changed = match reading {
            Reading::Usage(usage) => session.usage.replace(usage.clone()) != Some(usage),
            Reading::Footprint(footprint) => std::mem::replace(&mut session.footprint, footprint) != footprint,
            Reading::Git(git) => std::mem::replace(&mut session.git, git.clone()) != git,
            Reading::Background(attach) => std::mem::replace(&mut session.background, attach.clone()) != attach,
        };
        changed.then(|| session.clone())
    }

    /// Remembers where the user put the node. `None` when unknown or unchanged.
    pub fn set_position(&mut self, session_id: &str, position: Position) -> Option<Session> {
        let state = self.sessions.get_mut(session_id)?;
        if state.session.position == Some(position) {
            return None;
        }
        state.session.position = Some(position);
        Some(state.session.clone())
    }

    /// The session's two titles of its own (its event's and its agent's), without a copy of the
    /// session (the hub reads them on every change).
    pub fn titles(&self, session_id: &str) -> (Option<String>, Option<String>) {
        self.sessions
            .get(session_id)
            .map(|state| (state.event_title.clone(), state.agent_title.clone()))
            .unwrap_or_default()
    }

    pub fn get(&self, session_id: &str) -> Option<&Session> {
        self.sessions.get(session_id).map(|state| &state.session)
    }

    pub fn len(&self) -> usize {
        self.sessions.len()
    }

    pub fn is_empty(&self) -> bool {
        self.sessions.is_empty()
    }

    pub fn snapshot(&self) -> Snapshot {
        let mut states: Vec<&SessionState> = self.sessions.values().map(|state| &**state).collect();
        states.sort_by_key(|state| state.seq);
        Snapshot { sessions: states.into_iter().map(|state| state.session.clone()).collect(), notices: None }
    }
}

pub use crate::view::last_folder;

mod event;
pub mod mirror;
mod silence;

pub(crate) use event::clip;
use event::{apply_commit, apply_metadata, commit_for, track_decision};
pub use mirror::remote_id;

#[cfg(test)]
mod tests;
