//! What the installer tells the user: the change in words, and what is left to do in the CLI.

use std::fmt;

use switchboard_core::hook_config::{Edit, EditAction};

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
    Some(cli.setup().next_step)
}

impl InstallOutcome {
    /// The message with every entry written (or, on a dry run, that would be written) in full, as
    /// it goes into the settings file: `switchboard install --verbose`, for a user who audits.
    pub fn in_full(&self) -> impl fmt::Display + '_ {
        Message { outcome: self, in_full: true }
    }
}

impl fmt::Display for InstallOutcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        Message { outcome: self, in_full: false }.fmt(f)
    }
}

struct Message<'a> {
    outcome: &'a InstallOutcome,
    in_full: bool,
}

impl fmt::Display for Message<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let outcome = self.outcome;
        let name = outcome.cli.name();
        let report = match &outcome.result {
            Ok(report) => report,
            Err(error) => return write!(f, "{name}: {error}"),
        };
        let path = outcome.path.display();
        if !report.changed() {
            return if report.uninstall {
                write!(f, "{name}: no Switchboard hook in {path}; nothing to remove")
            } else {
                write!(f, "{name}: already connected in {path}; nothing to change")?;
                report.warnings.iter().try_for_each(|warning| write!(f, "\n  Warning: {warning}"))
            };
        }

        let link = if report.target == outcome.path {
            String::new()
        } else {
            format!(" (through the link, in {})", report.target.display())
        };

        if report.dry_run {
            write!(f, "{name}: would {} in {path}{link} — dry run, nothing written", summary(report, false))?;
            brief(f, report)?;
        } else {
            let new = if report.created { " (new file)" } else { "" };
            write!(f, "{name}: {} in {path}{new}{link}", summary(report, true))?;
            if let Some(backup) = &report.backup {
                write!(f, "\n  Your previous file is saved as {}", backup.display())?;
            }
        }
        if self.in_full {
            for edit in &report.edits {
                write!(f, "\n  {edit}")?;
            }
        }
        for warning in &report.warnings {
            write!(f, "\n  Warning: {warning}")?;
        }
        if let Some(step) = next_step(outcome.cli, report) {
            write!(f, "\n  Next: {step}")?;
        }
        Ok(())
    }
}

/// How wide the event lists may run before they wrap.
const LINE_WIDTH: usize = 80;

/// A dry run's change in a few lines: the events, grouped by what would happen to their hook,
/// and the hook command once (for an uninstall, the one taken out).
fn brief(f: &mut fmt::Formatter<'_>, report: &InstallReport) -> fmt::Result {
    let groups: Vec<(&str, Vec<&str>)> =
        [(EditAction::Add, "Add"), (EditAction::Update, "Update"), (EditAction::Remove, "Remove")]
            .into_iter()
            .filter_map(|(action, label)| {
                let events = events(report, action);
                (!events.is_empty()).then_some((label, events))
            })
            .collect();
    let one_kind = groups.len() == 1;
    for (label, events) in &groups {
        let label = if one_kind { "Events" } else { label };
        write!(f, "\n{}", wrapped(&format!("  {label}: "), events))?;
    }
    let installs = report.edits.iter().any(|edit| matches!(edit.action, EditAction::Add | EditAction::Update));
    let mut commands: Vec<&str> = Vec::new();
    for edit in &report.edits {
        let wanted = !installs || matches!(edit.action, EditAction::Add | EditAction::Update);
        if let Some(command) = edit.command().filter(|command| wanted && !commands.contains(command)) {
            commands.push(command);
        }
    }
    // Commands hold spaces and quotes: one a line, never wrapped.
    let label = if commands.len() == 1 { "  Command: " } else { "  Commands: " };
    for (n, command) in commands.iter().enumerate() {
        let lead = if n == 0 { label.to_owned() } else { " ".repeat(label.len()) };
        write!(f, "\n{lead}{command}")?;
    }
    Ok(())
}

/// The events whose hook `action` changes, each once (an uninstall may take out two of ours
/// from one event).
fn events(report: &InstallReport, action: EditAction) -> Vec<&str> {
    let mut events = Vec::new();
    for event in report.edits.iter().filter(|edit| edit.action == action).filter_map(Edit::event) {
        if !events.contains(&event) {
            events.push(event);
        }
    }
    events
}

/// `names` after `lead`, comma-separated, wrapped before [`LINE_WIDTH`] with the following lines
/// lined up under the first name.
fn wrapped(lead: &str, names: &[&str]) -> String {
    let indent = " ".repeat(lead.chars().count());
    let mut out = lead.to_owned();
    let mut line = lead.chars().count();
    for (n, name) in names.iter().enumerate() {
        let comma = if n + 1 < names.len() { "," } else { "" };
        let word = name.chars().count() + comma.len();
        if n > 0 && line + 1 + word > LINE_WIDTH {
            out.push('\n');
            out.push_str(&indent);
            line = indent.len();
        } else if n > 0 {
            out.push(' ');
            line += 1;
        }
        out.push_str(name);
        out.push_str(comma);
        line += word;
    }
    out
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
        let events = plural(events(report, EditAction::Remove).len(), "event");
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
        for edit in report.edits.iter().filter(|edit| edit.action == EditAction::Set) {
            clauses.push(match edit.key.as_str() {
                "version" => format!("{} the file's version ({})", verb("set", "set"), edit.value),
                key => format!("{} hooks on ({key} = {})", verb("turn", "turned"), edit.value),
            });
        }
    }
    if let Some((action, path)) = &report.bridge {
        let file = path.display();
        clauses.push(match action {
            EditAction::Add => format!("{} {file}, the extension that runs them", verb("write", "wrote")),
            EditAction::Update => format!("{} {file}, the extension that runs them", verb("update", "updated")),
            _ => format!("{} {file}", verb("remove", "removed")),
        });
    }
    clauses.join(", ")
}

#[cfg(all(test, unix))]
mod tests {
    use super::super::testing::*;
    use super::super::InstallOptions;
    use super::*;
    use std::fs;

    /// Issue 21 item 7: a dry run says in a few lines which file, which events and which command;
    /// `in_full` (`--verbose`) adds every entry as it would be written.
    #[test]
    fn a_dry_run_reports_the_change_in_brief_and_writes_nothing() {
        let home = home();
        let outcome = run(&InstallOptions { dry_run: true, ..options(&home, claude()) });
        assert_eq!(outcome.result.as_ref().unwrap().count(EditAction::Add), claude().events().len());
        assert!(!home.dirs.dir(claude()).exists(), "not even the folder");
        let message = outcome.to_string();
        let lines: Vec<&str> = message.lines().collect();
        let file = home.dirs.settings_file(claude());
        assert_eq!(
            lines[0],
            format!(
                "Claude Code: would add the Switchboard hook for 16 events in {} — dry run, nothing written",
                file.display()
            )
        );
        assert!(lines[1].starts_with("  Events: UserPromptSubmit, PreToolUse,"), "{message}");
        let listed: Vec<&str> = lines
            .iter()
            .skip(1)
            .take_while(|line| !line.starts_with("  Command: "))
            .flat_map(|line| line.trim_start_matches("  Events: ").split(','))
            .map(str::trim)
            .filter(|name| !name.is_empty())
            .collect();
        assert_eq!(listed, claude().events(), "every event once, in order: {message}");
        let command = format!("  Command: {}", switchboard_core::hook_config::hook_command(PROGRAM, claude()));
        assert_eq!(lines.iter().filter(|line| **line == command).count(), 1, "{message}");
        assert!(lines.last().unwrap().starts_with("  Next: new Claude Code sessions"), "{message}");
        assert!(lines.len() <= 8 && !message.contains("hooks.PreToolUse"), "brief: {message}");
        assert!(lines[1..lines.len() - 1].iter().all(|line| line.chars().count() <= 80), "wrapped: {message}");

        let in_full = outcome.in_full().to_string();
        assert!(in_full.starts_with(&message[..message.find("\n  Next:").unwrap()]), "{in_full}");
        let entries = in_full.lines().filter(|line| line.starts_with("  + hooks.")).count();
        assert_eq!(entries, claude().events().len(), "{in_full}");
        assert!(in_full.contains("\n  + hooks.PreToolUse: {\"matcher\":\"*\""), "{in_full}");

        let path = home.dirs.settings_file(codex());
        write(&path, "{\"hooks\":{}}");
        let outcome = run(&InstallOptions { dry_run: true, ..options(&home, codex()) });
        assert!(outcome.result.unwrap().changed());
        assert_eq!(fs::read_to_string(&path).unwrap(), "{\"hooks\":{}}");
        assert_eq!(listing(home.dirs.dir(codex())), ["hooks.json"]);
    }

    #[test]
    fn a_dry_run_over_an_older_install_says_what_happens_to_which_event() {
        let home = home();
        let old = InstallOptions { command_path: "/old/bin/switchboard".into(), ..options(&home, gemini()) };
        run(&old).result.unwrap();
        let path = home.dirs.settings_file(gemini());
        let mut settings = json_at(&path);
        settings["hooks"].as_object_mut().unwrap().remove("AfterAgent");
        write(&path, &settings.to_string());

        let message = run(&InstallOptions { dry_run: true, ..options(&home, gemini()) }).to_string();
        assert!(message.contains("would add the Switchboard hook for 1 event, point 7 hooks at"), "{message}");
        assert!(message.contains("\n  Add: AfterAgent\n  Update: BeforeAgent, BeforeTool, AfterTool,"), "{message}");
        let new = switchboard_core::hook_config::hook_command(PROGRAM, gemini());
        assert!(message.contains(&format!("\n  Command: {new}\n")), "the command it would register: {message}");

        let message = run(&InstallOptions { uninstall: true, dry_run: true, ..old.clone() }).to_string();
        assert!(message.contains("would remove the Switchboard hook from 7 events"), "{message}");
        let events = message.split("Events: ").nth(1).and_then(|rest| rest.split("\n  Command").next()).unwrap();
        let mut events: Vec<&str> = events.split(',').map(str::trim).collect();
        events.sort_unstable();
        let mut expected: Vec<&str> = gemini().events().iter().copied().filter(|e| *e != "AfterAgent").collect();
        expected.sort_unstable();
        assert_eq!(events, expected, "{message}");
        assert!(message.contains("\n  Command: \"/old/bin/switchboard\" hook gemini"), "what it takes out: {message}");

        // A second copy of the hook, from yet another binary, is named too.
        let mut settings = json_at(&path);
        let other = serde_json::json!({"type": "command", "command": "/other/switchboard hook gemini"});
        settings["hooks"]["BeforeAgent"][0]["hooks"].as_array_mut().unwrap().push(other);
        write(&path, &settings.to_string());
        let message = run(&InstallOptions { uninstall: true, dry_run: true, ..old }).to_string();
        assert!(message.contains("would remove the Switchboard hook from 7 events"), "each event once: {message}");
        assert!(
            message.ends_with(
                "\n  Commands: \"/old/bin/switchboard\" hook gemini\n            /other/switchboard hook gemini"
            ),
            "{message}"
        );
    }

    #[test]
    fn codex_asks_for_the_trust_review_and_reports_hooks_switched_off() {
        let home = home();
        write(&home.dirs.dir(codex()).join("config.toml"), "model = \"o4\"\n[features]\nhooks = false\n");
        let outcome = installed(&home, codex());
        let message = outcome.to_string();
        assert!(message.contains("Next: Codex runs a new or changed hook only after you trust it"), "{message}");
        assert!(message.contains("Warning: `[features] hooks = false`"), "{message}");
        assert_eq!(fs::read_to_string(home.dirs.dir(codex()).join("config.toml")).unwrap().lines().count(), 3);
        assert!(!installed(&home, codex()).to_string().contains("Next:"), "nothing new to trust");
    }

    #[test]
    fn gemini_reports_hooks_it_turned_on_and_a_user_s_choice_to_keep_them_off() {
        let fresh = home();
        let message = installed(&fresh, gemini()).to_string();
        assert!(message.contains("turned hooks on (hooksConfig.enabled = true)"), "{message}");
        let switched_off = home();
        write(&switched_off.dirs.settings_file(gemini()), "{\"hooksConfig\": {\"enabled\": false}}");
        let message = installed(&switched_off, gemini()).to_string();
        assert!(!message.contains("turned hooks on"), "{message}");
        assert!(message.contains("Warning: `hooksConfig.enabled` is false"), "{message}");
    }
}
