//! How one accepted event folds into one session (docs/model.md §2.1 and §2.2): its metadata, its
//! subagents, what status it commits (the holdoff, the hold, the cues), the notify policy's
//! verdict, and the permission it holds for the board.

use super::{SessionState, MAX_SUBAGENTS, MAX_TEXT};
use crate::notify::{should_notify, NotifyContext};
use crate::session::Session;
use crate::status::{AgentStatus, Cue, Lifecycle, StatusEvent};

/// What an accepted status event commits, before the notify policy looks at it.
pub(super) enum Commit {
    Status(AgentStatus),
    /// The main agent's turn ended: `done`, or `waiting` while the hold stands.
    TurnEnd(AgentStatus),
}

/// At most [`MAX_TEXT`] characters (an ellipsis marks the cut).
pub(crate) fn clip(text: &Option<String>) -> Option<String> {
    let text = text.as_ref()?;
    // Bytes first (cheap, and never fewer than characters), then characters: CJK text well
    // under the limit in characters is three times it in bytes, and is not cut.
    if text.len() <= MAX_TEXT || text.chars().nth(MAX_TEXT).is_none() {
        return Some(text.clone());
    }
    let mut clipped: String = text.chars().take(MAX_TEXT - 1).collect();
    clipped.push('…');
    Some(clipped)
}

pub(super) fn apply_metadata(state: &mut SessionState, event: &StatusEvent) {
    let session = &mut state.session;
    session.last_event_at = session.last_event_at.max(event.ts);
    session.stale = false;
    session.restored = false;
    session.archived = false;
    session.idle_holding = false;
    if !event.agent.is_empty() {
        session.agent.clone_from(&event.agent);
    }
    if event.cwd.is_some() {
        session.cwd = clip(&event.cwd);
    }
    if event.transcript_path.is_some() && !event.is_subagent() {
        session.transcript_path = clip(&event.transcript_path);
    }
    if event.title.is_some() {
        state.event_title = clip(&event.title);
    } else if state.event_title.is_none() && !event.is_subagent() {
        // Unnamed by the agent: the session is named after its first prompt (issue 21.3).
        state.event_title = event.prompt.as_deref().and_then(crate::view::prompt_title);
    }
    if event.process.is_some() && !event.is_subagent() {
        session.process.clone_from(&event.process);
    }
    // Any event but the exit itself means the process (or a new one) is there.
    session.exited = event.cue == Cue::Exited;
    if !event.is_subagent() && event.kind != session.kind {
        session.kind = event.kind;
    }
    // `end` dims the node; any later event revives it.
    session.ended = event.lifecycle == Some(Lifecycle::End);
    if matches!(event.lifecycle, Some(Lifecycle::Start | Lifecycle::End)) {
        state.clear_hold();
    }
    if event.is_subagent() {
        track_subagent(state, event);
    }
}

/// SubagentStart adds to the running subagents; a subagent's done removes it.
pub(super) fn track_subagent(state: &mut SessionState, event: &StatusEvent) {
    let started = event.cue == Cue::SubagentStart || (event.status.is_none() && event.lifecycle.is_none());
    match (event.status, event.lifecycle) {
        _ if started => {
            let id = event.subagent_id.clone().unwrap_or_default();
            if state.subagents.len() < MAX_SUBAGENTS && (id.is_empty() || !state.subagents.contains(&id)) {
                state.subagents.push(id);
            }
        }
        (Some(AgentStatus::Done), _) => {
            let position = match &event.subagent_id {
                Some(id) => state.subagents.iter().position(|running| running == id),
                // A stop that does not say which subagent ended: the oldest one.
                None => (!state.subagents.is_empty()).then_some(0),
            };
            if let Some(position) = position {
                state.subagents.remove(position);
            }
        }
        _ => {}
    }
}

/// The status an event commits, if any (rules 2.1.2–2.1.5 and the hold of 2.2).
pub(super) fn commit_for(state: &mut SessionState, event: &StatusEvent) -> Option<Commit> {
    let status = event.status?;
    let current = state.session.status;
    if event.cue == Cue::Exited
        && !matches!(current, Some(AgentStatus::Working | AgentStatus::Blocked | AgentStatus::Waiting))
    {
        return None;
    }
    if event.is_subagent() {
        return match status {
            // A subagent finishing never sets the node's status.
            AgentStatus::Done => None,
            // A subagent working only lifts a `blocked`, and never clears the hold: with the
            // question still open the node goes back to waiting on it.
            AgentStatus::Working if current == Some(AgentStatus::Blocked) => {
                Some(Commit::Status(if state.holding() { AgentStatus::Waiting } else { AgentStatus::Working }))
            }
            AgentStatus::Working => None,
            AgentStatus::Waiting | AgentStatus::Blocked => Some(Commit::Status(status)),
        };
    }
    match status {
        AgentStatus::Working => {
            // A new turn, or any other working of the main agent, answers the open question.
            state.clear_hold();
            Some(Commit::Status(AgentStatus::Working))
        }
        AgentStatus::Done if event.interrupted => {
            state.clear_hold();
            Some(Commit::TurnEnd(AgentStatus::Done))
        }
        AgentStatus::Done if state.holding() => Some(Commit::TurnEnd(AgentStatus::Waiting)),
        AgentStatus::Done => Some(Commit::TurnEnd(AgentStatus::Done)),
        AgentStatus::Waiting | AgentStatus::Blocked => Some(Commit::Status(status)),
    }
}

/// Commits the status, its flags and its texts; returns whether to notify.
pub(super) fn apply_commit(
    state: &mut SessionState,
    event: &StatusEvent,
    commit: Commit,
    window_focused: bool,
) -> bool {
    let (next, turn_end) = match commit {
        Commit::Status(status) => (status, false),
        Commit::TurnEnd(status) => (status, true),
    };
    let session = &mut state.session;
    let previous = session.status;
    if previous != Some(next) || event.cue == Cue::NewTurn {
        // `interrupted` and `errored` describe the current done only.
        session.interrupted = false;
        session.errored = false;
    }
    if previous != Some(next) {
        session.status_changed_at = Some(event.ts);
    }
    if event.cue == Cue::NewTurn && !event.is_subagent() {
        session.turn_started_at = Some(event.ts);
    }
    session.status = Some(next);
    state.done_at = turn_end.then_some(event.ts);

    let interrupted = next == AgentStatus::Done && event.interrupted;
    if next == AgentStatus::Done {
        session.interrupted |= event.interrupted;
        session.errored |= event.errored;
    }
    if event.awaiting_input {
        // A confirmation of a question already asked (Gemini's ask_user notice) carries no text.
        if event.question.is_some() || !session.awaiting_input {
            session.question = clip(&event.question);
            session.questions.clone_from(&event.questions);
        }
        session.awaiting_input = true;
    }
    // Claude's generic permission notice must not replace the command the PermissionRequest
    // already showed.
    let generic_notice = event.cue == Cue::PermissionNotice && previous == Some(AgentStatus::Blocked);
    // An interrupt that corrects a done keeps what the agent had said (Gemini's partial answer).
    let correction = event.cue == Cue::Settle && previous == Some(AgentStatus::Done);
    if event.message.is_some() && !generic_notice && !correction {
        session.message = clip(&event.message);
    }
    if event.tool.is_some() {
        session.tool = clip(&event.tool);
    }

    // The user caused an interrupted done at the terminal: no notification, no unread — not even
    // the dot the done it corrects just set.
    if interrupted && event.cue == Cue::Settle && previous == Some(AgentStatus::Done) {
        session.unread = false;
    }
    let context = NotifyContext { known_session: true, window_focused };
    let notify = !interrupted && should_notify(previous, next, context);
    if notify {
        session.unread = true;
    }
    notify
}

/// A held permission can be answered from the board while it is the permission on screen: a
/// held PermissionRequest that made the session `blocked` offers it; any later event of the main
/// agent withdraws it (the user answered at the terminal, the turn moved on) — except Claude's
/// generic permission notice, which only repeats that the same prompt is still there.
///
/// A held question (issue 24: a CLI whose decision hook also takes its question tool's answers)
/// is offered the same way while the session waits on it.
pub(super) fn track_decision(session: &mut Session, event: &StatusEvent) {
    let blocked = session.status == Some(AgentStatus::Blocked);
    let asking = session.status == Some(AgentStatus::Waiting)
        && session.awaiting_input
        && !session.questions.is_empty()
        && crate::agent(&session.agent).is_some_and(|agent| agent.answers_in_hook);
    let offered = blocked || asking;
    if !offered {
        session.decision_until = None;
    }
    if !blocked {
        session.command = None;
        session.edit = None;
    } else if event.command.is_some() {
        session.command = clip(&event.command);
        session.edit.clone_from(&event.edit);
    }
    if event.decision.is_some() && offered {
        session.decision = event.decision;
        session.decision_until = event.decision_until;
    } else if !offered || (!event.is_subagent() && event.cue != Cue::PermissionNotice) {
        session.decision = None;
        // A new prompt that is not held: nothing has expired on it.
        if event.status == Some(AgentStatus::Blocked) && event.cue != Cue::PermissionNotice {
            session.decision_until = None;
        }
    }
}
