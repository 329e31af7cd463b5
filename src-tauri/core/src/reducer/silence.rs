//! What happens to sessions between events: the clock's marks (stale, archived, idle holding,
//! no longer starting), and sessions brought back after a restart.

use super::{Reducer, SessionState};
use crate::session::{Ages, Restored, Session};
use crate::status::{AgentStatus, Millis};

impl Reducer {
    /// Flags sessions by their silence: `working` with no event for `ages.stale_after` ms is
    /// stale; anything silent for `ages.archive_after` ms is archived; an idle agent holding
    /// memory is marked (`Session::idle_holding_at`); one without a status is no longer
    /// "Starting" a minute after its first event. Returns the sessions whose flags changed.
    pub fn mark_silence(&mut self, now: Millis, ages: Ages) -> Vec<Session> {
        let mut changed: Vec<&SessionState> = Vec::new();
        // A remote's instance flags its own sessions.
        for state in self.sessions.values_mut().filter(|state| state.session.is_local()) {
            let session = &mut state.session;
            let silence = now.saturating_sub(session.last_event_at);
            let stale = session.status == Some(AgentStatus::Working) && silence >= ages.stale_after;
            let archived = silence >= ages.archive_after;
            let holding = session.idle_holding_at(now);
            let starting = session.starting
                && session.status.is_none()
                && now.saturating_sub(session.first_event_at) < crate::view::STARTING_GRACE_MS;
            if (stale, archived, holding, starting)
                != (session.stale, session.archived, session.idle_holding, session.starting)
            {
                session.stale = stale;
                session.archived = archived;
                session.idle_holding = holding;
                session.starting = starting;
                state.refresh();
                changed.push(state);
            }
        }
        changed.sort_by_key(|state| state.seq);
        changed.into_iter().map(|state| state.session.clone()).collect()
    }

    /// Loads sessions saved by an earlier run, marked `restored` until they report again. The
    /// running-subagent ids and the done holdoff are not carried over: after a restart neither
    /// can be trusted.
    pub fn restore(&mut self, sessions: impl IntoIterator<Item = Restored>) {
        // A remote's sessions come back from its link, not from what this board last saw.
        for restored in sessions.into_iter().filter(|restored| restored.session.is_local()) {
            let mut session = restored.session;
            session.restored = true;
            session.subagents = 0;
            // Whatever it was starting, it is not starting now.
            session.starting = false;
            // A hold belongs to a process that is gone.
            session.decision = None;
            session.decision_until = None;
            let seq = self.next_seq;
            self.next_seq += 1;
            let mut state = SessionState {
                session,
                seq,
                event_title: restored.event_title,
                agent_title: restored.agent_title,
                subagents: Vec::new(),
                done_at: None,
            };
            state.refresh();
            self.insert(state.session.session_id.clone(), state);
        }
    }

    /// What [`restore`](Self::restore) needs to rebuild a session, beyond its snapshot.
    pub fn saved(&self, session_id: &str) -> Option<Restored> {
        let state = self.sessions.get(session_id)?;
        Some(Restored {
            session: state.session.clone(),
            event_title: state.event_title.clone(),
            agent_title: state.agent_title.clone(),
        })
    }
}
