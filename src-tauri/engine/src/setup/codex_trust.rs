//! Whether Codex will run Switchboard's hooks: Codex runs a hook from `hooks.json` only once the
//! user has trusted it ("Hooks need review" → "Trust all and continue", or `/hooks`), which
//! writes, per handler,
//!
//! ```toml
//! [hooks.state."<hooks.json path>:<event in snake_case>:<group index>:<handler index>"]
//! trusted_hash = "sha256:…"
//! ```
//!
//! into `config.toml`. The hash is of the handler as Codex normalizes it, so a changed hook (even
//! its timeout) is no longer trusted. This module recomputes that hash for each of our handlers
//! and compares: Codex CLI 0.171 hashes the compact, key-sorted JSON of `{event_name, matcher?,
//! hooks: [{type, command, timeout, async}]}`, where `timeout` defaults to 600, is at least 1 and
//! at most 3 for `session_end` and `interrupt`.

use std::fs;
use std::path::Path;

use serde::Serialize;
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};
use switchboard_core::hook_config::{self, Cli};

/// What the user does while some of our hooks are not trusted yet.
pub const UNTRUSTED_STEP: &str = "start Codex and choose \"Trust all and continue\" when it says hooks need review \
                                  (or trust Switchboard's hooks in /hooks)";

/// Codex runs hooks unless `[features] hooks = false` (or the older `codex_hooks = false`) is
/// set in `config.toml`. Switchboard reports that choice rather than overriding it.
/// (what keeps the hooks off, what undoes it).
pub fn switch_off(codex_dir: &Path) -> Option<(String, String)> {
    let config = codex_dir.join("config.toml");
    let table: toml::Table = fs::read_to_string(&config).ok()?.parse().ok()?;
    let features = table.get("features")?.as_table()?;
    let key = ["hooks", "codex_hooks"]
        .into_iter()
        .find(|key| features.get(*key).and_then(toml::Value::as_bool) == Some(false))?;
    Some((
        format!(
            "`[features] {key} = false` in {}: Codex runs no hook, Switchboard's included, until you remove it",
            config.display()
        ),
        format!("delete `{key} = false` under [features] in {}", config.display()),
    ))
}

/// Codex's verdict on Switchboard's hooks, one entry per hook event.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct HookTrust {
    /// Events whose hook Codex will run.
    pub trusted: Vec<String>,
    /// Never trusted: Codex asks for a review at start and skips them until then.
    pub untrusted: Vec<String>,
    /// Trusted once, changed since (a moved binary, a new timeout): they need a new review.
    pub modified: Vec<String>,
    /// Switched off in `/hooks` (`enabled = false`).
    pub disabled: Vec<String>,
}

impl HookTrust {
    /// Every Switchboard hook is trusted and enabled (and there is at least one).
    pub fn complete(&self) -> bool {
        !self.trusted.is_empty() && self.untrusted.is_empty() && self.modified.is_empty() && self.disabled.is_empty()
    }
}

/// The trust state of each Switchboard handler in `hooks` (Codex's parsed `hooks.json`, found
/// at `hooks_file`), from `codex_dir/config.toml`.
pub fn hook_trust(codex_dir: &Path, hooks_file: &Path, hooks: &Value, cli: Cli) -> HookTrust {
    let state = hook_state(&codex_dir.join("config.toml"));
    // Codex keys the state by the file's absolute path; a symlinked CODEX_HOME may appear either way.
    let prefixes: Vec<String> = std::iter::once(hooks_file.to_owned())
        .chain(fs::canonicalize(hooks_file).ok())
        .map(|path| path.display().to_string())
        .collect();
    let mut trust = HookTrust::default();
    let events = hooks.get("hooks").and_then(Value::as_object).into_iter().flatten();
    for (event, groups) in events {
        let label = snake_case(event);
        for (group_index, group) in groups.as_array().into_iter().flatten().enumerate() {
            let handlers = group.get("hooks").and_then(Value::as_array).into_iter().flatten();
            for (handler_index, handler) in handlers.enumerate() {
                let Some(command) = handler.get("command").and_then(Value::as_str) else { continue };
                if !hook_config::is_switchboard_command(command, cli) {
                    continue;
                }
                let entry = prefixes.iter().find_map(|prefix| {
                    let key = format!("{prefix}:{label}:{group_index}:{handler_index}");
                    state.as_ref()?.get(&key)?.as_table().cloned()
                });
                let list = match entry {
                    Some(entry) if entry.get("enabled").and_then(toml::Value::as_bool) == Some(false) => {
                        &mut trust.disabled
                    }
                    Some(entry) => match entry.get("trusted_hash").and_then(toml::Value::as_str) {
                        Some(hash) if hash == handler_hash(&label, group, handler, command) => &mut trust.trusted,
                        Some(_) => &mut trust.modified,
                        None => &mut trust.untrusted,
                    },
                    None => &mut trust.untrusted,
                };
                if !list.contains(event) {
                    list.push(event.clone());
                }
            }
        }
    }
    trust
}

/// `[hooks.state]` of a `config.toml`, if it has one.
fn hook_state(config: &Path) -> Option<toml::Table> {
    let table: toml::Table = fs::read_to_string(config).ok()?.parse().ok()?;
    table.get("hooks")?.get("state")?.as_table().cloned()
}

/// `PreToolUse` → `pre_tool_use`, as Codex labels events in its trust keys.
fn snake_case(event: &str) -> String {
    let mut label = String::with_capacity(event.len() + 4);
    for (i, c) in event.chars().enumerate() {
        if c.is_ascii_uppercase() {
            if i > 0 {
                label.push('_');
            }
            label.push(c.to_ascii_lowercase());
        } else {
            label.push(c);
        }
    }
    label
}

/// The `trusted_hash` Codex records for this handler when the user trusts it.
fn handler_hash(label: &str, group: &Value, handler: &Value, command: &str) -> String {
    let mut timeout = handler.get("timeout").and_then(Value::as_u64).unwrap_or(600).max(1);
    if matches!(label, "session_end" | "interrupt") {
        timeout = timeout.min(3);
    }
    // Keys in sorted order: serde_json keeps insertion order here.
    let mut normalized = Map::new();
    normalized.insert("async".into(), Value::Bool(handler.get("async").and_then(Value::as_bool).unwrap_or(false)));
    normalized.insert("command".into(), command.into());
    if let Some(message) = handler.get("statusMessage").and_then(Value::as_str) {
        normalized.insert("statusMessage".into(), message.into());
    }
    normalized.insert("timeout".into(), timeout.into());
    normalized.insert("type".into(), "command".into());
    let mut identity = Map::new();
    identity.insert("event_name".into(), label.into());
    identity.insert("hooks".into(), Value::Array(vec![Value::Object(normalized)]));
    if let Some(matcher) = group.get("matcher").and_then(Value::as_str) {
        identity.insert("matcher".into(), matcher.into());
    }
    let bytes = serde_json::to_vec(&Value::Object(identity)).expect("a JSON value always serializes");
    let digest = Sha256::digest(bytes);
    let hex: String = digest.iter().map(|byte| format!("{byte:02x}")).collect();
    format!("sha256:{hex}")
}

/// A `config.toml` fragment trusting every handler in `hooks` (Codex's parsed `hooks.json`), as
/// Codex's "Trust all and continue" writes it.
pub fn trust_all(hooks_file: &Path, hooks: &Value) -> String {
    let mut toml = String::from("[hooks.state]\n");
    for (event, groups) in hooks.get("hooks").and_then(Value::as_object).into_iter().flatten() {
        let label = snake_case(event);
        for (group_index, group) in groups.as_array().into_iter().flatten().enumerate() {
            for (handler_index, handler) in
                group.get("hooks").and_then(Value::as_array).into_iter().flatten().enumerate()
            {
                let Some(command) = handler.get("command").and_then(Value::as_str) else { continue };
                toml.push_str(&format!(
                    "\n[hooks.state.\"{}:{label}:{group_index}:{handler_index}\"]\ntrusted_hash = \"{}\"\n",
                    hooks_file.display(),
                    handler_hash(&label, group, handler, command)
                ));
            }
        }
    }
    toml
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const COMMAND: &str = "\"/root/.cache/switchboard-real-clis/runs/codex-bulxea47/switchboard\" hook codex";

    #[test]
    fn the_hash_is_the_one_codex_0_171_recorded_when_the_user_trusted_the_hooks() {
        // From a real run: Codex CLI 0.171.0's "Trust all and continue" (tests/real_cli).
        let handler = json!({"type": "command", "command": COMMAND, "timeout": 5});
        let group = json!({"hooks": [handler.clone()]});
        assert_eq!(
            handler_hash("stop", &group, &handler, COMMAND),
            "sha256:f356653a692bf68a51a0a5a31d50940f3eb6e05893cc2442ec89e8e8a197254c"
        );
        // Codex caps these two at 3 s before hashing.
        assert_eq!(
            handler_hash("interrupt", &group, &handler, COMMAND),
            "sha256:76cade95a4018736c364d8f211212149a7aaf56c1a18da373e915b84c38d7a7a"
        );
        assert_eq!(
            handler_hash("session_end", &group, &handler, COMMAND),
            "sha256:347ec3f537890be1aebb73367544b120e0826bf38f6dbdbab52e4225383300ad"
        );
    }

    #[test]
    fn events_are_labelled_in_snake_case() {
        assert_eq!(snake_case("PreToolUse"), "pre_tool_use");
        assert_eq!(snake_case("Stop"), "stop");
    }

    #[test]
    fn each_hook_is_trusted_untrusted_modified_or_disabled() {
        let dir = tempfile::tempdir().unwrap();
        let hooks_file = dir.path().join("hooks.json");
        let ours = |timeout| json!({"hooks": [{"type": "command", "command": COMMAND, "timeout": timeout}]});
        let hooks = json!({"hooks": {
            "Stop": [{"hooks": [{"type": "command", "command": "./mine.sh"}]}, ours(5)],
            "PreToolUse": [ours(5)],
            "PostToolUse": [ours(5)],
            "SessionStart": [ours(5)],
        }});
        let mut config = trust_all(&hooks_file, &hooks);
        let key = |event: &str, group: usize| format!("[hooks.state.\"{}:{event}:{group}:0\"]\n", hooks_file.display());
        // The user disabled SessionStart in /hooks.
        config = config.replace(&key("session_start", 0), &format!("{}enabled = false\n", key("session_start", 0)));
        // PostToolUse was trusted before its timeout changed.
        let mut changed = hooks.clone();
        changed["hooks"]["PostToolUse"] = json!([ours(9)]);
        // PreToolUse was never trusted.
        let start = config.find(&key("pre_tool_use", 0)).unwrap();
        let end = config[start + 1..].find("\n[").map_or(config.len(), |at| start + 1 + at + 1);
        config.replace_range(start..end, "");
        fs::write(dir.path().join("config.toml"), format!("model = \"o4\"\n{config}")).unwrap();

        let trust = hook_trust(dir.path(), &hooks_file, &changed, Cli::from_agent("codex").unwrap());
        assert_eq!(trust.trusted, ["Stop"], "the user's own Stop hook is not ours to judge");
        assert_eq!(trust.untrusted, ["PreToolUse"]);
        assert_eq!(trust.modified, ["PostToolUse"]);
        assert_eq!(trust.disabled, ["SessionStart"]);
        assert!(!trust.complete());

        let all = trust_all(&hooks_file, &hooks);
        fs::write(dir.path().join("config.toml"), all).unwrap();
        assert!(hook_trust(dir.path(), &hooks_file, &hooks, Cli::from_agent("codex").unwrap()).complete());
        fs::remove_file(dir.path().join("config.toml")).unwrap();
        let none = hook_trust(dir.path(), &hooks_file, &hooks, Cli::from_agent("codex").unwrap());
        assert_eq!(none.untrusted.len(), 4);
        assert!(!none.complete());
    }
}
