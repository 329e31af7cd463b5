//! The status contract: the four statuses, session kinds and the normalized event.

use serde::{Deserialize, Serialize};

/// Unix time in milliseconds. The core never reads a clock; callers pass this in.
pub type Millis = u64;

/// What an agent session is doing, from the user's point of view.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "lowercase")]
pub enum AgentStatus {
    Working,
    Waiting,
    Blocked,
    Done,
}

/// The one list the notify policy consults: the statuses in which an agent waits for a human.
pub const TERMINAL: [AgentStatus; 3] = [AgentStatus::Waiting, AgentStatus::Blocked, AgentStatus::Done];

impl AgentStatus {
    pub fn is_terminal(self) -> bool {
        TERMINAL.contains(&self)
    }

    pub fn parse(text: &str) -> Option<Self> {
        match text {
            "working" => Some(Self::Working),
            "waiting" => Some(Self::Waiting),
            "blocked" => Some(Self::Blocked),
            "done" => Some(Self::Done),
            _ => None,
        }
    }
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "lowercase")]
pub enum SessionKind {
    #[default]
    Session,
    Subagent,
    Recurring,
}

impl SessionKind {
    pub fn parse(text: &str) -> Option<Self> {
        match text {
            "session" => Some(Self::Session),
            "subagent" => Some(Self::Subagent),
            "recurring" => Some(Self::Recurring),
            _ => None,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Lifecycle {
    Start,
    End,
    Compact,
}

/// How the reducer must treat an event beyond its status. The tables of docs/model.md §1 have a few
/// rows whose effect depends on the session's current state, which a normalizer cannot see.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Cue {
    #[default]
    Plain,
    /// The user started a turn (UserPromptSubmit, BeforeAgent): always applies, clears the hold
    /// and the interrupted/errored flags.
    NewTurn,
    /// Done + interrupted, but only for a session still `working`: Claude's `idle_prompt`, and a
    /// finished manual compaction (docs/model.md §8: `/compact` ends with no Stop).
    IdleRescue,
    /// An untyped Claude notification (older Claude): waiting, except on a `done` session.
    IdleReminder,
    /// Claude's generic `permission_prompt` notification (docs/model.md §8): it follows the
    /// PermissionRequest that already said which command, and it also follows a question
    /// (AskUserQuestion). It never turns a question into `blocked` and never replaces the
    /// blocked command with its generic text.
    PermissionNotice,
    /// Codex's PreModelRequest (docs/model.md §8), which fires around every model call: it changes
    /// the status only when it proves the previous state over — a question tool that returned
    /// (rejected or answered: the model is called again) or a failed attempt being retried.
    ModelCall,
    /// A second source (the agent's transcript) saw the turn end where no hook fires
    /// (docs/model.md §8: Esc, a refused permission): done + interrupted, only for a session
    /// `working` or `blocked`.
    Settle,
    /// The agent's process started a child that is not a hook while the session was `blocked`:
    /// the user approved and the tool runs. `working`, only for a `blocked` session.
    Approved,
    /// The agent's process is gone without a SessionEnd: the session ends; a turn still open
    /// (working, blocked, waiting) is closed as an interrupted done.
    Exited,
    /// A subagent started, from a CLI that says so with a status (Qwen Code's SubagentStart,
    /// Copilot CLI's subagentStart, OpenCode's child session): counted among the running
    /// subagents like a status-less SubagentStart; its `working` applies as any subagent's does.
    SubagentStart,
}

/// Who sent a hook, as the forwarder found it: the agent CLI's process and where it runs.
/// Used only to show where the agent lives and to watch its process, never trusted otherwise.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct AgentProcess {
    pub pid: u32,
    /// The process's start time (clock ticks since boot), so a reused pid is told apart.
    #[cfg_attr(test, ts(type = "number"))]
    pub start: u64,
    /// Its controlling terminal, e.g. `/dev/pts/3`.
    pub tty: Option<String>,
    /// `$TMUX_PANE` (`%3`) and the tmux socket from `$TMUX`.
    pub tmux_pane: Option<String>,
    pub tmux_socket: Option<String>,
    /// `$WINDOWID`: the X11 terminal window.
    pub window_id: Option<String>,
    /// `$TERM_PROGRAM`.
    pub term_program: Option<String>,
}

/// One hook event in Switchboard's own words, whatever CLI sent it.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StatusEvent {
    /// The CLI id from the URL (or, for `custom`, the label the script chose).
    pub agent: String,
    pub session_id: String,
    /// `None` for lifecycle-only events, which must not churn the badge.
    pub status: Option<AgentStatus>,
    pub kind: SessionKind,
    pub tool: Option<String>,
    pub transcript_path: Option<String>,
    pub cwd: Option<String>,
    /// A title the event itself carries (Claude's `session_title`, a custom event's `title`).
    pub title: Option<String>,
    pub awaiting_input: bool,
    pub question: Option<String>,
    /// Everything the question tool asks, with its options (issue 24); empty when unknown.
    pub questions: Vec<crate::question::Question>,
    pub message: Option<String>,
    pub interrupted: bool,
    pub errored: bool,
    pub lifecycle: Option<Lifecycle>,
    pub subagent_id: Option<String>,
    pub cue: Cue,
    /// The agent's process, when the forwarder could tell.
    pub process: Option<AgentProcess>,
    /// The forwarder holds this permission open for an answer from Switchboard: the hold's id.
    pub decision: Option<u64>,
    /// ... and until when (Unix ms) the hold waits for that answer.
    pub decision_until: Option<Millis>,
    /// The user's prompt that began a new turn (the session is named after its first one when
    /// the agent gives it no name).
    pub prompt: Option<String>,
    /// The whole command (or file, URL, …) a permission asks for, as the CLI sent it: what the
    /// user approves with Allow, never clipped to a line.
    pub command: Option<String>,
    /// For an edit permission: the file and how many lines it changes.
    #[serde(default)]
    pub edit: Option<crate::normalize::edit::EditSummary>,
    /// Stamped by the normalizer's injected clock; payload timestamps are ignored.
    pub ts: Millis,
}

impl StatusEvent {
    pub fn is_subagent(&self) -> bool {
        self.kind == SessionKind::Subagent
    }
}
