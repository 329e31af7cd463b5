//! What a session's row holds: the JSON [`Restored`](switchboard_core::Restored) reads back,
//! without what restoring rebuilds and without empty values.
//!
//! Every commit re-writes the row of every session that changed, so its size is the store's
//! cost: the whole session as the board sees it was 1,017 bytes for a blocked bench session and
//! 13,000 instructions to write; more than half of it was `null`, `false` and the view the
//! reducer stamps again on restore (`Reducer::restore`: title, attention, badge, …). Without
//! them, that row is 285 bytes. A missing field reads back as its default (`Option`s as `None`,
//! the rest by `#[serde(default)]`).

use serde::Serialize;
use switchboard_core::normalize::edit::EditSummary;
use switchboard_core::question::Question;
use switchboard_core::session::Position;
use switchboard_core::usage::{Footprint, GitInfo, Usage};
use switchboard_core::{AgentProcess, AgentStatus, Millis, Session, SessionKind};

use crate::instance::hub::Changed;

/// A session as [`Store::write`](super::Store::write) saves it, borrowed from the update the
/// hub shares.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct Saving<'a> {
    session: Lean<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    event_title: &'a Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    agent_title: &'a Option<String>,
}

impl<'a> Saving<'a> {
    pub(super) fn of(changed: &'a Changed) -> Self {
        Self::new(&changed.change.session, &changed.event_title, &changed.agent_title)
    }

    fn new(session: &'a Session, event_title: &'a Option<String>, agent_title: &'a Option<String>) -> Self {
        Self { session: Lean::of(session), event_title, agent_title }
    }
}

/// The fields of a [`Session`] that restoring does not rebuild, each left out when empty.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Lean<'a> {
    session_id: &'a str,
    agent: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    status: &'a Option<AgentStatus>,
    kind: &'a SessionKind,
    #[serde(skip_serializing_if = "Option::is_none")]
    tool: &'a Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    cwd: &'a Option<String>,
    #[serde(skip_serializing_if = "no")]
    awaiting_input: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    question: &'a Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    message: &'a Option<String>,
    #[serde(skip_serializing_if = "no")]
    interrupted: bool,
    #[serde(skip_serializing_if = "no")]
    errored: bool,
    #[serde(skip_serializing_if = "no")]
    ended: bool,
    #[serde(skip_serializing_if = "no")]
    unread: bool,
    first_event_at: Millis,
    last_event_at: Millis,
    #[serde(skip_serializing_if = "Option::is_none")]
    status_changed_at: &'a Option<Millis>,
    #[serde(skip_serializing_if = "Option::is_none")]
    transcript_path: &'a Option<String>,
    #[serde(skip_serializing_if = "no")]
    stale: bool,
    #[serde(skip_serializing_if = "no")]
    archived: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    position: &'a Option<Position>,
    #[serde(skip_serializing_if = "Option::is_none")]
    process: &'a Option<AgentProcess>,
    #[serde(skip_serializing_if = "no")]
    exited: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    command: &'a Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    edit: &'a Option<EditSummary>,
    host: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    unreachable_since: &'a Option<Millis>,
    #[serde(skip_serializing_if = "<[Question]>::is_empty")]
    questions: &'a [Question],
    #[serde(skip_serializing_if = "Option::is_none")]
    usage: &'a Option<Usage>,
    #[serde(skip_serializing_if = "Option::is_none")]
    footprint: &'a Option<Footprint>,
    #[serde(skip_serializing_if = "Option::is_none")]
    git: &'a Option<GitInfo>,
    #[serde(skip_serializing_if = "Option::is_none")]
    background: &'a Option<String>,
    #[serde(skip_serializing_if = "no")]
    idle_holding: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    turn_started_at: &'a Option<Millis>,
}

impl<'a> Lean<'a> {
    fn of(session: &'a Session) -> Self {
        // Every field named: a field added to `Session` does not build until it is saved here or
        // said to be rebuilt.
        let Session {
            session_id,
            agent,
            status,
            kind,
            tool,
            cwd,
            awaiting_input,
            question,
            message,
            interrupted,
            errored,
            ended,
            unread,
            first_event_at,
            last_event_at,
            status_changed_at,
            transcript_path,
            stale,
            archived,
            position,
            process,
            exited,
            command,
            edit,
            host,
            unreachable_since,
            questions,
            usage,
            footprint,
            git,
            background,
            idle_holding,
            turn_started_at,
            // Rebuilt by `Reducer::restore`: the title from the two saved titles, the view by
            // `view::stamp`; the subagent count, `restored`, `starting` and the hold are reset.
            title: _,
            subagents: _,
            restored: _,
            starting: _,
            decision: _,
            decision_until: _,
            attention: _,
            board_rank: _,
            badge: _,
            category: _,
            reason: _,
        } = session;
        Self {
            session_id,
            agent,
            status,
            kind,
            tool,
            cwd,
            awaiting_input: *awaiting_input,
            question,
            message,
            interrupted: *interrupted,
            errored: *errored,
            ended: *ended,
            unread: *unread,
            first_event_at: *first_event_at,
            last_event_at: *last_event_at,
            status_changed_at,
            transcript_path,
            stale: *stale,
            archived: *archived,
            position,
            process,
            exited: *exited,
            command,
            edit,
            host,
            unreachable_since,
            questions,
            usage,
            footprint,
            git,
            background,
            idle_holding: *idle_holding,
            turn_started_at,
        }
    }
}

#[allow(clippy::trivially_copy_pass_by_ref)] // serde's `skip_serializing_if` passes a reference
fn no(flag: &bool) -> bool {
    !*flag
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use switchboard_core::usage::Footprint;
    use switchboard_core::{normalize, Reducer, Restored};

    /// What the board shows after a restart from `saved`.
    fn restored(saved: Restored) -> Session {
        let mut reducer = Reducer::new();
        reducer.restore([saved]);
        reducer.snapshot().sessions.remove(0)
    }

    fn round_trip(session: &Session, event_title: &Option<String>, agent_title: &Option<String>) -> (Restored, usize) {
        let row = serde_json::to_string(&Saving::new(session, event_title, agent_title)).unwrap();
        (serde_json::from_str(&row).expect("a lean row reads back"), row.len())
    }

    /// A restart from the lean row shows exactly what a restart from the whole session showed:
    /// for a blocked session, one with every field set, and one with every field empty.
    #[test]
    fn a_lean_row_restores_the_same_session_as_the_whole_one_and_is_under_half_of_it() {
        let event = json!({"hook_event_name": "PermissionRequest", "session_id": "s", "cwd": "/src/app",
            "transcript_path": "/t/s.jsonl", "tool_name": "Bash", "tool_input": {"command": "rm -rf dist"}});
        let mut reducer = Reducer::new();
        let blocked = reducer.apply(&normalize("claude", &event, 1_000).unwrap(), false).unwrap().session;
        let (event_title, agent_title) = (Some("Fix the build".to_owned()), Some("build fixer".to_owned()));
        let whole =
            Restored { session: blocked.clone(), event_title: event_title.clone(), agent_title: agent_title.clone() };
        let whole_len = serde_json::to_string(&whole).unwrap().len();
        let (lean, lean_len) = round_trip(&blocked, &event_title, &agent_title);
        assert_eq!(restored(lean), restored(whole));
        assert!(lean_len * 2 < whole_len, "{lean_len} of {whole_len} bytes");

        let mut full = blocked;
        full.awaiting_input = true;
        full.question = Some("Which one?".into());
        (full.interrupted, full.errored, full.ended, full.unread) = (true, true, true, true);
        (full.stale, full.archived, full.exited, full.idle_holding) = (true, true, true, true);
        full.position = Some(Position { x: 3, y: -4 });
        full.process = Some(AgentProcess { pid: 42, start: 7, tty: Some("pts/1".into()), ..AgentProcess::default() });
        full.edit = Some(EditSummary::default());
        full.unreachable_since = Some(5);
        full.questions = vec![Question::default()];
        full.usage = Some(Usage::default());
        full.footprint = Some(Footprint { rss_bytes: 1 << 30, ..Footprint::default() });
        full.git = Some(GitInfo::default());
        full.background = Some("claude attach 1".into());
        full.turn_started_at = Some(900);
        full.status_changed_at = Some(950);
        let (lean, _) = round_trip(&full, &event_title, &agent_title);
        assert_eq!(restored(lean), restored(Restored { session: full.clone(), event_title, agent_title }));

        let mut empty = Reducer::new();
        let event = json!({"sessionId": "e"});
        let bare = empty.apply(&normalize("custom", &event, 1_000).unwrap(), false).map(|c| c.session);
        let bare = bare.unwrap_or_else(|| empty.get("e").cloned().expect("a session"));
        let (lean, _) = round_trip(&bare, &None, &None);
        assert_eq!(restored(lean), restored(Restored { session: bare, event_title: None, agent_title: None }));
    }
}
