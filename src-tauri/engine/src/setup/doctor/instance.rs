//! The report's last part: Switchboard itself — an instance answering at the endpoint file, and a
//! test event sent the way the CLIs send theirs that shows up on the board.

use super::*;

/// The fix when no instance answers.
pub const START_SWITCHBOARD: &str = "start the app (`switchboard`), or `switchboard serve` where there is no display";

pub(super) fn switchboard_checks(options: &DoctorOptions, remove_test_session: impl FnOnce(&str)) -> Vec<Check> {
    let id = |check: &str| format!("switchboard.{check}");
    // The desktop app first: `serve` is for SSH boxes and tmux users (issue 21.7).
    let start = START_SWITCHBOARD.to_owned();
    let running = match status::fetch(&options.state_dir) {
        Ok(_) => {
            let endpoint = Endpoint::read(&options.state_dir);
            let detail = endpoint.map_or_else(
                || "answering".to_owned(),
                |endpoint| {
                    format!("pid {}, port {}, state in {}", endpoint.pid, endpoint.port, options.state_dir.display())
                },
            );
            Check::new(id("running"), "Switchboard running", Outcome::Pass, detail, None)
        }
        Err(error) => {
            Check::new(id("running"), "Switchboard running", Outcome::Fail, error.to_string(), Some(start.clone()))
        }
    };
    let round_trip = if running.outcome == Outcome::Pass {
        round_trip(options, id("roundTrip"), remove_test_session)
    } else {
        Check::new(id("roundTrip"), "Test event", Outcome::Skip, "needs a running Switchboard", None)
    };
    let phone = if running.outcome == Outcome::Pass {
        phone_check(options, id("phone"))
    } else {
        Check::new(id("phone"), PHONE_LABEL, Outcome::Skip, "needs a running Switchboard", None)
    };
    vec![running, round_trip, phone]
}

const PHONE_LABEL: &str = "Answer from the phone";

/// Answering from the phone (issue 49): skipped while it is off; else whether the instance is
/// subscribed to the reply topic, and what came of the taps.
fn phone_check(options: &DoctorOptions, id: String) -> Check {
    use crate::instance::act::phone::PhoneState;
    let asked = Endpoint::read(&options.state_dir).and_then(|endpoint| {
        let path = crate::protocol::phone_path(&endpoint.key);
        crate::client::request(endpoint.addr(), "GET", &path, b"", Duration::from_secs(2)).ok()
    });
    let state = asked.filter(|r| r.status == 200).and_then(|r| serde_json::from_slice::<PhoneState>(&r.body).ok());
    let Some(state) = state else {
        return Check::new(id, PHONE_LABEL, Outcome::Skip, "this instance does not say (an older version?)", None);
    };
    let taps = format!("{} taps applied, {} refused", state.applied, state.refused);
    let last = state.last.as_deref().map(|last| format!("; last: {last}")).unwrap_or_default();
    if !state.on {
        Check::new(id, PHONE_LABEL, Outcome::Skip, "off (Settings, When you are away)", None)
    } else if state.connected {
        let since = state.since.map(|id| format!(", resuming after {id}")).unwrap_or_default();
        Check::new(id, PHONE_LABEL, Outcome::Pass, format!("subscribed to the reply topic{since}; {taps}{last}"), None)
    } else {
        let why = state.error.unwrap_or_else(|| "not subscribed to the reply topic yet".into());
        let fix = "check that the ntfy server is reachable and, on a server with access control, the reply token";
        Check::new(id, PHONE_LABEL, Outcome::Fail, format!("{why}; {taps}{last}"), Some(fix.into()))
    }
}

/// Sends a `custom` event through the `hook` forwarder, as the CLIs do, and waits for it in
/// the snapshot. It is sent as an ended session with no status: it never notifies.
fn round_trip(options: &DoctorOptions, id: String, remove_test_session: impl FnOnce(&str)) -> Check {
    const LABEL: &str = "Test event";
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default().as_nanos();
    let session_id = format!("{DOCTOR_SESSION_PREFIX}{}-{nanos}", std::process::id());
    let body = json!({
        "sessionId": session_id,
        "agent": "switchboard-doctor",
        "title": "switchboard doctor",
        "lifecycle": "end",
    });
    let started = Instant::now();
    let body = serde_json::to_vec(&body).expect("a JSON value always serializes");
    let _ = hook::forward("custom", Cursor::new(body), Some(&options.state_dir), started + hook::DEADLINE);
    let seen = loop {
        let seen = status::fetch(&options.state_dir)
            .is_ok_and(|(snapshot, _)| snapshot.sessions.iter().any(|session| session.session_id == session_id));
        if seen || started.elapsed() > ROUND_TRIP_DEADLINE {
            break seen;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    if !seen {
        return Check::new(
            id,
            LABEL,
            Outcome::Fail,
            format!(
                "a test event sent through `switchboard hook custom` did not reach the running instance within {} s",
                ROUND_TRIP_DEADLINE.as_secs()
            ),
            Some("restart Switchboard (quit it, then run switchboard serve)".into()),
        );
    }
    let elapsed = started.elapsed().as_millis();
    remove_test_session(&session_id);
    Check::new(id, LABEL, Outcome::Pass, format!("sent with `switchboard hook custom`, seen in {elapsed} ms"), None)
}
