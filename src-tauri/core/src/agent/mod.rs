//! Everything Switchboard knows about one agent CLI, said once per CLI: each CLI's module
//! (`normalize/<cli>.rs`) holds its [`Agent`] row, and every other part of Switchboard — the hook
//! server's routing, the forwarder, the installer, the title watcher, Jump, the board — asks this
//! table instead of matching on an agent id. A new CLI is a module with its normalizer and its
//! row, two lines in `normalize/mod.rs` (its `mod` and its place in [`AGENTS`]), and its
//! real-CLI test.

use serde_json::Value;

use crate::status::{Millis, StatusEvent};

pub mod row;
pub mod setup;

pub use row::{
    Agent, AppServer, ArrowForm, Database, DecisionReply, Normalizer, Start, Tie, TitleSource, Transcript, Typing,
};
pub use setup::{Bridge, DirVar, Layout, Setup, Switch, Version};

/// The table itself sits beside the CLIs' modules (`normalize/mod.rs`).
pub use crate::normalize::AGENTS;

/// The agent with that id.
pub fn agent(id: &str) -> Option<&'static Agent> {
    AGENTS.iter().copied().find(|agent| agent.id == id)
}

/// The normalizer of the agent with that id in `/hook/<agent>`: routing reads only [`AGENTS`].
pub fn normalizer(id: &str) -> Option<Normalizer> {
    agent(id).map(|agent| agent.normalize)
}

/// Looks up the agent's normalizer and runs it on a parsed body (a spooled one, a test's);
/// `None` for an unknown agent too. The hook server reads its bodies with [`crate::json`].
pub fn normalize(id: &str, raw: &Value, now: Millis) -> Option<StatusEvent> {
    normalizer(id).and_then(|normalize| normalize(&raw.into(), now))
}

/// The last turn of `agent`'s transcript `records`, each read as its CLI reads it.
pub fn last_turn<'a>(agent: &str, records: impl IntoIterator<Item = &'a Value>) -> Vec<crate::turn::TurnItem> {
    self::agent(agent).map_or_else(Vec::new, |cli| crate::turn::last_turn(cli.transcript.turn, records))
}

/// A meter of `agent`'s tokens, counting records as its CLI writes them.
pub fn meter(agent: &str) -> crate::usage::Meter {
    crate::usage::Meter::new(agent, self::agent(agent).map(|cli| cli.transcript.usage))
}

/// The ids of the agents whose permission prompts can wait for Allow / Deny from the board.
pub fn deciding() -> impl Iterator<Item = &'static str> {
    AGENTS.iter().filter(|agent| agent.decision_event.is_some()).map(|agent| agent.id)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_routes_every_builtin_agent() {
        for agent in ["claude", "codex", "gemini", "qwen", "copilot", "pi", "opencode", "custom"] {
            assert!(normalizer(agent).is_some(), "{agent}");
        }
        assert!(normalizer("cursor").is_none());
        let stop = serde_json::json!({"hook_event_name": "Stop", "session_id": "s"});
        assert!(normalize("nope", &stop, 1).is_none());
    }

    /// A row leaves out what it shares with [`Agent::BASE`], never what makes it itself.
    #[test]
    fn every_row_sets_what_the_base_cannot_know() {
        for agent in AGENTS {
            let named = !agent.id.is_empty() && !agent.name.is_empty() && !agent.short_name.is_empty();
            assert!(named && agent.letter != Agent::BASE.letter, "{}: names and letter", agent.id);
            let stop = serde_json::json!({"hook_event_name": "Stop", "session_id": "s"});
            let _ = (agent.normalize)(&(&stop).into(), 1);
            if let Some(setup) = &agent.setup {
                let said = [setup.dir, setup.file, setup.program, setup.install_hint, setup.next_step];
                assert!(said.iter().all(|field| !field.is_empty()), "{}: its setup's own fields", agent.id);
                assert!(!agent.hook_events.is_empty(), "{}: what is installed", agent.id);
            }
        }
    }

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
        // Every CLI whose hook can answer is decided from the board; Gemini CLI's cannot.
        let deciding: Vec<_> = deciding().collect();
        assert!(["claude", "codex", "qwen", "copilot", "pi", "opencode"].iter().all(|id| deciding.contains(id)));
        assert!(!deciding.contains(&"gemini") && !deciding.contains(&"custom"), "{deciding:?}");
        assert_eq!(agent("codex").unwrap().resume_command("'a b'").as_deref(), Some("codex resume 'a b'"));
        assert!(agent("nope").is_none());
    }
}
