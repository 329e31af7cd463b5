//! Answer from the phone end to end (issue 49): a running instance, the stand-in ntfy server and
//! the stand-in phone, all on 127.0.0.1. A permission is held as `switchboard hook` holds it
//! (`POST /hold/claude`), the push arrives with its buttons, the phone taps one, and the held
//! request gets its answer — or the tap is refused, nothing decided, and a follow-up says why.

use std::time::Instant;

use serde_json::{json, Value};

use super::standin::{perform, Ntfy, PhoneApp};
use super::token::{Key, Tap};
use super::UNSIGNED_FOLLOW_UPS;
use crate::instance::settings::{PushChannel, Reach, Settings};
use crate::instance::Instance;

const PUSHES: &str = "pushes";
const REPLIES: &str = "replies0123456789abcdef";
const TOKEN: &str = "tk_phone";

struct Desk {
    runtime: tokio::runtime::Runtime,
    instance: Option<Instance>,
    dir: tempfile::TempDir,
    ntfy: Ntfy,
    phone: PhoneApp,
}

fn desk(include_text: bool, on: bool, ntfy: Ntfy) -> Desk {
    ntfy.protect(REPLIES, TOKEN);
    let dir = tempfile::tempdir().unwrap();
    let reach = Reach {
        ntfy: PushChannel { enabled: true, url: ntfy.url(PUSHES), include_text },
        answer_from_phone: on,
        reply_topic: REPLIES.into(),
        reply_token: TOKEN.into(),
        ..Reach::default()
    };
    Settings { reach, ..Settings::default() }.save(dir.path()).unwrap();
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    let config = crate::Config {
        state_dir: dir.path().to_owned(),
        notify: false,
        persist: false,
        ages: Default::default(),
        cli_dirs: None,
        decide: None,
    };
    let instance = runtime.block_on(Instance::start(config)).unwrap();
    let phone = PhoneApp { topic_url: ntfy.url(PUSHES) };
    Desk { runtime, instance: Some(instance), dir, ntfy, phone }
}

impl Desk {
    fn instance(&self) -> &Instance {
        self.instance.as_ref().unwrap()
    }

    fn url(&self, path: &str) -> String {
        let server = &self.instance().server;
        format!("http://127.0.0.1:{}{path}?key={}", server.port(), server.key())
    }

    /// Holds the hook open as `switchboard hook` does; its answer and when it came.
    fn hold(&self, body: Value) -> std::thread::JoinHandle<(u16, Value, Instant)> {
        self.hold_for(body, 30_000)
    }

    fn hold_for(&self, body: Value, ms: u64) -> std::thread::JoinHandle<(u16, Value, Instant)> {
        let url = format!("{}&ms={ms}", self.url("/hold/claude"));
        std::thread::spawn(move || {
            let agent: ureq::Agent = ureq::Agent::config_builder().http_status_as_error(false).build().into();
            let mut answer = agent.post(&url).send(body.to_string().as_bytes()).unwrap();
            let at = Instant::now();
            let text = answer.body_mut().read_to_string().unwrap_or_default();
            (answer.status().as_u16(), serde_json::from_str(&text).unwrap_or(Value::Null), at)
        })
    }

    fn post(&self, path: &str, body: &Value) -> (u16, String) {
        let agent: ureq::Agent = ureq::Agent::config_builder().http_status_as_error(false).build().into();
        let mut answer = agent.post(&self.url(path)).send(body.to_string().as_bytes()).unwrap();
        (answer.status().as_u16(), answer.body_mut().read_to_string().unwrap_or_default())
    }

    /// The push about session `id` (by its short id), as the phone received it.
    fn pushed(&self, id: &str) -> Value {
        let short = &id[..8];
        let found = self.ntfy.nth(PUSHES, 1, |m| m["message"].as_str().is_some_and(|t| t.contains(short)));
        self.phone.received(found["id"].as_str().unwrap())
    }

    /// The `n`th follow-up whose title says `said`.
    fn follow_up(&self, n: usize, said: &str) -> Value {
        self.ntfy
            .nth(PUSHES, n, |m| m["title"].as_str().is_some_and(|t| t.starts_with("Switchboard:") && t.contains(said)))
    }
}

impl Drop for Desk {
    fn drop(&mut self) {
        if let Some(instance) = self.instance.take() {
            self.runtime.block_on(instance.stop());
        }
    }
}

fn permission(id: &str) -> Value {
    json!({
        "hook_event_name": "PermissionRequest", "session_id": id, "tool_name": "Bash",
        "tool_input": {"command": "npm test"}, "cwd": "/home/ann/secret-project",
    })
}

fn question(event: &str, id: &str) -> Value {
    json!({
        "hook_event_name": event, "session_id": id, "tool_name": "AskUserQuestion", "cwd": "/tmp/p",
        "tool_input": {"questions": [{"question": "Which color?", "header": "Color", "multiSelect": false,
            "options": [{"label": "Red", "description": "warm"}, {"label": "Blue", "description": "cool"}]}]},
    })
}

fn labels(message: &Value) -> Vec<String> {
    let actions = message["actions"].as_array().cloned().unwrap_or_default();
    actions.iter().map(|a| a["label"].as_str().unwrap_or_default().to_owned()).collect()
}

/// A button's request with its body changed.
fn with_body(message: &Value, label: &str, body: &Tap) -> Value {
    let mut action = message["actions"].as_array().unwrap().iter().find(|a| a["label"] == label).unwrap().clone();
    action["body"] = json!(serde_json::to_string(body).unwrap());
    action
}

fn tap_of(message: &Value, label: &str) -> Tap {
    let action = message["actions"].as_array().unwrap().iter().find(|a| a["label"] == label).unwrap();
    serde_json::from_str(action["body"].as_str().unwrap()).unwrap()
}

#[test]
fn a_held_permission_is_allowed_from_the_phone_once_and_a_replay_is_refused() {
    let desk = desk(false, true, Ntfy::start());
    let id = "00000001-held";
    let held = desk.hold(permission(id));
    let message = desk.pushed(id);
    assert_eq!(labels(&message), ["Allow", "Deny"]);
    for action in message["actions"].as_array().unwrap() {
        assert_eq!(action["action"], "http");
        assert_eq!(action["method"], "POST");
        assert_eq!(action["url"], desk.ntfy.url(REPLIES));
        assert_eq!(action["headers"]["Authorization"], format!("Bearer {TOKEN}"));
        assert_eq!(action["clear"], true);
        let tap: Value = serde_json::from_str(action["body"].as_str().unwrap()).unwrap();
        let mut fields: Vec<_> = tap.as_object().unwrap().keys().cloned().collect();
        fields.sort();
        assert_eq!(fields, ["answer", "request", "token", "v"]);
    }
    assert!(!message.to_string().contains("npm test"), "text off: ids and tokens only: {message}");

    assert_eq!(desk.phone.tap(&message, "Allow"), 200);
    let (status, answer, _) = held.join().unwrap();
    assert_eq!((status, answer), (200, json!({"verdict": "allow"})), "the hold is decided Allow");
    let done = desk.follow_up(1, "Allowed from phone");
    assert!(!done.to_string().contains("npm test"), "text off in the follow-up too: {done}");
    let history = desk.instance().history(id);
    assert!(history.iter().any(|e| e.message.as_deref().is_some_and(|m| m.contains("from phone"))), "{history:?}");

    assert_eq!(desk.phone.tap(&message, "Allow"), 200, "ntfy takes the replay");
    desk.follow_up(1, "Already used");
    assert_eq!(desk.phone.tap(&message, "Deny"), 200);
    desk.follow_up(2, "Already used");
    let state = desk.instance().phone.state();
    assert_eq!((state.on, state.applied, state.refused), (true, 1, 2), "{state:?}");
    // Diagnostics reads the same through the instance's route.
    let mut asked = ureq::get(&desk.url("/phone")).call().unwrap();
    let said: Value = serde_json::from_str(&asked.body_mut().read_to_string().unwrap()).unwrap();
    assert_eq!((&said["on"], &said["connected"], &said["applied"]), (&json!(true), &json!(true), &json!(1)), "{said}");
}

#[test]
fn forged_expired_unknown_and_answered_at_the_desk_taps_decide_nothing_after_a_limited_push() {
    let desk = desk(true, true, Ntfy::start());
    desk.ntfy.wait_subscriptions(1);
    // ntfy's rate limit on the push itself: it passes, and the push is sent again.
    desk.ntfy.limit_next(1);
    let id = "00000002-held";
    let held = desk.hold(permission(id));
    let message = desk.pushed(id);
    let genuine = tap_of(&message, "Allow");

    let forged = Tap { answer: "deny".into(), ..genuine.clone() };
    assert_eq!(perform(&with_body(&message, "Allow", &forged)), 200);
    desk.follow_up(1, "forged or altered");
    let key = Key::load_or_create(desk.dir.path());
    let expired = Tap { token: key.sign(&genuine.request, "allow", 1_000), ..genuine.clone() };
    assert_eq!(perform(&with_body(&message, "Allow", &expired)), 200);
    desk.follow_up(1, "Expired");
    let far = crate::clock::now_millis() + 60_000;
    let unknown = Tap { request: "f".repeat(24), token: key.sign(&"f".repeat(24), "allow", far), ..genuine.clone() };
    assert_eq!(perform(&with_body(&message, "Allow", &unknown)), 200);
    let refused = desk.follow_up(1, "does not know");
    assert!(!refused["message"].as_str().unwrap().contains("npm test"), "an unknown request names nothing");
    let session = desk.instance().hub.session(id).unwrap();
    assert_eq!(desk.instance().decisions.len(), 1, "still held: nothing decided");

    // The desk answers first; the phone's tap comes too late.
    let hold = session.decision.unwrap();
    desk.instance().decisions.answer(id, hold, crate::protocol::Verdict::Deny).unwrap();
    let (_, answer, _) = held.join().unwrap();
    assert_eq!(answer, json!({"verdict": "deny"}));
    assert_eq!(desk.phone.tap(&message, "Allow"), 200);
    let late = desk.follow_up(1, "Already answered at the desk");
    assert!(late["message"].as_str().unwrap().contains("Bash: npm test"), "text on: it says which: {late}");
    assert_eq!(desk.instance().phone.state().applied, 0);
}

#[test]
fn a_flood_of_forged_taps_gets_three_follow_ups_and_the_genuine_tap_still_works() {
    let desk = desk(false, true, Ntfy::start());
    let id = "0000000b-held";
    let held = desk.hold(permission(id));
    let message = desk.pushed(id);
    let genuine = tap_of(&message, "Allow");
    for n in 0..10 {
        let forged = Tap { token: format!("{n}.00"), ..genuine.clone() };
        assert_eq!(perform(&with_body(&message, "Allow", &forged)), 200);
    }
    assert_eq!(desk.phone.tap(&message, "Allow"), 200);
    assert_eq!(held.join().unwrap().1, json!({"verdict": "allow"}));
    // Taps are taken in order: once the genuine one's follow-up is out, every forged one was seen.
    desk.follow_up(1, "Allowed from phone");
    let forged = desk.ntfy.messages(PUSHES).iter().filter(|m| m["title"].as_str().unwrap().contains("forged")).count();
    assert_eq!(forged, UNSIGNED_FOLLOW_UPS);
    let state = desk.instance().phone.state();
    assert_eq!((state.applied, state.refused), (1, 10), "{state:?}");
}

#[test]
fn a_tap_after_the_desks_wait_ran_out_is_expired_and_decides_nothing() {
    let desk = desk(false, true, Ntfy::start());
    let id = "00000009-held";
    let held = desk.hold_for(permission(id), 300);
    let message = desk.pushed(id);
    assert_eq!(held.join().unwrap().0, 204, "unanswered: the CLI asks in its own terminal");
    assert_eq!(desk.phone.tap(&message, "Allow"), 200);
    desk.follow_up(1, "Expired");
    assert_eq!(desk.instance().phone.state().applied, 0);
    assert!(desk.instance().decisions.is_empty());
}

#[test]
fn a_question_is_answered_from_the_phone_through_the_same_door_as_the_board() {
    let desk = desk(true, true, Ntfy::start());
    // Held (Claude's hook carries the answer): the option goes through the hook.
    let id = "00000003-asks";
    let held = desk.hold(question("PermissionRequest", id));
    let message = desk.pushed(id);
    assert_eq!(labels(&message), ["Red", "Blue"]);
    assert_eq!(desk.phone.tap(&message, "Blue"), 200);
    let (_, answer, _) = held.join().unwrap();
    assert_eq!(answer, json!({"verdict": "allow", "answers": {"Which color?": "Blue"}}));
    desk.follow_up(1, "Answered from phone — option 2");

    // Not held: the board would type it into the agent's pane, which is not proven here — the
    // phone's tap is refused in the board's own words.
    let typed = "00000004-asks";
    assert_eq!(desk.post("/hook/claude", &question("PreToolUse", typed)).0, 204);
    let message = desk.pushed(typed);
    assert_eq!(labels(&message), ["Red", "Blue"]);
    let agent: ureq::Agent = ureq::Agent::config_builder().http_status_as_error(false).build().into();
    let mut answer = agent.post(&format!("{}&option=1", desk.url(&format!("/answer/{typed}")))).send_empty().unwrap();
    assert_eq!(answer.status().as_u16(), 409);
    let why: Value = serde_json::from_str(&answer.body_mut().read_to_string().unwrap()).unwrap();
    let why = why["error"].as_str().unwrap().to_owned();
    assert_eq!(desk.phone.tap(&message, "Red"), 200);
    desk.follow_up(1, &format!("Not applied: {why}"));

    // A permission not held for the board: no buttons, and the push says why.
    let unheld = "00000005-perm";
    assert_eq!(desk.post("/hook/claude", &permission(unheld)).0, 204);
    let message = desk.pushed(unheld);
    assert!(labels(&message).is_empty());
    assert!(
        message["message"].as_str().unwrap().contains("No buttons: Allow / Deny from Switchboard is off"),
        "{message}"
    );
}

#[test]
fn four_options_give_two_buttons_and_open_on_desk_which_answers_nothing() {
    let desk = desk(true, true, Ntfy::start());
    let id = "0000000a-asks";
    let mut asked = question("PermissionRequest", id);
    asked["tool_input"]["questions"][0]["options"] =
        json!([{"label": "A"}, {"label": "B"}, {"label": "C"}, {"label": "D"}]);
    let held = desk.hold(asked);
    let message = desk.pushed(id);
    assert_eq!(labels(&message), ["A", "B", "Open on desk"]);
    assert!(message["message"].as_str().unwrap().contains("Options 3–4: open on desk"), "{message}");
    assert_eq!(desk.phone.tap(&message, "Open on desk"), 200);
    desk.follow_up(1, "Left for the desk");
    assert_eq!(desk.instance().decisions.len(), 1, "the question still waits, on the desk");
    let hold = desk.instance().hub.session(id).unwrap().decision.unwrap();
    desk.instance().decisions.answer(id, hold, crate::protocol::Verdict::Deny).unwrap();
    held.join().unwrap();
}

#[test]
fn a_dropped_subscription_resumes_with_since_and_the_tap_made_meanwhile_is_applied_once() {
    let ntfy = Ntfy::start();
    ntfy.limit_next(1);
    let desk = desk(false, true, ntfy);
    let first = desk.ntfy.wait_subscriptions(2);
    assert!(!first[0].1 && first[1].1, "a 429 first, then let in after a back-off: {first:?}");

    let id = "00000006-held";
    let held = desk.hold(permission(id));
    assert_eq!(desk.phone.tap(&desk.pushed(id), "Allow"), 200);
    assert_eq!(held.join().unwrap().1, json!({"verdict": "allow"}));
    let seen = desk.ntfy.messages(REPLIES).last().unwrap()["id"].as_str().unwrap().to_owned();

    let id = "00000007-held";
    let held = desk.hold(permission(id));
    let message = desk.pushed(id);
    let before = desk.ntfy.subscriptions().len();
    desk.ntfy.cut(true);
    desk.ntfy.wait_subscriptions(before + 1);
    assert_eq!(desk.phone.tap(&message, "Allow"), 200, "queued on the server while the desk is away");
    desk.ntfy.allow_subscriptions();
    assert_eq!(held.join().unwrap().1, json!({"verdict": "allow"}));
    desk.follow_up(2, "Allowed from phone");
    let resumed = desk.ntfy.subscriptions();
    assert!(
        resumed[before..].iter().all(|(target, _)| target.ends_with(&format!("/json?since={seen}"))),
        "{resumed:?}"
    );
    let state = desk.instance().phone.state();
    assert_eq!((state.applied, state.refused), (2, 0), "applied once: {state:?}");
}

#[test]
fn with_the_switch_off_nothing_subscribes_and_pushes_carry_no_buttons() {
    let desk = desk(true, false, Ntfy::start());
    let id = "00000008-held";
    let held = desk.hold(permission(id));
    let message = desk.pushed(id);
    assert!(labels(&message).is_empty());
    assert!(!message["message"].as_str().unwrap().contains("No buttons"), "{message}");
    assert!(desk.ntfy.subscriptions().is_empty());
    assert!(!desk.instance().phone.state().on);
    let hold = desk.instance().hub.session(id).unwrap().decision.unwrap();
    desk.instance().decisions.answer(id, hold, crate::protocol::Verdict::Allow).unwrap();
    held.join().unwrap();
}

#[test]
fn switched_off_the_desk_leaves_the_reply_topic_and_takes_no_tap() {
    let desk = desk(false, true, Ntfy::start());
    desk.ntfy.wait_subscriptions(1);
    let id = "0000000c-held";
    let held = desk.hold(permission(id));
    let message = desk.pushed(id);
    let mut off = desk.instance().settings();
    off.reach.answer_from_phone = false;
    desk.instance().set_settings(off).unwrap();
    assert!(!desk.instance().phone.state().on);
    assert_eq!(desk.phone.tap(&message, "Allow"), 200);
    desk.ntfy.wait_left(1);
    let state = desk.instance().phone.state();
    assert_eq!((state.applied, state.refused), (0, 0), "{state:?}");
    assert_eq!(desk.instance().decisions.len(), 1, "nothing decided");
    assert_eq!(desk.ntfy.subscriptions().len(), 1, "and nothing subscribes again");
    let hold = desk.instance().hub.session(id).unwrap().decision.unwrap();
    desk.instance().decisions.answer(id, hold, crate::protocol::Verdict::Deny).unwrap();
    held.join().unwrap();
}

/// Tap → the held request answered, over the local stand-in: the p50 of fifty, printed.
#[test]
fn tap_to_decided_latency_over_fifty_taps() {
    let desk = desk(false, true, Ntfy::start());
    let mut took = Vec::new();
    for n in 0..50 {
        let id = format!("{:08x}-lat", 0x100 + n);
        let held = desk.hold(permission(&id));
        let message = desk.pushed(&id);
        let tapped = Instant::now();
        assert_eq!(desk.phone.tap(&message, "Allow"), 200);
        let (_, answer, at) = held.join().unwrap();
        assert_eq!(answer, json!({"verdict": "allow"}));
        took.push(at.duration_since(tapped));
    }
    took.sort();
    let p50 = took[took.len() / 2];
    println!(
        "answer from the phone: tap → decided p50 {p50:?} (max {:?}) over {} taps",
        took.last().unwrap(),
        took.len()
    );
}
