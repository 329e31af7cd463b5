//! One agent CLI's row in the [`super::AGENTS`] table: the type each CLI module fills in. A leaf
//! (it imports nothing of the CLIs), so the CLI modules and the table do not import each other.

use serde_json::Value;

use crate::status::{Millis, StatusEvent};

/// `(raw hook JSON, now) -> event`. `now` is the injected clock's reading, in Unix ms.
pub type Normalizer = fn(&Value, Millis) -> Option<StatusEvent>;

/// Where the agent's own name for a session lives (SPEC 4, "node title").
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

/// One agent CLI.
#[derive(Debug)]
pub struct Agent {
    /// The id in `/hook/<id>` and `switchboard hook <id>`.
    pub id: &'static str,
    /// The product's own name, for messages.
    pub name: &'static str,
    /// Its hook JSON → a status event (SPEC 1).
    pub normalize: Normalizer,
    /// Events it fires that are deliberately not a status (beside the ones its table maps).
    pub ignored: &'static [&'static str],
    /// The hook events the installer registers (empty: not installed, e.g. `custom`).
    pub hook_events: &'static [&'static str],
    /// The event whose hook can answer its permission prompt from the board, if any.
    pub decision_event: Option<&'static str>,
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
}

impl Agent {
    /// Whether `event` is the permission this agent lets the board decide.
    pub fn decides_with(&self, event: &str) -> bool {
        self.decision_event == Some(event)
    }

    /// The command that resumes `session_id` (already quoted for a shell).
    pub fn resume_command(&self, quoted_session_id: &str) -> Option<String> {
        self.resume.map(|template| template.replace("{id}", quoted_session_id))
    }
}
