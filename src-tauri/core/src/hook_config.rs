//! Registering Switchboard's hook in a CLI's own settings (SPEC 5), as pure planning.
//!
//! Given the parsed settings of Claude Code (`settings.json`), Codex (`hooks.json`) or Gemini CLI
//! (`settings.json`) and the path of the `switchboard` binary, [`plan_install`] returns the new
//! settings with `"<switchboard>" hook <agent>` registered for every event that CLI's normalizer
//! reads, and [`plan_uninstall`] the settings without it — each with the list of [`Edit`]s, so
//! the installer can say what it did, or would do. No IO here: the engine reads, backs up and
//! writes.
//!
//! Our entries are recognised by the shape of their command (`…/switchboard hook <agent>`, quoted
//! or not), never by the exact path: a moved binary is updated in place, and uninstall still finds
//! it. Every other key, event, group and hook keeps its content and its place; new groups go at
//! the end of an event's list (Codex keys its hook trust by position, so the user's hooks keep
//! theirs).
//!
//! The three dialects share one shape — `hooks.<Event>: [{matcher?, hooks: [{type: "command",
//! command, timeout}]}]` — and differ in the details encoded in [`Cli`]:
//! - Claude Code: `timeout` in seconds; `"*"` matches every tool. We never set `async`, so each
//!   event reaches Switchboard in order.
//! - Codex (`hooks.json`, whose only top-level key is `hooks`): `timeout` in seconds; an omitted
//!   matcher matches everything in every release (older ones compile a matcher as a regex, where
//!   `*` is invalid). Releases that predate an event ignore it. We never set `async`.
//! - Gemini CLI: `timeout` in milliseconds; `"*"` matches every tool; `name` is what `/hooks
//!   disable` takes; the whole system is switched by `hooksConfig.enabled`, which install sets
//!   when it is absent (never over a user's explicit `false`: that is reported instead).

use std::fmt;

use serde::Serialize;
use serde_json::{json, Map, Value};

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

/// The name Gemini CLI shows for our hook in `/hooks` (and takes in `/hooks disable`).
pub const GEMINI_HOOK_NAME: &str = "switchboard";

/// The events each normalizer reads (`normalize/{claude,codex,gemini}.rs`): exactly these get
/// the hook, so Switchboard sees every event its tables use and pays for no other.
const CLAUDE_EVENTS: &[&str] = &[
    "UserPromptSubmit",
    "PreToolUse",
    "PostToolUse",
    "PostToolUseFailure",
    "PreCompact",
    "PostCompact",
    "Notification",
    "PermissionRequest",
    "Elicitation",
    "ElicitationResult",
    "Stop",
    "StopFailure",
    "SubagentStart",
    "SubagentStop",
    "SessionStart",
    "SessionEnd",
];
const CODEX_EVENTS: &[&str] = &[
    "SessionStart",
    "SessionEnd",
    "PreCompact",
    "PostCompact",
    "SubagentStart",
    "SubagentStop",
    "PreToolUse",
    "PostToolUse",
    "UserPromptSubmit",
    "PermissionRequest",
    "PreModelRequest",
    "PostModelRequest",
    "Stop",
    "Interrupt",
];
const GEMINI_EVENTS: &[&str] = &[
    "BeforeAgent",
    "BeforeTool",
    "AfterTool",
    "AfterAgent",
    "Notification",
    "SessionStart",
    "SessionEnd",
    "PreCompress",
];

impl Cli {
    pub const ALL: [Cli; 3] = [Cli::Claude, Cli::Codex, Cli::Gemini];

    /// The agent id in `/hook/<agent>` and in `switchboard hook <agent>`.
    pub fn agent(self) -> &'static str {
        match self {
            Cli::Claude => "claude",
            Cli::Codex => "codex",
            Cli::Gemini => "gemini",
        }
    }

    pub fn from_agent(agent: &str) -> Option<Cli> {
        Cli::ALL.into_iter().find(|cli| cli.agent() == agent)
    }

    /// The product's own name, for messages.
    pub fn name(self) -> &'static str {
        match self {
            Cli::Claude => "Claude Code",
            Cli::Codex => "Codex CLI",
            Cli::Gemini => "Gemini CLI",
        }
    }

    /// The hook events Switchboard registers for, in the order it adds them.
    pub fn events(self) -> &'static [&'static str] {
        match self {
            Cli::Claude => CLAUDE_EVENTS,
            Cli::Codex => CODEX_EVENTS,
            Cli::Gemini => GEMINI_EVENTS,
        }
    }

    /// The matcher our group carries for `event`: "every tool" on tool events where the CLI
    /// documents one; none elsewhere (an omitted matcher matches every occurrence).
    fn matcher(self, event: &str) -> Option<&'static str> {
        match (self, event) {
            (Cli::Claude, "PreToolUse" | "PostToolUse" | "PostToolUseFailure" | "PermissionRequest") => Some("*"),
            (Cli::Gemini, "BeforeTool" | "AfterTool") => Some("*"),
            _ => None,
        }
    }

    /// Our hook handler, as this CLI spells it.
    fn handler(self, command: &str) -> Value {
        match self {
            Cli::Claude | Cli::Codex => json!({"type": "command", "command": command, "timeout": HOOK_TIMEOUT_SECS}),
            Cli::Gemini => json!({
                "name": GEMINI_HOOK_NAME,
                "type": "command",
                "command": command,
                "timeout": HOOK_TIMEOUT_SECS * 1000,
            }),
        }
    }

    /// A matcher group holding only our handler.
    fn group(self, event: &str, command: &str) -> Value {
        let mut group = Map::new();
        if let Some(matcher) = self.matcher(event) {
            group.insert("matcher".into(), matcher.into());
        }
        group.insert("hooks".into(), json!([self.handler(command)]));
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

fn is_ours(handler: &Value, cli: Cli) -> bool {
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

/// One change to a settings file, for the installer's report and `--dry-run`.
#[derive(Debug, Clone, PartialEq)]
pub struct Edit {
    pub action: EditAction,
    /// Where: `hooks.<Event>` for our hook, or the setting's dotted path.
    pub key: String,
    /// The group added, the handler updated or removed, or the value set.
    pub value: Value,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EditAction {
    /// Our hook registered for an event that lacked it.
    Add,
    /// Our existing hook rewritten (the binary moved, or an older shape).
    Update,
    /// Our hook taken out (uninstall, a duplicate, or an event we no longer use).
    Remove,
    /// A setting that enables hooks, set because it was absent.
    Set,
}

impl fmt::Display for Edit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let sign = match self.action {
            EditAction::Add | EditAction::Set => '+',
            EditAction::Update => '~',
            EditAction::Remove => '-',
        };
        write!(f, "{sign} {}: {}", self.key, self.value)
    }
}

impl Edit {
    fn hook(action: EditAction, event: &str, value: Value) -> Self {
        Edit { action, key: format!("hooks.{event}"), value }
    }
}

/// The settings after an install or uninstall, and what changed to get there.
#[derive(Debug, Clone, PartialEq)]
pub struct Plan {
    pub settings: Value,
    pub edits: Vec<Edit>,
}

impl Plan {
    /// False when the settings are already as wanted: then nothing needs writing.
    pub fn changes(&self) -> bool {
        !self.edits.is_empty()
    }

    pub fn count(&self, action: EditAction) -> usize {
        self.edits.iter().filter(|edit| edit.action == action).count()
    }
}

/// Settings whose shape leaves no safe place for our hook. The file is left as it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShapeError {
    /// `the top level`, or a dotted path such as `hooks.PreToolUse`.
    pub at: String,
    pub expected: &'static str,
}

impl fmt::Display for ShapeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.at.is_empty() {
            write!(f, "the top level is not {}", self.expected)
        } else {
            write!(f, "`{}` is not {}", self.at, self.expected)
        }
    }
}

impl std::error::Error for ShapeError {}

fn shape_error(at: impl Into<String>, expected: &'static str) -> ShapeError {
    ShapeError { at: at.into(), expected }
}

/// `settings` with our hook registered for each of `events` (normally [`events_for`] the CLI),
/// once each, pointing at `program` (the absolute path of the `switchboard` binary); our hook
/// leaves any other event. Idempotent: planning over its own result changes nothing.
pub fn plan_install(settings: &Value, cli: Cli, program: &str, events: &[&str]) -> Result<Plan, ShapeError> {
    let command = hook_command(program, cli);
    let desired = cli.handler(&command);
    let mut root = settings.as_object().cloned().ok_or_else(|| shape_error("", "an object"))?;
    let mut edits = Vec::new();

    let hooks = root.entry("hooks").or_insert_with(|| json!({}));
    let hooks = hooks.as_object_mut().ok_or_else(|| shape_error("hooks", "an object"))?;
    // An older Switchboard (or an older CLI release) may have had events that are not wanted now.
    remove_ours(hooks, cli, events, &mut edits);
    for &event in events {
        let groups = hooks.entry(event).or_insert_with(|| json!([]));
        let groups = groups.as_array_mut().ok_or_else(|| shape_error(format!("hooks.{event}"), "a list"))?;
        let mut found = false;
        retain_ours(groups, cli, |handler| {
            if found {
                edits.push(Edit::hook(EditAction::Remove, event, handler.clone()));
                return false;
            }
            found = true;
            if refresh(handler, &desired) {
                edits.push(Edit::hook(EditAction::Update, event, handler.clone()));
            }
            true
        });
        if !found {
            let group = cli.group(event, &command);
            edits.push(Edit::hook(EditAction::Add, event, group.clone()));
            groups.push(group);
        }
    }

    if cli == Cli::Gemini {
        let config = root.entry("hooksConfig").or_insert_with(|| json!({}));
        let config = config.as_object_mut().ok_or_else(|| shape_error("hooksConfig", "an object"))?;
        if !config.contains_key("enabled") {
            config.insert("enabled".into(), true.into());
            edits.push(Edit { action: EditAction::Set, key: "hooksConfig.enabled".into(), value: true.into() });
        }
    }
    Ok(Plan { settings: Value::Object(root), edits })
}

/// `settings` without any Switchboard hook for `cli`, in any event. A group, an event list or
/// the `hooks` object left empty by that removal goes too; anything else stays, including the
/// settings that enable hooks (other hooks may rely on them).
pub fn plan_uninstall(settings: &Value, cli: Cli) -> Result<Plan, ShapeError> {
    let mut root = settings.as_object().cloned().ok_or_else(|| shape_error("", "an object"))?;
    let mut edits = Vec::new();
    if let Some(hooks) = root.get_mut("hooks").and_then(Value::as_object_mut) {
        remove_ours(hooks, cli, &[], &mut edits);
        if hooks.is_empty() && !edits.is_empty() {
            root.retain(|key, _| key != "hooks");
        }
    }
    Ok(Plan { settings: Value::Object(root), edits })
}

/// Removes our handlers from every event not in `keep`, dropping the event lists that leaves
/// empty.
fn remove_ours(hooks: &mut Map<String, Value>, cli: Cli, keep: &[&str], edits: &mut Vec<Edit>) {
    let mut emptied = Vec::new();
    for (event, groups) in hooks.iter_mut() {
        let Some(groups) = groups.as_array_mut().filter(|_| !keep.contains(&event.as_str())) else { continue };
        let before = edits.len();
        retain_ours(groups, cli, |handler| {
            edits.push(Edit::hook(EditAction::Remove, event, handler.clone()));
            false
        });
        if groups.is_empty() && edits.len() > before {
            emptied.push(event.clone());
        }
    }
    hooks.retain(|event, _| !emptied.contains(event));
}

/// Calls `keep` on each of our handlers in one event's groups, in order; a handler it returns
/// `false` for is removed, and so is a group that removal leaves without hooks. Groups and
/// handlers that are not ours are never touched.
fn retain_ours(groups: &mut Vec<Value>, cli: Cli, mut keep: impl FnMut(&mut Value) -> bool) {
    groups.retain_mut(|group| {
        let Some(handlers) = group.get_mut("hooks").and_then(Value::as_array_mut) else { return true };
        let before = handlers.len();
        handlers.retain_mut(|handler| !is_ours(handler, cli) || keep(handler));
        !(handlers.is_empty() && handlers.len() < before)
    });
}

/// Brings our existing handler to the desired shape, keeping any key a user added; true if it
/// changed.
fn refresh(handler: &mut Value, desired: &Value) -> bool {
    let (Some(handler), Some(desired)) = (handler.as_object_mut(), desired.as_object()) else { return false };
    let mut changed = false;
    for (key, value) in desired {
        if handler.get(key) != Some(value) {
            handler.insert(key.clone(), value.clone());
            changed = true;
        }
    }
    // A CLI may skip async hooks, and the others would deliver events out of order.
    if handler.contains_key("async") {
        handler.retain(|key, _| key != "async");
        changed = true;
    }
    changed
}

/// Where our hook is registered in some settings, for a status panel.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Installed {
    /// The events asked about that have our hook.
    pub events: Vec<&'static str>,
    /// The events asked about that lack it.
    pub missing: Vec<&'static str>,
    /// The distinct commands our entries run (more than one, or one that is not today's
    /// [`hook_command`], means the binary moved since the install).
    pub commands: Vec<String>,
}

/// Which of `events` have our hook in `settings`.
pub fn installed(settings: &Value, cli: Cli, events: &[&'static str]) -> Installed {
    let mut found = Installed::default();
    for &event in events {
        let handlers = settings
            .get("hooks")
            .and_then(|hooks| hooks.get(event))
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|group| group.get("hooks")?.as_array())
            .flatten()
            .filter(|handler| is_ours(handler, cli));
        let mut any = false;
        for command in handlers.filter_map(|handler| handler.get("command")?.as_str()) {
            any = true;
            if !found.commands.iter().any(|known| known == command) {
                found.commands.push(command.to_owned());
            }
        }
        if any {
            found.events.push(event);
        } else {
            found.missing.push(event);
        }
    }
    found
}

/// A setting that keeps the CLI from running our hook even when it is registered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Notice {
    /// Claude Code's `disableAllHooks: true`.
    ClaudeHooksDisabled,
    /// Gemini CLI's `hooksConfig.enabled: false`.
    GeminiHooksDisabled,
    /// Our hook's name (or command) in Gemini CLI's `hooksConfig.disabled`.
    GeminiHookDisabled,
}

impl fmt::Display for Notice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Notice::ClaudeHooksDisabled => {
                "`disableAllHooks` is true in these settings: Claude Code runs no hook, Switchboard's included, \
                 until you set it to false"
            }
            Notice::GeminiHooksDisabled => {
                "`hooksConfig.enabled` is false in these settings: Gemini CLI runs no hook, Switchboard's included, \
                 until you set it to true"
            }
            Notice::GeminiHookDisabled => {
                "`hooksConfig.disabled` lists Switchboard's hook: remove it there (or run `/hooks enable switchboard` \
                 in Gemini CLI) for Gemini sessions to appear"
            }
        })
    }
}

/// The settings that would keep `cli` from running our hook.
pub fn notices(settings: &Value, cli: Cli) -> Vec<Notice> {
    let mut notices = Vec::new();
    match cli {
        Cli::Claude if settings.get("disableAllHooks") == Some(&Value::Bool(true)) => {
            notices.push(Notice::ClaudeHooksDisabled);
        }
        Cli::Gemini => {
            let config = settings.get("hooksConfig");
            if config.and_then(|config| config.get("enabled")) == Some(&Value::Bool(false)) {
                notices.push(Notice::GeminiHooksDisabled);
            }
            let disabled = config.and_then(|config| config.get("disabled")).and_then(Value::as_array);
            let ours = |name: &Value| {
                name.as_str().is_some_and(|name| name == GEMINI_HOOK_NAME || is_switchboard_command(name, cli))
            };
            if disabled.is_some_and(|names| names.iter().any(ours)) {
                notices.push(Notice::GeminiHookDisabled);
            }
        }
        _ => {}
    }
    notices
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::normalize::normalize;

    const PROGRAM: &str = "/opt/Switchboard/bin/switchboard";

    fn install(settings: &Value, cli: Cli) -> Plan {
        plan_install(settings, cli, PROGRAM, cli.events()).unwrap()
    }

    fn ours_in(settings: &Value, cli: Cli, event: &str) -> usize {
        settings["hooks"][event]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|group| group["hooks"].as_array())
            .flatten()
            .filter(|handler| is_ours(handler, cli))
            .count()
    }

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
    fn fresh_settings_get_one_hook_per_event_with_the_cli_s_units() {
        let claude = install(&json!({}), Cli::Claude);
        assert_eq!(claude.count(EditAction::Add), CLAUDE_EVENTS.len());
        assert_eq!(
            claude.settings["hooks"]["PreToolUse"],
            json!([{"matcher": "*", "hooks": [{"type": "command", "command": hook_command(PROGRAM, Cli::Claude), "timeout": 3}]}])
        );
        assert_eq!(
            claude.settings["hooks"]["Stop"],
            json!([{"hooks": [{"type": "command", "command": hook_command(PROGRAM, Cli::Claude), "timeout": 3}]}])
        );

        let codex = install(&json!({}), Cli::Codex);
        assert_eq!(codex.settings.as_object().unwrap().keys().collect::<Vec<_>>(), ["hooks"]);
        assert_eq!(
            codex.settings["hooks"]["PreToolUse"],
            json!([{"hooks": [{"type": "command", "command": hook_command(PROGRAM, Cli::Codex), "timeout": 3}]}])
        );
        assert_eq!(codex.settings["hooks"].as_object().unwrap().keys().cloned().collect::<Vec<_>>(), CODEX_EVENTS);

        let gemini = install(&json!({}), Cli::Gemini);
        assert_eq!(
            gemini.settings["hooks"]["BeforeTool"],
            json!([{"matcher": "*", "hooks": [{
                "name": "switchboard", "type": "command", "command": hook_command(PROGRAM, Cli::Gemini), "timeout": 3000
            }]}])
        );
        assert_eq!(gemini.settings["hooksConfig"], json!({"enabled": true}));
        for (cli, plan) in [(Cli::Claude, &claude), (Cli::Codex, &codex), (Cli::Gemini, &gemini)] {
            for event in cli.events() {
                assert_eq!(ours_in(&plan.settings, cli, event), 1, "{cli:?} {event}");
            }
            let text = serde_json::to_string(&plan.settings).unwrap();
            assert!(!text.contains("async"), "{cli:?}");
        }
    }

    #[test]
    fn installing_twice_changes_nothing_the_second_time() {
        for cli in Cli::ALL {
            let once = install(&json!({"model": "x"}), cli);
            let twice = install(&once.settings, cli);
            assert!(!twice.changes(), "{cli:?}: {:?}", twice.edits);
            assert_eq!(twice.settings, once.settings);
        }
    }

    #[test]
    fn user_keys_and_hooks_keep_their_content_and_order() {
        let settings = json!({
            "model": "opus",
            "hooks": {
                "Stop": [{"hooks": [{"type": "command", "command": "say done"}]}],
                "PreToolUse": [
                    {"matcher": "Bash", "hooks": [{"type": "command", "command": "guard.sh", "timeout": 30}]}
                ],
                "Custom": "left alone"
            },
            "permissions": {"allow": ["Bash(ls)"]}
        });
        let plan = install(&settings, Cli::Claude);
        let root = plan.settings.as_object().unwrap();
        assert_eq!(root.keys().collect::<Vec<_>>(), ["model", "hooks", "permissions"]);
        let hooks = root["hooks"].as_object().unwrap();
        assert_eq!(hooks.keys().take(3).collect::<Vec<_>>(), ["Stop", "PreToolUse", "Custom"]);
        assert_eq!(hooks["Stop"][0], settings["hooks"]["Stop"][0]);
        assert_eq!(hooks["PreToolUse"][0], settings["hooks"]["PreToolUse"][0]);
        assert_eq!(hooks["Stop"].as_array().unwrap().len(), 2, "ours goes after the user's group");
        assert_eq!(hooks["Custom"], "left alone");
        assert_eq!(root["permissions"], settings["permissions"]);
    }

    #[test]
    fn a_moved_binary_is_updated_in_place_and_duplicates_collapse() {
        let old = r#""/old/place/switchboard" hook claude"#;
        let settings = json!({"hooks": {"Stop": [
            {"hooks": [{"type": "command", "command": "say done"}, {"type": "command", "command": old, "timeout": 60, "async": true}]},
            {"hooks": [{"type": "command", "command": "/old/place/switchboard hook claude"}]}
        ]}});
        let plan = install(&settings, Cli::Claude);
        assert_eq!(
            plan.settings["hooks"]["Stop"],
            json!([{"hooks": [
                {"type": "command", "command": "say done"},
                {"type": "command", "command": hook_command(PROGRAM, Cli::Claude), "timeout": 3}
            ]}])
        );
        assert_eq!(plan.count(EditAction::Update), 1);
        assert_eq!(plan.count(EditAction::Remove), 1);
    }

    #[test]
    fn install_drops_our_hook_from_events_we_no_longer_register() {
        let settings = json!({"hooks": {
            "Setup": [{"hooks": [{"type": "command", "command": "/x/switchboard hook claude"}]}],
            "WorktreeCreate": [{"hooks": [{"type": "command", "command": "mine"}]}]
        }});
        let plan = install(&settings, Cli::Claude);
        let hooks = plan.settings["hooks"].as_object().unwrap();
        assert!(!hooks.contains_key("Setup"));
        assert_eq!(hooks["WorktreeCreate"], settings["hooks"]["WorktreeCreate"]);
    }

    #[test]
    fn uninstall_removes_only_our_entries_and_what_it_emptied() {
        for cli in Cli::ALL {
            let event = cli.events()[0];
            let mine = json!({"hooks": [{"type": "command", "command": "mine.sh"}]});
            let user = json!({"theme": "dark", "hooks": {event: [mine.clone()]}});
            let installed = install(&user, cli).settings;
            let plan = plan_uninstall(&installed, cli).unwrap();
            assert_eq!(plan.count(EditAction::Remove), cli.events().len(), "{cli:?}");
            let mut expected = user.clone();
            if cli == Cli::Gemini {
                // Enabling hooks is left as it is: the user's own hooks may need it.
                expected["hooksConfig"] = json!({"enabled": true});
            }
            assert_eq!(plan.settings, expected, "{cli:?}");
            assert!(!plan_uninstall(&plan.settings, cli).unwrap().changes());
        }
    }

    #[test]
    fn uninstall_keeps_a_group_that_still_holds_user_hooks() {
        let settings = json!({"hooks": {"Stop": [{"matcher": "", "hooks": [
            {"type": "command", "command": "/x/switchboard hook claude"},
            {"type": "command", "command": "mine.sh"}
        ]}]}});
        let plan = plan_uninstall(&settings, Cli::Claude).unwrap();
        assert_eq!(
            plan.settings,
            json!({"hooks": {"Stop": [{"matcher": "", "hooks": [{"type": "command", "command": "mine.sh"}]}]}})
        );
    }

    #[test]
    fn uninstall_leaves_hooks_for_another_agent() {
        let codex_entry = json!({"hooks": [{"type": "command", "command": "/x/switchboard hook codex"}]});
        let mut settings = install(&json!({}), Cli::Claude).settings;
        settings["hooks"]["Stop"].as_array_mut().unwrap().push(codex_entry.clone());
        let plan = plan_uninstall(&settings, Cli::Claude).unwrap();
        assert_eq!(plan.settings, json!({"hooks": {"Stop": [codex_entry]}}));
    }

    #[test]
    fn settings_without_room_for_a_hook_are_refused() {
        let cases = [
            (json!([]), ""),
            (json!({"hooks": []}), "hooks"),
            (json!({"hooks": {"Stop": {"hooks": []}}}), "hooks.Stop"),
        ];
        for (settings, at) in cases {
            assert_eq!(plan_install(&settings, Cli::Claude, PROGRAM, CLAUDE_EVENTS).unwrap_err().at, at);
        }
        let error = plan_install(&json!({"hooksConfig": true}), Cli::Gemini, PROGRAM, GEMINI_EVENTS).unwrap_err();
        assert_eq!(error.to_string(), "`hooksConfig` is not an object");
        assert!(plan_uninstall(&json!("x"), Cli::Codex).is_err());
    }

    #[test]
    fn gemini_install_never_overrides_an_explicit_choice_to_disable_hooks() {
        let settings = json!({"hooksConfig": {"enabled": false, "disabled": ["switchboard"]}});
        let plan = install(&settings, Cli::Gemini);
        assert_eq!(plan.settings["hooksConfig"], settings["hooksConfig"]);
        assert_eq!(notices(&plan.settings, Cli::Gemini), [Notice::GeminiHooksDisabled, Notice::GeminiHookDisabled]);
        assert_eq!(notices(&json!({"disableAllHooks": true}), Cli::Claude), [Notice::ClaudeHooksDisabled]);
        assert!(notices(&install(&json!({}), Cli::Gemini).settings, Cli::Gemini).is_empty());
    }

    #[test]
    fn installed_reports_events_and_commands_for_a_status_panel() {
        let partial =
            json!({"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "/old/switchboard hook claude"}]}]}});
        let found = installed(&partial, Cli::Claude, CLAUDE_EVENTS);
        assert_eq!(found.events, ["Stop"]);
        assert_eq!(found.missing.len(), CLAUDE_EVENTS.len() - 1);
        assert_eq!(found.commands, ["/old/switchboard hook claude"]);

        let full = installed(&install(&json!({}), Cli::Codex).settings, Cli::Codex, CODEX_EVENTS);
        assert!(full.missing.is_empty());
        assert_eq!(full.commands, [hook_command(PROGRAM, Cli::Codex)]);
        assert_eq!(installed(&json!({}), Cli::Gemini, GEMINI_EVENTS).events.len(), 0);
    }

    #[test]
    fn edits_read_as_a_dry_run_would_print_them() {
        let plan = install(&json!({}), Cli::Gemini);
        let last = plan.edits.last().unwrap().to_string();
        assert_eq!(last, "+ hooksConfig.enabled: true");
        assert!(plan.edits[0].to_string().starts_with("+ hooks.BeforeAgent: {\"hooks\":"));
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
        assert_eq!(events_for(Cli::Claude, None), CLAUDE_EVENTS);
        assert_eq!(events_for(Cli::Claude, Some(Version(2, 1, 78))), CLAUDE_EVENTS);
        let old = events_for(Cli::Claude, Some(Version(2, 1, 77)));
        assert!(!old.contains(&"StopFailure") && old.len() == CLAUDE_EVENTS.len() - 1);
        assert_eq!(events_for(Cli::Codex, Some(Version(0, 1, 0))), CODEX_EVENTS);

        // Installing for the older release takes out a StopFailure hook a newer one had.
        let newer = install(&json!({}), Cli::Claude).settings;
        let plan = plan_install(&newer, Cli::Claude, PROGRAM, &old).unwrap();
        assert!(!plan.settings["hooks"].as_object().unwrap().contains_key("StopFailure"));
        assert_eq!(
            plan.edits,
            [Edit::hook(EditAction::Remove, "StopFailure", newer["hooks"]["StopFailure"][0]["hooks"][0].clone())]
        );
    }
}
