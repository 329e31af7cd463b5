//! Settings that keep a CLI from running our hook even when it is registered: each CLI's row
//! says which ([`crate::agent::Setup::all_off`], [`crate::agent::Setup::disabled_list`]).

use std::fmt;

use serde_json::Value;

use super::cli::{is_switchboard_command, Cli};
use crate::agent::Switch;

/// A setting that keeps the CLI from running our hook even when it is registered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Notice {
    /// The setting, by its path of keys (`disableAllHooks`, `hooksConfig.enabled`).
    pub key: &'static [&'static str],
    pub message: &'static str,
    /// How to undo it; `{file}` is the settings file.
    pub fix: &'static str,
}

impl Notice {
    fn of(switch: &Switch) -> Self {
        Notice { key: switch.path, message: switch.message, fix: switch.fix }
    }

    /// How to undo it, naming the settings file.
    pub fn fix_in(&self, file: &std::path::Path) -> String {
        self.fix.replace("{file}", &file.display().to_string())
    }
}

impl fmt::Display for Notice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.message)
    }
}

fn at<'a>(settings: &'a Value, path: &[&str]) -> Option<&'a Value> {
    path.iter().try_fold(settings, |value, key| value.get(key))
}

/// The settings that would keep `cli` from running our hook.
pub fn notices(settings: &Value, cli: Cli) -> Vec<Notice> {
    let setup = cli.setup();
    let mut notices = Vec::new();
    if let Some(switch) = &setup.all_off {
        if at(settings, switch.path) == Some(&Value::Bool(switch.off)) {
            notices.push(Notice::of(switch));
        }
    }
    if let Some(list) = &setup.disabled_list {
        let ours = |name: &Value| {
            name.as_str().is_some_and(|name| Some(name) == setup.hook_name || is_switchboard_command(name, cli))
        };
        if at(settings, list.path).and_then(Value::as_array).is_some_and(|names| names.iter().any(ours)) {
            notices.push(Notice::of(list));
        }
    }
    notices
}

#[cfg(test)]
mod tests {
    use super::super::testing::{cli, install};
    use super::*;
    use serde_json::json;

    #[test]
    fn install_never_overrides_an_explicit_choice_to_disable_hooks() {
        let gemini = cli("gemini");
        let settings = json!({"hooksConfig": {"enabled": false, "disabled": ["switchboard"]}});
        let plan = install(&settings, gemini);
        assert_eq!(plan.settings["hooksConfig"], settings["hooksConfig"]);
        let keys: Vec<_> = notices(&plan.settings, gemini).iter().map(|notice| notice.key.join(".")).collect();
        assert_eq!(keys, ["hooksConfig.enabled", "hooksConfig.disabled"]);
        assert!(notices(&plan.settings, gemini)[1].to_string().contains("/hooks enable switchboard"));
        let claude = notices(&json!({"disableAllHooks": true}), cli("claude"));
        assert_eq!(claude.len(), 1);
        assert_eq!(claude[0].fix_in("/h/s.json".as_ref()), "set \"disableAllHooks\": false in /h/s.json");
        assert!(notices(&json!({"disableAllHooks": false}), cli("claude")).is_empty());
        assert!(notices(&install(&json!({}), gemini).settings, gemini).is_empty());
    }
}
