//! Everything Switchboard knows about one agent CLI, said once per CLI: each CLI's module
//! (`normalize/<cli>.rs`) holds its [`Agent`] row, and every other part of Switchboard — the hook
//! server's routing, the forwarder, the installer, the title watcher, Jump, the board — asks this
//! table instead of matching on an agent id. A fourth CLI is a module with its normalizer and its
//! row, one line in [`AGENTS`], and its real-CLI test.

use crate::normalize::Normalizer;

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

/// Every agent Switchboard understands, in the order the board and the installer list them.
pub static AGENTS: &[&Agent] = &[
    &crate::normalize::claude::AGENT,
    &crate::normalize::codex::AGENT,
    &crate::normalize::gemini::AGENT,
    &crate::normalize::custom::AGENT,
];

/// The agent with that id.
pub fn agent(id: &str) -> Option<&'static Agent> {
    AGENTS.iter().copied().find(|agent| agent.id == id)
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

/// The ids of the agents whose permission prompts can wait for Allow / Deny from the board.
pub fn deciding() -> impl Iterator<Item = &'static str> {
    AGENTS.iter().filter(|agent| agent.decision_event.is_some()).map(|agent| agent.id)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_unique_route_segments_and_every_installed_agent_says_how_to_resume() {
        for (n, agent) in AGENTS.iter().enumerate() {
            assert!(agent.id.bytes().all(|b| b.is_ascii_lowercase() || b == b'-'), "{}", agent.id);
            assert!(AGENTS[n + 1..].iter().all(|other| other.id != agent.id), "{} twice", agent.id);
            if !agent.hook_events.is_empty() {
                assert!(agent.resume.is_some_and(|r| r.contains("{id}")), "{}", agent.id);
            }
            // Either it can be decided from the board, or the board says why not.
            assert!(agent.decision_event.is_some() != agent.why_not_decided.is_some(), "{}", agent.id);
            if let Some(event) = agent.decision_event {
                assert!(agent.hook_events.contains(&event), "{}: {event} must get the hook", agent.id);
            }
        }
        assert_eq!(deciding().collect::<Vec<_>>(), ["claude", "codex"]);
        assert_eq!(agent("codex").unwrap().resume_command("'a b'").as_deref(), Some("codex resume 'a b'"));
        assert!(agent("nope").is_none());
    }
}
