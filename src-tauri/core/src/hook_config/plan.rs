//! Planning an install or an uninstall: the settings as they should become, and each edit that
//! gets them there.

use std::fmt;

use serde_json::{json, Map, Value};

use super::cli::{hook_command, is_ours, Cli};
use crate::agent::Layout;

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

    /// The hook event this edit is for; `None` for a setting (`hooksConfig.enabled`).
    pub fn event(&self) -> Option<&str> {
        self.key.strip_prefix("hooks.")
    }

    /// The command of the hook it adds, updates or removes.
    pub fn command(&self) -> Option<&str> {
        let handler = match self.value.get("hooks") {
            // An added group holds our one handler.
            Some(handlers) => handlers.get(0)?,
            None => &self.value,
        };
        handler.get("command")?.as_str()
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
    let mut root = settings.as_object().cloned().ok_or_else(|| shape_error("", "an object"))?;
    let mut edits = Vec::new();

    if let Layout::Flat { version } = cli.setup().layout {
        if !root.contains_key("version") {
            root.insert("version".into(), version.into());
            edits.push(Edit { action: EditAction::Set, key: "version".into(), value: version.into() });
        }
    }
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
            if refresh(handler, &cli.handler(event, &command)) {
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

    if let Some((&key, parents)) = cli.setup().switch_on.and_then(<[_]>::split_last) {
        let mut config = &mut root;
        for (n, parent) in parents.iter().enumerate() {
            let entry = config.entry(*parent).or_insert_with(|| json!({}));
            config = entry.as_object_mut().ok_or_else(|| shape_error(parents[..=n].join("."), "an object"))?;
        }
        if !config.contains_key(key) {
            config.insert(key.into(), true.into());
            let path = cli.setup().switch_on.unwrap_or_default().join(".");
            edits.push(Edit { action: EditAction::Set, key: path, value: true.into() });
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
            // A flat hooks file's `version` was written for the hooks only.
            if let Layout::Flat { version } = cli.setup().layout {
                if root.get("version") == Some(&json!(version)) {
                    root.remove("version");
                }
            }
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
    if cli.setup().layout != Layout::Groups {
        groups.retain_mut(|handler| !is_ours(handler, cli) || keep(handler));
        return;
    }
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

#[cfg(test)]
mod tests;
