//! The tokens, the offer and the `Actions` header, without a network.

use serde_json::json;
use switchboard_core::Session;

use super::offer::fingerprint;
use super::standin::parse_actions;
use super::token::{Key, Ledger, Request, Tap, TapError, Target};
use super::*;
use crate::instance::outputs::push::ntfy_actions;

const NOW: u64 = 1_000_000;

fn request(target: Target) -> Request {
    Request { session_id: "s1".into(), target, what: "Bash: npm test".into(), expires: NOW + 60_000 }
}

fn issued() -> (Ledger, Vec<Tap>) {
    let mut ledger = Ledger::new(Key::random());
    let taps = ledger.issue(request(Target::Hold(7)), &["allow", "deny"], NOW);
    (ledger, taps)
}

#[test]
fn a_genuine_tap_is_taken_once_and_then_its_replay_and_its_sibling_are_refused() {
    let (mut ledger, taps) = issued();
    assert_eq!(taps.len(), 2);
    assert_eq!(taps[0].request, taps[1].request, "one request, a button per answer");
    assert_eq!(ledger.verify(&taps[0], NOW + 1), Ok(request(Target::Hold(7))));
    assert_eq!(ledger.verify(&taps[0], NOW + 2), Err(TapError::Replayed));
    assert_eq!(ledger.verify(&taps[1], NOW + 2), Err(TapError::Replayed), "one answer per request");
}

#[test]
fn a_tampered_tap_is_refused_whatever_was_changed() {
    let (mut ledger, taps) = issued();
    let genuine = taps[0].clone();
    let (expiry, signature) = genuine.token.split_once('.').unwrap();
    let flipped: String = signature
        .chars()
        .enumerate()
        .map(|(i, c)| {
            if i == 0 {
                if c == '0' {
                    '1'
                } else {
                    '0'
                }
            } else {
                c
            }
        })
        .collect();
    let forged = [
        Tap { answer: "deny".into(), ..genuine.clone() },
        Tap { request: "0".repeat(24), ..genuine.clone() },
        Tap { token: format!("{}.{signature}", expiry.parse::<u64>().unwrap() + 1), ..genuine.clone() },
        Tap { token: format!("{expiry}.{flipped}"), ..genuine.clone() },
        Tap { token: "not a token".into(), ..genuine.clone() },
        Tap { token: String::new(), ..genuine.clone() },
    ];
    for tap in forged {
        assert_eq!(ledger.verify(&tap, NOW), Err(TapError::Tampered), "{tap:?}");
    }
    // Another instance's key signs nothing here.
    let mut other = Ledger::new(Key::random());
    assert_eq!(other.verify(&genuine, NOW), Err(TapError::Tampered));
    assert_eq!(ledger.verify(&genuine, NOW), Ok(request(Target::Hold(7))), "the genuine one still works");
}

#[test]
fn an_expired_tap_is_refused_and_an_unknown_request_too() {
    let (mut ledger, taps) = issued();
    assert_eq!(ledger.verify(&taps[0], NOW + 60_000), Err(TapError::Expired));
    assert_eq!(ledger.verify(&taps[1], NOW + 10 * 60_000), Err(TapError::Expired));

    // The same key after a restart: the signature holds, but the request was never issued here.
    let dir = tempfile::tempdir().unwrap();
    let key = Key::load_or_create(dir.path());
    let taps = Ledger::new(key).issue(request(Target::Hold(1)), &["allow"], NOW);
    let mut restarted = Ledger::new(Key::load_or_create(dir.path()));
    assert_eq!(restarted.verify(&taps[0], NOW), Err(TapError::Unknown));
}

#[test]
fn the_key_is_made_once_kept_private_and_read_back() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let first = Key::load_or_create(dir.path());
    let path = dir.path().join(token::KEY_FILE);
    assert_eq!(std::fs::metadata(&path).unwrap().permissions().mode() & 0o777, 0o600);
    assert_eq!(std::fs::read_to_string(&path).unwrap().len(), 64, "256 bits in hex");
    let again = Key::load_or_create(dir.path());
    assert_eq!(first.sign("r", "allow", 5), again.sign("r", "allow", 5));
}

fn session(value: serde_json::Value) -> Session {
    let mut base = json!({
        "sessionId": "s1", "agent": "claude", "status": "blocked", "kind": "session", "tool": "Bash",
        "title": null, "cwd": null, "awaitingInput": false, "question": null, "message": "npm test",
        "interrupted": false, "errored": false, "ended": false, "unread": true, "subagents": 0,
        "firstEventAt": 0, "lastEventAt": 0, "statusChangedAt": 5, "transcriptPath": null,
    });
    for (key, v) in value.as_object().unwrap() {
        base[key] = v.clone();
    }
    serde_json::from_value(base).unwrap()
}

fn asking(options: &[&str]) -> Session {
    let options: Vec<_> = options.iter().map(|label| json!({"label": label, "description": ""})).collect();
    session(json!({
        "status": "waiting", "awaitingInput": true, "question": "Which color?",
        "questions": [{"question": "Which color?", "header": "Color", "options": options, "multiSelect": false}],
    }))
}

#[test]
fn a_held_permission_offers_allow_and_deny_and_an_unheld_one_says_why_not() {
    let held = session(json!({"decision": 7}));
    let offered = offer(&held, true).unwrap().unwrap();
    assert_eq!(offered.target, Target::Hold(7));
    assert_eq!(offered.choices, [("Allow".into(), "allow".into()), ("Deny".into(), "deny".into())]);
    let why = offer(&session(json!({})), true).unwrap().unwrap_err();
    assert!(why.contains("off for Claude Code"), "{why}");
    assert_eq!(offer(&session(json!({"status": "done"})), true), None, "a finished turn asks nothing");
}

#[test]
fn a_question_offers_its_options_up_to_three_and_more_go_to_the_desk() {
    let three = offer(&asking(&["Red", "Green, or so", "Blue"]), true).unwrap().unwrap();
    assert_eq!(three.choices.iter().map(|(l, _)| l.as_str()).collect::<Vec<_>>(), ["Red", "Green, or so", "Blue"]);
    assert_eq!(three.choices[2].1, "option:3");
    assert_eq!(three.note, None);
    let five = offer(&asking(&["A", "B", "C", "D", "E"]), true).unwrap().unwrap();
    let buttons: Vec<_> = five.choices.iter().map(|(l, a)| (l.as_str(), a.as_str())).collect();
    assert_eq!(buttons, [("A", "option:1"), ("B", "option:2"), ("Open on desk", "desk")]);
    assert_eq!(five.note.as_deref(), Some("Options 3–5: open on desk"));
    let mut several = asking(&["A", "B"]);
    several.questions[0].multi_select = true;
    let why = offer(&several, true).unwrap().unwrap_err();
    assert!(why.contains("several choices"), "the board's own refusal: {why}");
}

#[test]
fn with_the_words_off_a_question_offers_its_options_by_number_only() {
    let two = offer(&asking(&["Drop the table users", "Keep it"]), false).unwrap().unwrap();
    let buttons: Vec<_> = two.choices.iter().map(|(l, a)| (l.as_str(), a.as_str())).collect();
    assert_eq!(buttons, [("Option 1", "option:1"), ("Option 2", "option:2")]);
    assert_eq!(two.note.as_deref(), Some("Options by number: their words stay on the desk"));
    let five = offer(&asking(&["A", "B", "C", "D", "E"]), false).unwrap().unwrap();
    assert_eq!(
        five.choices.iter().map(|(l, _)| l.as_str()).collect::<Vec<_>>(),
        ["Option 1", "Option 2", "Open on desk"]
    );
    assert_eq!(
        five.note.as_deref(),
        Some("Options 3–5: open on desk. Options by number: their words stay on the desk")
    );
    let held = offer(&session(json!({"decision": 7})), false).unwrap().unwrap();
    assert_eq!(held.choices[0].0, "Allow", "Allow and Deny are the board's words, not the session's");
}

#[test]
fn a_request_is_current_only_while_that_very_hold_or_question_is_on_screen() {
    let hold = request(Target::Hold(7));
    assert_eq!(current(Some(&session(json!({"decision": 7}))), &hold, NOW), Ok(()));
    let running_out = session(json!({"decision": 7, "decisionUntil": NOW}));
    assert_eq!(current(Some(&running_out), &hold, NOW), Err(TapError::Expired), "its wait runs out now");
    assert_eq!(current(Some(&session(json!({"decision": 8}))), &hold, NOW), Err(TapError::Changed));
    assert_eq!(current(Some(&session(json!({"status": "working"}))), &hold, NOW), Err(TapError::Closed));
    let waited_out = session(json!({"decisionUntil": NOW - 1}));
    assert_eq!(current(Some(&waited_out), &hold, NOW), Err(TapError::Expired), "the desk's wait ran out");
    assert_eq!(current(None, &hold, NOW), Err(TapError::Closed));

    let asked = asking(&["Red", "Blue"]);
    let question = request(Target::Question(fingerprint(&asked)));
    assert_eq!(current(Some(&asked), &question, NOW), Ok(()));
    assert_eq!(current(Some(&asking(&["Red", "Green"])), &question, NOW), Err(TapError::Changed));
    let mut again = asked.clone();
    again.status_changed_at = Some(99);
    assert_eq!(current(Some(&again), &question, NOW), Err(TapError::Changed), "the same words asked anew");
    assert_eq!(current(Some(&session(json!({"status": "working"}))), &question, NOW), Err(TapError::Closed));
}

#[test]
fn the_actions_header_reads_back_as_ntfy_parses_it() {
    let body = r#"{"v":1,"request":"ab12","answer":"allow","token":"5.ff"}"#;
    let actions = [
        Action {
            label: "Allow".into(),
            url: "https://ntfy.example/replies".into(),
            authorization: Some("Bearer tk_abc".into()),
            body: body.into(),
        },
        Action {
            label: "Yes; it's \"fine\", go".into(),
            url: "https://n/r".into(),
            authorization: None,
            body: "{}".into(),
        },
    ];
    let header = ntfy_actions(&actions).unwrap();
    assert!(header.starts_with(
        "http, Allow, https://ntfy.example/replies, method=POST, headers.Authorization=Bearer tk_abc, body='{"
    ));
    let parsed = parse_actions(&header).unwrap();
    assert_eq!(parsed[0]["label"], "Allow");
    assert_eq!(parsed[0]["url"], "https://ntfy.example/replies");
    assert_eq!(parsed[0]["method"], "POST");
    assert_eq!(parsed[0]["headers"]["Authorization"], "Bearer tk_abc");
    assert_eq!(parsed[0]["body"], body);
    assert_eq!(parsed[0]["clear"], true);
    assert_eq!(parsed[1]["label"], "Yes; it's \"fine\", go");
    assert_eq!(ntfy_actions(&[]), None);
}

#[test]
fn the_reply_topic_is_made_when_the_switch_goes_on_and_a_bad_token_is_dropped() {
    use crate::instance::settings::{PushChannel, Settings};
    let mut settings = Settings::default();
    settings.reach.ntfy = PushChannel { enabled: true, url: "https://ntfy.sh/pushes".into(), include_text: false };
    assert_eq!(settings.clone().cleaned().reach.reply_topic, "", "off: no topic made");
    settings.reach.answer_from_phone = true;
    settings.reach.reply_token = "tk_ok, evil=1".into();
    let cleaned = settings.cleaned();
    let topic = &cleaned.reach.reply_topic;
    assert!(topic.len() == 32 && topic.bytes().all(|b| b.is_ascii_hexdigit()), "128 random bits: {topic}");
    assert_eq!(cleaned.reach.reply_token, "", "a token that would break the header goes");
    assert_eq!(cleaned.reach.reply_url(), Some(format!("https://ntfy.sh/{topic}")));
    assert_eq!(cleaned.clone().cleaned().reach.reply_topic, *topic, "kept once made");
}
