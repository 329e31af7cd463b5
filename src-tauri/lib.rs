//! The desktop app: the Tauri builder, its commands and events, window focus and notifications.
//! This is the only code that says `use tauri`; everything else lives in the engine and core.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use switchboard_core::{HistoryEntry, Position, Session, SessionsChanged, Snapshot};
use switchboard_engine::endpoint::{Endpoint, EndpointError};
use switchboard_engine::notifier::{Notifier, OnClick};
use switchboard_engine::{Hub, Instance, Update};
use tauri::{AppHandle, Emitter, Manager, Runtime, WindowEvent};

/// Changes are coalesced: at most one `sessions-changed` per frame, however many events arrive.
const FRAME: Duration = Duration::from_millis(16);

/// An error the web view can show: `{kind, message}`, never matched by string.
#[derive(Debug, serde::Serialize)]
pub struct CommandError {
    kind: &'static str,
    message: String,
}

struct AppState {
    hub: Arc<Hub>,
    notices: Vec<String>,
}

#[tauri::command]
fn snapshot(state: tauri::State<'_, AppState>) -> Snapshot {
    state.hub.snapshot()
}

#[tauri::command]
fn clear_unread(state: tauri::State<'_, AppState>, session_id: String) -> Result<(), CommandError> {
    if state.hub.clear_unread(&session_id) {
        Ok(())
    } else {
        Err(CommandError { kind: "unknownSession", message: format!("no session {session_id}") })
    }
}

#[tauri::command]
fn remove_session(state: tauri::State<'_, AppState>, session_id: String) -> Result<(), CommandError> {
    if state.hub.remove(&session_id) {
        Ok(())
    } else {
        Err(CommandError { kind: "unknownSession", message: format!("no session {session_id}") })
    }
}

#[tauri::command]
fn set_position(state: tauri::State<'_, AppState>, session_id: String, x: f64, y: f64) -> Result<(), CommandError> {
    let clamp = |v: f64| v.round().clamp(f64::from(i32::MIN), f64::from(i32::MAX)) as i32;
    if !(x.is_finite() && y.is_finite()) {
        return Err(CommandError { kind: "badPosition", message: format!("({x}, {y}) is not a place on the canvas") });
    }
    state.hub.set_position(&session_id, Position { x: clamp(x), y: clamp(y) });
    Ok(())
}

#[tauri::command]
fn session_history(state: tauri::State<'_, AppState>, session_id: String) -> Vec<HistoryEntry> {
    state.hub.history(&session_id)
}

#[tauri::command]
fn remove_ended(state: tauri::State<'_, AppState>) -> usize {
    state.hub.remove_ended()
}

/// What the user should know about the session database (set aside, refused, …).
#[tauri::command]
fn notices(state: tauri::State<'_, AppState>) -> Vec<String> {
    state.notices.clone()
}

/// The "Connect my CLIs" button: the same as `switchboard install <agent>`.
#[tauri::command]
async fn install_hooks(agent: String) -> Result<String, CommandError> {
    use switchboard_engine::install;
    let failure = |kind, message: String| CommandError { kind, message };
    let clis = install::clis_named(&agent).ok_or_else(|| failure("unknownAgent", format!("no CLI called {agent}")))?;
    // The hooks run the small `switchboard` CLI that sits beside this app binary.
    let command_path = std::env::current_exe()
        .map(|app| app.with_file_name("switchboard"))
        .map_err(|e| failure("io", format!("cannot locate the switchboard binary: {e}")))?;
    let outcomes = tauri::async_runtime::spawn_blocking(move || {
        install::InstallOptions::for_user(clis, false, false, command_path).map(|options| install::install(&options))
    })
    .await
    .map_err(|e| failure("internal", e.to_string()))?
    .ok_or_else(|| failure("noHome", "HOME is not set, so the CLIs' settings cannot be found".into()))?;
    let summary = outcomes.iter().map(ToString::to_string).collect::<Vec<_>>().join("\n\n");
    match outcomes.iter().find_map(|outcome| outcome.result.as_ref().err()) {
        Some(error) => Err(CommandError { kind: error.kind(), message: summary }),
        None => Ok(summary),
    }
}

/// Updates waiting for the next frame's emit.
#[derive(Default)]
struct Pending {
    changed: HashMap<String, Session>,
    order: Vec<String>,
    removed: Vec<String>,
}

impl Pending {
    fn push(&mut self, update: Update) {
        match update {
            Update::Changed(change) => {
                let id = change.session.session_id.clone();
                self.removed.retain(|removed| *removed != id);
                if self.changed.insert(id.clone(), change.session).is_none() {
                    self.order.push(id);
                }
            }
            Update::FocusRequested => {}
            Update::Removed(id) => {
                if self.changed.remove(&id).is_some() {
                    self.order.retain(|changed| *changed != id);
                }
                self.removed.push(id);
            }
        }
    }

    fn take(&mut self) -> Option<SessionsChanged> {
        if self.order.is_empty() && self.removed.is_empty() {
            return None;
        }
        let mut changed = std::mem::take(&mut self.changed);
        let sessions = std::mem::take(&mut self.order).into_iter().filter_map(|id| changed.remove(&id)).collect();
        Some(SessionsChanged { changed: sessions, removed: std::mem::take(&mut self.removed) })
    }
}

fn show_window<R: Runtime>(app: &AppHandle<R>) {
    if let Some(window) = app.get_webview_window("main") {
        let _ = window.unminimize();
        let _ = window.show();
        let _ = window.set_focus();
    }
}

/// Brings the window forward and the session into view, and marks it read.
fn open_session<R: Runtime>(app: &AppHandle<R>, hub: &Hub, session_id: &str) {
    show_window(app);
    hub.clear_unread(session_id);
    let _ = app.emit("focus-session", session_id.to_owned());
}

/// The app, generic over the runtime so tests can build it with `tauri::test::mock_builder()`.
pub fn builder<R: Runtime>(notifications: bool, state_dir: PathBuf) -> tauri::Builder<R> {
    tauri::Builder::<R>::new()
        .plugin(tauri_plugin_window_state::Builder::default().build())
        .invoke_handler(tauri::generate_handler![
            snapshot,
            clear_unread,
            remove_session,
            remove_ended,
            set_position,
            session_history,
            notices,
            install_hooks
        ])
        .setup(move |app| {
            let handle = app.handle().clone();
            let pending = Arc::new(Mutex::new(Pending::default()));
            let wake = Arc::new(tokio::sync::Notify::new());

            let hub_cell: Arc<std::sync::OnceLock<Arc<Hub>>> = Arc::new(std::sync::OnceLock::new());
            let notifier = notifications.then(|| {
                let handle = handle.clone();
                let hub_cell = Arc::clone(&hub_cell);
                let on_click: OnClick = Arc::new(move |session_id: String| {
                    if let Some(hub) = hub_cell.get() {
                        open_session(&handle, hub, &session_id);
                    }
                });
                Notifier::start(Some(on_click))
            });
            let (listener_pending, listener_wake) = (Arc::clone(&pending), Arc::clone(&wake));
            let focus_handle = handle.clone();
            let hub = Arc::new(Hub::new(move |update| {
                if let (Update::Changed(change), Some(notifier)) = (&update, &notifier) {
                    if change.notify {
                        notifier.notify(&change.session);
                    }
                }
                if let Update::FocusRequested = update {
                    show_window(&focus_handle);
                    return;
                }
                listener_pending.lock().unwrap_or_else(PoisonError::into_inner).push(update);
                listener_wake.notify_one();
            }));
            let _ = hub_cell.set(Arc::clone(&hub));

            let emitter = handle.clone();
            tauri::async_runtime::spawn(async move {
                // The first change of a burst goes out at once; whatever follows within the
                // frame is gathered into the next emit.
                loop {
                    wake.notified().await;
                    let batch = pending.lock().unwrap_or_else(PoisonError::into_inner).take();
                    if let Some(batch) = batch {
                        let _ = emitter.emit("sessions-changed", batch);
                    }
                    tokio::time::sleep(FRAME).await;
                }
            });

            hub.set_has_window(true);
            let instance = tauri::async_runtime::block_on(Instance::start(state_dir.clone(), Arc::clone(&hub)))?;
            tracing::info!(port = instance.server.port(), "hook server listening");
            app.manage(AppState { hub, notices: instance.notices.clone() });
            app.manage(Mutex::new(Some(instance)));
            Ok(())
        })
        .on_window_event(|window, event| {
            if let &WindowEvent::Focused(focused) = event {
                if let Some(state) = window.try_state::<AppState>() {
                    state.hub.set_window_focused(focused);
                }
            }
        })
}

/// Asks the instance behind `endpoint.json` to bring its window forward; `false` if it has none.
fn ask_running_app_to_focus(state_dir: &std::path::Path) -> bool {
    let Some(endpoint) = Endpoint::read(state_dir) else { return false };
    let path = format!("/focus?key={}", endpoint.key);
    switchboard_engine::client::request(endpoint.addr(), "POST", &path, b"", Duration::from_secs(2))
        .is_ok_and(|response| response.status == 204)
}

/// Runs the desktop app until its window closes.
pub fn run() -> anyhow::Result<()> {
    let notifications = std::env::var_os("SWITCHBOARD_NO_NOTIFY").is_none();
    let state_dir = switchboard_engine::state_dir::state_dir()
        .ok_or_else(|| anyhow::anyhow!("no state directory: set SWITCHBOARD_HOME or HOME"))?;
    // One instance per state directory: bring the running one forward, or explain.
    if let Err(EndpointError::AlreadyRunning { pid, .. }) = Endpoint::claim(&state_dir) {
        if ask_running_app_to_focus(&state_dir) {
            return Ok(());
        }
        anyhow::bail!(
            "Switchboard is already running without a window (`switchboard serve`, pid {pid}) on {}; stop it \
             first, or use `switchboard status`",
            state_dir.display()
        );
    }
    let app = builder::<tauri::Wry>(notifications, state_dir).build(tauri::generate_context!())?;
    app.run(|handle, event| {
        if let tauri::RunEvent::Exit = event {
            let instance = handle.try_state::<Mutex<Option<Instance>>>().and_then(|slot| slot.lock().ok()?.take());
            if let Some(instance) = instance {
                tauri::async_runtime::block_on(instance.stop());
            }
        }
    });
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use switchboard_core::{normalize, Change};

    fn update(id: &str, status: &str) -> Update {
        let event = normalize("custom", &json!({"sessionId": id, "status": status}), 1).unwrap();
        let session = switchboard_core::Reducer::new().apply(&event, false).unwrap().session;
        Update::Changed(Box::new(Change { session, previous: None, notify: false }))
    }

    #[test]
    fn a_burst_is_coalesced_into_one_change_per_session_in_arrival_order() {
        let mut pending = Pending::default();
        for i in 0..10_000 {
            let status = if i % 2 == 0 { "working" } else { "done" };
            pending.push(update(&format!("s{}", i % 50), status));
        }
        let batch = pending.take().unwrap();
        assert_eq!(batch.changed.len(), 50);
        assert_eq!(batch.changed[0].session_id, "s0");
        assert_eq!(batch.changed[49].session_id, "s49");
        for session in &batch.changed {
            let odd = session.session_id[1..].parse::<u32>().unwrap() % 2 == 1;
            let done = session.status == Some(switchboard_core::AgentStatus::Done);
            assert_eq!(done, odd, "{} carries its last state", session.session_id);
        }
        assert!(pending.take().is_none(), "nothing left to emit");
    }

    #[test]
    fn a_removal_after_a_change_in_the_same_frame_wins() {
        let mut pending = Pending::default();
        pending.push(update("a", "working"));
        pending.push(update("b", "working"));
        pending.push(Update::Removed("a".into()));
        let batch = pending.take().unwrap();
        assert_eq!(batch.changed.iter().map(|s| s.session_id.as_str()).collect::<Vec<_>>(), ["b"]);
        assert_eq!(batch.removed, ["a"]);
        pending.push(Update::Removed("c".into()));
        pending.push(update("c", "done"));
        let batch = pending.take().unwrap();
        assert!(batch.removed.is_empty(), "it came back within the frame");
        assert_eq!(batch.changed.len(), 1);
    }
}
