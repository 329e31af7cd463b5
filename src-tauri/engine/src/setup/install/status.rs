//! Whether each CLI is connected, and what in its settings keeps our hook from running: read by
//! the Connections panel and `switchboard doctor`.

use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::Value;
use switchboard_core::hook_config;

use super::{program, read, version, Cli, ConfigDirs, Version};
use crate::setup::codex_trust::{self, HookTrust};

/// One CLI's connection, for the Connections panel.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CliStatus {
    pub cli: Cli,
    pub config_dir: PathBuf,
    /// The CLI's config folder exists: it has been used on this machine.
    pub found: bool,
    pub settings_file: PathBuf,
    pub hooks: HooksState,
    /// Settings that keep the CLI from running the hook even when it is installed.
    pub warnings: Vec<Warning>,
    /// Codex only, once our hooks are in `hooks.json`: which of them Codex trusts to run.
    pub trust: Option<HookTrust>,
    /// What the user may have to do in the CLI for installed hooks to run.
    pub next_step: Option<String>,
}

/// A setting that keeps the CLI from running Switchboard's hook, and how to undo it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Warning {
    pub message: String,
    pub fix: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "state", rename_all = "camelCase")]
pub enum HooksState {
    /// Every event has our hook; `current` is false when some run another switchboard binary
    /// than this one (it moved): install again to repoint them.
    Installed {
        current: bool,
    },
    /// Some events lack our hook: install again to complete it.
    Partial {
        missing: Vec<String>,
    },
    NotInstalled,
    /// The settings file cannot be read or parsed.
    Unreadable {
        message: String,
    },
}

/// Which of our hooks a CLI will run: (its folder, settings file, parsed settings, the CLI).
type TrustReader = fn(&Path, &Path, &Value, Cli) -> HookTrust;

/// What a CLI keeps beside its settings that decides whether our hooks run (Codex's `config.toml`:
/// its `[features]` switch and its trust in each hook), read by that CLI's own module.
struct OwnFiles {
    /// (what keeps the hooks off, what undoes it), from its files in its folder.
    switched_off: fn(&Path) -> Option<(String, String)>,
    trust: Option<TrustReader>,
    /// What the user does while some are not trusted yet.
    untrusted_step: &'static str,
}

/// The CLIs with files of their own beside their settings, by agent id: the one place status
/// names a CLI's module.
fn own_files(cli: Cli) -> Option<OwnFiles> {
    match cli.agent() {
        "codex" => Some(OwnFiles {
            switched_off: codex_trust::switch_off,
            trust: Some(codex_trust::hook_trust),
            untrusted_step: codex_trust::UNTRUSTED_STEP,
        }),
        _ => None,
    }
}

/// Whether each CLI is on this machine and connected to this `switchboard` binary.
/// `versions` as in [`super::InstallOptions`].
pub fn status(dirs: &ConfigDirs, command_path: &Path, versions: &[(Cli, Version)]) -> Vec<CliStatus> {
    Cli::all()
        .map(|cli| {
            let settings_file = dirs.settings_file(cli);
            let settings = read::load(cli, &settings_file).map(|file| file.settings);
            let (hooks, warnings, trust) = match settings {
                Ok(settings) => {
                    let events = version::wanted_events(cli, versions);
                    let hooks = hooks_state(cli, &settings, command_path, &events);
                    let installed = matches!(hooks, HooksState::Installed { .. } | HooksState::Partial { .. });
                    let trust = own_files(cli)
                        .and_then(|own| own.trust)
                        .filter(|_| installed)
                        .map(|trust| trust(dirs.dir(cli), &settings_file, &settings, cli));
                    (hooks, warnings(cli, &settings, dirs), trust)
                }
                Err(error) => (HooksState::Unreadable { message: error.to_string() }, Vec::new(), None),
            };
            let next_step = trust
                .as_ref()
                .filter(|trust| !trust.complete())
                .and_then(|_| Some(own_files(cli)?.untrusted_step.to_owned()));
            CliStatus {
                cli,
                config_dir: dirs.dir(cli).to_owned(),
                found: dirs.dir(cli).is_dir(),
                settings_file,
                hooks,
                warnings,
                trust,
                next_step,
            }
        })
        .collect()
}

fn hooks_state(cli: Cli, settings: &Value, command_path: &Path, events: &[&'static str]) -> HooksState {
    let installed = hook_config::installed(settings, cli, events);
    if installed.events.is_empty() {
        return HooksState::NotInstalled;
    }
    if !installed.missing.is_empty() {
        return HooksState::Partial { missing: installed.missing.iter().map(|event| event.to_string()).collect() };
    }
    let current = program(command_path).map(|program| hook_config::hook_command(program, cli));
    HooksState::Installed { current: current.is_ok_and(|command| installed.commands == [command]) }
}

/// What in the settings (or, for Codex, in `config.toml`) will keep the CLI from running our
/// hook, and a bridge that is missing or not current, each with what undoes it.
fn warnings(cli: Cli, settings: &Value, dirs: &ConfigDirs) -> Vec<Warning> {
    let mut warnings = settings_warnings(cli, settings, dirs);
    warnings.extend(bridge_warning(cli, settings, dirs));
    warnings
}

/// What in the settings (or, for Codex, in `config.toml`) will keep the CLI from running our
/// hook. An install says these alone: the bridge it writes is current by the time it reports.
pub(super) fn settings_warnings(cli: Cli, settings: &Value, dirs: &ConfigDirs) -> Vec<Warning> {
    let file = dirs.settings_file(cli);
    let mut warnings: Vec<Warning> = hook_config::notices(settings, cli)
        .into_iter()
        .map(|notice| Warning { message: notice.to_string(), fix: notice.fix_in(&file) })
        .collect();
    if let Some(own) = own_files(cli) {
        let found = (own.switched_off)(dirs.dir(cli));
        warnings.extend(found.map(|(message, fix)| Warning { message, fix }));
    }
    warnings
}

/// The CLI's bridge (pi's extension, OpenCode's plugin), when its hooks are installed but the
/// bridge that runs them is missing, older or not Switchboard's.
fn bridge_warning(cli: Cli, settings: &Value, dirs: &ConfigDirs) -> Option<Warning> {
    let bridge = cli.setup().bridge?;
    if hook_config::installed(settings, cli, cli.events()).events.is_empty() {
        return None;
    }
    let path = dirs.dir(cli).join(bridge.file);
    let state = match std::fs::read_to_string(&path) {
        Ok(text) if text == bridge.source => return None,
        Ok(text) if bridge.is_ours(&text) => "is an older one",
        Ok(_) => "is not Switchboard's",
        Err(_) => "is missing",
    };
    Some(Warning {
        message: format!(
            "{} runs Switchboard's hooks through its extension {}, which {state}",
            cli.name(),
            path.display()
        ),
        fix: format!("switchboard install {}", cli.agent()),
    })
}

#[cfg(all(test, unix))]
mod tests {
    use super::super::testing::*;
    use super::*;
    use serde_json::json;
    use std::fs;

    #[test]
    fn status_tells_found_installed_moved_and_unreadable_apart() {
        let home = home();
        fs::create_dir_all(home.dirs.dir(claude())).unwrap();
        installed(&home, codex()).result.unwrap();
        write(&home.dirs.settings_file(gemini()), "{oops");

        let statuses = status(&home.dirs, Path::new(PROGRAM), &[]);
        let [claude, codex, gemini, qwen, copilot, pi, ..] = statuses.as_slice() else { panic!("{statuses:?}") };
        assert!(!pi.found && pi.hooks == HooksState::NotInstalled && pi.warnings.is_empty());
        assert!(claude.found && claude.hooks == HooksState::NotInstalled);
        assert!(!qwen.found && qwen.hooks == HooksState::NotInstalled);
        assert!(!copilot.found && copilot.hooks == HooksState::NotInstalled);
        assert_eq!(codex.hooks, HooksState::Installed { current: true });
        assert!(codex.next_step.is_some(), "Codex has not trusted the new hooks yet");
        let trust = codex.trust.as_ref().unwrap();
        assert_eq!((trust.trusted.len(), trust.untrusted.len()), (0, cli("codex").events().len()));
        assert_eq!((claude.trust.as_ref(), gemini.trust.as_ref()), (None, None));
        assert!(matches!(&gemini.hooks, HooksState::Unreadable { message } if message.contains("line 1")));

        let moved = status(&home.dirs, Path::new("/elsewhere/switchboard"), &[]);
        assert_eq!(moved[1].hooks, HooksState::Installed { current: false });

        let json = serde_json::to_value(&statuses[1]).unwrap();
        assert_eq!(json["cli"], "codex");
        assert_eq!(json["hooks"], json!({"state": "installed", "current": true}));
        assert!(json.get("settingsFile").is_some());
    }

    #[test]
    fn pi_without_its_extension_is_warned_about_with_the_fix() {
        let home = home();
        let pi = cli("pi");
        installed(&home, pi).result.unwrap();
        let of_pi =
            |home: &Home| status(&home.dirs, Path::new(PROGRAM), &[]).into_iter().find(|s| s.cli == pi).unwrap();
        assert!(of_pi(&home).warnings.is_empty(), "{:?}", of_pi(&home).warnings);
        fs::remove_file(home.dirs.dir(pi).join("extensions/switchboard.ts")).unwrap();
        let warned = of_pi(&home);
        assert_eq!(warned.hooks, HooksState::Installed { current: true });
        assert_eq!(warned.warnings.len(), 1);
        assert!(warned.warnings[0].message.contains("is missing"), "{:?}", warned.warnings);
        assert_eq!(warned.warnings[0].fix, "switchboard install pi");
    }

    #[test]
    fn status_lists_the_events_a_partial_install_lacks() {
        let home = home();
        let command = hook_config::hook_command(PROGRAM, claude());
        let settings = json!({"hooks": {"Stop": [{"hooks": [{"type": "command", "command": command}]}]}});
        write(&home.dirs.settings_file(claude()), &settings.to_string());
        let HooksState::Partial { missing } = &status(&home.dirs, Path::new(PROGRAM), &[])[0].hooks else { panic!() };
        assert_eq!(missing.len(), claude().events().len() - 1);
        assert!(!missing.contains(&"Stop".to_owned()));
    }
}
