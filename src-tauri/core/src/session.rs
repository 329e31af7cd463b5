//! The session as everyone outside the reducer sees it (docs/model.md §6): the snapshot, the
//! changes the reducer reports, the history entries and what the store keeps. Fields are only
//! ever added.

use serde::{Deserialize, Serialize};

use crate::status::{AgentProcess, AgentStatus, Millis, SessionKind};

/// One session as the UI, `GET /sessions` and `status --json` see it (docs/model.md §6). Fields are
/// only ever added beside these, never renamed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct Session {
    pub session_id: String,
    pub agent: String,
    /// `null` until the first status event.
    pub status: Option<AgentStatus>,
    pub kind: SessionKind,
    pub tool: Option<String>,
    /// The node title (`view::title`): the agent's own name for the session, else the event's
    /// title, else the last folder of `cwd`, else a short id. Always set by the reducer.
    pub title: Option<String>,
    pub cwd: Option<String>,
    #[serde(default)]
    pub awaiting_input: bool,
    pub question: Option<String>,
    pub message: Option<String>,
    #[serde(default)]
    pub interrupted: bool,
    #[serde(default)]
    pub errored: bool,
    #[serde(default)]
    pub ended: bool,
    #[serde(default)]
    pub unread: bool,
    /// How many subagents are running.
    #[serde(default)]
    pub subagents: u32,
    #[cfg_attr(test, ts(type = "number"))]
    pub first_event_at: Millis,
    #[cfg_attr(test, ts(type = "number"))]
    pub last_event_at: Millis,
    #[cfg_attr(test, ts(type = "number | null"))]
    pub status_changed_at: Option<Millis>,
    pub transcript_path: Option<String>,
    /// `working` with no event for a long while (a flag, not a status); cleared by its next event.
    #[serde(default)]
    pub stale: bool,
    /// Loaded from the store at start-up and not heard from since.
    #[serde(default)]
    pub restored: bool,
    /// Silent for so long that it has aged off the canvas into the list of older sessions;
    /// cleared by its next event.
    #[serde(default)]
    pub archived: bool,
    /// Where the user dragged the node; `null` until then (the canvas places it).
    #[serde(default)]
    pub position: Option<Position>,
    /// The agent CLI's process and where it runs (tty, tmux pane, terminal window), when known.
    #[serde(default)]
    pub process: Option<AgentProcess>,
    /// Its process exited without ending the session (closed or crashed).
    #[serde(default)]
    pub exited: bool,
    /// The permission on screen can be answered from Switchboard: the CLI's hook is held open for
    /// an Allow or Deny (issue "act from the board"); the id of that hold, to answer it by.
    /// `null` when there is none (not opted in, answered, timed out, or the turn moved on).
    #[serde(default)]
    #[cfg_attr(test, ts(type = "number | null"))]
    pub decision: Option<u64>,
    /// Until when (Unix ms) the hold waits for Allow / Deny; kept after an unanswered hold ended,
    /// while the session is still blocked, so the board can say it expired.
    #[serde(default)]
    #[cfg_attr(test, ts(type = "number | null"))]
    pub decision_until: Option<Millis>,
    /// The whole command (or file, URL, …) the permission on screen asks for, while blocked.
    #[serde(default)]
    pub command: Option<String>,
    /// For an edit permission on screen: the file and how many lines it changes, while blocked.
    #[serde(default)]
    pub edit: Option<crate::normalize::edit::EditSummary>,
    /// Whether and why it needs the user, and since when (`view::attention`): the needs-you
    /// queue's order. Stamped by the reducer; `null` when it does not.
    #[serde(default)]
    pub attention: Option<Attention>,
    /// The machine the agent runs on: `"local"`, or the name of the remote it came from (issue
    /// 23). A remote session's id on this board is `<host>:<its id there>`.
    #[serde(default = "local_host")]
    pub host: String,
    /// Its remote's link is down: since when (Unix ms). What it shows is the last that was known.
    #[serde(default)]
    #[cfg_attr(test, ts(type = "number | null"))]
    pub unreachable_since: Option<Millis>,
    /// What the agent's question tool asks while it waits (Claude's AskUserQuestion, Codex's
    /// `request_user_input`, Gemini's `ask_user`): each question with its options, in order
    /// (issue 24). Empty when it asks nothing, or its CLI did not say.
    #[serde(default)]
    pub questions: Vec<Question>,
    /// Its tokens and their estimated cost, read from its transcript (issue 25); `null` until
    /// the first model response is seen.
    #[serde(default)]
    pub usage: Option<crate::usage::Usage>,
    /// Its process tree's CPU and memory, sampled while it runs; `null` when not known or gone.
    #[serde(default)]
    pub footprint: Option<crate::usage::Footprint>,
    /// The git branch and state of its folder; `null` when not a repository (or not looked yet).
    #[serde(default)]
    pub git: Option<crate::usage::GitInfo>,
    /// Its CLI runs it in the background, with no terminal of its own (issue 48: `claude --bg`):
    /// the command that opens it in one (`claude attach 8215c735`). `null` otherwise.
    #[serde(default)]
    pub background: Option<String>,
    /// Done or waiting, silent for [`crate::usage::IDLE_HOLDING_AFTER_MS`] while its process tree
    /// holds [`crate::usage::IDLE_HOLDING_BYTES`] or more: worth ending. Stamped by the clock.
    #[serde(default)]
    pub idle_holding: bool,
    /// When its current turn began (Unix ms): its CLI's new-turn event (UserPromptSubmit,
    /// BeforeAgent) — what proves a reply typed from the board was taken (issue 33).
    #[serde(default)]
    #[cfg_attr(test, ts(type = "number | null"))]
    pub turn_started_at: Option<Millis>,
    /// Its place among the cards of its region (`view::board_rank`): 0 blocked, 1 waiting or
    /// failed, 2 unread, 3 working, 4 no status yet, 5 done and read, 6 ended. Stamped by the
    /// reducer; the board sorts by it.
    #[serde(default)]
    pub board_rank: u8,
    /// No status yet and younger than [`crate::view::STARTING_GRACE_MS`]: its badge says
    /// "Starting", not "Idle". The reducer clears it on the clock.
    #[serde(default)]
    pub starting: bool,
    /// Its badge: tone and word (`view::badge`). Stamped by the reducer, like the three below.
    #[serde(default)]
    pub badge: Badge,
    /// The header chip it counts towards (`view::category`).
    #[serde(default)]
    pub category: Option<Category>,
    /// Why it needs the user, or what it does (`view::why`).
    #[serde(default)]
    pub reason: Option<Reason>,
}

pub use crate::question::{Question, QuestionOption, MAX_OPTIONS, MAX_QUESTIONS};

/// The `host` of a session of this machine.
pub const LOCAL_HOST: &str = "local";

fn local_host() -> String {
    LOCAL_HOST.to_owned()
}

impl Session {
    /// Whether it is an idle agent holding memory at `now`: done or waiting, silent for
    /// [`crate::usage::IDLE_HOLDING_AFTER_MS`], its process tree holding
    /// [`crate::usage::IDLE_HOLDING_BYTES`] or more.
    pub fn idle_holding_at(&self, now: Millis) -> bool {
        !self.ended
            && !self.exited
            && matches!(self.status, Some(AgentStatus::Done | AgentStatus::Waiting))
            && now.saturating_sub(self.last_event_at) >= crate::usage::IDLE_HOLDING_AFTER_MS
            && self.footprint.is_some_and(|footprint| footprint.rss_bytes >= crate::usage::IDLE_HOLDING_BYTES)
    }

    /// Whether the agent runs on this machine (its files and processes are ours to look at).
    pub fn is_local(&self) -> bool {
        self.host == LOCAL_HOST
    }
}

/// Why a session is in the needs-you queue, and since when: the board's `n` key, the tray's
/// menu and the header's count follow this order — asking first, then unread; within each, the
/// longest waiting first (then arrival order).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct Attention {
    /// 0: it asks (blocked, waiting, or its turn failed); 1: it finished and the user has not looked.
    pub rank: u8,
    /// When it started to need the user (its last status change).
    #[cfg_attr(test, ts(type = "number"))]
    pub since: Millis,
}

/// A node's place on the canvas, in whole canvas pixels.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct Position {
    pub x: i32,
    pub y: i32,
}

/// The snapshot of every session, in arrival order.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct Snapshot {
    pub sessions: Vec<Session>,
    /// What the user should know about the instance itself (e.g. sessions are not being
    /// saved), with the fix; absent when all is well.
    #[serde(default)]
    // (ts-rs cannot read `skip_serializing_if`; it only matters for the JSON, not the type)
    #[cfg_attr(not(test), serde(skip_serializing_if = "Option::is_none"))]
    #[cfg_attr(test, ts(optional))]
    pub notices: Option<Vec<String>>,
}

/// What the web view is told after a burst of changes: sessions to upsert, ids to drop.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct SessionsChanged {
    pub changed: Vec<Session>,
    pub removed: Vec<String>,
}

/// How long a silence makes a session stale, and how long takes it off the canvas.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ages {
    pub stale_after: Millis,
    pub archive_after: Millis,
}

impl Default for Ages {
    fn default() -> Self {
        Self { stale_after: 10 * 60_000, archive_after: 24 * 3_600_000 }
    }
}

/// One status change in a session's history (docs/model.md §7): what, when, and why.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct HistoryEntry {
    #[cfg_attr(test, ts(type = "number"))]
    pub at: Millis,
    pub status: AgentStatus,
    pub tool: Option<String>,
    pub question: Option<String>,
    pub message: Option<String>,
    pub interrupted: bool,
    pub errored: bool,
}

impl HistoryEntry {
    /// The entry for a change, if the change moved the status (or marked a new done).
    pub fn of(change: &Change) -> Option<Self> {
        let session = &change.session;
        let status = session.status?;
        let moved = change.previous != Some(status) || change.notify;
        moved.then(|| Self {
            at: session.status_changed_at.unwrap_or(session.last_event_at),
            status,
            tool: session.tool.clone(),
            question: session.question.clone(),
            message: session.message.clone(),
            interrupted: session.interrupted,
            errored: session.errored,
        })
    }
}

/// A session as the store keeps it: its snapshot plus the titles the node title derives from.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Restored {
    pub session: Session,
    pub event_title: Option<String>,
    pub agent_title: Option<String>,
}

/// What one event did to one session.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Change {
    pub session: Session,
    pub previous: Option<AgentStatus>,
    /// `should_notify` held: the session is now unread and, if enabled, an OS notification is due.
    pub notify: bool,
}

// What a card says (stamped by `view::stamp`; the rules are in view/face.rs).

/// The colour family of a badge. Never the only signal: each tone has its word and icon.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub enum Tone {
    Working,
    Waiting,
    Blocked,
    Done,
    Error,
    Interrupted,
    #[default]
    Idle,
}

/// The status as the card names it: "Needs permission", "Done", "Starting", ….
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct Badge {
    pub tone: Tone,
    #[cfg_attr(test, ts(type = "string"))]
    pub word: std::borrow::Cow<'static, str>,
}

impl Badge {
    pub(crate) const fn of(tone: Tone, word: &'static str) -> Self {
        Self { tone, word: std::borrow::Cow::Borrowed(word) }
    }
}

/// The header chip a session counts towards.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub enum Category {
    Needs,
    Working,
    Done,
}

/// How a reason is set: tinted with the status colour, in a neutral box, or as plain text.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub enum Look {
    Attention,
    Box,
    Quiet,
}

/// Why the user is needed, or what is going on, in a line or two.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct Reason {
    /// A heading before the text ("Needs permission: Bash").
    pub lead: Option<String>,
    /// Whitespace collapsed and clipped to [`crate::view::REASON_CHARS`]: what the card shows.
    pub text: String,
    /// The whole of it, for the tooltip; `null` when it is `lead` and `text` as they stand.
    pub full: Option<String>,
    pub look: Look,
}
