//! Each card's words come from a real reducer run: events in, the stamped session out.

use serde_json::{json, Value};

use super::*;
use crate::reducer::Reducer;
use crate::Ages;

const T0: Millis = 1_000_000;

/// The session after `events` (custom dialect, one a second from `T0`).
fn after(events: &[Value]) -> Session {
    let mut reducer = Reducer::new();
    let mut last = None;
    for (n, body) in events.iter().enumerate() {
        let event = crate::agent::normalize("custom", body, T0 + n as Millis * 1_000).unwrap();
        last = reducer.apply(&event, false).map(|change| change.session).or(last);
    }
    last.expect("the events changed a session")
}

fn one(fields: Value) -> Session {
    let mut body = json!({"sessionId": "s"});
    body.as_object_mut().unwrap().extend(fields.as_object().unwrap().clone());
    after(&[body])
}

fn said(session: &Session) -> (Tone, &str) {
    (session.badge.tone, session.badge.word.as_ref())
}

#[test]
fn each_status_has_its_tone_and_word() {
    let cases = [
        (json!({"status": "working"}), Tone::Working, "Working"),
        (json!({"status": "waiting"}), Tone::Waiting, "Has a question"),
        (json!({"status": "blocked"}), Tone::Blocked, "Needs permission"),
        (json!({"status": "done"}), Tone::Done, "Done"),
        (json!({"status": "done", "errored": true}), Tone::Error, "Error"),
        (json!({"status": "done", "interrupted": true}), Tone::Interrupted, "Interrupted"),
        (json!({"lifecycle": "start"}), Tone::Idle, "Starting"),
    ];
    for (fields, tone, word) in cases {
        assert_eq!(said(&one(fields.clone())), (tone, word), "{fields}");
    }
}

#[test]
fn a_question_or_a_permission_wins_over_an_old_error() {
    let session = after(&[
        json!({"sessionId": "s", "status": "done", "errored": true}),
        json!({"sessionId": "s", "status": "blocked", "tool": "Bash"}),
    ]);
    assert_eq!(said(&session), (Tone::Blocked, "Needs permission"));
}

#[test]
fn starting_turns_idle_a_minute_after_the_first_event_on_the_clock() {
    let mut reducer = Reducer::new();
    let event = crate::agent::normalize("custom", &json!({"sessionId": "s", "lifecycle": "start"}), T0).unwrap();
    reducer.apply(&event, false);
    assert!(reducer.mark_silence(T0 + STARTING_GRACE_MS - 1, Ages::default()).is_empty());
    let changed = reducer.mark_silence(T0 + STARTING_GRACE_MS, Ages::default());
    assert_eq!(changed.iter().map(said).collect::<Vec<_>>(), [(Tone::Idle, "Idle")]);
    assert!(reducer.mark_silence(T0 + 2 * STARTING_GRACE_MS, Ages::default()).is_empty(), "said once");
}

#[test]
fn an_ended_session_without_a_status_is_idle_not_starting() {
    let session =
        after(&[json!({"sessionId": "s", "lifecycle": "start"}), json!({"sessionId": "s", "lifecycle": "end"})]);
    assert_eq!(said(&session), (Tone::Idle, "Idle"));
}

#[test]
fn the_header_chip_counts_asking_and_failed_as_needing_you_and_ended_as_nothing() {
    let category = |fields: Value| one(fields).category;
    assert_eq!(category(json!({"status": "waiting"})), Some(Category::Needs));
    assert_eq!(category(json!({"status": "blocked"})), Some(Category::Needs));
    assert_eq!(category(json!({"status": "working"})), Some(Category::Working));
    assert_eq!(category(json!({"status": "done", "errored": true})), Some(Category::Needs));
    assert_eq!(category(json!({"status": "done"})), Some(Category::Done));
    assert_eq!(category(json!({"lifecycle": "start"})), None);
    let ended = after(&[json!({"sessionId": "s", "status": "blocked"}), json!({"sessionId": "s", "lifecycle": "end"})]);
    assert_eq!(ended.category, None);
}

#[test]
fn a_question_is_the_reason_else_the_message() {
    let asked = one(json!({"status": "waiting", "question": "SQLite or Postgres?", "message": "m"}));
    let reason = asked.reason.unwrap();
    assert_eq!((reason.text.as_str(), reason.look), ("SQLite or Postgres?", Look::Attention));
    let told = one(json!({"status": "waiting", "message": "Claude needs your input"}));
    assert_eq!(told.reason.unwrap().text, "Claude needs your input");
    assert_eq!(one(json!({"status": "waiting"})).reason.unwrap().text, "Waiting for your answer");
}

#[test]
fn a_permission_is_led_by_its_tool_and_shows_the_command() {
    let reason = one(json!({"status": "blocked", "tool": "Bash", "message": "rm -rf dist"})).reason.unwrap();
    assert_eq!(reason.lead.as_deref(), Some("Needs permission: Bash"));
    assert_eq!(reason.text, "rm -rf dist");
    assert_eq!(reason.full.as_deref(), Some("Needs permission: Bash  rm -rf dist"));
    let bare = one(json!({"status": "blocked"})).reason.unwrap();
    assert_eq!((bare.lead.as_deref(), bare.text.as_str(), bare.full), (Some("Needs permission"), "", None));
}

#[test]
fn done_shows_its_last_message_a_failure_its_error_working_its_tool() {
    let done = one(json!({"status": "done", "message": "All green"})).reason.unwrap();
    assert_eq!((done.text.as_str(), done.look), ("All green", Look::Box));
    let failed = one(json!({"status": "done", "errored": true, "message": "429 quota"})).reason.unwrap();
    assert_eq!((failed.text.as_str(), failed.look), ("429 quota", Look::Attention));
    let failed_silently = one(json!({"status": "done", "errored": true})).reason.unwrap();
    assert_eq!(failed_silently.text, "The turn ended with an error");
    assert_eq!(one(json!({"status": "done"})).reason, None);
    let stopped = one(json!({"status": "done", "interrupted": true, "message": "Esc"})).reason.unwrap();
    assert_eq!(stopped.look, Look::Quiet);
    let using = one(json!({"status": "working", "tool": "Edit"})).reason.unwrap();
    assert_eq!((using.text.as_str(), using.look), ("Using Edit", Look::Quiet));
    assert_eq!(one(json!({"status": "working"})).reason, None);
}

#[test]
fn an_answer_from_the_board_is_said_while_the_agent_works_on() {
    let answered = one(json!({"status": "working", "tool": "Bash", "message": "Allowed from Switchboard: npm test"}));
    let reason = answered.reason.unwrap();
    assert_eq!((reason.text.as_str(), reason.look), ("Allowed from Switchboard: npm test", Look::Box));
    let other = one(json!({"status": "working", "tool": "Bash", "message": "Allowed fromage"})).reason.unwrap();
    assert_eq!(other.text, "Using Bash");
}

#[test]
fn a_huge_message_is_collapsed_and_clipped_by_characters_and_kept_whole_for_the_tooltip() {
    let huge = "行 one\n\n   line two ".repeat(150);
    let reason = one(json!({"status": "done", "message": huge})).reason.unwrap();
    assert_eq!(reason.text.chars().count(), REASON_CHARS);
    assert!(reason.text.ends_with('…'));
    assert!(!reason.text.contains("  ") && !reason.text.contains('\n'));
    assert_eq!(reason.full.as_deref(), Some(huge.as_str()));
    let short = "中文的短消息".repeat(10);
    let reason = one(json!({"status": "done", "message": short})).reason.unwrap();
    assert_eq!((reason.text.as_str(), reason.full), (short.as_str(), None), "under the limit in characters");
}

#[test]
fn a_history_entry_is_led_by_its_tool_alone() {
    let entry = |status, tool: Option<&str>, message: Option<&str>| HistoryEntry {
        at: T0,
        status,
        tool: tool.map(str::to_owned),
        question: None,
        message: message.map(str::to_owned),
        interrupted: false,
        errored: false,
    };
    let view = HistoryView::from(entry(AgentStatus::Blocked, Some("Bash"), Some("npm test")));
    assert_eq!(view.badge.word, "Needs permission");
    let reason = view.reason.unwrap();
    assert_eq!((reason.lead.as_deref(), reason.text.as_str()), (Some("Bash"), "npm test"));
    assert_eq!(HistoryView::from(entry(AgentStatus::Done, None, None)).reason, None);
    let text = serde_json::to_value(HistoryView::from(entry(AgentStatus::Working, Some("Edit"), None))).unwrap();
    assert_eq!((text["status"].as_str(), text["reason"]["text"].as_str()), (Some("working"), Some("Using Edit")));
}
