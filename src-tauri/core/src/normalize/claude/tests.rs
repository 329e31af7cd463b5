use super::*;
use crate::normalize::fixtures::{fixture, fixture_with};
use serde_json::json;
use serde_json::Value;

/// The normalizer on a test's `serde_json` value (the server reads bodies with `crate::json`).
fn normalize_claude(raw: &Value, now: Millis) -> Option<StatusEvent> {
    super::normalize_claude(&raw.into(), now)
}

const NOW: Millis = 1_750_000_000_000;

fn claude(name: &str) -> StatusEvent {
    normalize_claude(&fixture(&format!("claude/{name}.json")), NOW).expect(name)
}

#[test]
fn user_prompt_submit_is_a_new_working_turn() {
    let event = claude("UserPromptSubmit");
    assert_eq!(event.status, Some(AgentStatus::Working));
    assert_eq!(event.cue, Cue::NewTurn);
    assert_eq!(event.session_id, "00893aaf-19fa-41d2-8238-13269b9b3ca0");
    assert_eq!(event.cwd.as_deref(), Some("/Users/ana/src/webapp"));
    assert_eq!(event.agent, "claude");
    assert_eq!(event.ts, NOW);
}

#[test]
fn pre_tool_use_is_working_with_the_tool() {
    let event = claude("PreToolUse-Bash");
    assert_eq!(event.status, Some(AgentStatus::Working));
    assert_eq!(event.tool.as_deref(), Some("Bash"));
    assert_eq!(event.cue, Cue::Plain);
    assert!(!event.awaiting_input);
}

#[test]
fn pre_tool_use_ask_user_question_is_waiting_with_the_question() {
    let event = claude("PreToolUse-AskUserQuestion");
    assert_eq!(event.status, Some(AgentStatus::Waiting));
    assert!(event.awaiting_input);
    assert_eq!(event.question.as_deref(), Some("Which framework?"));
}

#[test]
fn post_tool_use_and_pre_compact_are_working() {
    assert_eq!(claude("PostToolUse").status, Some(AgentStatus::Working));
    assert_eq!(claude("PostToolUse").tool.as_deref(), Some("Write"));
    let compact = claude("PreCompact");
    assert_eq!(compact.status, Some(AgentStatus::Working));
    assert_eq!(compact.lifecycle, None);
}

#[test]
fn an_automatic_post_compact_gives_no_event_and_a_manual_one_settles_a_working_session() {
    assert_eq!(normalize_claude(&fixture("claude/PostCompact.json"), NOW), None);
    let manual = normalize_claude(&fixture("real/claude-code-2.1.332/events/PostCompact-manual.json"), NOW).unwrap();
    assert_eq!((manual.status, manual.cue, manual.interrupted), (Some(AgentStatus::Done), Cue::IdleRescue, true));
}

#[test]
fn post_tool_use_failure_is_working() {
    let event = claude("PostToolUseFailure");
    assert_eq!(event.status, Some(AgentStatus::Working));
    assert!(!event.interrupted);
}

#[test]
fn post_tool_use_failure_with_is_interrupt_is_an_interrupted_done() {
    let raw = fixture_with("claude/PostToolUseFailure.json", json!({"is_interrupt": true}));
    let event = normalize_claude(&raw, NOW).unwrap();
    assert_eq!(event.status, Some(AgentStatus::Done));
    assert!(event.interrupted);
}

#[test]
fn notification_permission_prompt_is_blocked() {
    let event = claude("Notification-permission_prompt");
    assert_eq!(event.status, Some(AgentStatus::Blocked));
    assert_eq!(event.cue, Cue::PermissionNotice);
    assert_eq!(event.message.as_deref(), Some("Claude needs your permission to use Bash"));
}

#[test]
fn notification_elicitation_and_needs_input_types_are_waiting() {
    assert_eq!(claude("Notification-elicitation_dialog").status, Some(AgentStatus::Waiting));
    for kind in ["elicitation_url_dialog", "agent_needs_input"] {
        let raw = fixture_with("claude/Notification-elicitation_dialog.json", json!({"notification_type": kind}));
        let event = normalize_claude(&raw, NOW).unwrap();
        assert_eq!(event.status, Some(AgentStatus::Waiting), "{kind}");
        assert_eq!(event.cue, Cue::Plain);
    }
}

#[test]
fn notification_idle_prompt_is_an_idle_rescue() {
    let event = claude("Notification-idle_prompt");
    assert_eq!(event.cue, Cue::IdleRescue);
    assert_eq!(event.status, Some(AgentStatus::Done));
    assert!(event.interrupted);
}

#[test]
fn notification_without_a_type_is_an_idle_reminder_waiting() {
    let mut raw = fixture("claude/Notification-idle_prompt.json");
    raw.as_object_mut().unwrap().remove("notification_type");
    let event = normalize_claude(&raw, NOW).unwrap();
    assert_eq!(event.status, Some(AgentStatus::Waiting));
    assert_eq!(event.cue, Cue::IdleReminder);
}

#[test]
fn notification_of_other_or_unknown_types_gives_no_event() {
    assert_eq!(normalize_claude(&fixture("claude/Notification-auth_success.json"), NOW), None);
    for kind in ["elicitation_complete", "elicitation_response", "agent_completed", "brand_new_type"] {
        let raw = fixture_with("claude/Notification-auth_success.json", json!({"notification_type": kind}));
        assert_eq!(normalize_claude(&raw, NOW), None, "{kind}");
    }
}

#[test]
fn permission_request_is_blocked_with_tool_and_command() {
    let event = claude("PermissionRequest");
    assert_eq!(event.status, Some(AgentStatus::Blocked));
    assert_eq!(event.tool.as_deref(), Some("Bash"));
    assert_eq!(event.message.as_deref(), Some("rm -rf node_modules"));
}

#[test]
fn permission_request_for_ask_user_question_is_waiting_with_the_question() {
    let raw = fixture_with(
        "claude/PermissionRequest.json",
        json!({"tool_name": "AskUserQuestion", "tool_input": {"questions": [{"question": "Ship it?"}]}}),
    );
    let event = normalize_claude(&raw, NOW).unwrap();
    assert_eq!(event.status, Some(AgentStatus::Waiting));
    assert!(event.awaiting_input);
    assert_eq!(event.question.as_deref(), Some("Ship it?"));
}

#[test]
fn stop_is_done_with_the_last_assistant_message() {
    let event = claude("Stop");
    assert_eq!(event.status, Some(AgentStatus::Done));
    assert_eq!(event.kind, SessionKind::Session);
    assert_eq!(event.message.as_deref(), Some("I've completed the refactoring. Here's a summary..."));
}

#[test]
fn stop_with_a_subagent_id_is_a_subagents_done() {
    let raw = fixture_with("claude/Stop.json", json!({"subagent_id": "sub-1"}));
    let event = normalize_claude(&raw, NOW).unwrap();
    assert_eq!(event.kind, SessionKind::Subagent);
    assert_eq!(event.subagent_id.as_deref(), Some("sub-1"));
}

#[test]
fn stop_failure_is_an_errored_done_with_the_error() {
    let event = claude("StopFailure");
    assert_eq!(event.status, Some(AgentStatus::Done));
    assert!(event.errored);
    assert_eq!(event.message.as_deref(), Some("Rate limit reached"));
    let mut raw = fixture("claude/StopFailure.json");
    raw.as_object_mut().unwrap().remove("last_assistant_message");
    let event = normalize_claude(&raw, NOW).unwrap();
    assert_eq!(event.message.as_deref(), Some("Rate limit reached"));
}

#[test]
fn subagent_start_has_no_status_and_names_the_subagent() {
    let event = claude("SubagentStart");
    assert_eq!(event.status, None);
    assert_eq!(event.lifecycle, None);
    assert_eq!(event.kind, SessionKind::Subagent);
    assert_eq!(event.subagent_id.as_deref(), Some("agent-abc123"));
}

#[test]
fn subagent_stop_is_a_subagents_done() {
    let event = claude("SubagentStop");
    assert_eq!(event.status, Some(AgentStatus::Done));
    assert_eq!(event.kind, SessionKind::Subagent);
    assert_eq!(event.subagent_id.as_deref(), Some("def456"));
}

#[test]
fn session_start_and_end_are_lifecycle_only() {
    let start = claude("SessionStart");
    assert_eq!((start.status, start.lifecycle), (None, Some(Lifecycle::Start)));
    let end = claude("SessionEnd");
    assert_eq!((end.status, end.lifecycle), (None, Some(Lifecycle::End)));
}

#[test]
fn session_start_title_feeds_the_event_title() {
    let raw = fixture_with("claude/SessionStart.json", json!({"session_title": "auth-refactor"}));
    assert_eq!(normalize_claude(&raw, NOW).unwrap().title.as_deref(), Some("auth-refactor"));
}

#[test]
fn any_event_carrying_agent_id_is_a_subagents() {
    let raw = fixture_with("claude/PermissionRequest.json", json!({"agent_id": "agent-7"}));
    let event = normalize_claude(&raw, NOW).unwrap();
    assert_eq!(event.kind, SessionKind::Subagent);
    assert_eq!(event.subagent_id.as_deref(), Some("agent-7"));
    assert_eq!(event.status, Some(AgentStatus::Blocked));
}

#[test]
fn unknown_events_give_no_event() {
    for name in ["BeforeAgent", "Interrupt", "Setup", "WorktreeCreate", "PostToolBatch", "MessageDisplay"] {
        let raw = fixture_with("claude/Stop.json", json!({"hook_event_name": name}));
        assert_eq!(normalize_claude(&raw, NOW), None, "{name}");
    }
}

#[test]
fn a_null_transcript_path_and_non_string_tool_are_left_out() {
    let raw = fixture_with("claude/PreToolUse-Bash.json", json!({"transcript_path": null, "tool_name": 5}));
    let event = normalize_claude(&raw, NOW).unwrap();
    assert_eq!(event.transcript_path, None);
    assert_eq!(event.tool, None);
}

#[test]
fn stop_failure_codes_read_as_sentences() {
    assert_eq!(
        failure_text(Some("server_error"), Some("API Error: 500 Internal server error (fake). Try again.")),
        "The API had a server error: 500 Internal server error (fake). Try again."
    );
    assert_eq!(failure_text(Some("unknown"), None), "The request failed");
    assert_eq!(failure_text(None, Some("API Error: 400 Bad request")), "The request failed: 400 Bad request");
    assert_eq!(failure_text(Some("brand_new"), None), "The turn failed (brand_new)");
    assert_eq!(failure_text(Some("brand_new"), Some("Something broke")), "Something broke");
}

#[test]
fn elicitation_waits_for_the_user_and_its_result_resumes_work() {
    let raw = fixture_with("claude/Stop.json", json!({"hook_event_name": "Elicitation", "message": "Pick a repo"}));
    let event = normalize_claude(&raw, NOW).unwrap();
    assert_eq!((event.status, event.awaiting_input), (Some(AgentStatus::Waiting), true));
    assert_eq!(event.question.as_deref(), Some("Pick a repo"));
    let raw = fixture_with("claude/Stop.json", json!({"hook_event_name": "ElicitationResult"}));
    assert_eq!(normalize_claude(&raw, NOW).unwrap().status, Some(AgentStatus::Working));
}
