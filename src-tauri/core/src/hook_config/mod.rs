//! Registering Switchboard's hook in a CLI's own settings (docs/model.md §5), as pure planning.
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

mod cli;
mod dirs;
mod installed;
mod notices;
mod plan;

pub use cli::{events_for, hook_command, is_switchboard_command, Cli, Version, HOLD_TIMEOUT_SECS, HOOK_TIMEOUT_SECS};
pub use dirs::ConfigDirs;
pub use installed::{installed, Installed};
pub use notices::{notices, Notice};
pub use plan::{plan_install, plan_uninstall, Edit, EditAction, Plan, ShapeError};

/// What the tests of every stage install over.
#[cfg(test)]
mod testing {
    use super::{plan_install, Cli, Plan};
    use serde_json::Value;

    pub const PROGRAM: &str = "/opt/Switchboard/bin/switchboard";

    /// The connectable CLI with that agent id.
    pub fn cli(id: &str) -> Cli {
        Cli::from_agent(id).unwrap_or_else(|| panic!("{id} is not in the table"))
    }

    /// `settings` with our hook for every event of `cli`, pointing at [`PROGRAM`].
    pub fn install(settings: &Value, cli: Cli) -> Plan {
        plan_install(settings, cli, PROGRAM, cli.events()).unwrap()
    }
}
