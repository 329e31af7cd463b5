//! How a CLI is connected (docs/model.md §5): where it keeps its hooks, how Switchboard's hook is
//! spelled in them, what switches them off, and what the user still does in the CLI. Part of the
//! CLI's row ([`super::Agent::setup`]); the installer, `doctor` and the Connections panel read only
//! this. A leaf, like the row.

use std::fmt;

/// Where the CLI's settings folder is, and how its hooks are written there.
#[derive(Clone, Copy, Debug)]
pub struct Setup {
    /// Its settings folder in the home folder (`.claude`).
    pub dir: &'static str,
    /// The environment variable that moves that folder, if any.
    pub dir_var: Option<DirVar>,
    /// The file, in that folder, that holds its hooks.
    pub file: &'static str,
    /// The program on `PATH` (and what answers `--version`).
    pub program: &'static str,
    /// How a user installs the CLI, for `doctor`.
    pub install_hint: &'static str,
    /// Events whose group carries `"matcher": "*"` (every tool) where the CLI documents one; an
    /// omitted matcher matches every occurrence elsewhere.
    pub every_tool: &'static [&'static str],
    /// Its hook `timeout` is in milliseconds (else seconds).
    pub timeout_in_ms: bool,
    /// How the hooks are laid out in the file.
    pub layout: Layout,
    /// The handler's keys for its command (`command`; Copilot CLI's `bash`) and its timeout
    /// (`timeout`; Copilot CLI's `timeoutSec`).
    pub command_key: &'static str,
    pub timeout_key: &'static str,
    /// A variable the handler's `env` sets to the event's name, for a CLI whose payload does not
    /// name its event (Copilot CLI): the forwarder adds it as `hook_event_name`.
    pub event_env: Option<&'static str>,
    /// Where, in its folder, a session's transcript is when its payloads do not say (`{id}`: the
    /// session id); the forwarder adds it as `transcript_path`.
    pub transcript_in: Option<&'static str>,
    /// The `name` our handler carries (what `/hooks disable` takes), when the CLI names hooks.
    pub hook_name: Option<&'static str>,
    /// It reads its settings through a JSON-with-comments reader: a file with comments is
    /// refused rather than rewritten without them.
    pub comments: bool,
    /// A setting that switches every hook off, reported (never overridden) when it is set.
    pub all_off: Option<Switch>,
    /// A switch for the whole hook system set on at install when the file does not have it.
    pub switch_on: Option<&'static [&'static str]>,
    /// A list of hook names the user switched off, reported when it names ours.
    pub disabled_list: Option<Switch>,
    /// Events an older release refuses the whole file for, with the release that brought them.
    pub introduced: &'static [(&'static str, Version)],
    /// What the user still does in the CLI after a change, for the hooks to run.
    pub next_step: &'static str,
    /// For a CLI that runs no hook commands itself (pi): the file of Switchboard's own it loads,
    /// which runs the hooks file's commands on its events.
    pub bridge: Option<Bridge>,
}

impl Setup {
    /// What a row's setup says by leaving a field out (`..Setup::BASE`): hooks in groups under
    /// `command`/`timeout` (seconds), no switches to watch, nothing introduced late, no bridge.
    /// A setup always sets its own `dir`, `file`, `program`, `install_hint` and `next_step`.
    pub const BASE: Setup = Setup {
        dir: "",
        dir_var: None,
        file: "",
        program: "",
        install_hint: "",
        every_tool: &[],
        timeout_in_ms: false,
        layout: Layout::Groups,
        command_key: "command",
        timeout_key: "timeout",
        event_env: None,
        transcript_in: None,
        hook_name: None,
        comments: false,
        all_off: None,
        switch_on: None,
        disabled_list: None,
        introduced: &[],
        next_step: "",
        bridge: None,
    };
}

/// A file of Switchboard's own that a CLI loads (pi's extension) to run the hooks of the hooks
/// file: written whole by `install` (never over a file that is not ours), removed by `--uninstall`.
#[derive(Clone, Copy, Debug)]
pub struct Bridge {
    /// Where, in the CLI's folder (`extensions/switchboard.ts`).
    pub file: &'static str,
    /// Its whole text.
    pub source: &'static str,
    /// What its first line says, by which a file there is recognised as ours.
    pub mark: &'static str,
}

impl Bridge {
    /// Whether `text` is a bridge Switchboard wrote (this release's or an older one).
    pub fn is_ours(&self, text: &str) -> bool {
        text.lines().next().is_some_and(|first| first.contains(self.mark))
    }
}

/// How a CLI's hooks file holds its hooks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layout {
    /// `hooks.<Event>: [{matcher?, hooks: [handler]}]` beside the CLI's other settings.
    Groups,
    /// `{"version": <n>, "hooks": {"<event>": [handler]}}`: each handler straight in its event's
    /// list, in a file of the CLI's hooks folder (Copilot CLI's `hooks/*.json`).
    Flat { version: u64 },
}

/// The environment variable that moves a CLI's settings folder.
#[derive(Clone, Copy, Debug)]
pub enum DirVar {
    /// It names the folder itself (`CLAUDE_CONFIG_DIR`).
    Folder(&'static str),
    /// It names a home the folder goes under (`GEMINI_CLI_HOME` → `$GEMINI_CLI_HOME/.gemini`).
    Home(&'static str),
    /// It names the base the CLI's own folder is in (`XDG_CONFIG_HOME` → `$XDG_CONFIG_HOME/opencode`).
    Base(&'static str, &'static str),
}

/// A setting in the CLI's settings file, by its path of keys, what it says when it is set, and
/// how to undo it.
#[derive(Clone, Copy, Debug)]
pub struct Switch {
    pub path: &'static [&'static str],
    /// The value that switches our hook off (a list switch: the list names our hook).
    pub off: bool,
    pub message: &'static str,
    /// How to undo it; `{file}` is the settings file.
    pub fix: &'static str,
}

/// A CLI release, `major.minor.patch`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Version(pub u32, pub u32, pub u32);

impl Version {
    /// The first `x.y.z` word of `text`, as in `claude --version`'s "2.1.78 (Claude Code)".
    pub fn parse(text: &str) -> Option<Version> {
        text.split_whitespace().find_map(|word| {
            let word = word.trim_end_matches(['.', ',', ';', ')']);
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
