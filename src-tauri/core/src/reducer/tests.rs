//! One test per reducer rule of docs/model.md §2, fed with the shared fixture payloads.

use serde_json::{json, Value};

use super::*;
use crate::agent::normalize;
use crate::normalize::fixtures::fixture;
use AgentStatus::*;

const T0: Millis = 1_750_000_000_000;
const UNFOCUSED: bool = false;
const FOCUSED: bool = true;

/// A session under test: feeds fixture payloads (optionally patched) at given times.
struct Run {
    reducer: Reducer,
    agent: &'static str,
    session_id: String,
}

impl Run {
    fn claude() -> Self {
        Self::new("claude", "00893aaf-19fa-41d2-8238-13269b9b3ca0")
    }

    fn codex() -> Self {
        Self::new("codex", "019fb3cc-1111-7000-8000-000000000001")
    }

    fn gemini() -> Self {
        Self::new("gemini", "7f1c2d3e-aaaa-4bbb-8ccc-0123456789ab")
    }

    fn new(agent: &'static str, session_id: &str) -> Self {
        Self { reducer: Reducer::new(), agent, session_id: session_id.to_owned() }
    }

    fn payload(&self, name: &str, patch: Value) -> Value {
        let mut raw = fixture(&format!("{}/{name}.json", self.agent));
        raw["session_id"] = json!(self.session_id);
        for (key, value) in patch.as_object().unwrap() {
            raw[key] = value.clone();
        }
        raw
    }

    /// Feeds a fixture at `T0 + at_ms` to an unfocused window.
    fn feed(&mut self, name: &str, at_ms: Millis) -> Option<Change> {
        self.feed_with(name, at_ms, json!({}))
    }

    fn feed_with(&mut self, name: &str, at_ms: Millis, patch: Value) -> Option<Change> {
        self.feed_focus(name, at_ms, patch, UNFOCUSED)
    }

    fn feed_focus(&mut self, name: &str, at_ms: Millis, patch: Value, focused: bool) -> Option<Change> {
        let raw = self.payload(name, patch);
        let event = normalize(self.agent, &raw, T0 + at_ms).unwrap_or_else(|| panic!("{name} gives no event"));
        self.reducer.apply(&event, focused)
    }

    fn session(&self) -> &Session {
        self.reducer.get(&self.session_id).expect("session exists")
    }

    fn status(&self) -> Option<AgentStatus> {
        self.session().status
    }
}

// --- 2.1.1 lifecycle-only events -------------------------------------------------------------

#[test]
fn a_lifecycle_event_creates_the_session_without_a_status() {
    let mut run = Run::claude();
    let change = run.feed("SessionStart", 0).unwrap();
    assert_eq!(change.session.status, None);
    assert!(!change.notify);
    assert_eq!(run.session().cwd.as_deref(), Some("/Users/ana/src/webapp"));
    assert_eq!(run.session().first_event_at, T0);
}

#[test]
fn a_lifecycle_event_updates_last_seen_but_never_the_status() {
    let mut run = Run::codex();
    run.feed("PreToolUse-Bash", 0);
    run.feed("PreCompact", 10_000);
    assert_eq!(run.status(), Some(Working));
    assert_eq!(run.session().last_event_at, T0 + 10_000);
    assert_eq!(run.session().status_changed_at, Some(T0));
}

#[test]
fn session_end_marks_the_session_ended_and_a_later_event_revives_it() {
    let mut run = Run::claude();
    run.feed("Stop", 0);
    run.feed("SessionEnd", 1_000);
    assert!(run.session().ended);
    assert_eq!(run.status(), Some(Done));
    run.feed("UserPromptSubmit", 5_000);
    assert!(!run.session().ended);
    assert_eq!(run.status(), Some(Working));
}

#[test]
fn session_start_clears_ended() {
    let mut run = Run::gemini();
    run.feed("SessionEnd", 0);
    assert!(run.session().ended);
    run.feed("SessionStart", 1_000);
    assert!(!run.session().ended);
}

#[test]
fn session_start_title_becomes_the_node_title_and_cwd_is_the_fallback() {
    let mut run = Run::claude();
    run.feed("SessionStart", 0);
    assert_eq!(run.session().title.as_deref(), Some("webapp"));
    run.feed_with("SessionStart", 1, json!({"session_title": "auth-refactor"}));
    assert_eq!(run.session().title.as_deref(), Some("auth-refactor"));
    let id = run.session_id.clone();
    run.reducer.set_agent_title(&id, Some("From transcript".into()));
    assert_eq!(run.session().title.as_deref(), Some("From transcript"));
}

// --- 2.1.2 subagents -------------------------------------------------------------------------

#[test]
fn subagent_start_and_stop_count_running_subagents() {
    let mut run = Run::claude();
    run.feed("UserPromptSubmit", 0);
    run.feed_with("SubagentStart", 10, json!({"agent_id": "a1"}));
    run.feed_with("SubagentStart", 20, json!({"agent_id": "a2"}));
    run.feed_with("SubagentStart", 25, json!({"agent_id": "a2"}));
    assert_eq!(run.session().subagents, 2);
    run.feed_with("SubagentStop", 30, json!({"agent_id": "a1"}));
    assert_eq!(run.session().subagents, 1);
    // The same child reported twice (SubagentStop and its own Stop) removes it once.
    run.feed_with("SubagentStop", 40, json!({"agent_id": "a1"}));
    assert_eq!(run.session().subagents, 1);
    run.feed_with("Stop", 50, json!({"subagent_id": "a2"}));
    assert_eq!(run.session().subagents, 0);
}

/// The CLIs whose subagent start carries a status (Qwen Code, Copilot CLI, OpenCode) count their
/// running subagents too: two started, one stopped, one left.
#[test]
fn a_subagent_start_with_a_status_is_counted_too() {
    let cases = [
        (
            "qwen",
            json!({"hook_event_name": "SubagentStart", "session_id": "p", "agent_id": "a1"}),
            json!({"hook_event_name": "SubagentStart", "session_id": "p", "agent_id": "a2"}),
            json!({"hook_event_name": "SubagentStop", "session_id": "p", "agent_id": "a1"}),
        ),
        (
            "copilot",
            json!({"hook_event_name": "subagentStart", "agentName": "explore", "agentId": "a1", "parentAgentId": "p"}),
            json!({"hook_event_name": "subagentStart", "agentName": "explore", "agentId": "a2", "parentAgentId": "p"}),
            json!({"hook_event_name": "subagentStop", "agentName": "explore", "agentId": "a1", "parentAgentId": "p"}),
        ),
        (
            "opencode",
            json!({"hook_event_name": "session.created", "session_id": "p", "subagent_id": "a1"}),
            json!({"hook_event_name": "session.created", "session_id": "p", "subagent_id": "a2"}),
            json!({"hook_event_name": "session.idle", "session_id": "p", "subagent_id": "a1"}),
        ),
    ];
    for (agent, first, second, stop) in cases {
        let mut reducer = Reducer::new();
        for (n, raw) in [first, second].iter().enumerate() {
            let event = normalize(agent, raw, T0 + n as u64).unwrap_or_else(|| panic!("{agent}: {raw}"));
            reducer.apply(&event, false);
        }
        assert_eq!(reducer.get("p").map(|s| s.subagents), Some(2), "{agent}: two running");
        reducer.apply(&normalize(agent, &stop, T0 + 10).unwrap_or_else(|| panic!("{agent}: {stop}")), false);
        assert_eq!(reducer.get("p").map(|s| s.subagents), Some(1), "{agent}: one stopped");
    }
}

#[test]
fn a_subagents_done_never_sets_the_nodes_status() {
    let mut run = Run::codex();
    run.feed("UserPromptSubmit", 0);
    run.feed("SubagentStart", 10);
    let change = run.feed("SubagentStop", 20).unwrap();
    assert_eq!(run.status(), Some(Working));
    assert!(!change.notify);
    assert!(!run.session().unread);
    assert_eq!(run.session().subagents, 0);
}

#[test]
fn a_subagents_permission_request_blocks_the_node() {
    let mut run = Run::claude();
    run.feed("UserPromptSubmit", 0);
    let change = run.feed_with("PermissionRequest", 10, json!({"agent_id": "a1"})).unwrap();
    assert_eq!(run.status(), Some(Blocked));
    assert!(change.notify);
    assert_eq!(run.session().kind, SessionKind::Session);
}

#[test]
fn a_subagents_question_sets_waiting() {
    let mut run = Run::codex();
    run.feed("UserPromptSubmit", 0);
    run.feed_with("PreToolUse-request_user_input", 10, json!({"agent_id": "child"}));
    assert_eq!(run.status(), Some(Waiting));
    assert!(run.session().awaiting_input);
    assert_eq!(run.session().question.as_deref(), Some("Choose a value."));
}

#[test]
fn a_subagents_working_lifts_blocked() {
    let mut run = Run::claude();
    run.feed("UserPromptSubmit", 0);
    run.feed_with("PermissionRequest", 10, json!({"agent_id": "a1"}));
    run.feed_with("PostToolUse", 20, json!({"agent_id": "a1"}));
    assert_eq!(run.status(), Some(Working));
}

#[test]
fn a_subagents_working_never_turns_done_into_working() {
    let mut run = Run::claude();
    run.feed("Stop", 0);
    assert!(run.feed_with("PreToolUse-Bash", 10_000, json!({"agent_id": "a1"})).is_some());
    assert_eq!(run.status(), Some(Done));
}

#[test]
fn a_subagents_working_never_clears_the_hold() {
    let mut run = Run::codex();
    run.feed("PreToolUse-request_user_input", 0);
    run.feed_with("PreToolUse-Bash", 10_000, json!({"agent_id": "child"}));
    assert_eq!(run.status(), Some(Waiting));
    assert!(run.session().awaiting_input);
    // Blocked by a subagent, then lifted by it: back to the open question, not to working.
    run.feed_with("PermissionRequest", 11_000, json!({"agent_id": "child"}));
    assert_eq!(run.status(), Some(Blocked));
    run.feed_with("PostToolUse", 12_000, json!({"agent_id": "child"}));
    assert_eq!(run.status(), Some(Waiting));
    assert_eq!(run.session().question.as_deref(), Some("Choose a value."));
}

// --- 2.1.3 done holdoff ----------------------------------------------------------------------

#[test]
fn a_late_working_within_three_seconds_of_done_is_ignored() {
    let mut run = Run::claude();
    run.feed("UserPromptSubmit", 0);
    run.feed("Stop", 1_000);
    assert_eq!(run.feed("PostToolUse", 3_999), None);
    assert_eq!(run.status(), Some(Done));
}

#[test]
fn a_working_three_seconds_after_done_applies() {
    let mut run = Run::claude();
    run.feed("Stop", 1_000);
    run.feed("PreToolUse-Bash", 4_000);
    assert_eq!(run.status(), Some(Working));
}

#[test]
fn a_new_turn_applies_within_the_holdoff() {
    let mut run = Run::gemini();
    run.feed("AfterAgent", 1_000);
    run.feed("BeforeAgent", 1_100);
    assert_eq!(run.status(), Some(Working));
}

#[test]
fn the_holdoff_covers_a_done_held_as_waiting() {
    let mut run = Run::codex();
    run.feed("PreToolUse-request_user_input", 0);
    run.feed("Stop", 100);
    assert_eq!(run.feed("PostToolUse", 2_000), None);
    assert_eq!(run.status(), Some(Waiting));
    assert!(run.session().awaiting_input);
}

#[test]
fn the_holdoff_ends_once_done_is_no_longer_the_current_state() {
    let mut run = Run::claude();
    run.feed("Stop", 0);
    run.feed("PermissionRequest", 500);
    run.feed("PostToolUse", 1_000);
    assert_eq!(run.status(), Some(Working));
}

// --- 2.1.4 idle rescue -----------------------------------------------------------------------

#[test]
fn idle_rescue_turns_working_into_an_interrupted_done_without_notifying() {
    let mut run = Run::claude();
    run.feed("PreToolUse-Bash", 0);
    let change = run.feed("Notification-idle_prompt", 60_000).unwrap();
    assert_eq!(run.status(), Some(Done));
    assert!(run.session().interrupted);
    assert!(!change.notify);
    assert!(!run.session().unread);
}

#[test]
fn idle_rescue_changes_nothing_unless_working() {
    for before in ["Stop", "PermissionRequest", "PreToolUse-AskUserQuestion"] {
        let mut run = Run::claude();
        run.feed(before, 0);
        let expected = run.session().clone();
        assert_eq!(run.feed("Notification-idle_prompt", 60_000), None, "{before}");
        assert_eq!(run.session(), &expected, "{before}");
    }
    let mut unknown = Run::claude();
    assert_eq!(unknown.feed("Notification-idle_prompt", 0), None);
    assert!(unknown.reducer.is_empty());
}

#[test]
fn an_untyped_notification_is_waiting_except_on_a_done_session() {
    let mut run = Run::claude();
    run.feed("PreToolUse-Bash", 0);
    run.feed_with("Notification-idle_prompt", 10, json!({"notification_type": null}));
    assert_eq!(run.status(), Some(Waiting));

    let mut finished = Run::claude();
    finished.feed("Stop", 0);
    assert_eq!(finished.feed_with("Notification-idle_prompt", 60_000, json!({"notification_type": null})), None);
    assert_eq!(finished.status(), Some(Done));
}

// --- 2.1.5 interrupted / errored -------------------------------------------------------------

#[test]
fn an_interrupted_done_never_notifies_nor_sets_unread() {
    let mut run = Run::codex();
    run.feed("UserPromptSubmit", 0);
    let change = run.feed("Interrupt", 1_000).unwrap();
    assert_eq!(run.status(), Some(Done));
    assert!(run.session().interrupted);
    assert!(!change.notify);
    assert!(!run.session().unread);
}

#[test]
fn esc_during_a_claude_tool_is_an_interrupted_done() {
    let mut run = Run::claude();
    run.feed("PreToolUse-Bash", 0);
    let change = run.feed_with("PostToolUseFailure", 500, json!({"is_interrupt": true})).unwrap();
    assert_eq!(run.status(), Some(Done));
    assert!(run.session().interrupted && !change.notify);
}

#[test]
fn interrupted_and_errored_clear_on_the_next_status_change() {
    let mut run = Run::claude();
    run.feed("StopFailure", 0);
    assert!(run.session().errored);
    assert_eq!(run.session().message.as_deref(), Some("Rate limit reached"));
    run.feed("UserPromptSubmit", 100);
    assert!(!run.session().errored);

    let mut run = Run::codex();
    run.feed("Interrupt", 0);
    run.feed("PermissionRequest", 100);
    assert!(!run.session().interrupted);
}

#[test]
fn an_errored_done_notifies() {
    let mut run = Run::claude();
    run.feed("UserPromptSubmit", 0);
    assert!(run.feed("StopFailure", 100).unwrap().notify);
}

// --- 2.1.6 known sessions --------------------------------------------------------------------

#[test]
fn a_removed_session_that_reports_again_starts_afresh() {
    let mut run = Run::claude();
    assert!(run.feed("Stop", 0).unwrap().notify);
    let id = run.session_id.clone();
    assert!(run.reducer.remove(&id).is_some());
    assert!(run.reducer.get(&id).is_none());
    let change = run.feed("Stop", 10_000).unwrap();
    assert!(change.notify);
    assert_eq!(change.previous, None);
    assert_eq!(run.session().first_event_at, T0 + 10_000);
}

// --- 2.2 the request_user_input hold ---------------------------------------------------------

#[test]
fn request_user_input_sets_waiting_with_the_question_and_notifies() {
    let mut run = Run::codex();
    run.feed("UserPromptSubmit", 0);
    let change = run.feed("PreToolUse-request_user_input", 100).unwrap();
    assert!(change.notify);
    assert_eq!(run.status(), Some(Waiting));
    assert!(run.session().awaiting_input);
    assert_eq!(run.session().question.as_deref(), Some("Choose a value."));
}

#[test]
fn the_hold_survives_stop_without_a_second_notification() {
    let mut run = Run::codex();
    run.feed("UserPromptSubmit", 0);
    run.feed("PreToolUse-request_user_input", 100);
    let change = run.feed("Stop", 200).unwrap();
    assert!(!change.notify);
    assert_eq!(run.status(), Some(Waiting));
    assert!(run.session().awaiting_input);
    assert_eq!(run.session().question.as_deref(), Some("Choose a value."));
}

#[test]
fn an_answer_by_user_prompt_submit_then_a_later_stop_lands_as_done() {
    let mut run = Run::codex();
    run.feed("PreToolUse-request_user_input", 0);
    run.feed("Stop", 100);
    run.feed("UserPromptSubmit", 30_000);
    assert_eq!(run.status(), Some(Working));
    assert!(!run.session().awaiting_input);
    assert_eq!(run.session().question, None);
    let change = run.feed("Stop", 40_000).unwrap();
    assert_eq!(run.status(), Some(Done));
    assert!(change.notify);
}

#[test]
fn an_interrupted_done_clears_the_hold() {
    let mut run = Run::codex();
    run.feed("PreToolUse-request_user_input", 0);
    run.feed("Interrupt", 100);
    assert_eq!(run.status(), Some(Done));
    assert!(run.session().interrupted);
    assert!(!run.session().awaiting_input);
}

#[test]
fn other_tool_activity_of_the_main_agent_clears_the_hold() {
    let mut run = Run::codex();
    run.feed("PreToolUse-request_user_input", 0);
    run.feed("PreToolUse-Bash", 500);
    assert_eq!(run.status(), Some(Working));
    assert!(!run.session().awaiting_input);
    run.feed("Stop", 1_000);
    assert_eq!(run.status(), Some(Done));
}

#[test]
fn lifecycle_end_and_start_clear_the_hold() {
    for lifecycle in ["SessionEnd", "SessionStart"] {
        let mut run = Run::codex();
        run.feed("PreToolUse-request_user_input", 0);
        run.feed("Stop", 100);
        run.feed(lifecycle, 200);
        assert!(!run.session().awaiting_input, "{lifecycle}");
        run.feed("Stop", 10_000);
        assert_eq!(run.status(), Some(Done), "{lifecycle}");
    }
}

#[test]
fn compaction_and_subagent_events_do_not_clear_the_hold() {
    let mut run = Run::codex();
    run.feed("PreToolUse-request_user_input", 0);
    run.feed("Stop", 100);
    run.feed("PreCompact", 5_000);
    run.feed("PostCompact", 5_100);
    run.feed("SubagentStart", 5_200);
    run.feed("SubagentStop", 5_300);
    run.feed_with("PostToolUse", 5_400, json!({"agent_id": "child"}));
    assert_eq!(run.status(), Some(Waiting));
    assert!(run.session().awaiting_input);
    assert_eq!(run.session().question.as_deref(), Some("Choose a value."));
}

#[test]
fn post_tool_use_of_request_user_input_leaves_the_question_open() {
    let mut run = Run::codex();
    run.feed("PreToolUse-request_user_input", 0);
    let raw = run.payload("PostToolUse-request_user_input", json!({}));
    assert_eq!(normalize("codex", &raw, T0 + 50), None);
    run.feed("Stop", 100);
    assert_eq!(run.status(), Some(Waiting));
}

/// Issue 24: what each CLI's question tool asks, with its options in the order the CLI numbers
/// them, is on the session while it waits, and gone once it is answered.
#[test]
fn the_question_and_its_options_are_kept_while_asked_for_every_cli() {
    let labels = |session: &Session| -> Vec<Vec<String>> {
        session.questions.iter().map(|q| q.options.iter().map(|o| o.label.clone()).collect()).collect()
    };
    let mut claude = Run::claude();
    claude.feed("PreToolUse-AskUserQuestion", 0);
    assert_eq!(labels(claude.session()), [["React", "Vue"]]);
    let asked = &claude.session().questions[0];
    assert_eq!(
        (asked.header.as_deref(), asked.question.as_str(), asked.multi_select),
        (Some("Framework"), "Which framework?", false)
    );
    assert_eq!(asked.options[1].description.as_deref(), Some("Use Vue"));
    claude.feed("PostToolUse", 1_000);
    assert!(claude.session().questions.is_empty(), "answered: nothing is asked any more");

    let mut codex = Run::codex();
    codex.feed("PreToolUse-request_user_input", 0);
    assert_eq!(labels(codex.session()), [["ALPHA", "BETA", "GAMMA"]]);
    codex.feed("Stop", 100);
    assert_eq!(labels(codex.session()), [["ALPHA", "BETA", "GAMMA"]], "the question outlives the turn");

    let gemini = normalize(
        "gemini",
        &crate::normalize::fixtures::fixture("real/gemini-cli-0.61.0/events/BeforeTool-ask_user.json"),
        T0,
    )
    .unwrap();
    let mut reducer = Reducer::new();
    let session = reducer.apply(&gemini, false).unwrap().session;
    assert_eq!(labels(&session), [["PostgreSQL", "SQLite"]]);
}

#[test]
fn question_lists_are_bounded_and_what_is_not_a_question_is_skipped() {
    let option = json!({"label": "x".repeat(5_000), "description": 7});
    let input = json!({"questions": [
        {"question": "", "options": []},
        "not an object",
        {"question": "Pick", "options": vec![option; 40], "multiSelect": true},
    ]});
    let questions = crate::session::Question::parse_all(Some(&(&input).into()));
    assert_eq!(questions.len(), 1);
    assert!(questions[0].multi_select);
    assert_eq!(questions[0].options.len(), crate::session::MAX_OPTIONS);
    assert_eq!(questions[0].options[0].label.chars().count(), 1_000);
    assert_eq!(questions[0].options[0].description, None);
    let many = json!({"questions": vec![json!({"question": "q"}); 50]});
    assert_eq!(crate::session::Question::parse_all(Some(&(&many).into())).len(), crate::session::MAX_QUESTIONS);
}

#[test]
fn claudes_ask_user_question_is_answered_by_the_next_tool_activity() {
    let mut run = Run::claude();
    run.feed("PreToolUse-AskUserQuestion", 0);
    assert!(run.session().awaiting_input);
    run.feed("PostToolUse", 20_000);
    assert_eq!(run.status(), Some(Working));
    assert!(!run.session().awaiting_input);
    run.feed("Stop", 30_000);
    assert_eq!(run.status(), Some(Done));
}

// --- 2.3 notify policy through the reducer ---------------------------------------------------

#[test]
fn a_focused_window_neither_notifies_nor_sets_unread() {
    let mut run = Run::claude();
    let change = run.feed_focus("PermissionRequest", 0, json!({}), FOCUSED).unwrap();
    assert!(!change.notify);
    assert!(!run.session().unread);
}

#[test]
fn a_repeat_of_the_same_terminal_status_does_not_notify_again() {
    let mut run = Run::claude();
    assert!(run.feed("PermissionRequest", 0).unwrap().notify);
    assert!(!run.feed("Notification-permission_prompt", 10).unwrap().notify);
    assert_eq!(run.status(), Some(Blocked));
}

#[test]
fn unread_stays_until_cleared_explicitly() {
    let mut run = Run::claude();
    run.feed("Stop", 0);
    run.feed("UserPromptSubmit", 10_000);
    assert!(run.session().unread, "a new turn does not clear unread");
    let id = run.session_id.clone();
    assert!(!run.reducer.clear_unread(&id).unwrap().unread);
    assert!(!run.session().unread);
    assert!(run.reducer.clear_unread("nobody").is_none());
}

#[test]
fn a_blocked_message_carries_the_command_and_the_tool() {
    let mut run = Run::claude();
    run.feed("PermissionRequest", 0);
    assert_eq!(run.session().tool.as_deref(), Some("Bash"));
    assert_eq!(run.session().message.as_deref(), Some("rm -rf node_modules"));
}

// --- the snapshot (docs/model.md §6) ----------------------------------------------------------

#[test]
fn the_snapshot_has_the_public_field_names_in_camel_case() {
    let mut run = Run::claude();
    run.feed("SessionStart", 0);
    let json = serde_json::to_value(run.reducer.snapshot()).unwrap();
    let session = &json["sessions"][0];
    for field in [
        "sessionId",
        "agent",
        "status",
        "kind",
        "tool",
        "title",
        "cwd",
        "awaitingInput",
        "question",
        "message",
        "interrupted",
        "errored",
        "ended",
        "unread",
        "subagents",
        "firstEventAt",
        "lastEventAt",
    ] {
        assert!(session.get(field).is_some(), "missing {field}");
    }
    assert_eq!(session["status"], Value::Null);
    assert_eq!(session["kind"], "session");
    assert_eq!(session["subagents"], 0);
    assert_eq!(session["firstEventAt"], T0);
}

#[test]
fn the_snapshot_lists_sessions_in_arrival_order() {
    let mut reducer = Reducer::new();
    for (i, id) in ["c", "a", "b"].iter().enumerate() {
        let event = normalize("custom", &json!({"sessionId": id, "status": "working"}), T0 + i as u64).unwrap();
        reducer.apply(&event, UNFOCUSED);
    }
    let ids: Vec<_> = reducer.snapshot().sessions.into_iter().map(|s| s.session_id).collect();
    assert_eq!(ids, ["c", "a", "b"]);
}

#[test]
fn last_folder_takes_the_final_path_component() {
    assert_eq!(last_folder("/Users/ana/src/webapp/").as_deref(), Some("webapp"));
    assert_eq!(last_folder("C:\\src\\api").as_deref(), Some("api"));
    assert_eq!(last_folder("/"), None);
}

// --- persistence and stale detection (docs/model.md §7) ---------------------------------------

#[test]
fn a_working_session_silent_for_the_threshold_is_flagged_stale_until_it_reports() {
    let mut run = Run::claude();
    run.feed("PreToolUse-Bash", 0);
    let ten_minutes = 10 * 60_000;
    assert!(run.reducer.mark_silence(T0 + ten_minutes - 1, Ages::default()).is_empty());
    let changed = run.reducer.mark_silence(T0 + ten_minutes, Ages::default());
    assert_eq!(changed.len(), 1);
    assert!(run.session().stale);
    assert_eq!(run.status(), Some(Working), "stale is a flag, not a status");
    assert!(run.reducer.mark_silence(T0 + ten_minutes + 5, Ages::default()).is_empty(), "reported once");
    run.feed("PostToolUse", ten_minutes + 10);
    assert!(!run.session().stale);
}

#[test]
fn only_working_sessions_go_stale() {
    let mut run = Run::claude();
    run.feed("PermissionRequest", 0);
    assert!(run.reducer.mark_silence(T0 + 3_600_000, Ages::default()).is_empty());
    assert!(!run.session().stale);
}

#[test]
fn a_session_silent_for_a_day_is_archived_until_it_reports() {
    let mut run = Run::claude();
    run.feed("Stop", 0);
    let day = 24 * 3_600_000;
    assert_eq!(run.reducer.mark_silence(T0 + day, Ages::default()).len(), 1);
    assert!(run.session().archived && !run.session().stale);
    run.feed("UserPromptSubmit", day + 1);
    assert!(!run.session().archived);
}

#[test]
fn history_records_status_changes_with_their_reasons() {
    let mut run = Run::claude();
    let first = run.feed("PermissionRequest", 0).unwrap();
    let entry = HistoryEntry::of(&first).unwrap();
    assert_eq!((entry.status, entry.at), (Blocked, T0));
    assert_eq!(entry.message.as_deref(), Some("rm -rf node_modules"));
    let repeat = run.feed("Notification-permission_prompt", 10).unwrap();
    assert_eq!(HistoryEntry::of(&repeat), None, "no change, no entry");
    let lifecycle = run.feed("SessionEnd", 20).unwrap();
    assert_eq!(HistoryEntry::of(&lifecycle), None);
}

#[test]
fn restored_sessions_keep_their_state_and_unread_until_they_report_again() {
    let mut run = Run::claude();
    run.feed_with("SessionStart", 0, json!({"session_title": "auth-refactor"}));
    run.feed("PermissionRequest", 10);
    let id = run.session_id.clone();
    run.reducer.set_position(&id, Position { x: 40, y: 300 });
    let saved = run.reducer.saved(&id).unwrap();

    let mut restarted = Reducer::new();
    restarted.restore([saved]);
    let session = restarted.get(&id).unwrap();
    assert!(session.restored);
    assert!(session.unread);
    assert_eq!(session.status, Some(Blocked));
    assert_eq!(session.title.as_deref(), Some("auth-refactor"));
    assert_eq!(session.position, Some(Position { x: 40, y: 300 }));

    let raw = run.payload("PostToolUse", json!({}));
    let change = restarted.apply(&normalize("claude", &raw, T0 + 60_000).unwrap(), UNFOCUSED).unwrap();
    assert!(!change.session.restored);
    assert_eq!(change.session.status, Some(Working));
    assert!(change.session.unread);
}

#[test]
fn a_position_must_be_new_to_count_as_a_change() {
    let mut run = Run::claude();
    run.feed("Stop", 0);
    let id = run.session_id.clone();
    assert!(run.reducer.set_position(&id, Position { x: 1, y: -2 }).is_some());
    assert!(run.reducer.set_position(&id, Position { x: 1, y: -2 }).is_none());
    assert!(run.reducer.set_position("nobody", Position { x: 1, y: 2 }).is_none());
}

// --- the second source: transcripts and the agent's process ------------------------------------

mod observed {
    use super::*;
    use crate::normalize::observed::{process_exited, tool_started, transcript_record};

    const ID: &str = "00893aaf-19fa-41d2-8238-13269b9b3ca0";

    fn esc_record() -> Value {
        json!({"type": "user", "message": {"role": "user", "content": [{"type": "text", "text": "[Request interrupted by user]"}]}})
    }

    #[test]
    fn a_transcript_interrupt_settles_a_blocked_or_working_session_without_notifying() {
        for status in ["PermissionRequest", "PreToolUse-Bash"] {
            let mut run = Run::claude();
            run.feed(status, 0);
            let change =
                run.reducer.apply(&transcript_record("claude", ID, &esc_record(), T0 + 500).unwrap(), false).unwrap();
            assert_eq!(change.session.status, Some(Done), "{status}");
            assert!(change.session.interrupted && !change.notify);
        }
    }

    #[test]
    fn a_transcript_interrupt_after_the_turn_ended_changes_nothing() {
        let mut run = Run::claude();
        run.feed("Stop", 0);
        assert!(run.reducer.apply(&transcript_record("claude", ID, &esc_record(), T0 + 500).unwrap(), false).is_none());
        assert!(!run.session().interrupted);
        // An unknown session is not created by it either.
        assert!(Reducer::new().apply(&transcript_record("claude", "x", &esc_record(), 1).unwrap(), false).is_none());
    }

    /// Issue 20.4: Gemini's AfterAgent after Esc while the answer streams is an ordinary done;
    /// the chat file's "Request cancelled." just after it makes it the user's interrupt, and the
    /// dot that done set goes. Later than the holdoff, or after a new turn, it changes nothing.
    #[test]
    fn a_gemini_cancel_just_after_its_turn_end_makes_that_done_an_interrupt() {
        let cancelled = json!({"type": "info", "content": "Request cancelled."});
        let gemini = |event: &str, at: Millis| {
            normalize(
                "gemini",
                &json!({"hook_event_name": event, "session_id": "g", "prompt": "essay",
                "prompt_response": "Let me think"}),
                at,
            )
            .unwrap()
        };
        let mut reducer = Reducer::new();
        reducer.apply(&gemini("BeforeAgent", T0), false);
        let done = reducer.apply(&gemini("AfterAgent", T0 + 1_000), false).unwrap();
        assert!(done.notify && done.session.unread);
        let settle = transcript_record("gemini", "g", &cancelled, T0 + 1_400).unwrap();
        let change = reducer.apply(&settle, false).unwrap();
        assert_eq!(change.session.status, Some(Done));
        assert!(change.session.interrupted && !change.session.unread && !change.notify);
        assert_eq!(change.session.message.as_deref(), Some("Let me think"), "the partial answer stays");

        let mut late = Reducer::new();
        late.apply(&gemini("BeforeAgent", T0), false);
        late.apply(&gemini("AfterAgent", T0 + 1_000), false);
        let settle = transcript_record("gemini", "g", &cancelled, T0 + 1_000 + DONE_HOLDOFF_MS + 1).unwrap();
        assert!(late.apply(&settle, false).is_none(), "too late to be this turn's");
    }

    /// Issue 20.3: Esc at Gemini's ask_user question; its screen says so (the watch reads it).
    #[test]
    fn a_question_dismissed_on_screen_settles_a_waiting_session() {
        let mut reducer = Reducer::new();
        let ask = normalize(
            "gemini",
            &json!({"hook_event_name": "BeforeTool", "session_id": "g", "tool_name": "ask_user",
            "tool_input": {"questions": [{"question": "Which database?"}]}}),
            T0,
        )
        .unwrap();
        assert_eq!(reducer.apply(&ask, false).unwrap().session.status, Some(Waiting));
        let change =
            reducer.apply(&crate::normalize::observed::screen_cancelled("gemini", "g", T0 + 2_000), false).unwrap();
        assert_eq!(change.session.status, Some(Done));
        assert!(change.session.interrupted && !change.session.awaiting_input && !change.notify);
    }

    #[test]
    fn a_tool_started_by_the_agent_process_lifts_blocked_only() {
        let mut run = Run::claude();
        run.feed("PermissionRequest", 0);
        let change = run.reducer.apply(&tool_started("claude", ID, T0 + 300), false).unwrap();
        assert_eq!(change.session.status, Some(Working));
        run.feed("Stop", 1_000);
        assert!(run.reducer.apply(&tool_started("claude", ID, T0 + 1_100), false).is_none(), "done stays done");
    }

    #[test]
    fn a_process_exit_ends_the_session_and_closes_an_open_turn_quietly() {
        let mut run = Run::claude();
        run.feed("PreToolUse-Bash", 0);
        let change = run.reducer.apply(&process_exited("claude", ID, T0 + 100), false).unwrap();
        let session = &change.session;
        assert_eq!((session.status, session.ended, session.exited), (Some(Done), true, true));
        assert!(session.interrupted && !change.notify);
        // A finished session only ends; a later event revives it and clears `exited`.
        let mut run = Run::claude();
        run.feed("Stop", 0);
        let change = run.reducer.apply(&process_exited("claude", ID, T0 + 5_000), false).unwrap();
        assert!(change.session.ended && change.session.exited && !change.session.interrupted);
        run.feed("UserPromptSubmit", 6_000);
        assert!(!run.session().ended && !run.session().exited);
    }
}

// --- bounds -------------------------------------------------------------------------------------

#[test]
fn a_flood_of_session_ids_keeps_the_reducer_bounded_and_evicts_ended_then_silent_first() {
    let mut reducer = Reducer::new();
    let event = |id: &str, status: &str, at: Millis| {
        normalize("custom", &json!({"sessionId": id, "status": status}), at).unwrap()
    };
    reducer.apply(&event("keep-me", "blocked", 10_000_000), false);
    reducer.apply(&normalize("custom", &json!({"sessionId": "ended", "lifecycle": "end"}), 10_000_000).unwrap(), false);
    for i in 0..(MAX_SESSIONS as u64 * 3) {
        reducer.apply(&event(&format!("flood-{i}"), "working", i), false);
        assert!(reducer.len() <= MAX_SESSIONS);
    }
    let evicted = reducer.take_evicted();
    assert!(evicted.contains(&"ended".to_owned()) && evicted[0] == "ended", "ended sessions go first");
    assert!(reducer.get("keep-me").is_some(), "the recently active blocked session stays");
    assert!(reducer.get("flood-0").is_none(), "the longest silent went");
    assert!(reducer.take_evicted().is_empty());
}

#[test]
fn long_texts_are_clipped_and_subagents_are_bounded() {
    let mut reducer = Reducer::new();
    let big = "m".repeat(250 * 1024);
    let done = normalize("custom", &json!({"sessionId": "s", "status": "done", "message": big}), 1).unwrap();
    reducer.apply(&done, false);
    assert_eq!(reducer.get("s").unwrap().message.as_ref().unwrap().chars().count(), MAX_TEXT);
    let mut run = Run::codex();
    for i in 0..2_000 {
        run.feed_with("SubagentStart", i, json!({"agent_id": format!("child-{i}")}));
    }
    assert_eq!(run.session().subagents as usize, MAX_SUBAGENTS);
    let long_id = "x".repeat(MAX_ID_LEN_FOR_TEST + 1);
    assert!(normalize("custom", &json!({"sessionId": long_id}), 1).is_none());
}

/// Issue 46: the limit is in characters. CJK text under it in characters (three times it in
/// bytes) is kept whole, with no ellipsis; over it, it is cut to the limit, ellipsis included.
#[test]
fn clipping_counts_characters_not_bytes() {
    let mut reducer = Reducer::new();
    for (chars, kept) in [(MAX_TEXT - 10, MAX_TEXT - 10), (MAX_TEXT, MAX_TEXT), (MAX_TEXT + 1, MAX_TEXT)] {
        let text = "漢".repeat(chars);
        let done = normalize("custom", &json!({"sessionId": "cjk", "status": "done", "message": text}), 1).unwrap();
        reducer.apply(&done, false);
        let message = reducer.get("cjk").unwrap().message.clone().unwrap();
        assert_eq!(message.chars().count(), kept, "{chars} characters");
        assert_eq!(message.ends_with('…'), chars > MAX_TEXT, "{chars} characters");
    }
}

const MAX_ID_LEN_FOR_TEST: usize = crate::normalize::MAX_ID_LEN;

// --- Act from the board: a held permission ----------------------------------------------------

impl Run {
    /// Feeds a fixture as the forwarder's held request does: with the hold's id.
    fn feed_held(&mut self, name: &str, at_ms: Millis, id: u64) -> Option<Change> {
        let raw = self.payload(name, json!({}));
        let mut event = normalize(self.agent, &raw, T0 + at_ms).unwrap();
        event.decision = Some(id);
        self.reducer.apply(&event, UNFOCUSED)
    }
}

#[test]
fn a_held_permission_offers_a_decision_until_the_main_agent_moves_on() {
    let mut run = Run::claude();
    run.feed("UserPromptSubmit", 0);
    let change = run.feed_held("PermissionRequest", 1_000, 7).unwrap();
    assert_eq!((change.session.status, change.session.decision), (Some(Blocked), Some(7)));
    // Claude's generic notice ~6 s later is the same prompt: still answerable.
    run.feed("Notification-permission_prompt", 7_000);
    assert_eq!(run.session().decision, Some(7));
    // Answered at the terminal: the tool ran, its PostToolUse withdraws the offer.
    run.feed("PostToolUse", 9_000);
    assert_eq!((run.status(), run.session().decision), (Some(Working), None));
}

#[test]
fn a_held_question_or_a_subagent_event_does_not_change_the_offer() {
    let mut run = Run::claude();
    run.feed("UserPromptSubmit", 0);
    // A held question is offered to be answered from the board (Claude's hook takes the answers)…
    run.feed_held("PreToolUse-AskUserQuestion", 500, 3);
    assert_eq!((run.status(), run.session().decision), (Some(Waiting), Some(3)));
    // … and answering it says what was answered, in the history.
    let answered = run.reducer.decided(&run.session_id.clone(), 3, true, Some("Blue"), T0 + 550, UNFOCUSED).unwrap();
    assert_eq!(answered.session.status, Some(Working));
    assert_eq!(answered.session.message.as_deref(), Some("Answered from Switchboard: Blue"));
    assert!(!answered.session.awaiting_input && answered.session.decision.is_none());
    // A CLI whose hook cannot answer its question: nothing to offer.
    let mut codex = Run::codex();
    codex.feed_held("PreToolUse-request_user_input", 0, 5);
    assert_eq!((codex.status(), codex.session().decision), (Some(Waiting), None));
    run.feed("UserPromptSubmit", 600);
    run.feed_held("PermissionRequest", 1_000, 4);
    run.feed("SubagentStart", 1_500);
    assert_eq!(run.session().decision, Some(4), "a subagent's event is not the main agent's answer");
    // A subagent working lifts the blocked (2.1.4): nothing on screen to allow any more.
    run.feed_with("PreToolUse-Bash", 1_600, json!({"agent_id": "sub-1", "agent_type": "Explore"}));
    assert_eq!((run.status(), run.session().decision), (Some(Working), None));
}

#[test]
fn an_ended_hold_withdraws_only_its_own_offer() {
    let mut run = Run::claude();
    run.feed_held("PermissionRequest", 0, 11);
    assert!(run.reducer.end_decision(&run.session_id.clone(), 10).is_none(), "an older hold ending changes nothing");
    assert_eq!(run.session().decision, Some(11));
    let session = run.reducer.end_decision(&run.session_id.clone(), 11).unwrap();
    assert_eq!((session.decision, session.status), (None, Some(Blocked)), "still blocked at the terminal");
}

/// Issue 21.1: the board shows the whole command beside Allow / Deny, and until when the hold
/// waits; an unanswered hold that ended leaves its time so the board can say it expired.
#[test]
fn a_held_permission_carries_the_whole_command_and_its_deadline() {
    let long =
        format!("git push --force origin main && psql $PROD_URL -c 'DROP TABLE users;'\n{}", "echo more; ".repeat(40));
    let mut run = Run::claude();
    let raw = run.payload("PermissionRequest", json!({"tool_name": "Bash", "tool_input": {"command": long}}));
    let mut event = normalize("claude", &raw, T0).unwrap();
    event.decision = Some(7);
    event.decision_until = Some(T0 + 30_000);
    let held = run.reducer.apply(&event, false).unwrap().session;
    assert_eq!(held.command.as_deref(), Some(long.as_str()), "whole, newlines and all");
    assert!(held.message.as_deref().unwrap().chars().count() <= 240, "the one-line summary stays short");
    assert_eq!((held.decision, held.decision_until), (Some(7), Some(T0 + 30_000)));
    let ended = run.reducer.end_decision(&run.session_id.clone(), 7).unwrap();
    assert_eq!((ended.decision, ended.decision_until), (None, Some(T0 + 30_000)), "expired, still on screen");
    let moved_on = run.feed("PostToolUse", 40_000).unwrap().session;
    assert_eq!((moved_on.command, moved_on.decision_until), (None, None));
}

/// Issue 21.3: with no name from the agent, a session is named after its first prompt, not its
/// folder (two sessions in one folder are told apart); the agent's own name still wins.
#[test]
fn an_unnamed_session_takes_its_first_prompt_as_title() {
    let mut run = Run::claude();
    run.feed_with("UserPromptSubmit", 0, json!({"prompt": "Fix the flaky login test\nthen push"}));
    assert_eq!(run.session().title.as_deref(), Some("Fix the flaky login test"));
    run.feed_with("UserPromptSubmit", 5_000, json!({"prompt": "and now the docs"}));
    assert_eq!(run.session().title.as_deref(), Some("Fix the flaky login test"), "the first prompt names it");
    let named = run.reducer.set_agent_title(&run.session_id.clone(), Some("auth-refactor".into())).unwrap();
    assert_eq!(named.title.as_deref(), Some("auth-refactor"));
    let mut slash = Run::claude();
    slash.feed_with("UserPromptSubmit", 0, json!({"prompt": "/compact", "cwd": "/src/api"}));
    assert_eq!(slash.session().title.as_deref(), Some("api"), "a slash command is no name");
}

/// Issue 25: what the meter reads is kept on the session, survives its next events, and a
/// reading that changes nothing (or names no local session) reports nothing.
#[test]
fn the_meters_readings_stay_on_the_session_and_unchanged_ones_report_nothing() {
    use crate::usage::{Footprint, GitInfo, Reading, Usage};
    let mut run = Run::claude();
    run.feed("UserPromptSubmit", 0);
    let id = run.session_id.clone();
    let usage = Usage { input_tokens: 100, output_tokens: 20, requests: 1, ..Usage::default() };
    let changed = run.reducer.set_reading(&id, Reading::Usage(usage.clone())).expect("a change");
    assert_eq!(changed.usage.as_ref(), Some(&usage));
    assert!(run.reducer.set_reading(&id, Reading::Usage(usage.clone())).is_none(), "the same reading again");
    let footprint = Footprint { cpu_tenths: 125, rss_bytes: 300 << 20, processes: 3, started_at: T0 };
    assert!(run.reducer.set_reading(&id, Reading::Footprint(Some(footprint))).is_some());
    let git = GitInfo { branch: Some("main".into()), worktree: None, dirty: true };
    assert!(run.reducer.set_reading(&id, Reading::Git(Some(git.clone()))).is_some());
    run.feed("Stop", 1_000);
    let session = run.session();
    assert_eq!(
        (session.usage.as_ref(), session.footprint, session.git.as_ref()),
        (Some(&usage), Some(footprint), Some(&git))
    );
    assert!(run.reducer.set_reading(&id, Reading::Footprint(None)).is_some_and(|s| s.footprint.is_none()));
    assert!(run.reducer.set_reading("nobody", Reading::Git(None)).is_none());
}

/// Issue 25: a done agent silent for two hours while holding 200 MiB is marked by the clock, and
/// unmarked by its next event; a small one, or a working one, is not.
#[test]
fn an_idle_agent_holding_memory_is_marked_by_the_clock_and_its_next_event_clears_it() {
    use crate::usage::{Footprint, Reading, IDLE_HOLDING_AFTER_MS, IDLE_HOLDING_BYTES};
    let ages = Ages { stale_after: u64::MAX, archive_after: u64::MAX };
    let mut run = Run::claude();
    run.feed("Stop", 0);
    let id = run.session_id.clone();
    let holds = |rss_bytes| Reading::Footprint(Some(Footprint { rss_bytes, processes: 2, ..Footprint::default() }));
    run.reducer.set_reading(&id, holds(IDLE_HOLDING_BYTES - 1));
    assert!(run.reducer.mark_silence(T0 + IDLE_HOLDING_AFTER_MS, ages).is_empty(), "small: not worth ending");
    run.reducer.set_reading(&id, holds(IDLE_HOLDING_BYTES));
    assert!(run.reducer.mark_silence(T0 + IDLE_HOLDING_AFTER_MS - 1, ages).is_empty(), "not silent long enough");
    let marked = run.reducer.mark_silence(T0 + IDLE_HOLDING_AFTER_MS, ages);
    assert_eq!(marked.iter().map(|s| s.idle_holding).collect::<Vec<_>>(), [true]);
    run.feed("UserPromptSubmit", IDLE_HOLDING_AFTER_MS + 10);
    assert!(!run.session().idle_holding, "it works again");
    let later = T0 + 3 * IDLE_HOLDING_AFTER_MS;
    assert!(run.reducer.mark_silence(later, ages).is_empty(), "working is not idle, however long");
}

/// Issue 24: an edit permission carries the file and its diff summary while it is on screen.
#[test]
fn an_edit_permission_carries_its_file_and_diff_summary_while_blocked() {
    let mut run = Run::claude();
    run.feed("UserPromptSubmit", 0);
    let edit = json!({"tool_name": "Edit",
        "tool_input": {"file_path": "/src/app.ts", "old_string": "a\nb", "new_string": "a\nB\nc"}});
    run.feed_with("PermissionRequest", 100, edit);
    let summary = run.session().edit.clone().expect("a summary while blocked");
    assert_eq!((summary.file.as_str(), summary.added, summary.removed), ("/src/app.ts", 3, 2));
    run.feed("PostToolUse", 200);
    assert_eq!(run.session().edit, None, "gone with the prompt");
}
