//! The second source of truth (issue "no stuck badge"): what Switchboard observes of an agent
//! beside its hooks — the records its CLI writes to its own transcript, and its process. These are
//! typed inputs with their own rows, like a CLI's hooks, and settle only what no hook does
//! (docs/model.md §8, "No hook at all"); the reducer's cues make sure a hook and a record of the
//! same moment neither double-count nor notify twice.
//!
//! Transcript records that end a turn without a hook, learnt by running the pinned CLIs
//! (`tests/fixtures/real-transcripts/`):
//!
//! | CLI | record | when |
//! |---|---|---|
//! | Claude Code | `{"type":"user","message":{"content":[{"type":"text","text":"[Request interrupted by user…]"}]}}` | Esc during a tool, a stream, or at a permission prompt |
//! | Codex | `{"type":"event_msg","payload":{"type":"turn_aborted"}}` | Esc, a declined approval (the Interrupt hook fires too) |
//! | Gemini CLI | `{"type":"info","content":"Request cancelled."}` | a refused permission (Esc or "No"), Esc during a tool or a stream |

use serde_json::Value;

use crate::status::{AgentStatus, Cue, Lifecycle, Millis, StatusEvent};

/// The transcript record's meaning, if it ends the turn where no hook fires.
pub fn transcript_record(agent: &str, session_id: &str, record: &Value, now: Millis) -> Option<StatusEvent> {
    // Each CLI knows its own interrupt record (its row's `transcript.settles`).
    let interrupted = crate::agent::agent(agent).is_some_and(|cli| (cli.transcript.settles)(record));
    interrupted.then(|| StatusEvent {
        status: Some(AgentStatus::Done),
        interrupted: true,
        cue: Cue::Settle,
        message: Some("Stopped at the terminal".to_owned()),
        ..observed(agent, session_id, now)
    })
}

/// The agent's screen shows that the user dismissed the question or prompt (issue 20.3).
pub fn screen_cancelled(agent: &str, session_id: &str, now: Millis) -> StatusEvent {
    StatusEvent {
        status: Some(AgentStatus::Done),
        interrupted: true,
        cue: Cue::Settle,
        message: Some("Dismissed at the terminal".to_owned()),
        ..observed(agent, session_id, now)
    }
}

/// The agent's process started a child that is not a hook while the session was blocked.
pub fn tool_started(agent: &str, session_id: &str, now: Millis) -> StatusEvent {
    StatusEvent { status: Some(AgentStatus::Working), cue: Cue::Approved, ..observed(agent, session_id, now) }
}

/// The agent's process is gone and no SessionEnd came.
pub fn process_exited(agent: &str, session_id: &str, now: Millis) -> StatusEvent {
    StatusEvent {
        status: Some(AgentStatus::Done),
        interrupted: true,
        lifecycle: Some(Lifecycle::End),
        cue: Cue::Exited,
        message: Some("The agent's process exited without ending its session".to_owned()),
        ..observed(agent, session_id, now)
    }
}

fn observed(agent: &str, session_id: &str, now: Millis) -> StatusEvent {
    StatusEvent { agent: agent.to_owned(), session_id: session_id.to_owned(), ts: now, ..StatusEvent::default() }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::normalize::fixtures::dir;

    /// The records each CLI wrote in the recorded no-hook scenarios.
    fn records(cli: &str, scenario: &str) -> Vec<Value> {
        let path = dir().join(format!("real-transcripts/{cli}/{scenario}.jsonl"));
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        text.lines().filter_map(|line| serde_json::from_str(line).ok()).collect()
    }

    fn settles(cli: &str, scenario: &str) -> bool {
        records(cli, scenario).iter().any(|record| transcript_record(cli, "s", record, 1).is_some())
    }

    #[test]
    fn the_recorded_esc_and_refusal_records_settle_the_turn() {
        for scenario in ["permission-refused-esc", "permission-refused-no", "esc-during-tool", "esc-during-stream"] {
            assert!(settles("claude", scenario), "claude {scenario}");
        }
        for scenario in ["refused-esc", "refused-no", "esc-during-stream", "esc-during-tool"] {
            assert!(settles("gemini", scenario), "gemini {scenario}");
        }
        for scenario in ["permission-refused-esc", "esc-during-tool", "esc-during-stream"] {
            assert!(settles("codex", scenario), "codex {scenario}");
        }
    }

    #[test]
    fn ordinary_records_settle_nothing() {
        assert!(!settles("claude", "compact"));
        assert!(!settles("gemini", "permission-approved"));
        assert!(!settles("codex", "permission-approved"));
        // Claude's request blobs quote earlier interrupts: only a user record counts.
        let blob = serde_json::json!({"type": "api-request-blob", "message": {"content": [
            {"type": "text", "text": "[Request interrupted by user]"}]}});
        assert_eq!(transcript_record("claude", "s", &blob, 1), None);
    }

    #[test]
    fn a_settling_record_is_an_interrupted_done_for_open_turns_only() {
        let record = &records("claude", "esc-during-tool")[..];
        let event = record.iter().find_map(|r| transcript_record("claude", "s1", r, 7)).unwrap();
        assert_eq!((event.status, event.interrupted, event.cue), (Some(AgentStatus::Done), true, Cue::Settle));
        assert_eq!((event.session_id.as_str(), event.ts), ("s1", 7));
    }
}
