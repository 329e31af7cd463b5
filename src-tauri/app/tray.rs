//! The tray icon: how many sessions need the user, a menu of them (click one to bring it into
//! view), show/hide the window, start at login and quit. It is one more subscriber of the hub.
//!
//! What the menu holds is decided by pure functions ([`needs_you`], [`entries`]) that are tested
//! without a display; [`follow`] only turns their answer into Tauri menu items.

use std::panic::AssertUnwindSafe;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use switchboard_core::{view, Session};
use switchboard_engine::{Hub, Update};
use tauri::menu::{CheckMenuItem, IsMenuItem, Menu, MenuItem, PredefinedMenuItem};
use tauri::tray::{TrayIcon, TrayIconBuilder};
use tauri::{AppHandle, Manager, Runtime};
use tauri_plugin_autostart::AutoLaunchManager;

use crate::commands::CommandError;

/// The menu is rebuilt at most this often, however many updates arrive.
const REBUILD_EVERY: Duration = Duration::from_millis(250);
/// Sessions listed by name; the rest are counted in one line.
pub const MAX_LISTED: usize = 12;
/// A session's name is clipped to this many characters in the menu.
const TITLE_CHARS: usize = 40;

const OPEN_PREFIX: &str = "open:";
const ID_WINDOW: &str = "window";
const ID_AUTOSTART: &str = "autostart";
const ID_QUIT: &str = "quit";

/// One session that needs the user, as the menu lists it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NeedsYou {
    pub session_id: String,
    pub label: String,
}

/// The sessions that need the user, in the queue's order (`view::needs_you`: the canvas's `n`
/// key follows the same).
pub fn needs_you(sessions: &[Session]) -> Vec<NeedsYou> {
    view::needs_you(sessions)
        .into_iter()
        .map(|s| NeedsYou { session_id: s.session_id.clone(), label: label(s) })
        .collect()
}

/// "auth-refactor — needs permission: Bash", in the words of the notifications.
fn label(session: &Session) -> String {
    let tool = session.tool.as_deref().map(str::trim).filter(|t| !t.is_empty());
    let why = match (view::reason(session), tool) {
        (Some(reason), Some(tool)) if session.status == Some(switchboard_core::AgentStatus::Blocked) => {
            format!("{reason}: {}", view::clip(tool, TITLE_CHARS))
        }
        (Some(reason), _) => reason.to_owned(),
        (None, _) => "unread".into(),
    };
    let title = session.title.clone().unwrap_or_else(|| view::short_id(&session.session_id));
    format!("{} — {why}", view::clip(&title, TITLE_CHARS))
}

/// "2 need you", the header chip's words; empty when nothing does.
pub fn count_text(count: usize) -> String {
    match count {
        0 => String::new(),
        1 => "1 needs you".into(),
        n => format!("{n} need you"),
    }
}

/// The icon's tooltip (and, where the panel shows one, its label is [`count_text`]).
pub fn tooltip(count: usize) -> String {
    match count {
        0 => "Switchboard".into(),
        n => format!("Switchboard — {}", count_text(n)),
    }
}

/// One line of the menu, before it becomes a Tauri menu item.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Entry {
    /// A line that does something when clicked.
    Item {
        id: String,
        text: String,
    },
    /// A line to read, greyed out.
    Note(String),
    /// A checkbox.
    Check {
        id: String,
        text: String,
        checked: bool,
    },
    Separator,
}

/// The menu: what needs the user, then the window, start at login and quit.
pub fn entries(needs: &[NeedsYou], autostart: bool) -> Vec<Entry> {
    let mut entries = Vec::new();
    if needs.is_empty() {
        entries.push(Entry::Note("Nothing needs you".into()));
    } else {
        entries.push(Entry::Note(count_text(needs.len())));
        for need in needs.iter().take(MAX_LISTED) {
            // GTK menus read `&` as a mnemonic marker (muda turns `&&` back into `&`).
            let text = need.label.replace('&', "&&");
            entries.push(Entry::Item { id: format!("{OPEN_PREFIX}{}", need.session_id), text });
        }
        if needs.len() > MAX_LISTED {
            entries.push(Entry::Note(format!("…and {} more", needs.len() - MAX_LISTED)));
        }
    }
    entries.push(Entry::Separator);
    entries.push(Entry::Item { id: ID_WINDOW.into(), text: "Show/Hide window".into() });
    entries.push(Entry::Check { id: ID_AUTOSTART.into(), text: "Start at login".into(), checked: autostart });
    entries.push(Entry::Separator);
    entries.push(Entry::Item { id: ID_QUIT.into(), text: "Quit".into() });
    entries
}

/// What a click on a menu line asks for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Action {
    Open(String),
    ToggleWindow,
    ToggleAutostart,
    Quit,
}

pub fn action(id: &str) -> Option<Action> {
    match id {
        ID_WINDOW => Some(Action::ToggleWindow),
        ID_AUTOSTART => Some(Action::ToggleAutostart),
        ID_QUIT => Some(Action::Quit),
        _ => id.strip_prefix(OPEN_PREFIX).map(|session| Action::Open(session.to_owned())),
    }
}

/// The tray, kept in Tauri's state: the icon, and what its menu shows now.
pub struct Tray<R: Runtime> {
    icon: TrayIcon<R>,
    shown: Mutex<Shown>,
}

#[derive(Clone, Default, PartialEq, Eq)]
struct Shown {
    needs: Vec<NeedsYou>,
    autostart: bool,
}

/// Creates the tray icon and follows `updates`. Without a tray (e.g. no appindicator library)
/// there is no [`Tray`] in the app's state, and closing the window quits the app.
pub fn start<R: Runtime>(
    app: &AppHandle<R>,
    hub: Arc<Hub>,
    updates: switchboard_engine::instance::hub::mailbox::Updates,
) {
    let shown = Shown { needs: needs_you(&hub.snapshot().sessions), autostart: autostart_enabled(app) };
    let built = std::panic::catch_unwind(AssertUnwindSafe(|| -> tauri::Result<TrayIcon<R>> {
        let menu = menu(app, &entries(&shown.needs, shown.autostart))?;
        let mut builder = TrayIconBuilder::with_id("main")
            .menu(&menu)
            .tooltip(tooltip(shown.needs.len()))
            .title(count_text(shown.needs.len()))
            .on_menu_event(|app, event| on_click(app, event.id().as_ref()));
        if let Some(icon) = app.default_window_icon() {
            builder = builder.icon(icon.clone());
        }
        builder.build(app)
    }));
    let icon = match built {
        Ok(Ok(icon)) => icon,
        Ok(Err(error)) => {
            tracing::warn!(%error, "no tray icon");
            return;
        }
        Err(_) => {
            tracing::warn!("no tray icon: the appindicator library could not be loaded");
            return;
        }
    };
    app.manage(Tray { icon, shown: Mutex::new(shown) });
    let app = app.clone();
    let spawned = std::thread::Builder::new().name("tray".into()).spawn(move || {
        while let Ok(update) = updates.recv() {
            // Drain the whole burst: one look at the snapshot answers for all of it.
            let mut sessions_changed = !matches!(update, Update::Notices(_));
            for update in updates.try_iter() {
                sessions_changed |= !matches!(update, Update::Notices(_));
            }
            if sessions_changed {
                refresh(&app, Some(needs_you(&hub.snapshot().sessions)), None);
            }
            std::thread::sleep(REBUILD_EVERY);
        }
    });
    if let Err(error) = spawned {
        tracing::error!(%error, "cannot start the tray's updates");
    }
}

/// Rebuilds the menu if what it shows changed.
fn refresh<R: Runtime>(app: &AppHandle<R>, needs: Option<Vec<NeedsYou>>, autostart: Option<bool>) {
    let Some(tray) = app.try_state::<Tray<R>>() else { return };
    let mut shown = tray.shown.lock().unwrap_or_else(PoisonError::into_inner);
    let next =
        Shown { needs: needs.unwrap_or_else(|| shown.needs.clone()), autostart: autostart.unwrap_or(shown.autostart) };
    if next == *shown {
        return;
    }
    let count = next.needs.len();
    match menu(app, &entries(&next.needs, next.autostart)) {
        Ok(menu) => {
            let _ = tray.icon.set_menu(Some(menu));
            let _ = tray.icon.set_tooltip(Some(tooltip(count)));
            let _ = tray.icon.set_title(Some(count_text(count)));
            *shown = next;
        }
        Err(error) => tracing::warn!(%error, "cannot rebuild the tray menu"),
    }
}

fn menu<R: Runtime>(app: &AppHandle<R>, entries: &[Entry]) -> tauri::Result<Menu<R>> {
    let menu = Menu::new(app)?;
    for entry in entries {
        let item: Box<dyn IsMenuItem<R>> = match entry {
            Entry::Item { id, text } => Box::new(MenuItem::with_id(app, id, text, true, None::<&str>)?),
            Entry::Note(text) => Box::new(MenuItem::new(app, text, false, None::<&str>)?),
            Entry::Check { id, text, checked } => {
                Box::new(CheckMenuItem::with_id(app, id, text, true, *checked, None::<&str>)?)
            }
            Entry::Separator => Box::new(PredefinedMenuItem::separator(app)?),
        };
        menu.append(item.as_ref())?;
    }
    Ok(menu)
}

fn on_click<R: Runtime>(app: &AppHandle<R>, id: &str) {
    match action(id) {
        Some(Action::Open(session_id)) => {
            if let Some(state) = app.try_state::<crate::window::AppState>() {
                crate::window::open_session(app, &state.inputs, &session_id);
            }
        }
        Some(Action::ToggleWindow) => toggle_window(app),
        Some(Action::ToggleAutostart) => {
            let wanted = !autostart_enabled(app);
            if let Err(error) = set_autostart_enabled(app, wanted) {
                tracing::warn!(message = %error.message, "cannot change start at login");
            }
            // GTK has flipped the checkbox already; show what is true now either way.
            refresh_autostart(app);
        }
        Some(Action::Quit) => app.exit(0),
        None => {}
    }
}

fn toggle_window<R: Runtime>(app: &AppHandle<R>) {
    let Some(window) = app.get_webview_window("main") else { return };
    if window.is_visible().unwrap_or(false) && !window.is_minimized().unwrap_or(false) {
        let _ = window.hide();
    } else {
        crate::window::show_window(app);
    }
}

fn refresh_autostart<R: Runtime>(app: &AppHandle<R>) {
    let enabled = autostart_enabled(app);
    if let Some(tray) = app.try_state::<Tray<R>>() {
        // Force a rebuild: the checkbox GTK toggled may disagree with the remembered state.
        tray.shown.lock().unwrap_or_else(PoisonError::into_inner).autostart = !enabled;
    }
    refresh(app, None, Some(enabled));
}

fn autostart_enabled<R: Runtime>(app: &AppHandle<R>) -> bool {
    app.try_state::<AutoLaunchManager>().is_some_and(|manager| manager.is_enabled().unwrap_or(false))
}

fn set_autostart_enabled<R: Runtime>(app: &AppHandle<R>, enabled: bool) -> Result<(), CommandError> {
    let failure = |message: String| CommandError::new(switchboard_engine::api::ErrorKind::Autostart, message);
    let manager =
        app.try_state::<AutoLaunchManager>().ok_or_else(|| failure("start at login is not available".into()))?;
    let result = if enabled { manager.enable() } else { manager.disable() };
    result.map_err(|e| failure(e.to_string()))
}

/// Whether the app starts at login (`~/.config/autostart/switchboard.desktop`).
#[tauri::command]
pub fn autostart<R: Runtime>(app: AppHandle<R>) -> bool {
    autostart_enabled(&app)
}

/// Turns start at login on or off; answers what is true afterwards. The tray's checkbox follows.
#[tauri::command]
pub fn set_autostart<R: Runtime>(app: AppHandle<R>, enabled: bool) -> Result<bool, CommandError> {
    set_autostart_enabled(&app, enabled)?;
    refresh(&app, None, Some(autostart_enabled(&app)));
    Ok(autostart_enabled(&app))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn session(id: &str, fields: serde_json::Value) -> Session {
        let mut base = json!({
            "sessionId": id, "agent": "claude", "status": null, "kind": "session", "tool": null,
            "title": null, "cwd": null, "awaitingInput": false, "question": null, "message": null,
            "interrupted": false, "errored": false, "ended": false, "unread": false, "subagents": 0,
            "firstEventAt": 1, "lastEventAt": 1, "statusChangedAt": null, "transcriptPath": null,
        });
        for (key, value) in fields.as_object().unwrap() {
            base[key] = value.clone();
        }
        // What the reducer stamps on every session it hands out.
        let mut session: Session = serde_json::from_value(base).unwrap();
        session.title = Some(view::title(None, session.title.as_deref(), session.cwd.as_deref(), &session.session_id));
        view::stamp(&mut session);
        session
    }

    fn ids(needs: &[NeedsYou]) -> Vec<&str> {
        needs.iter().map(|n| n.session_id.as_str()).collect()
    }

    #[test]
    fn blocked_and_waiting_come_first_longest_waiting_first_then_unread() {
        let sessions = [
            session("working", json!({"status": "working"})),
            session("done-read", json!({"status": "done"})),
            session("done-unread", json!({"status": "done", "unread": true, "statusChangedAt": 5})),
            session("blocked-late", json!({"status": "blocked", "statusChangedAt": 30})),
            session("waiting-early", json!({"status": "waiting", "statusChangedAt": 10})),
            session("failed-unread", json!({"status": "done", "errored": true, "unread": true, "statusChangedAt": 2})),
            session("ended-blocked", json!({"status": "blocked", "ended": true})),
            session("archived-unread", json!({"status": "done", "unread": true, "archived": true})),
            session("archived-waiting", json!({"status": "waiting", "archived": true})),
            session("blocked-unread", json!({"status": "blocked", "unread": true, "statusChangedAt": 20})),
        ];
        let needs = needs_you(&sessions);
        // A failed turn asks too (issue 21.5): it waits since 2, the longest.
        assert_eq!(ids(&needs), ["failed-unread", "waiting-early", "blocked-unread", "blocked-late", "done-unread"]);
    }

    #[test]
    fn each_line_names_the_session_and_why_in_the_notifications_words() {
        let sessions = [
            session("a", json!({"status": "blocked", "tool": "Bash", "title": "auth-refactor"})),
            session("b", json!({"status": "waiting", "cwd": "/home/maya/src/api/"})),
            session("c", json!({"status": "done", "unread": true, "title": "  "})),
            session("d1234567890", json!({"status": "done", "unread": true, "errored": true})),
            session("e", json!({"status": "done", "unread": true, "interrupted": true, "title": "x"})),
            session(
                "f",
                json!({"status": "blocked", "title": "a\n  very long title that goes on and on and on and on"}),
            ),
        ];
        let labels: Vec<String> = needs_you(&sessions).into_iter().map(|n| n.label).collect();
        assert_eq!(
            labels,
            [
                "auth-refactor — needs permission: Bash",
                "api — has a question",
                "d1234567 — failed",
                "a very long title that goes on and on a… — needs permission",
                "c — finished",
                "x — interrupted",
            ]
        );
    }

    #[test]
    fn the_menu_lists_what_needs_you_then_window_autostart_and_quit() {
        let needs = vec![
            NeedsYou { session_id: "s1".into(), label: "R&D — has a question".into() },
            NeedsYou { session_id: "s2".into(), label: "api — finished".into() },
        ];
        let item = |id: &str, text: &str| Entry::Item { id: id.into(), text: text.into() };
        assert_eq!(
            entries(&needs, true),
            [
                Entry::Note("2 need you".into()),
                item("open:s1", "R&&D — has a question"),
                item("open:s2", "api — finished"),
                Entry::Separator,
                item("window", "Show/Hide window"),
                Entry::Check { id: "autostart".into(), text: "Start at login".into(), checked: true },
                Entry::Separator,
                item("quit", "Quit"),
            ]
        );
        let empty = entries(&[], false);
        assert_eq!(empty[0], Entry::Note("Nothing needs you".into()));
        assert!(empty.contains(&Entry::Check {
            id: "autostart".into(),
            text: "Start at login".into(),
            checked: false
        }));
    }

    #[test]
    fn a_long_list_is_cut_with_a_count_of_the_rest() {
        let needs: Vec<NeedsYou> =
            (0..20).map(|i| NeedsYou { session_id: format!("s{i}"), label: format!("s{i} — finished") }).collect();
        let entries = entries(&needs, false);
        let opens = entries.iter().filter(|e| matches!(e, Entry::Item { id, .. } if id.starts_with("open:"))).count();
        assert_eq!(opens, MAX_LISTED);
        assert!(entries.contains(&Entry::Note(format!("…and {} more", 20 - MAX_LISTED))));
        assert_eq!(entries[0], Entry::Note("20 need you".into()));
    }

    #[test]
    fn every_menu_id_maps_back_to_its_action() {
        for entry in entries(&[NeedsYou { session_id: "a:b".into(), label: "x".into() }], false) {
            if let Entry::Item { id, .. } | Entry::Check { id, .. } = entry {
                assert!(action(&id).is_some(), "{id}");
            }
        }
        assert_eq!(action("open:a:b"), Some(Action::Open("a:b".into())));
        assert_eq!(action("window"), Some(Action::ToggleWindow));
        assert_eq!(action("autostart"), Some(Action::ToggleAutostart));
        assert_eq!(action("quit"), Some(Action::Quit));
        assert_eq!(action("something else"), None);
    }

    #[test]
    fn the_count_reads_like_the_header_chip() {
        assert_eq!(count_text(0), "");
        assert_eq!(count_text(1), "1 needs you");
        assert_eq!(count_text(3), "3 need you");
        assert_eq!(tooltip(0), "Switchboard");
        assert_eq!(tooltip(3), "Switchboard — 3 need you");
    }
}
