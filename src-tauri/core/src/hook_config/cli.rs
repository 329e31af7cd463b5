//! The CLIs Switchboard connects to: the events each gets our hook for, how each spells the
//! hook, and how our command is recognised.

use std::fmt;

use serde::Serialize;
use serde_json::{json, Map, Value};

use crate::agent::Agent;

/// A CLI Switchboard can connect to through its hooks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Cli {
    Claude,
    Codex,
    Gemini,
}

/// What the CLI allows `switchboard hook` before giving up on it. The command returns at once
/// anyway; this only bounds how long a wedged machine could hold an agent up.
/// 3 s: Codex caps SessionEnd and Interrupt hooks at 3 s and warns at every start about a longer
/// one; the forwarder gives up after 1.5 s anyway.
pub const HOOK_TIMEOUT_SECS: u64 = 3;
/// The CLI's timeout for the hook that may hold a permission for an answer from the board (issue
/// 14): above the longest hold the settings allow (120 s), so the CLI never kills a hold the user
/// asked for. Nothing waits this long unless the user opted the CLI in; the forwarder's own
/// deadline ends every hold.
pub const HOLD_TIMEOUT_SECS: u64 = 130;

/// The name Gemini CLI shows for our hook in `/hooks` (and takes in `/hooks disable`).
pub const GEMINI_HOOK_NAME: &str = "switchboard";

impl Cli {
    pub const ALL: [Cli; 3] = [Cli::Claude, Cli::Codex, Cli::Gemini];

    /// Everything else Switchboard knows about this CLI.
    pub fn facts(self) -> &'static Agent {
        match self {
            Cli::Claude => &crate::normalize::claude::AGENT,
            Cli::Codex => &crate::normalize::codex::AGENT,
            Cli::Gemini => &crate::normalize::gemini::AGENT,
        }
    }

    /// The agent id in `/hook/<agent>` and in `switchboard hook <agent>`.
    pub fn agent(self) -> &'static str {
        self.facts().id
    }

    pub fn from_agent(agent: &str) -> Option<Cli> {
        Cli::ALL.into_iter().find(|cli| cli.agent() == agent)
    }

    /// The product's own name, for messages.
    pub fn name(self) -> &'static str {
        self.facts().name
    }

    /// The hook events Switchboard registers for, in the order it adds them.
    pub fn events(self) -> &'static [&'static str] {
        self.facts().hook_events
    }

    /// The matcher our group carries for `event`: "every tool" on tool events where the CLI
    /// documents one; none elsewhere (an omitted matcher matches every occurrence).
    pub(super) fn matcher(self, event: &str) -> Option<&'static str> {
        match (self, event) {
            (Cli::Claude, "PreToolUse" | "PostToolUse" | "PostToolUseFailure" | "PermissionRequest") => Some("*"),
            (Cli::Gemini, "BeforeTool" | "AfterTool") => Some("*"),
            _ => None,
        }
    }

    /// The event whose hook can answer a permission prompt (issue 14).
    pub fn decision_event(self) -> Option<&'static str> {
        self.facts().decision_event
    }

    /// Our hook handler for `event`, as this CLI spells it.
    pub(super) fn handler(self, event: &str, command: &str) -> Value {
        let timeout = if self.decision_event() == Some(event) { HOLD_TIMEOUT_SECS } else { HOOK_TIMEOUT_SECS };
        match self {
            Cli::Claude | Cli::Codex => json!({"type": "command", "command": command, "timeout": timeout}),
            Cli::Gemini => json!({
                "name": GEMINI_HOOK_NAME,
                "type": "command",
                "command": command,
                "timeout": timeout * 1000,
            }),
        }
    }

    /// A matcher group holding only our handler.
    pub(super) fn group(self, event: &str, command: &str) -> Value {
        let mut group = Map::new();
        if let Some(matcher) = self.matcher(event) {
            group.insert("matcher".into(), matcher.into());
        }
        group.insert("hooks".into(), json!([self.handler(event, command)]));
        Value::Object(group)
    }
}

impl fmt::Display for Cli {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The command line a CLI runs for our hook: the binary's absolute path, double-quoted for `sh`
/// (which is how all three run hook commands), then `hook <agent>`.
pub fn hook_command(program: &str, cli: Cli) -> String {
    let mut command = String::with_capacity(program.len() + 16);
    command.push('"');
    for c in program.chars() {
        if matches!(c, '"' | '\\' | '$' | '`') {
            command.push('\\');
        }
        command.push(c);
    }
    command.push_str("\" hook ");
    command.push_str(cli.agent());
    command
}

/// Whether `command` is a Switchboard hook for `cli`: `<program> hook <agent>` where the
/// program, quoted or not, is a file named `switchboard` — wherever it lives now.
pub fn is_switchboard_command(command: &str, cli: Cli) -> bool {
    let Some((rest, agent)) = command.trim().rsplit_once(char::is_whitespace) else { return false };
    let Some((program, verb)) = rest.trim_end().rsplit_once(char::is_whitespace) else { return false };
    if agent != cli.agent() || verb != "hook" {
        return false;
    }
    let program = program.trim();
    let program =
        ['"', '\''].into_iter().find_map(|quote| program.strip_prefix(quote)?.strip_suffix(quote)).unwrap_or(program);
    let name = program.rsplit(['/', '\\']).next().unwrap_or(program);
    name == "switchboard" || name == "switchboard.exe"
}

pub(super) fn is_ours(handler: &Value, cli: Cli) -> bool {
    handler.get("command").and_then(Value::as_str).is_some_and(|command| is_switchboard_command(command, cli))
}

/// A CLI release, `major.minor.patch`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Version(pub u32, pub u32, pub u32);

impl Version {
    /// The first `x.y.z` word of `text`, as in `claude --version`'s "2.1.78 (Claude Code)".
    pub fn parse(text: &str) -> Option<Version> {
        text.split_whitespace().find_map(|word| {
            let word = word.strip_prefix('v').unwrap_or(word);
            let core = word.split(['-', '+']).next()?;
            let mut parts = core.split('.').map(|part| part.parse::<u32>().ok());
            let version = Version(parts.next()??, parts.next()??, parts.next()??);
            parts.next().is_none().then_some(version)
        })
    }
}

impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}.{}", self.0, self.1, self.2)
    }
}

/// Events a release refuses when it predates them. Claude Code refuses a settings file with an
/// unknown hook event as a whole ("Invalid key in record": every setting in the file is then
/// skipped), so such an event is registered only for a release known to have it. Codex and Gemini
/// CLI ignore events they do not know.
const INTRODUCED: &[(Cli, &str, Version)] = &[
    // Changelog 2.1.78 (anthropics/claude-code#35620).
    (Cli::Claude, "StopFailure", Version(2, 1, 78)),
];

/// The events to register for `cli` at release `version`: all of [`Cli::events`] when the
/// release is unknown, else those it has.
pub fn events_for(cli: Cli, version: Option<Version>) -> Vec<&'static str> {
    let predates = |event: &str| {
        INTRODUCED.iter().any(|&(for_cli, introduced, since)| {
            for_cli == cli && introduced == event && version.is_some_and(|version| version < since)
        })
    };
    cli.events().iter().copied().filter(|event| !predates(event)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::normalize;

    const PROGRAM: &str = super::super::testing::PROGRAM;

    #[test]
    fn every_registered_event_is_one_the_normalizer_reads() {
        for cli in Cli::ALL {
            for event in cli.events() {
                let mut payload = json!({"hook_event_name": event, "session_id": "s"});
                if cli == Cli::Gemini && *event == "Notification" {
                    payload["notification_type"] = "ToolPermission".into();
                }
                // Read only in their variant that carries a status (a manual compaction, a
                // failed model call).
                if *event == "PostCompact" {
                    payload["trigger"] = "manual".into();
                }
                if *event == "PostModelRequest" {
                    payload["status"] = "failed".into();
                }
                assert!(normalize(cli.agent(), &payload, 0).is_some(), "{cli:?} {event}");
            }
        }
    }

    #[test]
    fn the_command_quotes_the_path_for_sh_and_names_the_agent() {
        assert_eq!(hook_command(PROGRAM, Cli::Codex), r#""/opt/Switchboard/bin/switchboard" hook codex"#);
        assert_eq!(
            hook_command(r#"/home/a "b"/$HOME/`x`\switchboard"#, Cli::Claude),
            r#""/home/a \"b\"/\$HOME/\`x\`\\switchboard" hook claude"#
        );
    }

    #[test]
    fn our_command_is_recognised_wherever_the_binary_lives() {
        for command in [
            r#""/opt/Switchboard/bin/switchboard" hook claude"#,
            r#""/Applications/My Apps/Switchboard.app/Contents/MacOS/switchboard" hook claude"#,
            "/usr/local/bin/switchboard hook claude",
            "  switchboard   hook claude ",
            "'/tmp/x/switchboard' hook claude",
            r#""C:\Program Files\Switchboard\switchboard.exe" hook claude"#,
        ] {
            assert!(is_switchboard_command(command, Cli::Claude), "{command}");
        }
        for command in [
            r#""/opt/Switchboard/bin/switchboard" hook codex"#,
            "/usr/local/bin/switchboard-dev hook claude",
            "/usr/local/bin/switchboard hook claude --verbose",
            "/usr/local/bin/switchboard serve claude",
            "notify-send switchboard hook claude; true",
            "hook claude",
            "",
        ] {
            assert!(!is_switchboard_command(command, Cli::Claude), "{command}");
        }
    }

    #[test]
    fn versions_parse_from_what_the_clis_print() {
        assert_eq!(Version::parse("2.1.78 (Claude Code)"), Some(Version(2, 1, 78)));
        assert_eq!(Version::parse("codex-cli 0.146.0"), Some(Version(0, 146, 0)));
        assert_eq!(Version::parse("v0.27.0-nightly.1"), Some(Version(0, 27, 0)));
        assert_eq!(Version::parse("Claude Code"), None);
        assert_eq!(Version::parse("1.2"), None);
        assert!(Version(2, 1, 77) < Version(2, 1, 78) && Version(2, 1, 78) < Version(2, 10, 0));
    }

    #[test]
    fn an_older_claude_code_gets_no_event_it_would_refuse_the_whole_file_for() {
        assert_eq!(events_for(Cli::Claude, None), crate::normalize::claude::HOOK_EVENTS);
        assert_eq!(events_for(Cli::Claude, Some(Version(2, 1, 78))), crate::normalize::claude::HOOK_EVENTS);
        let old = events_for(Cli::Claude, Some(Version(2, 1, 77)));
        assert!(!old.contains(&"StopFailure") && old.len() == crate::normalize::claude::HOOK_EVENTS.len() - 1);
        assert_eq!(events_for(Cli::Codex, Some(Version(0, 1, 0))), crate::normalize::codex::HOOK_EVENTS);
    }
}
