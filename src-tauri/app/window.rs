//! The app's shared state and its window: what the builder, the commands, the tray and a second
//! launch all use. Below them, so none of them imports the crate root.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use switchboard_engine::instance::act::decide::Decisions;
use switchboard_engine::instance::act::jump::{self, Jump};
use switchboard_engine::instance::runtime::EngineThread;
use switchboard_engine::{Hub, Input, Inputs, Instance};
use tauri::{AppHandle, Emitter, Manager, Runtime};

use crate::emit::FOCUS_SESSION;

pub struct AppState {
    /// Read-only: the snapshot and notices.
    pub hub: Arc<Hub>,
    /// Every change, the user's included, goes in here.
    pub inputs: Inputs,
    pub decisions: Arc<Decisions>,
    /// Taken (and stopped) when the app exits.
    pub instance: Mutex<Option<Instance>>,
    /// The thread the instance runs on (its hook server, hub and reducer).
    pub engine: EngineThread,
}

pub fn show_window<R: Runtime>(app: &AppHandle<R>) {
    if let Some(window) = app.get_webview_window("main") {
        let _ = window.unminimize();
        let _ = window.show();
        let _ = window.set_focus();
    }
}

/// The window is created hidden (`tauri.conf.json`) and shown once the page has drawn its first
/// board: a window mapped before the web view has a frame makes WebKitGTK's first draw wait up to
/// 500 ms for one on the main thread — the thread that serves the page its files — so about half
/// the launches waited out the whole 500 ms before the page even loaded (issue 47). If the page
/// never says it is ready, the window is shown after [`SHOW_ANYWAY_AFTER`] all the same.
#[derive(Default)]
pub struct FirstShow(AtomicBool);

/// How long a page that never says it drew may keep the window hidden.
pub const SHOW_ANYWAY_AFTER: Duration = Duration::from_secs(4);

/// Why the window is shown first.
#[derive(Debug, Clone, Copy)]
pub enum FirstShowBy {
    /// The page drew its first board.
    Page,
    /// [`SHOW_ANYWAY_AFTER`] passed without a word from the page.
    Timeout,
}

/// Shows the window the first time it is called; later calls (a reloaded page) change nothing.
pub fn show_first<R: Runtime>(app: &AppHandle<R>, by: FirstShowBy) {
    if app.try_state::<FirstShow>().is_none_or(|first| !first.0.swap(true, Ordering::SeqCst)) {
        match by {
            FirstShowBy::Page => tracing::info!("the window is shown: the page drew its first board"),
            FirstShowBy::Timeout => tracing::warn!(
                "the window is shown, though the page has not said it drew within {} s",
                SHOW_ANYWAY_AFTER.as_secs()
            ),
        }
        show_window(app);
    }
}

/// Brings the window forward and the session into view, and marks it read.
pub fn open_session<R: Runtime>(app: &AppHandle<R>, inputs: &Inputs, session_id: &str) {
    show_window(app);
    inputs.push(Input::ClearUnread { session_id: session_id.to_owned(), reply: None });
    let _ = app.emit(FOCUS_SESSION, session_id.to_owned());
}

/// A notification's "Jump to terminal": the agent's pane or window comes forward; when there is
/// none to show, the app does, on that session (its details offer the resume command).
pub fn jump_from_notification<R: Runtime>(app: &AppHandle<R>, hub: &Hub, inputs: &Inputs, session_id: &str) {
    let Some(session) = hub.snapshot().sessions.into_iter().find(|s| s.session_id == session_id) else { return };
    let (app, inputs) = (app.clone(), inputs.clone());
    let _ = std::thread::Builder::new().name("jump".into()).spawn(move || {
        inputs.push(Input::ClearUnread { session_id: session.session_id.clone(), reply: None });
        if let Jump::Resume { .. } = jump::jump(&session) {
            open_session(&app, &inputs, &session.session_id);
        }
    });
}
