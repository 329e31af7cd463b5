//! Answering an agent from the board (issue 24): an option of its question, or a reply (its next
//! prompt), typed into the agent's own tmux pane — only once that pane is tied to that agent:
//! the pane's process tree holds the agent's process (the same process the forwarder saw, not a
//! reused pid). Codex runs every session's hooks in one daemon, so the process a Codex hook
//! reports may belong to another window: a Codex session is tied to a pane only when a process in
//! that pane has the session's own rollout file open. Anything that cannot be tied is refused with
//! the reason (and the board offers Jump instead): a key typed into the wrong agent is worse than
//! none.
//!
//! A CLI whose decision hook can carry its question tool's answers (Claude Code: the held
//! PermissionRequest answers AskUserQuestion with `updatedInput.answers`) is answered through
//! that hook instead — in any terminal, nothing typed, a written answer too; its own dialog,
//! drawn meanwhile, closes. Only while the question is held for the board (Allow / Deny on).
//!
//! What is typed: the option's number alone (in all three CLIs' question dialogs the key `2`
//! answers option 2 at once), or the reply's text as literal keys (`send-keys -l`, newlines made
//! spaces, at most [`MAX_REPLY`] characters) and Enter.

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use serde::Serialize;
use switchboard_core::{AgentStatus, Session};

use super::decide::Decisions;
use crate::process;

/// The longest reply typed (characters).
pub const MAX_REPLY: usize = 4_000;
/// How far up the process tree the agent may sit below its pane's shell.
const MAX_DEPTH: usize = 16;
/// Lines of the pane `peek` shows.
pub const PEEK_LINES: usize = 60;

/// The agent's screen for the details panel: its pane's last lines, or why there are none.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct Screen {
    pub text: Option<String>,
    pub reason: Option<String>,
}

impl Screen {
    pub fn of(session: &Session) -> Self {
        match screen(session) {
            Ok(text) => Self { text: Some(text), reason: None },
            Err(why) => Self { text: None, reason: Some(why.to_string()) },
        }
    }
}

/// How much of a transcript's end is read for its last turn.
const LAST_TURN_BYTES: u64 = 512 * 1024;

/// The session's last turn from its transcript's end (issue 24): its prompt, what the agent said,
/// the tools it called and their results, clipped. Empty when there is no transcript to read
/// here (not written yet, another machine's, a CLI Switchboard cannot read).
pub fn last_turn(session: &Session) -> Vec<switchboard_core::turn::TurnItem> {
    use std::io::{Read, Seek, SeekFrom};
    let Some(path) = session.transcript_path.as_deref().filter(|_| session.is_local()) else { return Vec::new() };
    let Ok(mut file) = crate::files::open_regular(Path::new(path)) else { return Vec::new() };
    let length = file.metadata().map(|m| m.len()).unwrap_or(0);
    let start = length.saturating_sub(LAST_TURN_BYTES);
    let mut bytes = Vec::new();
    if file.seek(SeekFrom::Start(start)).is_err() || file.take(LAST_TURN_BYTES).read_to_end(&mut bytes).is_err() {
        return Vec::new();
    }
    let mut lines = bytes.split(|b| *b == b'\n');
    if start > 0 {
        lines.next(); // starts mid-line
    }
    let records: Vec<serde_json::Value> = lines.filter_map(|line| serde_json::from_slice(line).ok()).collect();
    switchboard_core::turn::last_turn(&session.agent, &records)
}

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
    #[error("it does not run in tmux ({0}): use Jump to go to its terminal")]
    NotInTmux(String),
    #[error("its tmux pane {0} is gone, or tmux does not answer")]
    PaneGone(String),
    #[error("its tmux pane {0} runs something else now (not this agent's process): nothing was typed")]
    NotThisAgent(String),
    #[error("Codex runs its hooks in a shared daemon and no process in pane {0} has this session's rollout open: nothing was typed (use Jump)")]
    CodexUntied(String),
    #[error("its agent process has exited")]
    Exited,
    #[error("typing into pane {0} failed")]
    Typing(String),
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
}

/// The history entry for an answer typed into this machine's pane (one given through the hook is
/// in the history already, as the message of its `working`; a remote's is in its box's).
pub fn history_line(session: &Session, answer: &Answer, delivered: &Delivered) -> Option<String> {
    if delivered.through_hook || !session.is_local() {
        return None;
    }
    let pane = &delivered.pane;
    Some(match answer {
        Answer::Option(n) => {
            let label = session.questions.first().and_then(|q| q.options.get(n.checked_sub(1)?)).map(|o| &o.label);
            match label {
                Some(label) => format!("Answered from Switchboard: {n} ({label}), typed into pane {pane}"),
                None => format!("Answered from Switchboard: {n}, typed into pane {pane}"),
            }
        }
        Answer::Text(_) | Answer::Reply(_) => {
            format!("Replied from Switchboard: {}, typed into pane {pane}", clip_line(&delivered.typed))
        }
    })
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
    match remotes.answer(&session.session_id, said) {
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
            .map(|()| Delivered { pane: String::new(), typed: given, through_hook: true })
            .map_err(|_| AnswerError::NotAsking),
    )
}

/// Types `answer` into the session's own tmux pane, once it is tied to that agent.
pub fn deliver(session: &Session, answer: &Answer) -> Result<Delivered, AnswerError> {
    let keys = keys_for(session, answer)?;
    let pane = tied_pane(session)?;
    let socket = session.process.as_ref().and_then(|p| p.tmux_socket.as_deref()).map(Path::new);
    let typed = match &keys {
        Keys::Digit(digit) => {
            send(socket, &pane.0, &["-l", "--", digit])?;
            digit.clone()
        }
        Keys::Line(text) => {
            send(socket, &pane.0, &["-l", "--", text])?;
            send(socket, &pane.0, &["Enter"])?;
            text.clone()
        }
    };
    Ok(Delivered { pane: pane.0, typed, through_hook: false })
}

/// The last lines of the agent's pane, once it is tied to that agent.
fn screen(session: &Session) -> Result<String, AnswerError> {
    let pane = tied_pane(session)?;
    let socket = session.process.as_ref().and_then(|p| p.tmux_socket.as_deref()).map(Path::new);
    let start = format!("-{PEEK_LINES}");
    let output = tmux(socket, &["capture-pane", "-p", "-J", "-t", &pane.0, "-S", &start])
        .ok_or_else(|| AnswerError::PaneGone(pane.0.clone()))?;
    Ok(output.trim_end().to_owned())
}

enum Keys {
    Digit(String),
    Line(String),
}

/// What to type for this answer to this session, or why not.
fn keys_for(session: &Session, answer: &Answer) -> Result<Keys, AnswerError> {
    if !session.is_local() {
        return Err(AnswerError::Remote(session.host.clone()));
    }
    match answer {
        Answer::Option(n) => {
            if session.status != Some(AgentStatus::Waiting) || !session.awaiting_input {
                return Err(AnswerError::NotAsking);
            }
            let Some(question) = session.questions.first() else { return Err(AnswerError::NotAsking) };
            if question.multi_select || session.questions.len() > 1 {
                return Err(AnswerError::SeveralChoices);
            }
            let count = question.options.len();
            if *n == 0 || *n > count || *n > 9 {
                return Err(AnswerError::NoSuchOption(count, *n));
            }
            Ok(Keys::Digit(n.to_string()))
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

/// A reply or written answer as one line: newlines made spaces, control characters dropped, at
/// most [`MAX_REPLY`] characters; `None` when nothing is left.
fn one_line(text: &str) -> Option<String> {
    let line: String = text
        .split(['\n', '\r'])
        .map(str::trim)
        .filter(|part| !part.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
        .chars()
        .filter(|c| !c.is_control())
        .take(MAX_REPLY)
        .collect();
    (!line.trim().is_empty()).then_some(line)
}

/// A tmux pane id (`%3`) tied to a session's agent by [`tied_pane`].
pub struct Pane(pub String);

/// The session's tmux pane, tied to its agent: the agent still runs, and the pane's process tree
/// holds it (for Codex: a process there has the session's rollout open). Answers, the Screen and
/// the live terminal all go through this one check.
pub fn tied_pane(session: &Session) -> Result<Pane, AnswerError> {
    if !session.is_local() {
        return Err(AnswerError::Remote(session.host.clone()));
    }
    let Some(agent) = session.process.as_ref() else {
        return Err(AnswerError::NotInTmux("where it runs is not known".into()));
    };
    let Some(pane) = agent.tmux_pane.clone() else {
        let tty = agent.tty.as_deref().map_or("no terminal Switchboard can see".into(), |tty| format!("tty {tty}"));
        return Err(AnswerError::NotInTmux(tty));
    };
    if !process::is_alive(agent) {
        return Err(AnswerError::Exited);
    }
    let socket = agent.tmux_socket.as_deref().map(Path::new);
    let pane_pid: u32 = tmux(socket, &["display-message", "-p", "-t", &pane, "#{pane_pid}"])
        .and_then(|out| out.trim().parse().ok())
        .ok_or_else(|| AnswerError::PaneGone(pane.clone()))?;
    if !descends_from(agent.pid, pane_pid) {
        return Err(AnswerError::NotThisAgent(pane));
    }
    if session.agent == "codex" {
        let rollout = session.transcript_path.as_deref().ok_or_else(|| AnswerError::CodexUntied(pane.clone()))?;
        if !tree_has_open(pane_pid, Path::new(rollout)) {
            return Err(AnswerError::CodexUntied(pane));
        }
    }
    Ok(Pane(pane))
}

/// Whether `pid` is `root` or below it.
fn descends_from(pid: u32, root: u32) -> bool {
    let mut current = pid;
    for _ in 0..MAX_DEPTH {
        if current == root {
            return true;
        }
        match process::stat(current) {
            Some(stat) if stat.ppid > 1 => current = stat.ppid,
            _ => return false,
        }
    }
    false
}

/// Whether a process in `root`'s tree has `file` open.
fn tree_has_open(root: u32, file: &Path) -> bool {
    let mut queue = vec![root];
    let mut seen = 0;
    while let Some(pid) = queue.pop() {
        seen += 1;
        if seen > 256 {
            return false;
        }
        if let Ok(fds) = std::fs::read_dir(format!("/proc/{pid}/fd")) {
            if fds.flatten().any(|fd| std::fs::read_link(fd.path()).is_ok_and(|target| target == file)) {
                return true;
            }
        }
        queue.extend(process::children(pid));
    }
    false
}

fn send(socket: Option<&Path>, pane: &str, keys: &[&str]) -> Result<(), AnswerError> {
    let mut args = vec!["send-keys", "-t", pane];
    args.extend_from_slice(keys);
    tmux(socket, &args).map(|_| ()).ok_or_else(|| AnswerError::Typing(pane.to_owned()))
}

/// Runs tmux (on the agent's server) with a deadline; its stdout when it succeeded.
pub(crate) fn tmux(socket: Option<&Path>, args: &[&str]) -> Option<String> {
    let mut command = Command::new("tmux");
    if let Some(socket) = socket {
        command.arg("-S").arg(socket);
    }
    process::output_within(command.args(args), Duration::from_secs(2))
}
