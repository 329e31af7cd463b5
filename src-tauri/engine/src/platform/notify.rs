//! Desktop notifications: on Linux (and the BSDs) the freedesktop server over D-Bus
//! (`notify-rust`), which can render markup and tells which action was clicked; on Windows a
//! plain toast (`notify-rust`), on macOS `osascript`'s `display notification`: there clicks are
//! not heard, so no actions are offered.

/// What `show` gives back where the OS reports clicks: waits for the user's action (or the
/// notification's closing) and hands the action's id to the callback.
pub type WaitForAction = Box<dyn FnOnce(&mut dyn FnMut(&str)) + Send>;

/// Shows a notification; `actions` (`id`, label) where clicks can be heard. `Err` when no
/// notification server took it.
#[cfg(all(unix, not(target_os = "macos")))]
pub fn show(summary: &str, body: &str, actions: &[(&str, &str)]) -> Result<Option<WaitForAction>, String> {
    let mut notification = notify_rust::Notification::new();
    // What a session says is text, never markup: escaped where the server reads markup.
    let body = if reads_markup() { crate::text::notification_body(body) } else { crate::text::printable(body) };
    notification.appname("Switchboard").summary(&crate::text::printable_line(summary)).body(&body);
    for (id, label) in actions {
        notification.action(id, label);
    }
    let handle = notification.show().map_err(|error| error.to_string())?;
    if actions.is_empty() {
        return Ok(None);
    }
    Ok(Some(Box::new(move |on_action: &mut dyn FnMut(&str)| handle.wait_for_action(|action| on_action(action)))))
}

/// Whether the notification server renders markup in bodies (`body-markup`); asked once.
#[cfg(all(unix, not(target_os = "macos")))]
fn reads_markup() -> bool {
    static MARKUP: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *MARKUP
        .get_or_init(|| notify_rust::get_capabilities().is_ok_and(|caps| caps.iter().any(|cap| cap == "body-markup")))
}

#[cfg(windows)]
pub fn show(summary: &str, body: &str, _actions: &[(&str, &str)]) -> Result<Option<WaitForAction>, String> {
    let mut notification = notify_rust::Notification::new();
    notification
        .appname("Switchboard")
        .summary(&crate::text::printable_line(summary))
        .body(&crate::text::printable(body));
    notification.show().map(|_| None).map_err(|error| error.to_string())
}

/// `display notification` through `osascript` (every Mac has it): the text goes in as AppleScript
/// string literals, escaped.
#[cfg(target_os = "macos")]
pub fn show(summary: &str, body: &str, _actions: &[(&str, &str)]) -> Result<Option<WaitForAction>, String> {
    let script = applescript_notification(&crate::text::printable_line(summary), &crate::text::printable(body));
    let shown = super::output_within(
        std::process::Command::new("osascript").args(["-e", &script]),
        std::time::Duration::from_secs(5),
    );
    shown.map(|_| None).ok_or_else(|| "osascript did not show the notification".to_owned())
}

/// The AppleScript that shows `summary` and `body`, each a quoted string literal.
#[cfg_attr(not(target_os = "macos"), allow(dead_code))]
fn applescript_notification(summary: &str, body: &str) -> String {
    let quote = |text: &str| format!("\"{}\"", text.replace('\\', "\\\\").replace('"', "\\\""));
    format!("display notification {} with title \"Switchboard\" subtitle {}", quote(body), quote(summary))
}

#[cfg(test)]
mod tests {
    #[test]
    fn applescript_strings_are_escaped() {
        assert_eq!(
            super::applescript_notification("a \"quoted\" title", "back\\slash"),
            r#"display notification "back\\slash" with title "Switchboard" subtitle "a \"quoted\" title""#
        );
    }
}
