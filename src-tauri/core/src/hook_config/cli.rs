//! The CLIs Switchboard connects to: the events each gets our hook for, how each spells the
//! hook, and how our command is recognised.

use std::fmt;

use serde::Serialize;
use serde_json::{json, Map, Value};

pub use crate::agent::Version;
use crate::agent::{Agent, Layout, Setup, AGENTS};

/// A CLI Switchboard can connect to through its hooks: an [`Agent`] whose row has a
/// [`Setup`]. Compared, ordered and serialized by its agent id.
#[derive(Clone, Copy)]
pub struct Cli(&'static Agent);

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

impl Cli {
    /// Every CLI the installer connects, in the table's order.
    pub fn all() -> impl Iterator<Item = Cli> {
        AGENTS.iter().copied().filter(|agent| agent.setup.is_some()).map(Cli)
    }

    /// Its handlers in one event's list: inside the matcher groups, or the list itself.
    pub(super) fn handlers(self, list: &Value) -> Vec<&Value> {
        let list = list.as_array().map(Vec::as_slice).unwrap_or_default();
        match self.setup().layout {
            Layout::Groups => list.iter().filter_map(|group| group.get("hooks")?.as_array()).flatten().collect(),
            Layout::Flat { .. } => list.iter().collect(),
        }
    }

    /// Everything else Switchboard knows about this CLI.
    pub fn facts(self) -> &'static Agent {
        self.0
    }

    /// Where it keeps its hooks and how they are spelled.
    pub fn setup(self) -> &'static Setup {
        self.0.setup.as_ref().expect("a Cli is made only from a row with a setup")
    }

    /// The agent id in `/hook/<agent>` and in `switchboard hook <agent>`.
    pub fn agent(self) -> &'static str {
        self.0.id
    }

    pub fn from_agent(agent: &str) -> Option<Cli> {
        Cli::all().find(|cli| cli.agent() == agent)
    }

    /// The product's own name, for messages.
    pub fn name(self) -> &'static str {
        self.0.name
    }

    /// The hook events Switchboard registers for, in the order it adds them.
    pub fn events(self) -> &'static [&'static str] {
        self.0.hook_events
    }

    /// The matcher our group carries for `event`: "every tool" on tool events where the CLI
    /// documents one; none elsewhere (an omitted matcher matches every occurrence).
    pub(super) fn matcher(self, event: &str) -> Option<&'static str> {
        self.setup().every_tool.contains(&event).then_some("*")
    }

    /// The event whose hook can answer a permission prompt (issue 14).
    pub fn decision_event(self) -> Option<&'static str> {
        self.0.decision_event
    }

    /// Our hook handler for `event`, as this CLI spells it.
    pub(super) fn handler(self, event: &str, command: &str) -> Value {
        let secs = if self.decision_event() == Some(event) { HOLD_TIMEOUT_SECS } else { HOOK_TIMEOUT_SECS };
        let setup = self.setup();
        let mut handler = Map::new();
        if let Some(name) = setup.hook_name {
            handler.insert("name".into(), name.into());
        }
        handler.insert("type".into(), "command".into());
        handler.insert(setup.command_key.into(), command.into());
        handler.insert(setup.timeout_key.into(), (if setup.timeout_in_ms { secs * 1000 } else { secs }).into());
        if let Some(name) = setup.event_env {
            handler.insert("env".into(), json!({ name: event }));
        }
        Value::Object(handler)
    }

    /// A matcher group holding only our handler (in a flat layout, the handler itself).
    pub(super) fn group(self, event: &str, command: &str) -> Value {
        if self.setup().layout != Layout::Groups {
            return self.handler(event, command);
        }
        let mut group = Map::new();
        if let Some(matcher) = self.matcher(event) {
            group.insert("matcher".into(), matcher.into());
        }
        group.insert("hooks".into(), json!([self.handler(event, command)]));
        Value::Object(group)
    }
}

impl PartialEq for Cli {
    fn eq(&self, other: &Self) -> bool {
        self.agent() == other.agent()
    }
}

impl Eq for Cli {}

impl std::hash::Hash for Cli {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.agent().hash(state);
    }
}

impl PartialOrd for Cli {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Cli {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.agent().cmp(other.agent())
    }
}

impl fmt::Debug for Cli {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.agent())
    }
}

impl Serialize for Cli {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.agent())
    }
}

impl fmt::Display for Cli {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The command line a CLI runs for our hook: the binary's absolute path, double-quoted for `sh`
/// (which is how all three run hook commands), then `hook <agent>`.
///
/// A Windows path (`C:\Users\me\switchboard.exe`) is written with forward slashes, which
/// Windows takes as well, so no backslash needs escaping in any shell: unquoted where it has no
/// space or character a shell treats specially (then `cmd.exe`, PowerShell and Git Bash all run
/// it as it is), else double-quoted (`cmd.exe` and Git Bash; PowerShell would need `& `).
pub fn hook_command(program: &str, cli: Cli) -> String {
    if let Some(program) = windows_path(program) {
        let plain = program.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, ':' | '/' | '.' | '_' | '-'));
        return if plain {
            format!("{program} hook {}", cli.agent())
        } else {
            format!("\"{program}\" hook {}", cli.agent())
        };
    }
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

/// `program` with forward slashes, if it is a Windows absolute path (`C:\…`, `C:/…`) with no
/// character that a double-quoted string could not hold in every shell.
fn windows_path(program: &str) -> Option<String> {
    let bytes = program.as_bytes();
    let drive =
        bytes.len() > 3 && bytes[0].is_ascii_alphabetic() && bytes[1] == b':' && matches!(bytes[2], b'\\' | b'/');
    (drive && !program.contains(['"', '$', '`', '%', '!'])).then(|| program.replace('\\', "/"))
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
    handler
        .get(cli.setup().command_key)
        .and_then(Value::as_str)
        .is_some_and(|command| is_switchboard_command(command, cli))
}

/// The events to register for `cli` at release `version`: all of [`Cli::events`] when the
/// release is unknown, else those it has.
pub fn events_for(cli: Cli, version: Option<Version>) -> Vec<&'static str> {
    let predates = |event: &str| {
        cli.setup()
            .introduced
            .iter()
            .any(|&(introduced, since)| introduced == event && version.is_some_and(|version| version < since))
    };
    cli.events().iter().copied().filter(|event| !predates(event)).collect()
}

#[cfg(test)]
mod tests {
    use super::super::testing::cli;
    use super::*;
    use crate::agent::normalize;

    const PROGRAM: &str = super::super::testing::PROGRAM;

    /// Issue 38: a Windows binary's hook command runs in `cmd.exe`, PowerShell and Git Bash alike
    /// (forward slashes, unquoted when it can be), and is still recognised as ours.
    #[test]
    fn a_windows_path_is_written_with_forward_slashes_and_quoted_only_when_needed() {
        let claude = cli("claude");
        let plain = hook_command(r"C:\Users\me\.cargo\bin\switchboard.exe", claude);
        assert_eq!(plain, "C:/Users/me/.cargo/bin/switchboard.exe hook claude");
        let spaced = hook_command(r"C:\Program Files\Switchboard\switchboard.exe", claude);
        assert_eq!(spaced, "\"C:/Program Files/Switchboard/switchboard.exe\" hook claude");
        for command in [&plain, &spaced] {
            assert!(is_switchboard_command(command, claude), "{command}");
        }
        // Unix paths as before: double-quoted for sh, its specials escaped.
        assert_eq!(hook_command("/usr/bin/switch$board", claude), "\"/usr/bin/switch\\$board\" hook claude");
        // Not a drive path: the sh form.
        assert!(hook_command(r"C:relative\switchboard.exe", claude).starts_with('"'));
    }

    #[test]
    fn every_registered_event_is_one_the_normalizer_reads() {
        for cli in Cli::all() {
            for event in cli.events() {
                let mut payload = json!({"hook_event_name": event, "session_id": "s"});
                if event.eq_ignore_ascii_case("notification") {
                    let kind = if cli.agent() == "gemini" { "ToolPermission" } else { "permission_prompt" };
                    payload["notification_type"] = kind.into();
                }
                // Read only in their variant that carries a status (a manual compaction, a
                // failed model call).
                if *event == "PostCompact" {
                    payload["trigger"] = "manual".into();
                }
                if *event == "PostModelRequest" {
                    payload["status"] = "failed".into();
                }
                // A rename (OpenCode's generated title).
                if *event == "session.updated" {
                    payload["title"] = "Fix the build".into();
                }
                assert!(normalize(cli.agent(), &payload, 0).is_some(), "{cli:?} {event}");
            }
        }
    }

    #[test]
    fn the_command_quotes_the_path_for_sh_and_names_the_agent() {
        assert_eq!(hook_command(PROGRAM, cli("codex")), r#""/opt/Switchboard/bin/switchboard" hook codex"#);
        assert_eq!(
            hook_command(r#"/home/a "b"/$HOME/`x`\switchboard"#, cli("claude")),
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
            assert!(is_switchboard_command(command, cli("claude")), "{command}");
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
            assert!(!is_switchboard_command(command, cli("claude")), "{command}");
        }
    }

    #[test]
    fn versions_parse_from_what_the_clis_print() {
        assert_eq!(Version::parse("2.1.78 (Claude Code)"), Some(Version(2, 1, 78)));
        assert_eq!(Version::parse("codex-cli 0.146.0"), Some(Version(0, 146, 0)));
        assert_eq!(Version::parse("v0.27.0-nightly.1"), Some(Version(0, 27, 0)));
        assert_eq!(Version::parse("GitHub Copilot CLI 1.0.102."), Some(Version(1, 0, 102)));
        assert_eq!(Version::parse("Claude Code"), None);
        assert_eq!(Version::parse("1.2"), None);
        assert!(Version(2, 1, 77) < Version(2, 1, 78) && Version(2, 1, 78) < Version(2, 10, 0));
    }

    #[test]
    fn an_older_claude_code_gets_no_event_it_would_refuse_the_whole_file_for() {
        assert_eq!(events_for(cli("claude"), None), crate::normalize::claude::HOOK_EVENTS);
        assert_eq!(events_for(cli("claude"), Some(Version(2, 1, 78))), crate::normalize::claude::HOOK_EVENTS);
        let old = events_for(cli("claude"), Some(Version(2, 1, 77)));
        assert!(!old.contains(&"StopFailure") && old.len() == crate::normalize::claude::HOOK_EVENTS.len() - 1);
        assert_eq!(events_for(cli("codex"), Some(Version(0, 1, 0))), crate::normalize::codex::HOOK_EVENTS);
    }
}
