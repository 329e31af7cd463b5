//! Settings that keep a CLI from running our hook even when it is registered.

use std::fmt;

use serde_json::Value;

use super::cli::{is_switchboard_command, Cli, GEMINI_HOOK_NAME};

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
    use super::super::testing::install;
    use super::*;
    use serde_json::json;

    #[test]
    fn gemini_install_never_overrides_an_explicit_choice_to_disable_hooks() {
        let settings = json!({"hooksConfig": {"enabled": false, "disabled": ["switchboard"]}});
        let plan = install(&settings, Cli::Gemini);
        assert_eq!(plan.settings["hooksConfig"], settings["hooksConfig"]);
        assert_eq!(notices(&plan.settings, Cli::Gemini), [Notice::GeminiHooksDisabled, Notice::GeminiHookDisabled]);
        assert_eq!(notices(&json!({"disableAllHooks": true}), Cli::Claude), [Notice::ClaudeHooksDisabled]);
        assert!(notices(&install(&json!({}), Cli::Gemini).settings, Cli::Gemini).is_empty());
    }
}
