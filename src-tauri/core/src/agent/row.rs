//! One agent CLI's row in the [`super::AGENTS`] table: the type each CLI module fills in. A leaf
//! (it imports nothing of the CLIs), so the CLI modules and the table do not import each other.

use serde_json::Value;

use crate::status::{Millis, StatusEvent};

/// `(raw hook JSON, now) -> event`, the JSON borrowed from the body ([`crate::json`]). `now` is
/// the injected clock's reading, in Unix ms.
pub type Normalizer = fn(&crate::json::Value, Millis) -> Option<StatusEvent>;

/// Where the agent's own name for a session lives (docs/model.md §4, the card's title).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TitleSource {
    /// None: the event's title, else the folder's name.
    None,
    /// The session's transcript (`transcriptPath`): its latest `custom-title`, `ai-title` or
    /// `summary` record (Claude Code).
    Transcript,
    /// `session_index.jsonl` in the CLI's home: the newest `thread_name` of the session (Codex).
    SessionIndex,
}

/// How a tmux pane is proven to show one session of this CLI before anything is typed into it,
/// its screen read or its terminal attached (issue 33). Never a process that serves several
/// sessions: that one sits in one pane's tree while showing nothing of the others.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tie {
    /// One process per session, and it is the one that runs the hook (Claude Code, Gemini CLI):
    /// the pane's process tree holds the reported process (same pid, same start time).
    HookProcess,
    /// The hook may run in a process that serves every session (Codex's `app-server` daemon). A
    /// pane shows the session when a process in its tree that serves no other session — its
    /// command line names none of `servers`, and it has no other `<prefix>*<suffix>` file open —
    /// has the session's transcript open, or names the session's id on its command line (`codex
    /// resume <id>`). Any pane of the reported tmux server may be the one.
    SessionFile { servers: &'static [&'static str], prefix: &'static str, suffix: &'static str, fix: &'static str },
}

/// Where a CLI's daemon listens for clients of its own protocol (issue 48): Codex's `app-server`,
/// JSON-RPC in WebSocket text frames on a Unix socket in the CLI's home. The home is found from the
/// session's transcript, which lies under `<home>/<sessions>/…`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AppServer {
    /// The folder of the home that holds every transcript (`sessions`).
    pub sessions: &'static str,
    /// The control socket, relative to the home (`app-server-control/app-server-control.sock`).
    pub socket: &'static str,
}

/// How a CLI lists the sessions it runs in the background, with no terminal of theirs (issue
/// 48: Claude Code's `claude --bg`), and how the user opens one in a terminal.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Background {
    /// Its arguments that print its sessions as a JSON array (`agents --json`): each with its
    /// `sessionId`, its `kind` (`background` for these) and its short `id`.
    pub list: &'static [&'static str],
    /// Its command that opens one in a terminal, `{id}` for the short id (`claude attach {id}`).
    pub attach: &'static str,
}

/// How the CLI's composer takes typed input (issue 33): what is typed is drawn first, and only
/// then is Enter pressed — text followed at once by Enter reads as a paste to some TUIs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Typing {
    /// What starts its composer's line on screen, after any box border (`>`, `›`, `❯`).
    pub prompts: &'static [&'static str],
    /// How long to wait after the text is drawn before Enter (past its paste-burst window).
    pub enter_after_ms: u64,
    /// What it draws instead of a long typed text it took as a paste (`[Pasted text #2]`).
    pub pasted: Option<&'static str>,
    /// Its question dialog picks option `n` when `n` is typed; otherwise an option is picked
    /// with the arrow keys where the row's [`Agent::arrow_form`] says how to read its form, and
    /// not from the board where it says nothing.
    pub options_by_digit: bool,
}

/// How a question form that picks with ↑/↓ from wherever its cursor is (Copilot CLI's
/// `ask_user`) is read on its screen (issue 48): the option lines sit just above its line of
/// key hints, the cursor's line marked, the others indented to the same column. The board
/// finds the cursor's line and the wanted option's line, presses the arrows between them, sees
/// the cursor there, then presses Enter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ArrowForm {
    /// Its line of key hints, just below the options (`↑/↓ select · enter accept`).
    pub hints: &'static str,
    /// What starts the cursor's line before the option's label (`❯`).
    pub cursor: &'static str,
}

/// How Switchboard reads the CLI's own transcript (its records, one JSON value each).
#[derive(Clone, Copy, Debug)]
pub struct Transcript {
    /// A record's items of a turn (the prompt, what the agent said, tools and results, notes).
    pub turn: fn(&Value) -> Vec<crate::turn::TurnItem>,
    /// Counts a record's tokens into the meter; `true` when its usage changed.
    pub usage: fn(&mut crate::usage::Meter, &Value) -> bool,
    /// Whether a record ends the turn where no hook fires (an interrupt, a refusal:
    /// docs/model.md §8).
    pub settles: fn(&Value) -> bool,
}

impl Transcript {
    /// A CLI whose transcript Switchboard does not read.
    pub const NONE: Self = Self { turn: |_| Vec::new(), usage: |_, _| false, settles: |_| false };
}

/// A SQLite database of the CLI's own that keeps its sessions (OpenCode), read for their usage where
/// the CLI writes no transcript. The engine opens it read-only; the file is found from the
/// environment as the CLI finds it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Database {
    /// A variable that names the file itself: a path, absolute or relative to its folder.
    pub file_var: Option<&'static str>,
    /// A variable naming the base its folder is in (`XDG_DATA_HOME`), and the folder's name there.
    pub base_var: Option<(&'static str, &'static str)>,
    /// Its folder in the home folder, when that variable is not set (`.local/share/opencode`).
    pub dir: &'static str,
    pub file: &'static str,
    /// SQL with the session's id as `?1`: one row per model response, a JSON record in its one
    /// column, each counted by the row's `transcript.usage`.
    pub usage_query: &'static str,
}

/// How `switchboard new <cli>` starts it, interactive, in Switchboard's own tmux.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Start {
    /// The program on PATH.
    pub program: &'static str,
    /// What goes before the first prompt when one is given (none: the prompt is the argument).
    pub prompt_flag: Option<&'static str>,
}

/// How the CLI reads the board's answer from its decision hook's stdout.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DecisionReply {
    /// `{"hookSpecificOutput": {"hookEventName": …, "decision": {"behavior": …}}}` (Claude Code,
    /// Codex, Qwen Code).
    Nested,
    /// `{"behavior": "allow"}` / `{"behavior": "deny", "message": …}` (Copilot CLI).
    Flat,
}

/// One agent CLI.
#[derive(Debug)]
pub struct Agent {
    /// The id in `/hook/<id>` and `switchboard hook <id>`.
    pub id: &'static str,
    /// The product's own name, for messages.
    pub name: &'static str,
    /// Its short name on a card ("Claude"), and the letter of its tile.
    pub short_name: &'static str,
    pub letter: char,
    /// What its screen does while a permission waits for the board (shown beside its switch).
    pub held_note: Option<&'static str>,
    /// How `switchboard new` starts it; `None`: it is not started from Switchboard.
    pub start: Option<Start>,
    /// Its hook JSON → a status event (docs/model.md §1).
    pub normalize: Normalizer,
    /// Events it fires that are deliberately not a status (beside the ones its table maps).
    pub ignored: &'static [&'static str],
    /// The hook events the installer registers (empty: not installed, e.g. `custom`).
    pub hook_events: &'static [&'static str],
    /// The event whose hook can answer its permission prompt from the board, if any.
    pub decision_event: Option<&'static str>,
    /// The shape of its decision hook's answer.
    pub decision_reply: DecisionReply,
    /// Why its prompts cannot be answered from the board, when they cannot (shown beside its
    /// switch in Connections).
    pub why_not_decided: Option<&'static str>,
    /// Its decision hook can also answer its question tool (Claude Code takes the answers in
    /// `updatedInput.answers`, keyed by each question's text): a question is held like a permission.
    pub answers_in_hook: bool,
    /// Its turn-end hook looks the same whether the turn finished or the user pressed Esc (Gemini
    /// CLI's AfterAgent): an interrupt its transcript records just after it corrects that done.
    pub turn_end_hides_interrupts: bool,
    /// What its screen shows, at the bottom, when the user dismissed a question with Esc and no
    /// hook or transcript record says so (Gemini CLI at an `ask_user` question).
    pub screen_cancel: Option<&'static str>,
    /// What its hook must print when Switchboard has nothing to say (Gemini reads stdout as JSON).
    pub silent_reply: Option<&'static str>,
    /// The command that resumes a session, with `{id}` for the (shell-quoted) session id.
    pub resume: Option<&'static str>,
    /// Where its own name for a session lives.
    pub title: TitleSource,
    /// How its transcript is read: last turn, usage, interrupts.
    pub transcript: Transcript,
    /// Its database, when its usage is read there rather than from a transcript (OpenCode).
    pub database: Option<Database>,
    /// How a tmux pane is tied to one of its sessions.
    pub tie: Tie,
    /// Its daemon's own door, where one serves its sessions (Codex's app-server): replies,
    /// answers and the screen go through it, nothing typed. `None`: it has no such door.
    pub app_server: Option<AppServer>,
    /// How it lists the sessions it runs in the background; `None`: it runs none.
    pub background: Option<Background>,
    /// How it takes a typed reply.
    pub typing: Typing,
    /// Where options are not picked by digit: how its question form is read on screen so the
    /// board moves its cursor with the arrows; `None`: an option is not picked from the board.
    pub arrow_form: Option<ArrowForm>,
    /// How its hooks are registered; `None`: Switchboard does not install into it (`custom`).
    pub setup: Option<super::Setup>,
    /// Events whose hook it runs under a short-lived supervisor rather than itself (Qwen Code's
    /// StopFailure): their process is not the agent's, so the forwarder does not report it.
    pub detached_events: &'static [&'static str],
    /// It never asks before a tool on its own (pi): its decision event is a permission only while
    /// the board holds it, so the forwarder sends it only then — else the tool just runs.
    pub asks_only_when_held: bool,
    /// What its decision hook prints when the board held a permission and nobody answered, for a
    /// CLI whose own dialog is not drawn otherwise (pi's bridge then asks in pi).
    pub unanswered_reply: Option<&'static str>,
}

impl Agent {
    /// What a row says by leaving a field out (`..Agent::BASE`): nothing started, installed,
    /// decided or read; a tie by the hook's own process; digits pick options. A new capability
    /// is one field here with its default, not an edit of every CLI's row. A row always sets
    /// its own `id`, names, `letter`, `normalize` and `typing`.
    pub const BASE: Agent = Agent {
        id: "",
        name: "",
        short_name: "",
        letter: '\0',
        held_note: None,
        start: None,
        normalize: |_, _| None,
        ignored: &[],
        hook_events: &[],
        decision_event: None,
        decision_reply: DecisionReply::Nested,
        why_not_decided: None,
        answers_in_hook: false,
        turn_end_hides_interrupts: false,
        screen_cancel: None,
        silent_reply: None,
        resume: None,
        title: TitleSource::None,
        transcript: Transcript::NONE,
        database: None,
        tie: Tie::HookProcess,
        app_server: None,
        background: None,
        typing: Typing { prompts: &[], enter_after_ms: 150, pasted: None, options_by_digit: true },
        arrow_form: None,
        setup: None,
        detached_events: &[],
        asks_only_when_held: false,
        unanswered_reply: None,
    };

    /// Whether `event` is the permission this agent lets the board decide.
    pub fn decides_with(&self, event: &str) -> bool {
        self.decision_event == Some(event)
    }

    /// Its command line for `switchboard new`, with the first prompt when one is given.
    pub fn start_argv(&self, prompt: Option<&str>) -> Option<Vec<String>> {
        let start = self.start?;
        let mut argv = vec![start.program.to_owned()];
        if let Some(prompt) = prompt.map(str::trim).filter(|prompt| !prompt.is_empty()) {
            argv.extend(start.prompt_flag.map(str::to_owned));
            argv.push(prompt.to_owned());
        }
        Some(argv)
    }

    /// The command that resumes `session_id` (already quoted for a shell).
    pub fn resume_command(&self, quoted_session_id: &str) -> Option<String> {
        self.resume.map(|template| template.replace("{id}", quoted_session_id))
    }
}
