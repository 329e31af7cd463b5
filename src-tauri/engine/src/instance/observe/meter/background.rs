//! Sessions a CLI runs in the background, with no terminal of theirs (issue 48: `claude --bg`).
//! Their hooks fire as a terminal session's do, so they are on the board like any other; what
//! only the CLI knows is that they are background ones, and how the user opens one in a
//! terminal. The CLI's own listing says it (`claude agents --json`), asked once per session, on
//! the meter's git thread (a CLI may take a moment to start), never on the hook path.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use serde_json::Value;
use switchboard_core::agent::row::Background;
use switchboard_core::Session;

use crate::process;

/// How long the CLI's listing may take before it is given up on.
const DEADLINE: Duration = Duration::from_secs(10);

/// What to run to learn whether one session is a background one.
#[derive(Debug)]
pub struct Look {
    pub session_id: String,
    program: PathBuf,
    /// The CLI's settings folder the session runs under (its transcript's), when known.
    config: Option<PathBuf>,
    background: Background,
}

impl Look {
    /// A look for `session`, when its CLI runs sessions in the background and the session's
    /// process is known (its program is the one asked: the CLI that runs it).
    pub fn of(session: &Session) -> Option<Self> {
        let agent = switchboard_core::agent(&session.agent)?;
        let background = agent.background?;
        let pid = session.process.as_ref()?.pid;
        // The CLI that runs it (its process renames itself: `claude bg-spare`) when its program is
        // the CLI's own (`claude`, `claude.exe`; not a runtime that runs it), else its name on PATH.
        let name = agent.start?.program;
        let program = process::exe(pid)
            .filter(|program| program.is_file())
            .filter(|program| program.file_name().and_then(|n| n.to_str()).is_some_and(|n| n.starts_with(name)))
            .unwrap_or_else(|| PathBuf::from(name));
        // `<settings folder>/projects/<project>/<id>.jsonl`.
        let config = session
            .transcript_path
            .as_deref()
            .and_then(|path| Some(Path::new(path).parent()?.parent()?.parent()?.to_owned()));
        Some(Self { session_id: session.session_id.clone(), program, config, background })
    }

    /// The command that opens the session in a terminal when its CLI lists it as a background
    /// one; `None` when it does not (or the listing failed).
    pub fn run(&self) -> Option<String> {
        let mut command = Command::new(&self.program);
        command.args(self.background.list).env("NO_COLOR", "1");
        // The settings folder the session runs under: `~/.claude` is the home's, another one is
        // named (`CLAUDE_CONFIG_DIR`), as the user's own shell would.
        if let Some(config) = &self.config {
            match (config.file_name().and_then(|name| name.to_str()), config.parent()) {
                (Some(".claude"), Some(home)) => command.env("HOME", home).env_remove("CLAUDE_CONFIG_DIR"),
                _ => command.env("CLAUDE_CONFIG_DIR", config),
            };
        }
        let listed = process::output_within(&mut command, DEADLINE)?;
        attach_of(&listed, &self.session_id, &self.background)
    }
}

/// The attach command of `session_id` when `listed` (the CLI's JSON array) has it as a
/// background session with a short id.
fn attach_of(listed: &str, session_id: &str, background: &Background) -> Option<String> {
    let sessions: Vec<Value> = serde_json::from_str(listed.trim()).ok()?;
    let entry = sessions.iter().find(|entry| entry.get("sessionId").and_then(Value::as_str) == Some(session_id))?;
    if entry.get("kind").and_then(Value::as_str) != Some("background") {
        return None;
    }
    let id = entry.get("id").and_then(Value::as_str)?;
    // Only a plain short id goes into a command the user may copy.
    (!id.is_empty() && id.len() <= 64 && id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-'))
        .then(|| background.attach.replace("{id}", id))
}

#[cfg(test)]
mod tests {
    use super::*;

    const CLAUDE: Background = Background { list: &["agents", "--json"], attach: "claude attach {id}" };

    #[test]
    fn a_background_session_gets_its_attach_command_and_an_interactive_one_nothing() {
        let listed = r#"[
          {"pid": 21375, "id": "8215c735", "kind": "background", "sessionId": "8215c735-00ae",
           "status": "waiting", "waitingFor": "permission prompt", "state": "blocked"},
          {"pid": 21400, "id": "a1b2c3d4", "kind": "interactive", "sessionId": "a1b2c3d4-1111"}
        ]"#;
        assert_eq!(attach_of(listed, "8215c735-00ae", &CLAUDE).as_deref(), Some("claude attach 8215c735"));
        assert_eq!(attach_of(listed, "a1b2c3d4-1111", &CLAUDE), None);
        assert_eq!(attach_of(listed, "missing", &CLAUDE), None);
    }

    #[test]
    fn what_is_not_its_listing_or_not_a_plain_id_gives_nothing() {
        assert_eq!(attach_of("not json", "s", &CLAUDE), None);
        assert_eq!(attach_of("{}", "s", &CLAUDE), None);
        let odd = r#"[{"id": "x; rm -rf ~", "kind": "background", "sessionId": "s"}]"#;
        assert_eq!(attach_of(odd, "s", &CLAUDE), None);
    }
}
