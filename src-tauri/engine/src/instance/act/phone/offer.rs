//! Which buttons a push gets: what the board itself would answer, by the same rules.

use sha2::{Digest, Sha256};
use switchboard_core::{AgentStatus, Millis, Session};

use super::token::{Request, TapError, Target};
use super::MOST_BUTTONS;

/// The answer of the "Open on desk" button: nothing is given to the agent.
pub const DESK: &str = "desk";
use crate::instance::act::answer;

/// What the phone could answer for a session that needs the user.
#[derive(Debug, PartialEq, Eq)]
pub struct Offer {
    pub target: Target,
    /// Each button: its label and its answer (`allow`, `deny`, `option:N`).
    pub choices: Vec<(String, String)>,
    pub note: Option<String>,
}

/// What the board itself would answer for this session — `None` when it asks nothing; an error
/// with the board's reason when it could not. Without `words` (the push's privacy switch off), a
/// question's buttons say only the options' numbers: their words stay on the desk.
pub fn offer(session: &Session, words: bool) -> Option<Result<Offer, String>> {
    let cli = switchboard_core::agent(&session.agent);
    let name = cli.map_or(session.agent.as_str(), |cli| cli.name);
    match session.status? {
        AgentStatus::Blocked if session.awaiting_input => None,
        AgentStatus::Blocked => Some(match session.decision {
            Some(id) => Ok(Offer {
                target: Target::Hold(id),
                choices: vec![("Allow".into(), "allow".into()), ("Deny".into(), "deny".into())],
                note: None,
            }),
            None => Err(match cli.and_then(|cli| cli.why_not_decided) {
                Some(why) => format!("{name}: {why}"),
                None => {
                    format!("Allow / Deny from Switchboard is off for {name} (or its wait ended): answer at the desk")
                }
            }),
        }),
        AgentStatus::Waiting if session.awaiting_input => {
            let Some(question) = session.questions.first() else {
                return Some(Err("its question has no options to tap: answer at the desk".into()));
            };
            if let Err(why) = answer::can_pick(session, 1) {
                return Some(Err(why.to_string()));
            }
            let count = question.options.len();
            let shown = if count > MOST_BUTTONS { MOST_BUTTONS - 1 } else { count };
            let name = |n: usize| if words { label(&question.options[n - 1].label, n) } else { format!("Option {n}") };
            let mut choices: Vec<(String, String)> = (1..=shown).map(|n| (name(n), format!("option:{n}"))).collect();
            if count > shown {
                choices.push(("Open on desk".into(), DESK.into()));
            }
            let mut notes = Vec::new();
            if count > shown {
                notes.push(format!("Options {}–{count}: open on desk", shown + 1));
            }
            if !words {
                notes.push("Options by number: their words stay on the desk".to_owned());
            }
            let note = (!notes.is_empty()).then(|| notes.join(". "));
            Some(Ok(Offer { target: Target::Question(fingerprint(session)), choices, note }))
        }
        _ => None,
    }
}

/// A button's label: the option's own words on one line, clipped; its number when it has none.
fn label(text: &str, n: usize) -> String {
    let text = crate::text::printable_line(text).replace('\\', "/");
    let text = switchboard_core::view::clip(text.trim(), 40);
    if text.is_empty() {
        format!("Option {n}")
    } else {
        text
    }
}

/// Which question this is: its words and options, and when the session came to ask it.
pub(super) fn fingerprint(session: &Session) -> String {
    let mut hash = Sha256::new();
    hash.update(session.status_changed_at.unwrap_or_default().to_be_bytes());
    for question in &session.questions {
        hash.update(question.question.as_bytes());
        hash.update([0]);
        for option in &question.options {
            hash.update(option.label.as_bytes());
            hash.update([1]);
        }
    }
    hash.finalize().iter().take(12).map(|b| format!("{b:02x}")).collect()
}

/// What a follow-up names: the tool and its command (or the question) with the words on; the
/// agent and a short id without them.
pub(super) fn what(session: &Session, include_text: bool) -> String {
    let agent = switchboard_core::agent(&session.agent).map_or(session.agent.as_str(), |cli| cli.name);
    let short = switchboard_core::view::short_id(session.session_id.rsplit(':').next().unwrap_or_default());
    let words = match (&session.tool, &session.command, session.questions.first()) {
        _ if !include_text => None,
        (_, _, Some(question)) if session.status == Some(AgentStatus::Waiting) => Some(question.question.clone()),
        (Some(tool), Some(command), _) => Some(format!("{tool}: {command}")),
        (Some(tool), None, _) => Some(session.message.as_ref().map_or(tool.clone(), |m| format!("{tool}: {m}"))),
        _ => None,
    };
    match words {
        Some(words) => switchboard_core::view::clip(&crate::text::printable_line(&words), 120),
        None => format!("{agent} · session {short}"),
    }
}

/// Whether the request is the one on screen now: the same hold, or the same question still
/// asked — else it closed (answered at the desk, timed out, moved on) or changed.
pub fn current(session: Option<&Session>, request: &Request, now: Millis) -> Result<(), TapError> {
    let Some(session) = session else { return Err(TapError::Closed) };
    match &request.target {
        // Its wait ran out (the hold may end a moment after): the CLI asks in its own terminal.
        Target::Hold(_) if session.decision_until.is_some_and(|until| until <= now) => Err(TapError::Expired),
        Target::Hold(id) => match session.decision {
            Some(now) if now == *id => Ok(()),
            Some(_) => Err(TapError::Changed),
            // Its wait ran out unanswered: the CLI asks in its own terminal now.
            None if session.status == Some(AgentStatus::Blocked) && session.decision_until.is_some() => {
                Err(TapError::Expired)
            }
            None => Err(TapError::Closed),
        },
        Target::Question(print) => {
            let asking = session.status == Some(AgentStatus::Waiting) && session.awaiting_input;
            match asking && !session.questions.is_empty() {
                false => Err(TapError::Closed),
                true if fingerprint(session) == *print => Ok(()),
                true => Err(TapError::Changed),
            }
        }
    }
}
