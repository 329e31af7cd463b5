//! Answer from the phone (issue 49): a push the board itself could answer carries ntfy `http`
//! action buttons — Allow and Deny for a held permission, the options of a question — and the
//! phone, when one is tapped, posts the button's body to a second ntfy topic on the same server
//! (the reply topic). The instance keeps one subscription to it (`listen`), so no port is opened.
//!
//! A tap is applied only when it is genuine, fresh and for what is on screen now: its token must
//! be this instance's signature ([`token`]), unexpired and unspent, for a request it issued; the
//! session must still ask that very question or hold that very permission. Then it goes through
//! the same door as the board's own Allow / Deny ([`Decisions::answer_anywhere`]) or option
//! ([`answer::give`]) — a remote's session down its link — with the same refusals. Every tap gets
//! a follow-up push saying what came of it.
//!
//! More than three options: the first two are buttons (ntfy shows three at most), the third is
//! "Open on desk" — it gives the agent nothing, clears the notification and says the question
//! waits on the desk — and the message names the options left there. Without the privacy switch's words, the buttons carry only ids and
//! tokens, and the follow-ups only the agent and a short session id.

pub mod listen;
mod offer;
#[cfg(test)]
mod scenarios;
#[cfg(test)]
mod standin;
#[cfg(test)]
mod tests;
pub mod token;

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use serde::Serialize;
use switchboard_core::Session;

use self::offer::what;
pub use self::offer::{current, offer, Offer};
use self::token::{Key, Ledger, Request, Tap, TapError, Target};
use crate::instance::act::answer::{self, Answer, AnswerError, GiveError};
use crate::instance::act::decide::{DecideError, Decisions};
use crate::instance::hub::{Hub, Input, Inputs};
use crate::instance::outputs::push::{Action, ButtonSource, Buttons, Push};
use crate::instance::settings::Reach;
use crate::protocol::Verdict;

/// Follow-ups a minute, at most, about taps this instance never signed.
pub const UNSIGNED_FOLLOW_UPS: usize = 3;
/// Buttons on one message, at most (ntfy's limit).
pub const MOST_BUTTONS: usize = 3;

/// How long buttons work, and how the subscription is paced.
#[derive(Clone, Debug)]
pub struct PhoneOptions {
    /// A token's life.
    pub lifetime: Duration,
    /// The first wait before subscribing again; doubled after each failure up to `most_wait`.
    pub retry: Duration,
    pub most_wait: Duration,
    /// One subscription's longest life: then it resumes with `since=` (a link that died silently
    /// in a sleep is noticed by then at the latest).
    pub span: Duration,
}

impl Default for PhoneOptions {
    fn default() -> Self {
        Self {
            lifetime: Duration::from_secs(30 * 60),
            retry: Duration::from_millis(250),
            most_wait: Duration::from_secs(60),
            span: Duration::from_secs(5 * 60),
        }
    }
}

/// The subscription and the taps, for Diagnostics.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct PhoneState {
    /// Answering from the phone is on (and can work: an ntfy channel, a reply topic).
    pub on: bool,
    pub connected: bool,
    /// The last message id seen on the reply topic: where a new subscription resumes.
    pub since: Option<String>,
    pub subscriptions: u32,
    /// Why the last subscription failed or ended.
    pub error: Option<String>,
    pub applied: u32,
    pub refused: u32,
    /// What came of the last tap.
    pub last: Option<String>,
}

/// What answers taps: the issued requests, the subscription's settings and state, and the doors
/// a tap goes through.
pub struct Phone {
    ledger: Mutex<Ledger>,
    reach: Mutex<Reach>,
    changed: Condvar,
    generation: AtomicU64,
    stopped: std::sync::atomic::AtomicBool,
    state: Mutex<PhoneState>,
    /// When the latest follow-ups about taps this instance never signed went out: anyone who
    /// learns the reply topic can post to it, and must not turn that into a flood of pushes.
    unsigned_said: Mutex<std::collections::VecDeque<std::time::Instant>>,
    hub: Arc<Hub>,
    inputs: Inputs,
    decisions: Arc<Decisions>,
    runtime: tokio::runtime::Handle,
    push: Arc<Push>,
    options: PhoneOptions,
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Phone {
    /// Ready to answer taps; the subscription runs (on its own thread) while the settings say so,
    /// and `push` asks it for buttons. Call inside the instance's runtime.
    pub fn start(
        key: Key,
        reach: Reach,
        hub: Arc<Hub>,
        inputs: Inputs,
        decisions: Arc<Decisions>,
        push: Arc<Push>,
        options: PhoneOptions,
    ) -> Arc<Self> {
        let phone = Arc::new(Self {
            ledger: Mutex::new(Ledger::new(key)),
            reach: Mutex::new(reach),
            changed: Condvar::new(),
            generation: AtomicU64::new(0),
            stopped: std::sync::atomic::AtomicBool::new(false),
            state: Mutex::new(PhoneState::default()),
            unsigned_said: Mutex::new(std::collections::VecDeque::new()),
            hub,
            inputs,
            decisions,
            runtime: tokio::runtime::Handle::current(),
            push: Arc::clone(&push),
            options,
        });
        push.set_phone(Arc::clone(&phone) as Arc<dyn ButtonSource>);
        listen::start(Arc::clone(&phone));
        phone
    }

    pub fn set_reach(&self, reach: Reach) {
        let mut saved = lock(&self.reach);
        if saved.reply_url() != reach.reply_url() || saved.reply_token != reach.reply_token {
            self.generation.fetch_add(1, Ordering::SeqCst);
        }
        *saved = reach;
        self.changed.notify_all();
    }

    /// Ends the subscription (at its next line or its span at the latest) for good.
    pub fn stop(&self) {
        let _reach = lock(&self.reach);
        self.stopped.store(true, Ordering::SeqCst);
        self.generation.fetch_add(1, Ordering::SeqCst);
        self.changed.notify_all();
    }

    pub fn state(&self) -> PhoneState {
        PhoneState { on: lock(&self.reach).reply_url().is_some(), ..lock(&self.state).clone() }
    }

    fn note_state(&self, change: impl FnOnce(&mut PhoneState)) {
        change(&mut lock(&self.state));
    }

    /// The buttons for a push about `session`: none while the switch is off or the session asks
    /// nothing; none and the reason where the board could not answer it.
    pub fn buttons(&self, session: &Session, include_text: bool) -> Buttons {
        let reach = lock(&self.reach).clone();
        let Some(url) = reach.reply_url() else { return Buttons::default() };
        let offer = match offer(session, include_text) {
            None => return Buttons::default(),
            Some(Err(why)) => return Buttons { actions: Vec::new(), note: Some(format!("No buttons: {why}")) },
            Some(Ok(offer)) => offer,
        };
        let now = crate::clock::now_millis();
        let expires = now.saturating_add(self.options.lifetime.as_millis() as u64);
        let what = what(session, include_text);
        let request = Request { session_id: session.session_id.clone(), target: offer.target, what, expires };
        let answers: Vec<&str> = offer.choices.iter().map(|(_, answer)| answer.as_str()).collect();
        let taps = lock(&self.ledger).issue(request, &answers, now);
        let authorization = (!reach.reply_token.is_empty()).then(|| format!("Bearer {}", reach.reply_token));
        let actions = offer
            .choices
            .iter()
            .zip(taps)
            .map(|((label, _), tap)| Action {
                label: label.clone(),
                url: url.clone(),
                authorization: authorization.clone(),
                body: serde_json::to_string(&tap).unwrap_or_default(),
            })
            .collect();
        Buttons { actions, note: offer.note }
    }

    /// Applies one message of the reply topic: a tap, verified, through the board's own door;
    /// a follow-up push says what came of it. Anything that is not a tap is ignored.
    pub fn take(&self, message: &str) {
        let Ok(tap) = serde_json::from_str::<Tap>(message.trim()) else {
            tracing::debug!("a message on the reply topic that is not a tap; ignored");
            return;
        };
        let what = lock(&self.ledger).what(&tap.request);
        match self.apply(&tap) {
            Ok(said) => {
                tracing::info!(request = %tap.request, "{said}");
                self.note_state(|state| {
                    state.applied += 1;
                    state.last = Some(said.clone());
                });
                self.push.follow_up(&said, None);
            }
            Err(refused) => {
                tracing::info!(request = %tap.request, %refused, "a tap from phone was refused");
                self.note_state(|state| {
                    state.refused += 1;
                    state.last = Some(refused.to_string());
                });
                if self.may_say(&refused) {
                    self.push.follow_up(&refused.to_string(), what.as_deref());
                }
            }
        }
    }

    /// Whether a refusal gets its follow-up: always for a tap this instance signed; for a forged
    /// or unknown one, at most [`UNSIGNED_FOLLOW_UPS`] a minute.
    fn may_say(&self, refused: &TapError) -> bool {
        if !matches!(refused, TapError::Tampered | TapError::Unknown) {
            return true;
        }
        let mut said = lock(&self.unsigned_said);
        let now = std::time::Instant::now();
        said.retain(|at| now.duration_since(*at) < Duration::from_secs(60));
        if said.len() >= UNSIGNED_FOLLOW_UPS {
            return false;
        }
        said.push_back(now);
        true
    }

    /// The tap verified and applied: what was done, in words; or why not (nothing done then).
    pub fn apply(&self, tap: &Tap) -> Result<String, TapError> {
        let now = crate::clock::now_millis();
        let request = lock(&self.ledger).verify(tap, now)?;
        let session = self.hub.session(&request.session_id);
        current(session.as_ref(), &request, now)?;
        let session = session.ok_or(TapError::Closed)?;
        let said = match (&request.target, tap.answer.as_str()) {
            (Target::Hold(id), verdict @ ("allow" | "deny")) => {
                let (verdict, verb) =
                    if verdict == "allow" { (Verdict::Allow, "Allowed") } else { (Verdict::Deny, "Denied") };
                self.decisions.answer_anywhere(&session.host, &session.session_id, *id, verdict).map_err(
                    |e| match e {
                        // The hold ended as its wait ran out, a moment before the session said so.
                        DecideError::NotWaiting
                            if current(Some(&session), &request, crate::clock::now_millis()).is_err() =>
                        {
                            TapError::Expired
                        }
                        DecideError::NotWaiting => TapError::Closed,
                        other => TapError::Refused(other.to_string()),
                    },
                )?;
                format!("{verb} from phone — {}", request.what)
            }
            (Target::Question(_), offer::DESK) => {
                return Ok(format!("Left for the desk — {}", request.what));
            }
            (Target::Question(_), answer) => {
                let n = answer.strip_prefix("option:").and_then(|n| n.parse().ok()).ok_or(TapError::Tampered)?;
                let given =
                    answer::give(&self.hub, &self.inputs, &self.decisions, &session.session_id, Answer::Option(n));
                self.runtime.block_on(given).map_err(|e| match e {
                    GiveError::Unknown(_) | GiveError::Refused(AnswerError::NotAsking) => TapError::Closed,
                    other => TapError::Refused(other.to_string()),
                })?;
                format!("Answered from phone — option {n} · {}", request.what)
            }
            _ => return Err(TapError::Tampered),
        };
        // The follow-up says it is done once the session's history shows it.
        let at = crate::clock::now_millis();
        let session_id = session.session_id.clone();
        self.inputs.ask_blocking(|reply| Input::Answered { session_id, said: said.clone(), at, reply });
        Ok(said)
    }
}

impl ButtonSource for Phone {
    fn buttons(&self, session: &Session, include_text: bool) -> Buttons {
        Phone::buttons(self, session, include_text)
    }

    fn set_reach(&self, reach: Reach) {
        Phone::set_reach(self, reach);
    }
}

impl Phone {
    /// Waits until answering from the phone is on; its settings and their generation. `None`
    /// once stopped.
    fn wait_until_on(&self) -> Option<(Reach, u64)> {
        let mut reach = lock(&self.reach);
        loop {
            if self.stopped.load(Ordering::SeqCst) {
                return None;
            }
            if reach.reply_url().is_some() {
                return Some((reach.clone(), self.generation.load(Ordering::SeqCst)));
            }
            reach = self.changed.wait(reach).unwrap_or_else(PoisonError::into_inner);
        }
    }

    /// Waits `wait`, or less if the settings change.
    fn pause(&self, wait: Duration, generation: u64) {
        let reach = lock(&self.reach);
        let _ = self
            .changed
            .wait_timeout_while(reach, wait, |_| self.generation.load(Ordering::SeqCst) == generation)
            .unwrap_or_else(PoisonError::into_inner);
    }

    fn generation(&self) -> u64 {
        self.generation.load(Ordering::SeqCst)
    }
}
