//! Push (issue 25): a session that newly needs the user is posted to an ntfy topic and to a
//! webhook, when the user turned them on — for this machine's sessions and the remotes', whether
//! the window has the focus or not (the user is away from the desk), never during quiet hours.
//!
//! Nothing here is on the hook path: the push thread follows the hub's updates like any other
//! subscriber, and each channel has its own sender thread with a bounded outbox (the oldest
//! message goes when it is full), a deadline per attempt, and at most [`ATTEMPTS`] attempts.
//! A 4xx answer is the receiver's final word and is not retried — except a 429, a rate limit that
//! passes; redirects are not followed.
//!
//! Without the channel's privacy switch a message says only the agent, the status, the host and
//! a short session id: no title, project, question, command or folder.

use std::collections::VecDeque;
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use serde::Serialize;
use switchboard_core::{notification_text, should_notify, AgentStatus, Change, NotifyContext, Session};

use crate::instance::hub::follow::Follower;
#[cfg(test)]
use crate::instance::hub::follow::{together, Priority};
use crate::instance::outputs::notifier::Held;
use crate::instance::settings::{PushChannel, Reach};

/// Attempts per message, at most.
pub const ATTEMPTS: u32 = 3;
/// Messages waiting per channel; past it the oldest is dropped.
pub const OUTBOX: usize = 32;
/// The longest a receiver's answer is read.
const ANSWER_LIMIT: u64 = 64 * 1024;
/// Words of a message body, at most (characters).
const TEXT_CHARS: usize = 300;

/// Which channel.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Deserialize, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "lowercase")]
pub enum PushKind {
    Ntfy,
    Webhook,
}

impl PushKind {
    pub const ALL: [Self; 2] = [Self::Ntfy, Self::Webhook];

    pub fn parse(text: &str) -> Option<Self> {
        match text {
            "ntfy" => Some(Self::Ntfy),
            "webhook" => Some(Self::Webhook),
            _ => None,
        }
    }

    fn name(self) -> &'static str {
        match self {
            Self::Ntfy => "ntfy",
            Self::Webhook => "webhook",
        }
    }

    pub fn channel(self, reach: &Reach) -> &PushChannel {
        match self {
            Self::Ntfy => &reach.ntfy,
            Self::Webhook => &reach.webhook,
        }
    }
}

/// What one delivery came to: the receiver's HTTP status, or why there was none.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct PushOutcome {
    /// A 2xx answer.
    pub ok: bool,
    pub status: Option<u16>,
    /// Why it failed (the connection, the deadline, a refusal), in words.
    pub error: Option<String>,
    pub attempts: u32,
}

/// How deliveries are paced, and the clock quiet hours read.
#[derive(Clone)]
pub struct PushOptions {
    /// One attempt's deadline: connecting, sending and reading the answer.
    pub attempt_timeout: Duration,
    /// The wait before the second attempt; doubled before the third.
    pub backoff: Duration,
    /// The minute of the local day now (quiet hours are local time).
    pub local_minute: fn() -> u16,
    /// This machine's name, for the `host` of its own sessions.
    pub host: String,
}

impl Default for PushOptions {
    fn default() -> Self {
        Self {
            attempt_timeout: Duration::from_secs(5),
            backoff: Duration::from_secs(1),
            local_minute: crate::clock::local_minute,
            host: crate::clock::host_name(),
        }
    }
}

/// The push channels of a running instance.
pub struct Push {
    reach: Mutex<Reach>,
    outboxes: [Arc<Outbox>; 2],
    options: PushOptions,
    /// Answering from the phone (issue 49): the buttons of an ntfy message.
    phone: std::sync::OnceLock<Arc<dyn ButtonSource>>,
}

/// What puts buttons on ntfy messages — answering from the phone (issue 49), which acts on the
/// agents and so stands above push: push knows it only by this.
pub trait ButtonSource: Send + Sync {
    /// The buttons for a push about `session`, or why it has none.
    fn buttons(&self, session: &Session, include_text: bool) -> Buttons;
    /// The reach settings changed (the switch, the reply topic, its token).
    fn set_reach(&self, reach: Reach);
}

impl Push {
    /// Starts a sender per channel; nothing is sent until the settings turn a channel on.
    pub fn start(reach: Reach, options: PushOptions) -> Arc<Self> {
        let outboxes = PushKind::ALL.map(|kind| Outbox::start(kind, options.clone()));
        Arc::new(Self { reach: Mutex::new(reach), outboxes, options, phone: std::sync::OnceLock::new() })
    }

    /// Ntfy messages carry the phone's buttons from now on (while its switch is on).
    pub fn set_phone(&self, phone: Arc<dyn ButtonSource>) {
        let _ = self.phone.set(phone);
    }

    /// What follows the hub's updates for it, on the observers' thread (`hub::follow`): each
    /// session that newly needs the user is pushed (after the same
    /// [`crate::instance::outputs::notifier::FINISHED_CONFIRM`] wait as the OS notification for
    /// a CLI whose turn end can hide an Esc). Queueing a push never blocks.
    pub fn follower(self: &Arc<Self>) -> Box<dyn Follower> {
        let push = Arc::clone(self);
        Box::new(Held::new(needs_you, move |session: &Session| push.needs_you(session)))
    }

    /// Follows the hub's updates on a thread of its own (tests; the instance shares one).
    #[cfg(test)]
    pub fn follow(self: &Arc<Self>, updates: crate::instance::hub::mailbox::Updates) {
        together("push-updates", Priority::Background, updates, vec![self.follower()]);
    }

    pub fn set_reach(&self, reach: Reach) {
        if let Some(phone) = self.phone.get() {
            phone.set_reach(reach.clone());
        }
        *self.lock() = reach;
    }

    /// What came of a tap on the phone (issue 49), to the ntfy channel, now — quiet hours or not:
    /// the user just tapped. `about`: what the tap was for, when it is known.
    pub fn follow_up(&self, said: &str, about: Option<&str>) {
        let channel = self.lock().ntfy.clone();
        if !channel.active() {
            return;
        }
        let title = format!("Switchboard: {said}");
        let body = about.map_or_else(|| said.to_owned(), |about| format!("{said}\n{about}"));
        let request = Request::Ntfy { title, body, tags: "iphone", priority: "default", actions: None };
        self.outboxes[0].queue(Delivery { url: channel.url.clone(), request });
    }

    fn lock(&self) -> MutexGuard<'_, Reach> {
        self.reach.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Queues a message per channel that is on, unless it is quiet hours; never blocks.
    pub fn needs_you(&self, session: &Session) {
        // The channels that are on, copied under the lock: with none (most boards), a change
        // costs no copy and no look at the clock.
        let (channels, quiet_hours) = {
            let reach = self.lock();
            let channels: Vec<_> = PushKind::ALL
                .into_iter()
                .zip(&self.outboxes)
                .filter_map(|(kind, outbox)| {
                    let channel = kind.channel(&reach);
                    channel.active().then(|| (kind, outbox, channel.clone()))
                })
                .collect();
            if channels.is_empty() {
                return;
            }
            (channels, reach.quiet_hours.clone())
        };
        if quiet_hours.covers((self.options.local_minute)()) {
            return;
        }
        for (kind, outbox, channel) in channels {
            let mut message = Message::of(session, channel.include_text, &self.options.host);
            if let (PushKind::Ntfy, Some(phone)) = (kind, self.phone.get()) {
                message.buttons = phone.buttons(session, channel.include_text);
            }
            outbox.queue(Delivery { url: channel.url, request: message.request(kind) });
        }
    }

    /// Sends one test message through `channel` now (one attempt) and says what came of it.
    pub fn test(&self, kind: PushKind, channel: &PushChannel) -> PushOutcome {
        send_test(kind, channel, &self.options)
    }

    /// Whether the board's tone sounds for this change now ([`chimes`], local time).
    pub fn chime(&self, change: &Change) -> bool {
        chimes(&self.lock(), change, (self.options.local_minute)())
    }

    /// The saved channel of that kind.
    pub fn channel(&self, kind: PushKind) -> PushChannel {
        kind.channel(&self.lock()).clone()
    }
}

/// One test message through `channel`, at once, one attempt.
pub fn send_test(kind: PushKind, channel: &PushChannel, options: &PushOptions) -> PushOutcome {
    if let Some(problem) = PushChannel::url_problem(&channel.url) {
        return PushOutcome { ok: false, status: None, error: Some(problem), attempts: 0 };
    }
    let message = Message::test(channel.include_text, &options.host);
    let delivery = Delivery { url: channel.url.trim().to_owned(), request: message.request(kind) };
    attempt(&client(options.attempt_timeout), &delivery, 1)
}

/// The board's tone (issue 25), decided here once: a session that has just come to need the user
/// ([`needs_you`]), in a status the user chose a tone for, outside quiet hours at `minute`.
pub fn chimes(reach: &Reach, change: &Change, minute: u16) -> bool {
    let chosen = |status: &String| AgentStatus::parse(status) == change.session.status;
    needs_you(change) && reach.sound.iter().any(chosen) && !reach.quiet_hours.covers(minute)
}

/// The push rule: the notify policy with the window taken as unfocused — a session that has just
/// come to need the user (not one that needed them already, not an interrupt the user made).
pub fn needs_you(change: &Change) -> bool {
    let session = &change.session;
    change.notify
        || session.status.is_some_and(|next| {
            !session.interrupted
                && should_notify(change.previous, next, NotifyContext { known_session: true, window_focused: false })
        })
}

/// What a message says; the `Option`s only with the privacy switch on.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Message {
    pub version: u32,
    /// The first characters of the session's id (the remote's own, for a remote session).
    pub session: String,
    pub agent: String,
    pub status: String,
    /// "needs permission", "has a question", "finished", "failed".
    pub reason: String,
    /// The machine the agent runs on.
    pub host: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub project: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// The question, the command waiting for permission, or the last message.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cwd: Option<String>,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub test: bool,
    /// The phone's buttons (ntfy only), or why there are none.
    #[serde(skip)]
    pub buttons: Buttons,
}

impl Message {
    pub fn of(session: &Session, include_text: bool, this_host: &str) -> Self {
        let local_id = session.session_id.strip_prefix(&format!("{}:", session.host)).unwrap_or(&session.session_id);
        let host = if session.is_local() { this_host.to_owned() } else { session.host.clone() };
        let words = include_text.then(|| notification_text(session)).flatten();
        Self {
            version: 1,
            session: switchboard_core::view::short_id(local_id),
            agent: session.agent.clone(),
            status: session.status.map(|s| format!("{s:?}").to_lowercase()).unwrap_or_default(),
            reason: switchboard_core::view::reason(session).unwrap_or("needs you").to_owned(),
            host,
            session_id: include_text.then(|| session.session_id.clone()),
            project: include_text
                .then(|| session.cwd.as_deref().and_then(switchboard_core::view::last_folder))
                .flatten(),
            title: include_text.then(|| session.title.clone()).flatten(),
            text: words.map(|words| words.body).filter(|body| !body.is_empty()),
            cwd: include_text.then(|| session.cwd.clone()).flatten(),
            test: false,
            buttons: Buttons::default(),
        }
    }

    fn test(include_text: bool, host: &str) -> Self {
        Self {
            version: 1,
            session: "test".into(),
            agent: "switchboard".into(),
            status: "waiting".into(),
            reason: "test message".into(),
            host: host.to_owned(),
            session_id: None,
            project: None,
            title: None,
            text: include_text.then(|| "Test message from Switchboard: the session's words would be here.".into()),
            cwd: None,
            test: true,
            buttons: Buttons::default(),
        }
    }

    fn agent_name(&self) -> String {
        switchboard_core::agent(&self.agent).map_or_else(|| self.agent.clone(), |agent| agent.name.to_owned())
    }

    fn request(&self, kind: PushKind) -> Request {
        match kind {
            PushKind::Webhook => Request::Webhook { json: serde_json::to_vec(self).unwrap_or_default() },
            PushKind::Ntfy => {
                let who = self.title.clone().unwrap_or_else(|| self.agent_name());
                let title = if self.test { "Switchboard test".to_owned() } else { format!("{who} {}", self.reason) };
                let mut body = String::new();
                if let Some(text) = &self.text {
                    body.push_str(&switchboard_core::view::clip(text, TEXT_CHARS));
                    body.push('\n');
                }
                let project = self.project.as_deref().map(|p| format!(" · {p}")).unwrap_or_default();
                body.push_str(&format!(
                    "{} {} on {}{project} · session {}",
                    self.agent_name(),
                    self.status,
                    self.host,
                    self.session
                ));
                if let Some(note) = &self.buttons.note {
                    body.push('\n');
                    body.push_str(note);
                }
                let (tags, priority) = match self.status.as_str() {
                    "blocked" => ("lock", "high"),
                    "waiting" => ("question", "high"),
                    _ if self.reason == "failed" => ("warning", "default"),
                    _ => ("white_check_mark", "default"),
                };
                Request::Ntfy { title, body, tags, priority, actions: ntfy_actions(&self.buttons.actions) }
            }
        }
    }
}

enum Request {
    Ntfy { title: String, body: String, tags: &'static str, priority: &'static str, actions: Option<String> },
    Webhook { json: Vec<u8> },
}

struct Delivery {
    url: String,
    request: Request,
}

/// One channel's waiting messages and the thread that sends them, one at a time.
struct Outbox {
    kind: PushKind,
    waiting: Mutex<VecDeque<Delivery>>,
    ready: Condvar,
}

impl Outbox {
    fn start(kind: PushKind, options: PushOptions) -> Arc<Self> {
        let outbox = Arc::new(Self { kind, waiting: Mutex::new(VecDeque::new()), ready: Condvar::new() });
        let sender = Arc::clone(&outbox);
        let spawned = std::thread::Builder::new().name(format!("push-{}", kind.name())).spawn(move || {
            let client = client(options.attempt_timeout);
            loop {
                let delivery = sender.next();
                let sent = deliver(&client, &delivery, options.backoff);
                if !sent.ok {
                    tracing::warn!(channel = kind.name(), status = ?sent.status, error = ?sent.error, attempts = sent.attempts, "push not delivered");
                }
            }
        });
        if let Err(error) = spawned {
            tracing::warn!(%error, "cannot start the push sender");
        }
        outbox
    }

    fn lock(&self) -> MutexGuard<'_, VecDeque<Delivery>> {
        self.waiting.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn queue(&self, delivery: Delivery) {
        let mut waiting = self.lock();
        if waiting.len() >= OUTBOX {
            waiting.pop_front();
            tracing::warn!(channel = self.kind.name(), "push outbox full; dropped the oldest message");
        }
        waiting.push_back(delivery);
        self.ready.notify_one();
    }

    fn next(&self) -> Delivery {
        let mut waiting = self.lock();
        loop {
            if let Some(delivery) = waiting.pop_front() {
                return delivery;
            }
            waiting = self.ready.wait(waiting).unwrap_or_else(PoisonError::into_inner);
        }
    }
}

/// What a push-test request is answered with when the channel name is wrong.
pub fn unknown_channel(text: &str) -> String {
    format!("`{text}` is not a push channel: use ntfy or webhook")
}

mod actions;
mod send;
#[cfg(test)]
mod tests;

pub use actions::{ntfy_actions, Action, Buttons};
use send::{attempt, client, deliver};
#[cfg(test)]
use send::{base64, header_text};
