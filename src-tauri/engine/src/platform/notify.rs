//! Desktop notifications: on Linux (and the BSDs) the freedesktop server over D-Bus, which can
//! render markup and tells which action was clicked; on Windows a toast with the same buttons
//! (`notify-rust`'s WinRT backend hears the click); on macOS `osascript`'s `display
//! notification`: there clicks are not heard (a notification that can be answered needs a
//! signed app bundle with a notification delegate, which `osascript` is not), so no actions are
//! offered and the notification says what it is about.

/// What `show` gives back where the OS reports clicks: waits for the user's action (or the
/// notification's closing) and hands the action's id to the callback.
pub type WaitForAction = Box<dyn FnOnce(&mut dyn FnMut(&str)) + Send>;

/// Shows a notification; `actions` (`id`, label) where clicks can be heard. `Err` when no
/// notification server took it.
#[cfg(all(unix, not(target_os = "macos")))]
pub fn show(summary: &str, body: &str, actions: &[(&str, &str)]) -> Result<Option<WaitForAction>, String> {
    // What a session says is text, never markup: escaped where the server reads markup.
    let body = if reads_markup() { crate::text::notification_body(body) } else { crate::text::printable(body) };
    let summary = crate::text::printable_line(summary);
    let shown = async { freedesktop::show(zbus::Connection::session().await?, &summary, &body, actions).await };
    zbus::block_on(shown).map_err(|error| error.to_string())
}

#[cfg(all(unix, not(target_os = "macos")))]
pub use freedesktop::show as show_on;

/// The freedesktop notification server over D-Bus, spoken to directly.
#[cfg(all(unix, not(target_os = "macos")))]
mod freedesktop {
    use futures_util::StreamExt;

    use super::WaitForAction;

    const NAME: &str = "org.freedesktop.Notifications";
    const PATH: &str = "/org/freedesktop/Notifications";

    /// `Notify` on `connection`'s bus, with the signals that report a click (or the closing)
    /// already subscribed to: a click the instant the notification is drawn is heard, not lost
    /// (issue 46).
    pub async fn show(
        connection: zbus::Connection,
        summary: &str,
        body: &str,
        actions: &[(&str, &str)],
    ) -> zbus::Result<Option<WaitForAction>> {
        let signals = if actions.is_empty() {
            None
        } else {
            let bus = zbus::fdo::DBusProxy::new(&connection).await?;
            for member in ["ActionInvoked", "NotificationClosed"] {
                let rule =
                    zbus::MatchRule::builder().msg_type(zbus::message::Type::Signal).interface(NAME).member(member);
                bus.add_match_rule(rule.build()?).await?;
            }
            Some(zbus::MessageStream::from(&connection))
        };
        let actions: Vec<&str> = actions.iter().flat_map(|(id, label)| [*id, *label]).collect();
        let hints = std::collections::HashMap::<&str, zbus::Variant<'_>>::new();
        let arguments = ("Switchboard", 0u32, "", summary, body, actions, hints, -1i32);
        let reply = connection.call_method(Some(NAME), PATH, Some(NAME), "Notify", &arguments).await?;
        let id: u32 = reply.body().deserialize()?;
        let Some(signals) = signals else { return Ok(None) };
        Ok(Some(Box::new(move |on_action: &mut dyn FnMut(&str)| {
            zbus::block_on(wait_for_action(connection, signals, id, on_action))
        })))
    }

    /// Hands the clicked action's id to `on_action`; returns when the notification is closed.
    async fn wait_for_action(
        _connection: zbus::Connection,
        mut signals: zbus::MessageStream,
        id: u32,
        on_action: &mut dyn FnMut(&str),
    ) {
        while let Some(Ok(message)) = signals.next().await {
            let header = message.header();
            if header.message_type() != zbus::message::Type::Signal {
                continue;
            }
            let member = header.member().map(|member| member.as_str());
            match member {
                Some("ActionInvoked") => {
                    if let Ok((notice, action)) = message.body().deserialize::<(u32, String)>() {
                        if notice == id {
                            on_action(&action);
                            return;
                        }
                    }
                }
                Some("NotificationClosed")
                    if message.body().deserialize::<(u32, u32)>().is_ok_and(|(notice, _)| notice == id) =>
                {
                    return;
                }
                _ => {}
            }
        }
    }
}

/// Whether the notification server renders markup in bodies (`body-markup`); asked once.
#[cfg(all(unix, not(target_os = "macos")))]
fn reads_markup() -> bool {
    static MARKUP: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *MARKUP
        .get_or_init(|| notify_rust::get_capabilities().is_ok_and(|caps| caps.iter().any(|cap| cap == "body-markup")))
}

/// A toast with its buttons (issue 50): notify-rust's Windows backend hears which was clicked
/// (`wait_for_action`), or that the toast was dismissed (`__closed`, not an action).
#[cfg(windows)]
pub fn show(summary: &str, body: &str, actions: &[(&str, &str)]) -> Result<Option<WaitForAction>, String> {
    let mut notification = notify_rust::Notification::new();
    notification
        .appname("Switchboard")
        .summary(&crate::text::printable_line(summary))
        .body(&crate::text::printable(body));
    for (id, label) in actions {
        notification.action(id, label);
    }
    let handle = notification.show().map_err(|error| error.to_string())?;
    if actions.is_empty() {
        return Ok(None);
    }
    Ok(Some(Box::new(move |on_action: &mut dyn FnMut(&str)| {
        handle.wait_for_action(|action| {
            if action != "__closed" {
                on_action(action);
            }
        });
    })))
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
