//! The app's shared state and its window: what the builder, the commands, the tray and a second
//! launch all use. Below them, so none of them imports the crate root.

use std::sync::{Arc, Mutex};

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
