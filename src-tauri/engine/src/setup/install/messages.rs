//! What the installer tells the user: the change in words, and what is left to do in the CLI.

use std::fmt;

use switchboard_core::hook_config::EditAction;

use super::{Cli, InstallOutcome, InstallReport, Version};

/// Says which events an older release kept out, and why.
pub(super) fn left_out(cli: Cli, events: &[&str], version: Option<Version>) -> Option<String> {
    let missing: Vec<&str> = cli.events().iter().copied().filter(|event| !events.contains(event)).collect();
    let version = version.filter(|_| !missing.is_empty())?;
    let name = cli.name();
    Some(format!(
        "{name} {version} predates the {} hook event, so Switchboard left it out ({name} would skip the whole \
         settings file for an event it does not know); install again after updating {name}",
        missing.join(", ")
    ))
}

/// What the user still has to do in the CLI after a change, for the hooks to run.
fn next_step(cli: Cli, report: &InstallReport) -> Option<&'static str> {
    if report.uninstall || !report.changed() {
        return None;
    }
    Some(match cli {
        Cli::Claude => {
            "new Claude Code sessions report to Switchboard; in a session already running, open /hooks to accept \
             the change (or restart it)"
        }
        Cli::Codex => {
            "Codex runs a new or changed hook only after you trust it: start Codex and choose to trust the hooks \
             when it says they need review, or run /hooks and trust Switchboard's"
        }
        Cli::Gemini => "new Gemini CLI sessions report to Switchboard; restart the ones already running",
    })
}

impl fmt::Display for InstallOutcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = self.cli.name();
        let report = match &self.result {
            Ok(report) => report,
            Err(error) => return write!(f, "{name}: {error}"),
        };
        let path = self.path.display();
        if !report.changed() {
            return if report.uninstall {
                write!(f, "{name}: no Switchboard hook in {path}; nothing to remove")
            } else {
                write!(f, "{name}: already connected in {path}; nothing to change")?;
                report.warnings.iter().try_for_each(|warning| write!(f, "\n  Warning: {warning}"))
            };
        }

        let link = if report.target == self.path {
            String::new()
        } else {
            format!(" (through the link, in {})", report.target.display())
        };

        if report.dry_run {
            write!(f, "{name}: would {} in {path}{link} — dry run, nothing written:", summary(report, false))?;
            for edit in &report.edits {
                write!(f, "\n  {edit}")?;
            }
        } else {
            let new = if report.created { " (new file)" } else { "" };
            write!(f, "{name}: {} in {path}{new}{link}", summary(report, true))?;
            if let Some(backup) = &report.backup {
                write!(f, "\n  Your previous file is saved as {}", backup.display())?;
            }
        }
        for warning in &report.warnings {
            write!(f, "\n  Warning: {warning}")?;
        }
        if let Some(step) = next_step(self.cli, report) {
            write!(f, "\n  Next: {step}")?;
        }
        Ok(())
    }
}

fn plural(count: usize, noun: &str) -> String {
    if count == 1 {
        format!("1 {noun}")
    } else {
        format!("{count} {noun}s")
    }
}

/// The change in words: "add the Switchboard hook for 13 events, …", or "added …" once `done`.
fn summary(report: &InstallReport, done: bool) -> String {
    let verb = |present: &'static str, past: &'static str| if done { past } else { present };
    let count = |action| report.count(action);
    let mut clauses = Vec::new();
    if report.uninstall {
        let events = plural(count(EditAction::Remove), "event");
        clauses.push(format!("{} the Switchboard hook from {events}", verb("remove", "removed")));
    } else {
        if count(EditAction::Add) > 0 {
            let events = plural(count(EditAction::Add), "event");
            clauses.push(format!("{} the Switchboard hook for {events}", verb("add", "added")));
        }
        if count(EditAction::Update) > 0 {
            let hooks = plural(count(EditAction::Update), "hook");
            clauses.push(format!("{} {hooks} at this switchboard binary", verb("point", "pointed")));
        }
        if count(EditAction::Remove) > 0 {
            let hooks = plural(count(EditAction::Remove), "hook");
            clauses.push(format!("{} {hooks} no longer used", verb("remove", "removed")));
        }
        if count(EditAction::Set) > 0 {
            clauses.push(format!("{} hooks on (hooksConfig.enabled = true)", verb("turn", "turned")));
        }
    }
    clauses.join(", ")
}

#[cfg(all(test, unix))]
mod tests {
    use super::super::testing::*;
    use super::super::InstallOptions;
    use super::*;
    use std::fs;

    #[test]
    fn a_dry_run_reports_the_change_and_writes_nothing() {
        let home = home();
        let outcome = run(&InstallOptions { dry_run: true, ..options(&home, Cli::Claude) });
        assert_eq!(outcome.result.as_ref().unwrap().count(EditAction::Add), Cli::Claude.events().len());
        assert!(!home.dirs.claude.exists(), "not even the folder");
        let message = outcome.to_string();
        assert!(message.contains("dry run, nothing written"), "{message}");
        assert!(message.contains("\n  + hooks.PreToolUse: {\"matcher\":\"*\""), "{message}");

        let path = home.dirs.settings_file(Cli::Codex);
        write(&path, "{\"hooks\":{}}");
        let outcome = run(&InstallOptions { dry_run: true, ..options(&home, Cli::Codex) });
        assert!(outcome.result.unwrap().changed());
        assert_eq!(fs::read_to_string(&path).unwrap(), "{\"hooks\":{}}");
        assert_eq!(listing(&home.dirs.codex), ["hooks.json"]);
    }

    #[test]
    fn codex_asks_for_the_trust_review_and_reports_hooks_switched_off() {
        let home = home();
        write(&home.dirs.codex.join("config.toml"), "model = \"o4\"\n[features]\nhooks = false\n");
        let outcome = installed(&home, Cli::Codex);
        let message = outcome.to_string();
        assert!(message.contains("Next: Codex runs a new or changed hook only after you trust it"), "{message}");
        assert!(message.contains("Warning: `[features] hooks = false`"), "{message}");
        assert_eq!(fs::read_to_string(home.dirs.codex.join("config.toml")).unwrap().lines().count(), 3);
        assert!(!installed(&home, Cli::Codex).to_string().contains("Next:"), "nothing new to trust");
    }

    #[test]
    fn gemini_reports_hooks_it_turned_on_and_a_user_s_choice_to_keep_them_off() {
        let fresh = home();
        let message = installed(&fresh, Cli::Gemini).to_string();
        assert!(message.contains("turned hooks on (hooksConfig.enabled = true)"), "{message}");
        let switched_off = home();
        write(&switched_off.dirs.settings_file(Cli::Gemini), "{\"hooksConfig\": {\"enabled\": false}}");
        let message = installed(&switched_off, Cli::Gemini).to_string();
        assert!(!message.contains("turned hooks on"), "{message}");
        assert!(message.contains("Warning: `hooksConfig.enabled` is false"), "{message}");
    }
}
