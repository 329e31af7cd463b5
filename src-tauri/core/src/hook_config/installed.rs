//! Reading what is installed: which events carry our hook, and which commands it runs.

use serde_json::Value;

use super::cli::{is_ours, Cli};

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
        let list = settings.get("hooks").and_then(|hooks| hooks.get(event));
        let handlers = list.map(|list| cli.handlers(list)).unwrap_or_default();
        let handlers = handlers.into_iter().filter(|handler| is_ours(handler, cli));
        let mut any = false;
        for command in handlers.filter_map(|handler| handler.get(cli.setup().command_key)?.as_str()) {
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

#[cfg(test)]
mod tests {
    use super::super::hook_command;
    use super::super::testing::{cli, install, PROGRAM};
    use super::*;
    use serde_json::json;

    #[test]
    fn installed_reports_events_and_commands_for_a_status_panel() {
        let partial =
            json!({"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "/old/switchboard hook claude"}]}]}});
        let found = installed(&partial, cli("claude"), cli("claude").events());
        assert_eq!(found.events, ["Stop"]);
        assert_eq!(found.missing.len(), cli("claude").events().len() - 1);
        assert_eq!(found.commands, ["/old/switchboard hook claude"]);

        let full = installed(&install(&json!({}), cli("codex")).settings, cli("codex"), cli("codex").events());
        assert!(full.missing.is_empty());
        assert_eq!(full.commands, [hook_command(PROGRAM, cli("codex"))]);
        assert_eq!(installed(&json!({}), cli("gemini"), cli("gemini").events()).events.len(), 0);
    }
}
