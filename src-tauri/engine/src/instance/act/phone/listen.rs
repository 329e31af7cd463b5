//! The one subscription to the reply topic: `GET <server>/<topic>/json?since=<last id>`, ntfy's
//! stream of newline-delimited JSON (`open`, `message`, `keepalive` events). It resumes with
//! `since=` after a dropped link, a refusal (a 429 included), a sleep or its own span, waiting a
//! little longer after each failure; a change of server, topic or token starts afresh.

use std::io::{BufRead, BufReader, Read};
use std::sync::Arc;

use super::Phone;

/// The longest line read off the stream; a longer one is skipped.
const MOST_LINE: u64 = 64 * 1024;

pub(super) fn start(phone: Arc<Phone>) {
    let spawned = std::thread::Builder::new().name("phone-replies".into()).spawn(move || run(&phone));
    if let Err(error) = spawned {
        tracing::warn!(%error, "cannot listen for answers from the phone");
    }
}

/// Where a new subscription picks up: after the last message seen, or — none seen yet — from
/// when the last one opened (the first: when the topic was taken up); and the ids seen lately,
/// so a message read twice is taken once.
#[derive(Default)]
struct Resume {
    last_id: Option<String>,
    opened_at: Option<u64>,
    seen: std::collections::VecDeque<String>,
}

impl Resume {
    fn query(&self) -> Option<String> {
        self.last_id.clone().or_else(|| self.opened_at.map(|at| at.to_string()))
    }

    /// Whether `id` is new (and remembers it).
    fn first(&mut self, id: &str) -> bool {
        if self.seen.iter().any(|seen| seen == id) {
            return false;
        }
        if self.seen.len() >= 256 {
            self.seen.pop_front();
        }
        self.seen.push_back(id.to_owned());
        true
    }
}

fn run(phone: &Phone) {
    let mut resume = Resume::default();
    let mut topic = None;
    let mut wait = phone.options.retry;
    loop {
        let Some((reach, generation)) = phone.wait_until_on() else { return };
        let Some(url) = reach.reply_url() else { continue };
        if topic.as_ref() != Some(&url) {
            // Another topic: an id of the old one means nothing there. Its first subscription
            // starts from now, so a tap made while it opens (on a push already out) is taken.
            resume = Resume { opened_at: Some(crate::clock::now_secs()), ..Resume::default() };
            topic = Some(url.clone());
        }
        let target = match resume.query() {
            Some(id) => format!("{url}/json?since={id}"),
            None => format!("{url}/json"),
        };
        phone.note_state(|state| state.subscriptions += 1);
        let (opened, ended) = subscribe(phone, &target, &reach.reply_token, generation, &mut resume);
        phone.note_state(|state| {
            state.connected = false;
            state.since = resume.last_id.clone();
            state.error = ended;
        });
        if opened {
            wait = phone.options.retry;
        }
        phone.pause(wait, generation);
        if !opened {
            wait = (wait * 2).min(phone.options.most_wait);
        }
    }
}

/// One subscription, until the stream ends, fails or the settings change (a stream that lived
/// its span ends with its deadline): whether it opened, and why it ended when not cleanly.
fn subscribe(phone: &Phone, target: &str, token: &str, generation: u64, resume: &mut Resume) -> (bool, Option<String>) {
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .timeout_global(Some(phone.options.span))
        .timeout_connect(Some(std::time::Duration::from_secs(10)))
        .timeout_recv_response(Some(std::time::Duration::from_secs(15)))
        .http_status_as_error(false)
        .max_redirects(0)
        .user_agent(concat!("switchboard/", env!("CARGO_PKG_VERSION")))
        .build()
        .into();
    let mut request = agent.get(target);
    if !token.is_empty() {
        request = request.header("Authorization", format!("Bearer {token}"));
    }
    let answer = match request.call() {
        Ok(answer) => answer,
        Err(error) => return (false, Some(format!("cannot reach the reply topic: {error}"))),
    };
    let status = answer.status().as_u16();
    if status != 200 {
        let why = match status {
            401 | 403 => "the server refused the reply topic (an access token is needed, or it is wrong)",
            429 => "the server is limiting requests (429)",
            _ => "the server answered the reply topic with an error",
        };
        return (false, Some(format!("{why}: HTTP {status}")));
    }
    phone.note_state(|state| {
        state.connected = true;
        state.error = None;
    });
    let mut reader = BufReader::new(answer.into_body().into_reader());
    let mut line = Vec::new();
    loop {
        line.clear();
        let read = (&mut reader).take(MOST_LINE).read_until(b'\n', &mut line);
        match read {
            Ok(0) => return (true, None),
            Ok(_) if !line.ends_with(b"\n") && line.len() as u64 >= MOST_LINE => {
                skip_line(&mut reader);
                continue;
            }
            Ok(_) => {}
            Err(error) => return (true, Some(format!("the reply topic's stream ended: {error}"))),
        }
        if phone.generation() != generation {
            // Turned off or moved meanwhile: what came after is not this subscription's to take.
            return (true, None);
        }
        let Ok(event) = serde_json::from_slice::<Event>(&line) else { continue };
        let id = event.id.filter(|id| (1..=64).contains(&id.len()) && id.bytes().all(|b| b.is_ascii_alphanumeric()));
        match (event.event.as_str(), id) {
            ("open", _) => {
                let now = crate::clock::now_secs();
                resume.opened_at = Some(event.time.filter(|at| *at <= now).unwrap_or(now));
            }
            ("message", Some(id)) if resume.first(&id) => {
                resume.last_id = Some(id);
                phone.note_state(|state| state.since = resume.last_id.clone());
                phone.take(event.message.as_deref().unwrap_or_default());
            }
            _ => {}
        }
        if phone.generation() != generation {
            return (true, None);
        }
    }
}

fn skip_line(reader: &mut impl BufRead) {
    let mut rest = Vec::new();
    while reader.by_ref().take(MOST_LINE).read_until(b'\n', &mut rest).is_ok_and(|n| n > 0) {
        if rest.ends_with(b"\n") {
            return;
        }
        rest.clear();
    }
}

/// One line of ntfy's JSON stream (the fields read here).
#[derive(serde::Deserialize)]
struct Event {
    id: Option<String>,
    time: Option<u64>,
    event: String,
    message: Option<String>,
}
