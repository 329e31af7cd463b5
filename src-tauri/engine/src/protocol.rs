//! What the two processes share: the `hook` forwarder (and `status`, `doctor`) on one side, the
//! running instance on the other. Routes, headers, limits and the answer to a held permission
//! are said once here, so neither side imports the other.

use std::time::Duration;

use serde::{Deserialize, Serialize};

/// The frames a remote's link speaks (issue 23).
pub mod link;

/// Bodies above this are refused before they are parsed, and never buffered whole; the forwarder
/// trims a larger payload until it fits.
pub const BODY_LIMIT: usize = 256 * 1024;

/// The header that tells the server which process ran the hook and where it lives (issue "no
/// stuck badge"): display and watching only. Left out when unknown or not plain ASCII.
pub const PROCESS_HEADER: &str = "x-switchboard-process";
/// The header that names one hook event (issue 45: 32 hex digits, random): an event the forwarder
/// also spooled because the instance did not answer in time is applied once, whichever copy
/// arrives first.
pub const EVENT_ID_HEADER: &str = "x-switchboard-event";

/// The longest [`PROCESS_HEADER`] value the server reads.
pub const PROCESS_HEADER_LIMIT: usize = 2048;

/// The shortest a hold may be configured to last.
pub const MIN_HOLD: Duration = Duration::from_secs(5);
/// The longest a hold may be configured to last; the CLIs' hook timeout is set above it.
pub const MAX_HOLD: Duration = Duration::from_secs(120);
/// How long a hold lasts unless the settings say otherwise.
pub const DEFAULT_HOLD: Duration = Duration::from_secs(30);

/// The most of an answer a client reads where a small one is expected (a hook's, a hold's).
pub const ANSWER_LIMIT: usize = 1024 * 1024;
/// The most of a snapshot `status` and `doctor` read: above what the largest instance can hold
/// (5,000 sessions, each text clipped to 4,000 characters), so `status` works at any size.
pub const SNAPSHOT_LIMIT: usize = 1024 * 1024 * 1024;

/// `switchboard doctor`'s test sessions start with this; `status` and the board hide them.
pub const DOCTOR_SESSION_PREFIX: &str = "switchboard-doctor-";

/// The routes, as the server declares them (axum's `{name}` syntax).
pub mod routes {
    /// `POST`: one hook event; `204` at once, whatever it holds.
    pub const HOOK: &str = "/hook/{agent}";
    /// `POST`: a permission held open for the board's answer (`?ms=` the longest wait).
    pub const HOLD: &str = "/hold/{agent}";
    /// `GET`: the snapshot.
    pub const SESSIONS: &str = "/sessions";
    /// `DELETE`: forget a session.
    pub const SESSION: &str = "/sessions/{id}";
    /// `POST`: the board's answer to a hold (`?id=<hold>&verdict=allow|deny`).
    pub const DECISION: &str = "/decision/{id}";
    /// `GET`: the link's frames (`protocol::link`), as they happen: a snapshot, or the updates after
    /// `?after=` of `?instance=`, then every update. Long-lived.
    pub const UPDATES: &str = "/updates";
    /// `GET`: the followed remotes' states; `POST`: read the remotes in the settings again.
    pub const REMOTES: &str = "/remotes";
    /// `POST`: option `?option=N` of the question on screen, typed into the agent's pane.
    pub const ANSWER: &str = "/answer/{id}";
    /// `POST`: the body (UTF-8 text) typed as the agent's next prompt.
    pub const REPLY: &str = "/reply/{id}";
    /// `GET`: the session and the last lines of its tmux pane.
    pub const PEEK: &str = "/peek/{id}";
    /// `POST`: SIGTERM to the session's agent (its own process group), the user having confirmed.
    pub const END: &str = "/end/{id}";
    /// `POST`: one test message through the saved push channel `?channel=ntfy|webhook` now;
    /// answers what came of it (issue 25).
    pub const PUSH_TEST: &str = "/push/test";
    /// `GET`: answering from the phone — the reply topic's subscription and the taps (issue 49).
    pub const PHONE: &str = "/phone";
}

/// `/phone` with the instance's key.
pub fn phone_path(key: &str) -> String {
    format!("{}?key={key}", routes::PHONE)
}

/// `/answer/<id>`, `/reply/<id>` or `/peek/<id>` for a session.
pub fn session_action_path(action: &str, session_id: &str, key: &str) -> String {
    format!("/{action}/{}?key={key}", path_segment(session_id))
}

/// `/end/<id>` for a session, saying which process asks (its pid and start time, as
/// [`crate::platform::stat`] gives them): the instance never ends the one that asked or anything
/// it runs under (issue 45: a shell that ran `switchboard end` on its own session died).
pub fn end_path(session_id: &str, key: &str, caller: (u32, u64)) -> String {
    format!("{}&caller={}:{}", session_action_path("end", session_id, key), caller.0, caller.1)
}

/// The asking process an [`end_path`] carries: `Ok(None)` when it says none (the app's own
/// window asks in-process), `Err` when what it says is not a pid and a start time.
pub fn end_caller(query: &str) -> Result<Option<(u32, u64)>, String> {
    let Some(value) = query.split('&').find_map(|pair| pair.strip_prefix("caller=")) else { return Ok(None) };
    let parsed = value.split_once(':').and_then(|(pid, start)| Some((pid.parse().ok()?, start.parse().ok()?)));
    parsed.map(Some).ok_or_else(|| "the asking process is not a pid:start".to_owned())
}

pub fn remotes_path(key: &str) -> String {
    format!("/remotes?key={key}")
}

/// The paths a client asks for, with the instance's key.
pub fn hook_path(agent: &str, key: &str) -> String {
    format!("/hook/{agent}?key={key}")
}

pub fn hold_path(agent: &str, key: &str, hold: Duration) -> String {
    format!("/hold/{agent}?key={key}&ms={}", hold.as_millis())
}

pub fn sessions_path(key: &str) -> String {
    format!("/sessions?key={key}")
}

/// The link's stream: from a snapshot, or after update `after` of `instance`.
pub fn updates_path(key: &str, resume: Option<(&str, u64)>) -> String {
    match resume {
        Some((instance, after)) => format!("/updates?key={key}&instance={instance}&after={after}"),
        None => format!("/updates?key={key}"),
    }
}

pub fn decision_path(session_id: &str, key: &str, hold: u64, verdict: Verdict) -> String {
    let verdict = match verdict {
        Verdict::Allow => "allow",
        Verdict::Deny => "deny",
    };
    format!("/decision/{}?key={key}&id={hold}&verdict={verdict}", path_segment(session_id))
}

/// A session id as one path segment: a remote peer's id may hold `/`, `?` or `%`.
fn path_segment(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => char::from(b).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}

pub fn session_path(session_id: &str, key: &str) -> String {
    format!("/sessions/{session_id}?key={key}")
}

/// What the user answered to a held permission.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    Allow,
    Deny,
}

/// The body of a held permission's `200`: `{"verdict":"allow"}` or `{"verdict":"deny"}` — and,
/// for a held question (issue 24), `{"verdict":"allow","answers":{"<question>":"<answer>"}}`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct HoldAnswer {
    pub verdict: Verdict,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub answers: Option<std::collections::BTreeMap<String, String>>,
}

impl From<Verdict> for HoldAnswer {
    fn from(verdict: Verdict) -> Self {
        Self { verdict, answers: None }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_process_asking_to_end_an_agent_rides_in_the_path() {
        let path = end_path("a b", "k", (42, 7_000));
        assert_eq!(path, "/end/a%20b?key=k&caller=42:7000");
        let query = path.split_once('?').unwrap().1;
        assert_eq!(end_caller(query), Ok(Some((42, 7_000))));
        assert_eq!(end_caller("key=k"), Ok(None));
        assert!(end_caller("key=k&caller=42").is_err());
        assert!(end_caller("key=k&caller=x:1").is_err());
    }

    #[test]
    fn a_hold_answer_reads_back_and_anything_else_is_refused() {
        let json = serde_json::to_string(&HoldAnswer::from(Verdict::Deny)).unwrap();
        assert_eq!(json, r#"{"verdict":"deny"}"#);
        assert_eq!(serde_json::from_str::<HoldAnswer>(&json).unwrap().verdict, Verdict::Deny);
        let answered = HoldAnswer { verdict: Verdict::Allow, answers: Some([("Which?".into(), "Blue".into())].into()) };
        let json = serde_json::to_string(&answered).unwrap();
        assert_eq!(json, r#"{"verdict":"allow","answers":{"Which?":"Blue"}}"#);
        assert_eq!(serde_json::from_str::<HoldAnswer>(&json).unwrap(), answered);
        for bad in [r#"{"verdict":"maybe"}"#, "{}", "[]", r#"{"verdict":1}"#] {
            assert!(serde_json::from_str::<HoldAnswer>(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn client_paths_match_the_routes_the_server_declares() {
        let fill = |route: &str, name: &str, value: &str| route.replace(&format!("{{{name}}}"), value);
        assert!(hook_path("claude", "k").starts_with(&fill(routes::HOOK, "agent", "claude")));
        assert!(hold_path("codex", "k", MAX_HOLD).starts_with(&fill(routes::HOLD, "agent", "codex")));
        assert!(sessions_path("k").starts_with(routes::SESSIONS));
        assert!(session_path("s1", "k").starts_with(&fill(routes::SESSION, "id", "s1")));
        assert!(updates_path("k", Some(("i", 3))).starts_with(routes::UPDATES));
        assert!(decision_path("s1", "k", 2, Verdict::Allow).starts_with(&fill(routes::DECISION, "id", "s1")));
        assert_eq!(decision_path("a/b?%", "k", 2, Verdict::Deny), "/decision/a%2Fb%3F%25?key=k&id=2&verdict=deny");
    }
}
