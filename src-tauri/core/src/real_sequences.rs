//! Every recorded session of the real CLIs (`tests/fixtures/real/<cli>-<version>/`) replayed
//! through the normalizers and the reducer, to the statuses docs/model.md §8 implies. Scenarios
//! that no hook can settle (a refused permission, Esc) are named `pending`: the hooks leave them
//! where they were, and the second source (transcripts, process liveness) must settle them.

use std::collections::HashMap;
use std::path::PathBuf;

use serde_json::Value;

use crate::agent::normalize;
use crate::normalize::fixtures;
use crate::reducer::{Reducer, Session};
use crate::status::{AgentStatus, Millis};
use AgentStatus::*;

/// One recorded hook event: the agent id its CLI posts as, the time it arrived, the payload.
struct Recorded {
    agent: &'static str,
    at: Millis,
    payload: Value,
}

fn agent_of(folder: &str) -> &'static str {
    ["claude", "codex", "gemini"].into_iter().find(|agent| folder.starts_with(agent)).expect(folder)
}

fn real_dir() -> PathBuf {
    fixtures::dir().join("real")
}

/// `<folder>/sequences/<scenario>.jsonl`, one `{event, ts|recv_ts, payload}` record per line.
fn sequence(folder: &str, scenario: &str) -> Vec<Recorded> {
    let path = real_dir().join(folder).join("sequences").join(format!("{scenario}.jsonl"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text.lines()
        .filter(|line| !line.trim().is_empty())
        .map(|line| {
            let record: Value = serde_json::from_str(line).unwrap();
            let seconds = record.get("ts").or_else(|| record.get("recv_ts")).and_then(Value::as_f64).unwrap();
            Recorded { agent: agent_of(folder), at: (seconds * 1000.0) as Millis, payload: record["payload"].clone() }
        })
        .collect()
}

/// Replays a scenario; returns the reducer and, per event, its name and the session after it.
fn replay(folder: &str, scenario: &str) -> (Reducer, Vec<(String, Option<Session>)>) {
    let mut reducer = Reducer::new();
    let mut steps = Vec::new();
    for recorded in sequence(folder, scenario) {
        let name = recorded.payload["hook_event_name"].as_str().unwrap_or_default().to_owned();
        let session_id = recorded.payload["session_id"].as_str().unwrap_or_default().to_owned();
        if let Some(event) = normalize(recorded.agent, &recorded.payload, recorded.at) {
            reducer.apply(&event, false);
        }
        steps.push((name, reducer.get(&session_id).cloned()));
    }
    (reducer, steps)
}

/// The session the scenario is about (the one whose events came last).
fn last_session(steps: &[(String, Option<Session>)]) -> Session {
    steps.iter().rev().find_map(|(_, session)| session.clone()).expect("a session")
}

/// The status right after the `nth` (0-based) event called `name`.
fn status_after(steps: &[(String, Option<Session>)], name: &str, nth: usize) -> Option<AgentStatus> {
    let (_, session) =
        steps.iter().filter(|(event, _)| event == name).nth(nth).unwrap_or_else(|| panic!("{name}#{nth}"));
    session.as_ref().and_then(|s| s.status)
}

const CLAUDE: &str = "claude-code-2.1.332";
const CODEX: &str = "codex-0.171.0";
const GEMINI: &str = "gemini-cli-0.61.0";

/// What the scenario ends in: status, interrupted, errored, and whether a hook can settle it.
struct Expect {
    status: Option<AgentStatus>,
    interrupted: bool,
    errored: bool,
    pending: bool,
}

const fn settled(status: AgentStatus) -> Expect {
    Expect { status: Some(status), interrupted: false, errored: false, pending: false }
}
const fn interrupted() -> Expect {
    Expect { status: Some(Done), interrupted: true, errored: false, pending: false }
}
const fn errored() -> Expect {
    Expect { status: Some(Done), interrupted: false, errored: true, pending: false }
}
/// No hook settles it (docs/model.md §8, "No hook at all"): the hooks leave this status behind.
const fn pending(status: AgentStatus) -> Expect {
    Expect { status: Some(status), interrupted: false, errored: false, pending: true }
}

fn expectations() -> Vec<(&'static str, &'static str, Expect)> {
    vec![
        (CLAUDE, "a-read", settled(Done)),
        (CLAUDE, "b-permission", settled(Done)),
        (CLAUDE, "b2-permission-denied", pending(Blocked)),
        (CLAUDE, "b3-permission-no", pending(Blocked)),
        (CLAUDE, "c1-AskUserQuestion", settled(Done)),
        (CLAUDE, "c2-plain-question", settled(Done)),
        (CLAUDE, "d1-esc-during-tool", pending(Working)),
        (CLAUDE, "d2-esc-during-stream", pending(Working)),
        (CLAUDE, "e-api-errors", errored()),
        (CLAUDE, "g-compact", interrupted()),
        (CLAUDE, "h-tool-fails", settled(Done)),
        (CLAUDE, "s-subagent", settled(Done)),
        (CODEX, "a-read", settled(Done)),
        (CODEX, "b-approve", settled(Done)),
        (CODEX, "b2-decline", interrupted()),
        (CODEX, "c-ask", settled(Done)),
        (CODEX, "c2-askplain", settled(Done)),
        (CODEX, "c3-askdefault", settled(Done)),
        (CODEX, "c4-exec-ask", settled(Done)),
        (CODEX, "d-interrupt-tool", interrupted()),
        (CODEX, "d2-interrupt-stream", interrupted()),
        (CODEX, "e-error500", errored()),
        (CODEX, "e2-overloaded", errored()),
        (CODEX, "e3-exec-stream-retries", errored()),
        (CODEX, "f-exit-daemon", settled(Done)),
        (CODEX, "f2-exit-nodaemon", settled(Done)),
        (CODEX, "f3-daemon-stop", settled(Done)),
        (CODEX, "g-subagent", settled(Done)),
        (GEMINI, "a-read-tool", settled(Done)),
        (GEMINI, "b-shell-permission", settled(Done)),
        (GEMINI, "b2-shell-permission-denied", pending(Blocked)),
        (GEMINI, "b3-write-file-permission", settled(Done)),
        (GEMINI, "b4-large-write-permission", settled(Done)),
        (GEMINI, "c-ask-user", settled(Done)),
        (GEMINI, "c2-plain-text-question", settled(Done)),
        // Esc while streaming: an ordinary AfterAgent with the partial text, no marker
        // (docs/model.md §8).
        (GEMINI, "d-interrupt-stream", settled(Done)),
        (GEMINI, "d2-interrupt-tool", interrupted()),
        // HTTP 400/429: Gemini retries, then ends the turn with "[no response text]", no failure hook.
        (GEMINI, "e-api-error-400", settled(Done)),
        (GEMINI, "e2-api-error-429", settled(Done)),
        (GEMINI, "f-session-end", settled(Done)),
        (GEMINI, "h-subagent", settled(Done)),
    ]
}

#[test]
fn every_recorded_event_normalizes_without_panic() {
    let mut count = 0;
    for folder in std::fs::read_dir(real_dir()).unwrap() {
        let folder = folder.unwrap().path();
        let agent = agent_of(folder.file_name().unwrap().to_str().unwrap());
        for file in std::fs::read_dir(folder.join("events")).unwrap() {
            let raw: Value = serde_json::from_str(&std::fs::read_to_string(file.unwrap().path()).unwrap()).unwrap();
            let _ = normalize(agent, &raw, 1);
            count += 1;
        }
    }
    assert!(count > 90, "only {count} recorded events found");
}

#[test]
fn every_recorded_scenario_ends_in_the_status_spec_8_implies() {
    let expectations = expectations();
    let mut listed = 0;
    for (folder, scenario, expect) in &expectations {
        let (_, steps) = replay(folder, scenario);
        let session = last_session(&steps);
        let what = format!("{folder}/{scenario}{}", if expect.pending { " (pending a second source)" } else { "" });
        assert_eq!(session.status, expect.status, "{what}");
        assert_eq!(session.interrupted, expect.interrupted, "{what}: interrupted");
        assert_eq!(session.errored, expect.errored, "{what}: errored");
        let ends = steps.iter().any(|(name, _)| name == "SessionEnd");
        assert_eq!(session.ended, ends, "{what}: ended exactly when SessionEnd came");
        if !expect.pending {
            assert!(!session.awaiting_input, "{what}: no question left open");
        }
        listed += 1;
    }
    // Every recorded scenario is listed here or below (sessions with no status event).
    let mut all = 0;
    for folder in [CLAUDE, CODEX, GEMINI] {
        all += std::fs::read_dir(real_dir().join(folder).join("sequences"))
            .unwrap()
            .filter(|f| f.as_ref().unwrap().path().extension().is_some_and(|e| e == "jsonl"))
            .count();
    }
    assert_eq!(all, listed + 3, "a recorded scenario has no expectation");
}

#[test]
fn sessions_that_only_start_and_end_have_no_status() {
    for (folder, scenario) in [(CODEX, "f-exit-daemon-later"), (GEMINI, "g2-resume")] {
        let session = last_session(&replay(folder, scenario).1);
        assert_eq!((session.status, session.ended), (None, true), "{scenario}");
    }
    // /clear ends the session and starts a new id.
    let (reducer, _) = replay(GEMINI, "g-clear-and-resume");
    let snapshot = reducer.snapshot();
    assert_eq!(snapshot.sessions.len(), 2);
    assert_eq!((snapshot.sessions[0].status, snapshot.sessions[0].ended), (Some(Done), true));
    assert_eq!(snapshot.sessions[0].message.as_deref(), Some("Hello!"));
    assert_eq!((snapshot.sessions[1].status, snapshot.sessions[1].ended), (None, true));
}

#[test]
fn claude_a_permission_keeps_its_command_through_the_generic_notice() {
    let (_, steps) = replay(CLAUDE, "b-permission");
    assert_eq!(status_after(&steps, "PermissionRequest", 0), Some(Blocked));
    let (_, after_notice) = steps.iter().find(|(name, _)| name == "Notification").unwrap();
    let after_notice = after_notice.as_ref().unwrap();
    assert_eq!(after_notice.status, Some(Blocked));
    assert_eq!(after_notice.message.as_deref(), Some("touch created-by-claude.txt"));
    assert_eq!(after_notice.tool.as_deref(), Some("Bash"));
    assert_eq!(status_after(&steps, "PostToolUse", 0), Some(Working));
}

#[test]
fn claude_ask_user_question_is_waiting_even_after_the_permission_notice() {
    let (_, steps) = replay(CLAUDE, "c1-AskUserQuestion");
    for name in ["PreToolUse", "PermissionRequest", "Notification"] {
        assert_eq!(status_after(&steps, name, 0), Some(Waiting), "after {name}");
    }
    let (_, session) = steps.iter().find(|(name, _)| name == "Notification").unwrap();
    let session = session.as_ref().unwrap();
    assert!(session.awaiting_input);
    assert_eq!(session.question.as_deref(), Some("Which color should the button be?"));
    assert_eq!(status_after(&steps, "PostToolUse", 0), Some(Working));
}

#[test]
fn claude_api_errors_read_as_sentences() {
    let (_, steps) = replay(CLAUDE, "e-api-errors");
    let messages: Vec<String> = steps
        .iter()
        .filter(|(name, _)| name == "StopFailure")
        .map(|(_, s)| s.as_ref().unwrap().message.clone().unwrap())
        .collect();
    assert_eq!(messages[0], "The request failed: 400 Bad request (fake)");
    assert!(messages[1].starts_with("Rate limit reached: "), "{}", messages[1]);
    assert!(messages[2].starts_with("The API had a server error: 500"), "{}", messages[2]);
}

#[test]
fn claude_background_subagent_is_counted_while_it_runs() {
    let (_, steps) = replay(CLAUDE, "s-subagent");
    let subagents_after = |name: &str, nth: usize| {
        steps.iter().filter(|(event, _)| event == name).nth(nth).unwrap().1.as_ref().unwrap().subagents
    };
    assert_eq!(subagents_after("SubagentStart", 0), 1);
    // The main Stop fires while the background agent still runs.
    assert_eq!(status_after(&steps, "Stop", 0), Some(Done));
    assert_eq!(subagents_after("Stop", 0), 1);
    assert_eq!(subagents_after("SubagentStop", 0), 0);
    // Claude then starts a turn by itself with the task notification.
    assert_eq!(status_after(&steps, "UserPromptSubmit", 1), Some(Working));
}

#[test]
fn claude_compaction_settles_and_its_subagent_stops_count_nothing() {
    let (_, steps) = replay(CLAUDE, "g-compact");
    assert_eq!(status_after(&steps, "PreCompact", 0), Some(Working));
    assert_eq!(status_after(&steps, "PostCompact", 0), Some(Done));
    assert!(steps.iter().all(|(_, s)| s.as_ref().is_none_or(|s| s.subagents == 0)));
}

#[test]
fn codex_an_answered_or_rejected_question_leaves_no_hold() {
    let (_, steps) = replay(CODEX, "c-ask");
    assert_eq!(status_after(&steps, "PreToolUse", 0), Some(Waiting));
    assert_eq!(status_after(&steps, "PostToolUse", 0), Some(Working));
    let (_, steps) = replay(CODEX, "c3-askdefault");
    assert_eq!(status_after(&steps, "PreToolUse", 0), Some(Waiting));
    assert_eq!(status_after(&steps, "PreModelRequest", 1), Some(Working));
    assert_eq!(status_after(&steps, "Stop", 0), Some(Done));
}

#[test]
fn codex_a_failed_model_request_is_an_errored_done_and_a_retry_works_again() {
    let (_, steps) = replay(CODEX, "e3-exec-stream-retries");
    assert_eq!(status_after(&steps, "PostModelRequest", 0), Some(Done));
    assert_eq!(status_after(&steps, "PreModelRequest", 1), Some(Working));
    let session = last_session(&steps);
    assert!(session.message.as_deref().unwrap().starts_with("stream disconnected"));
    let (_, steps) = replay(CODEX, "a-read");
    // Model calls inside a healthy turn change nothing.
    assert!(steps
        .iter()
        .filter(|(n, _)| n.ends_with("ModelRequest"))
        .all(|(_, s)| s.as_ref().unwrap().status == Some(Working)));
}

#[test]
fn codex_compaction_after_a_finished_turn_stays_done() {
    let (_, steps) = replay(CODEX, "f-exit-daemon");
    assert_eq!(status_after(&steps, "PostCompact", 0), Some(Done));
    assert!(!last_session(&steps).interrupted);
}

#[test]
fn codex_subagent_is_counted_and_never_ends_the_parent_turn() {
    let (_, steps) = replay(CODEX, "g-subagent");
    let running: HashMap<&str, u32> = steps
        .iter()
        .filter(|(name, _)| matches!(name.as_str(), "SubagentStart" | "SubagentStop"))
        .map(|(name, s)| (name.as_str(), s.as_ref().unwrap().subagents))
        .collect();
    assert_eq!(running["SubagentStart"], 1);
    assert_eq!(running["SubagentStop"], 0);
    assert_eq!(status_after(&steps, "SubagentStop", 0), Some(Working));
}

#[test]
fn gemini_ask_user_is_a_question_and_a_tool_permission_names_the_command() {
    let (_, steps) = replay(GEMINI, "c-ask-user");
    assert_eq!(status_after(&steps, "Notification", 0), Some(Waiting));
    let (_, session) = steps.iter().find(|(name, _)| name == "Notification").unwrap();
    assert_eq!(session.as_ref().unwrap().question.as_deref(), Some("Which database should I use?"));
    assert_eq!(status_after(&steps, "AfterTool", 0), Some(Working));
    let (_, steps) = replay(GEMINI, "b-shell-permission");
    let (_, session) = steps.iter().find(|(name, _)| name == "Notification").unwrap();
    let session = session.as_ref().unwrap();
    assert_eq!((session.status, session.message.as_deref()), (Some(Blocked), Some("touch sb_b_marker.txt")));
    assert_eq!(session.tool.as_deref(), Some("run_shell_command"));
}
