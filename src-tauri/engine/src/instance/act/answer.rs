//! Answering an agent from the board (issue 24): an option of its question, or a reply (its next
//! prompt), typed into the tmux pane that shows that session — only once the pane is proven to
//! (the tie, [`crate::terminal::tie`], by its CLI's rule). Anything that cannot be tied is refused
//! with the reason (and the board offers Jump instead): a key typed into the wrong agent is worse
//! than none.
//!
//! Typed is not sent (issue 33): a reply counts once the CLI's own next event says it took it
//! (a new turn), an option once its question closes; until then the caller waits, and past
//! [`confirm_within`] it is refused as "not taken", with what its composer still shows.
//!
//! A CLI whose decision hook can carry its question tool's answers (Claude Code: the held
//! PermissionRequest answers AskUserQuestion with `updatedInput.answers`) is answered through
//! that hook instead — in any terminal, nothing typed, a written answer too; its own dialog,
//! drawn meanwhile, closes. Only while the question is held for the board (Allow / Deny on).
//!
//! What is typed: the option's number alone (in most CLIs' question dialogs the key `2` answers
//! option 2 at once), or — on a form that picks with ↑/↓ from wherever its cursor is (Copilot
//! CLI's, issue 48) — the arrows from the cursor's line to the option's, read off the screen,
//! and Enter once the cursor is seen there ([`crate::terminal::form`]); or the reply's text as
//! literal keys (newlines made spaces, at most [`MAX_REPLY`] characters) and, once drawn, Enter
//! ([`crate::terminal::typing`]).

use std::sync::Arc;
use std::time::Duration;

use serde::Serialize;
use switchboard_core::{AgentStatus, Millis, Session};

use crate::instance::act::decide::Decisions;
use crate::instance::hub::{Hub, Input, Inputs};
use crate::terminal::app_server::{self, DoorError};
use crate::terminal::{form, tie, tmux, typing, TieError};

/// The longest reply typed (characters).
pub const MAX_REPLY: usize = 4_000;
/// What the user answers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Answer {
    /// Option `n` (from 1) of the question on screen.
    Option(usize),
    /// A written answer to the question on screen (only through the CLI's hook).
    Text(String),
    /// The agent's next prompt (a done or idle agent).
    Reply(String),
}

/// Why an answer was not typed.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum AnswerError {
    #[error("it asks nothing now (answered at the terminal already, or the turn moved on)")]
    NotAsking,
    #[error("it has {0} options; there is no option {1}")]
    NoSuchOption(usize, usize),
    #[error("its question takes several choices: answer it in its terminal (Jump)")]
    SeveralChoices,
    #[error("{0}'s question picks with the arrow keys from wherever its cursor is, not by number, so Switchboard does not type it: answer it in its terminal (Jump)")]
    OptionsByArrows(&'static str),
    #[error("it is {0}: a reply waits until it is done or waiting for you")]
    Busy(&'static str),
    #[error("its question is on screen: choose an option instead of replying")]
    QuestionOnScreen,
    #[error("the reply is empty")]
    Empty,
    #[error("a written answer goes through the CLI's hook, which does not hold this question (Claude Code with Allow / Deny on does): choose an option, or answer in its terminal (Jump)")]
    TextNeedsHook,
    #[error("{0} is another machine's agent, and it is not followed from here")]
    Remote(String),
    #[error("{0}")]
    RemoteRefused(String),
    #[error("it runs on {0}: its screen is read there (`switchboard peek` on {0})")]
    RemoteScreen(String),
    #[error("it runs in the background, with no terminal of its own: `{0}` opens it in one")]
    Background(String),
    #[error(transparent)]
    Untied(#[from] TieError),
    #[error(transparent)]
    Typing(#[from] typing::TypingError),
    #[error(transparent)]
    Form(#[from] form::FormError),
    #[error(transparent)]
    Door(#[from] DoorError),
    /// Typed, but the CLI's next event never said it took it.
    #[error("{how}, but {cli} did not take it within {seconds} s (no new turn): {left}")]
    NotTaken { how: String, cli: &'static str, seconds: u64, left: String },
}

/// What was typed, and where.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, serde::Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct Delivered {
    /// The pane typed into; empty when answered through the hook.
    pub pane: String,
    /// The keys as the user would read them (`2`, or the reply's text), or the answer given.
    pub typed: String,
    /// Answered through the CLI's own hook (nothing typed).
    pub through_hook: bool,
    /// Given through the daemon that serves the session, in the CLI's own protocol (nothing
    /// typed; Codex's app-server, issue 48). Absent from older boxes' answers.
    #[serde(default)]
    pub through_daemon: bool,
}

/// The history entry for an answer typed into this machine's pane (one given through the hook is
/// in the history already, as the message of its `working`; a remote's is in its box's): what was
/// typed where, and — `taken_by` — the CLI that took it; without it, the caller says why not.
pub fn history_line(session: &Session, answer: &Answer, delivered: &Delivered, taken_by: Option<&str>) -> String {
    let how = match delivered.through_daemon {
        true => format!("sent through {}'s daemon", row_of(session).short_name),
        false => format!("typed into pane {}", delivered.pane),
    };
    let what = match answer {
        Answer::Option(n) => {
            let label = session.questions.first().and_then(|q| q.options.get(n.checked_sub(1)?)).map(|o| &o.label);
            match label {
                Some(label) => format!("Answered from Switchboard: {n} ({label}), {how}"),
                None => format!("Answered from Switchboard: {n}, {how}"),
            }
        }
        Answer::Text(_) | Answer::Reply(_) => {
            format!("Replied from Switchboard: {}, {how}", clip_line(&delivered.typed))
        }
    };
    match taken_by {
        Some(cli) => format!("{what}; {cli} took it"),
        None => what,
    }
}

fn clip_line(text: &str) -> String {
    const MOST: usize = 200;
    if text.chars().count() <= MOST {
        return text.to_owned();
    }
    text.chars().take(MOST - 1).collect::<String>() + "…"
}

/// Delivers `answer`: through the CLI's own hook when it holds the question for the board, else
/// typed into the session's tied tmux pane.
pub fn deliver_with(decisions: &Decisions, session: &Session, answer: &Answer) -> Result<Delivered, AnswerError> {
    if !session.is_local() {
        return through_link(decisions, session, answer);
    }
    match through_hook(decisions, session, answer) {
        Some(result) => result,
        None => deliver(session, answer),
    }
}

/// A remote's session: the answer goes down its link, and its box delivers it as it would its
/// own (through the hook, or typed into the agent's tied pane there) — or says why not.
fn through_link(decisions: &Decisions, session: &Session, answer: &Answer) -> Result<Delivered, AnswerError> {
    use crate::protocol::link::Said;
    let said = match answer {
        Answer::Option(n) => Said::Option(*n),
        Answer::Text(text) => Said::Text(text.clone()),
        Answer::Reply(text) => Said::Reply(text.clone()),
    };
    let remotes = decisions.remotes().ok_or_else(|| AnswerError::Remote(session.host.clone()))?;
    match remotes.answer(&session.host, &session.session_id, said) {
        None => Err(AnswerError::Remote(session.host.clone())),
        Some(Err(refused)) => Err(AnswerError::RemoteRefused(refused.to_string())),
        Some(Ok(delivered)) => serde_json::from_value(delivered).map_err(|_| {
            AnswerError::RemoteRefused(format!("{} answered something this version cannot read", session.host))
        }),
    }
}

/// The answer given through the held question's hook, or `None` when it is not held (or it is
/// not an answer to a question).
fn through_hook(decisions: &Decisions, session: &Session, answer: &Answer) -> Option<Result<Delivered, AnswerError>> {
    let id = session.decision?;
    let held = session.is_local()
        && session.status == Some(AgentStatus::Waiting)
        && session.awaiting_input
        && switchboard_core::agent(&session.agent).is_some_and(|agent| agent.answers_in_hook);
    let question = session.questions.first().filter(|_| held)?;
    let given = match answer {
        Answer::Reply(_) => return None,
        Answer::Option(n) => match keys_for(session, answer) {
            Ok(_) => question.options[*n - 1].label.clone(),
            Err(refused) => return Some(Err(refused)),
        },
        Answer::Text(text) => match one_line(text) {
            Some(text) if session.questions.len() == 1 => text,
            Some(_) => return Some(Err(AnswerError::SeveralChoices)),
            None => return Some(Err(AnswerError::Empty)),
        },
    };
    let answers = [(question.question.clone(), given.clone())].into();
    Some(
        decisions
            .answer_question(&session.session_id, id, answers, given.clone())
            .map(|()| Delivered { pane: String::new(), typed: given, through_hook: true, through_daemon: false })
            .map_err(|_| AnswerError::NotAsking),
    )
}

/// Gives `answer` through the daemon that serves the session, where one does (nothing typed);
/// else types it into the pane that shows the session, once it is tied to it.
pub fn deliver(session: &Session, answer: &Answer) -> Result<Delivered, AnswerError> {
    let keys = keys_for(session, answer)?;
    if let Some(door) = app_server::door(session) {
        return through_daemon(&door, session, answer, keys);
    }
    let pane = tied_pane(session)?;
    let typed = match &keys {
        Keys::Digit(digit) => {
            if let (Answer::Option(n), Some(question)) = (answer, session.questions.first()) {
                let option = question.options.get(n - 1).map_or("", |option| option.label.as_str());
                typing::await_settled(&pane, option);
            }
            if !tmux::type_literally(pane.socket(), &pane.id, digit) {
                return Err(typing::TypingError::Failed(pane.id).into());
            }
            digit.clone()
        }
        Keys::Arrows(arrows, n) => {
            let question = session.questions.first().ok_or(AnswerError::NotAsking)?;
            form::pick(&pane, arrows, question, *n)?
        }
        Keys::Line(text) => {
            typing::type_line(&pane, text, &row_of(session).typing)?;
            text.clone()
        }
    };
    Ok(Delivered { pane: pane.id, typed, through_hook: false, through_daemon: false })
}

/// The reply as the prompt of a turn the daemon starts on the session's thread; an option as
/// the answer to the question the daemon holds for it, by the option's label.
fn through_daemon(
    door: &app_server::Door,
    session: &Session,
    answer: &Answer,
    keys: Keys,
) -> Result<Delivered, AnswerError> {
    let typed = match (answer, keys) {
        (Answer::Reply(_), Keys::Line(text)) => {
            door.reply(&text)?;
            text
        }
        (Answer::Option(n), _) => {
            let question = session.questions.first().ok_or(AnswerError::NotAsking)?;
            let label = question.options.get(n - 1).ok_or(AnswerError::NoSuchOption(question.options.len(), *n))?;
            door.answer(&question.question, &label.label)?;
            label.label.clone()
        }
        _ => return Err(AnswerError::TextNeedsHook),
    };
    Ok(Delivered { pane: String::new(), typed, through_hook: false, through_daemon: true })
}

enum Keys {
    Digit(String),
    /// Option `n`, picked on the form with the arrows from wherever its cursor is.
    Arrows(&'static switchboard_core::agent::ArrowForm, usize),
    Line(String),
}

/// What to type for this answer to this session, or why not.
fn keys_for(session: &Session, answer: &Answer) -> Result<Keys, AnswerError> {
    if !session.is_local() {
        return Err(AnswerError::Remote(session.host.clone()));
    }
    pick_keys(session, answer)
}

/// Whether the board would give option `n` of the session's question, by its CLI's rule (the
/// pane's tie aside, proven when it is given): what the phone's buttons offer (issue 49).
pub fn can_pick(session: &Session, n: usize) -> Result<(), AnswerError> {
    pick_keys(session, &Answer::Option(n)).map(drop)
}

fn pick_keys(session: &Session, answer: &Answer) -> Result<Keys, AnswerError> {
    match answer {
        Answer::Option(n) => {
            if session.status != Some(AgentStatus::Waiting) || !session.awaiting_input {
                return Err(AnswerError::NotAsking);
            }
            let Some(question) = session.questions.first() else { return Err(AnswerError::NotAsking) };
            if question.multi_select || session.questions.len() > 1 {
                return Err(AnswerError::SeveralChoices);
            }
            option_keys(switchboard_core::agent(&session.agent), question.options.len(), *n)
        }
        Answer::Text(_) => Err(AnswerError::TextNeedsHook),
        Answer::Reply(text) => {
            match session.status {
                Some(AgentStatus::Working) => return Err(AnswerError::Busy("working")),
                Some(AgentStatus::Blocked) => return Err(AnswerError::Busy("asking for a permission")),
                _ if session.awaiting_input && !session.questions.is_empty() => {
                    return Err(AnswerError::QuestionOnScreen)
                }
                _ => {}
            }
            one_line(text).map(Keys::Line).ok_or(AnswerError::Empty)
        }
    }
}

/// How option `n` of `count` is picked on this CLI's question: its digit, the arrows on a form
/// its row says how to read, or not from the board.
fn option_keys(row: Option<&'static switchboard_core::Agent>, count: usize, n: usize) -> Result<Keys, AnswerError> {
    if n == 0 || n > count {
        return Err(AnswerError::NoSuchOption(count, n));
    }
    match row.filter(|row| !row.typing.options_by_digit) {
        None if n > 9 => Err(AnswerError::NoSuchOption(count, n)),
        None => Ok(Keys::Digit(n.to_string())),
        Some(row) => match &row.arrow_form {
            Some(arrows) => Ok(Keys::Arrows(arrows, n)),
            None => Err(AnswerError::OptionsByArrows(row.name)),
        },
    }
}

/// A reply or written answer as one line: newlines made spaces, control characters dropped, at
/// most [`MAX_REPLY`] characters; `None` when nothing is left.
fn one_line(text: &str) -> Option<String> {
    // The one sanitiser (`text::printable_line`): an escape sequence goes whole, not leaving
    // its `[31m` behind to be typed into the agent's pane.
    let line = crate::text::printable_line(text);
    let line: String = line.split_whitespace().collect::<Vec<_>>().join(" ").chars().take(MAX_REPLY).collect();
    (!line.is_empty()).then_some(line)
}

/// The pane that shows this machine's session (the tie, by its CLI's rule). Answers, the Screen,
/// the live terminal and Jump all go through this one check.
pub fn tied_pane(session: &Session) -> Result<tie::Pane, AnswerError> {
    if !session.is_local() {
        return Err(AnswerError::RemoteScreen(session.host.clone()));
    }
    if let Some(attach) = &session.background {
        return Err(AnswerError::Background(attach.clone()));
    }
    Ok(tie::tied_pane(session)?)
}

/// How long a typed answer or reply waits for its CLI to take it: `SWITCHBOARD_CONFIRM_MS`, else
/// 10 s (a CLI fires its prompt event as the prompt is submitted, before any model call).
pub fn confirm_within() -> Duration {
    let ms = std::env::var("SWITCHBOARD_CONFIRM_MS").ok().and_then(|ms| ms.parse().ok()).unwrap_or(10_000);
    Duration::from_millis(ms)
}

/// Whether the session's CLI took what was typed at `since`: a new turn (a reply, or the answer
/// carried on), or — for an option — its question closed.
fn taken(session: &Session, answer: &Answer, since: Millis) -> bool {
    let new_turn = session.turn_started_at.is_some_and(|at| at >= since);
    match answer {
        Answer::Option(_) => new_turn || session.status != Some(AgentStatus::Waiting) || !session.awaiting_input,
        Answer::Text(_) | Answer::Reply(_) => new_turn,
    }
}

/// Why an answer from the board or the command line was not given.
#[derive(Debug, thiserror::Error)]
pub enum GiveError {
    #[error("no session {0}")]
    Unknown(String),
    #[error(transparent)]
    Refused(#[from] AnswerError),
    #[error("the answer's worker failed: {0}")]
    Internal(String),
}

/// Gives `answer` to the session (the one path for the board, the command line and a link): through
/// its CLI's hook, down its box's link, or typed into its tied pane — then, when typed, waits for its
/// CLI to take it. The history says what was typed where, and whether it was taken.
pub async fn give(
    hub: &Hub,
    inputs: &Inputs,
    decisions: &Arc<Decisions>,
    session_id: &str,
    answer: Answer,
) -> Result<Delivered, GiveError> {
    let session = hub.session(session_id).ok_or_else(|| GiveError::Unknown(session_id.to_owned()))?;
    let since = crate::clock::now_millis();
    let (asked, what, decisions) = (session.clone(), answer.clone(), Arc::clone(decisions));
    let delivered = tokio::task::spawn_blocking(move || deliver_with(&decisions, &asked, &what))
        .await
        .map_err(|error| GiveError::Internal(error.to_string()))??;
    if delivered.through_hook || !session.is_local() {
        return Ok(delivered);
    }
    let cli = switchboard_core::agent(&session.agent).map_or("the agent", |cli| cli.name);
    let limit = confirm_within();
    let deadline = tokio::time::Instant::now() + limit;
    let took = loop {
        let now = hub.session(session_id);
        if now.as_ref().is_some_and(|now| taken(now, &answer, since)) {
            break true;
        }
        if now.is_none() || tokio::time::Instant::now() >= deadline {
            break false;
        }
        tokio::time::sleep(Duration::from_millis(40)).await;
    };
    let at = crate::clock::now_millis();
    let said = history_line(&session, &answer, &delivered, took.then_some(cli));
    let session_id = session.session_id.clone();
    if took {
        inputs.ask(|reply| Input::Answered { session_id, said, at, reply }).await;
        return Ok(delivered);
    }
    let (asked, text) = (session.clone(), delivered.typed.clone());
    let left = match delivered.through_daemon {
        true => "its daemon took it, but no new turn or answer came from its hooks".to_owned(),
        false => tokio::task::spawn_blocking(move || left_in_composer(&asked, &text)).await.unwrap_or_default(),
    };
    let said = format!("{said} — {cli} did not take it: {left}");
    inputs.ask(|reply| Input::Answered { session_id, said, at, reply }).await;
    let how = match delivered.through_daemon {
        true => "sent through its daemon".to_owned(),
        false => format!("typed into pane {}", delivered.pane),
    };
    Err(AnswerError::NotTaken { how, cli, seconds: limit.as_secs().max(1), left }.into())
}

/// The session's CLI row; a `custom` agent (any label) types as the `custom` row says.
fn row_of(session: &Session) -> &'static switchboard_core::Agent {
    switchboard_core::agent(&session.agent)
        .or_else(|| switchboard_core::agent("custom"))
        .expect("the table has a custom row")
}

/// What the composer shows of a reply that was typed and not taken.
fn left_in_composer(session: &Session, text: &str) -> String {
    let Ok(pane) = tied_pane(session) else { return "its pane cannot be read now".into() };
    let cli = row_of(session);
    match tmux::capture(pane.socket(), &pane.id, 0).map(|screen| typing::read_back(&screen, text, &cli.typing)) {
        Some(Some(_)) => "the text is still in its composer".into(),
        Some(None) => "its screen no longer shows the text".into(),
        None => "its pane cannot be read now".into(),
    }
}

#[cfg(test)]
mod tests;
