//! The desktop app: the Tauri builder, its commands and events, window focus and notifications.
//! This is the only code that says `use tauri`; everything else lives in the engine and core.

mod tray;

use std::collections::HashMap;
use std::io::{Read, Write};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::sync::mpsc::Receiver;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use switchboard_core::{HistoryEntry, Position, Session, SessionsChanged, Snapshot};
use switchboard_engine::decide::{Decisions, Verdict};
use switchboard_engine::lock::{InstanceLock, LockError};
use switchboard_engine::notifier::{Action, Notifier, OnAction};
use switchboard_engine::settings::Settings;
use switchboard_engine::{Config, Hub, Instance, Update};
use tauri::{AppHandle, Emitter, Manager, Runtime, WindowEvent};

/// Changes are coalesced: at most one `sessions-changed` per frame, however many events arrive.
const FRAME: Duration = Duration::from_millis(16);
/// Under a stream of changes (many agents busy at once) the web view is told at most this often:
/// each message costs it a render of the board, and ten a second keep the badges live.
const BUSY_FRAME: Duration = Duration::from_millis(100);
/// Emits in the last second that make the stream busy, and below which it is quiet again.
const BUSY_ABOVE: usize = 20;
const QUIET_BELOW: usize = 5;

/// The events the web view listens to (their names are generated into `ui/src/bindings/events.ts`).
pub const SESSIONS_CHANGED: &str = "sessions-changed";
/// A notification was clicked: the payload is the session id to bring into view.
pub const FOCUS_SESSION: &str = "focus-session";
/// The instance's notices changed (e.g. sessions cannot be saved): the payload is the full list.
pub const NOTICES_CHANGED: &str = "notices-changed";

/// An error the web view can show: `{kind, message}`, never matched by string.
#[derive(Debug, serde::Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct CommandError {
    kind: &'static str,
    message: String,
}

struct AppState {
    hub: Arc<Hub>,
    decisions: Arc<Decisions>,
    /// Taken (and stopped) when the app exits.
    instance: Mutex<Option<Instance>>,
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
    let instance = state.instance.lock().unwrap_or_else(PoisonError::into_inner);
    instance.as_ref().map(|instance| instance.history(&session_id)).unwrap_or_default()
}

/// Brings the agent's tmux pane or terminal window forward, or hands back the command that
/// resumes the session (the web view copies it).
#[tauri::command]
async fn jump_to_terminal(
    state: tauri::State<'_, AppState>,
    session_id: String,
) -> Result<switchboard_engine::jump::Jump, CommandError> {
    let session = state
        .hub
        .snapshot()
        .sessions
        .into_iter()
        .find(|s| s.session_id == session_id)
        .ok_or_else(|| CommandError { kind: "unknownSession", message: format!("no session {session_id}") })?;
    tauri::async_runtime::spawn_blocking(move || switchboard_engine::jump::jump(&session))
        .await
        .map_err(|e| CommandError { kind: "internal", message: e.to_string() })
}

#[tauri::command]
fn remove_ended(state: tauri::State<'_, AppState>) -> usize {
    state.hub.remove_ended()
}

/// What the user should know about the session database (set aside, refused, …).
#[tauri::command]
fn notices(state: tauri::State<'_, AppState>) -> Vec<String> {
    state.hub.notices()
}

/// Allow / Deny on a held permission (issue 14). `decision` is the hold's id from the session, so
/// an answer meant for an older prompt never answers a newer one.
#[tauri::command]
fn decide(
    state: tauri::State<'_, AppState>,
    session_id: String,
    decision: u64,
    verdict: Verdict,
) -> Result<(), CommandError> {
    state
        .decisions
        .answer(&session_id, decision, verdict)
        .map_err(|error| CommandError { kind: "notWaiting", message: error.to_string() })
}

/// Which CLIs' permissions wait for the board, and for how long.
#[tauri::command]
fn settings(state: tauri::State<'_, AppState>) -> Settings {
    let instance = state.instance.lock().unwrap_or_else(PoisonError::into_inner);
    instance.as_ref().map(Instance::settings).unwrap_or_default()
}

/// Saves the settings and tells the forwarders at once; returns them as saved (cleaned up).
#[tauri::command]
fn set_settings(state: tauri::State<'_, AppState>, settings: Settings) -> Result<Settings, CommandError> {
    let instance = state.instance.lock().unwrap_or_else(PoisonError::into_inner);
    let instance = instance
        .as_ref()
        .ok_or_else(|| CommandError { kind: "stopping", message: "Switchboard is shutting down".into() })?;
    instance.set_settings(settings).map_err(|error| CommandError { kind: "io", message: error.to_string() })
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

/// The Connections panel and the empty state: the same checks as `switchboard doctor`. Its test
/// session is taken off the canvas again as soon as it has been seen.
#[tauri::command]
async fn doctor(state: tauri::State<'_, AppState>) -> Result<switchboard_engine::doctor::DoctorReport, CommandError> {
    use switchboard_engine::doctor;
    let failure = |kind, message: String| CommandError { kind, message };
    let command_path = std::env::current_exe()
        .map(|app| app.with_file_name("switchboard"))
        .map_err(|e| failure("io", format!("cannot locate the switchboard binary: {e}")))?;
    let state_dir = Config::from_env().map_err(|e| failure("noStateDir", e.to_string()))?.state_dir;
    let options = doctor::DoctorOptions::from_env(command_path, state_dir, None)
        .ok_or_else(|| failure("noHome", "HOME is not set, so the CLIs' settings cannot be found".into()))?;
    let hub = Arc::clone(&state.hub);
    tauri::async_runtime::spawn_blocking(move || {
        doctor::examine(&options, |session_id| {
            hub.remove(session_id);
        })
    })
    .await
    .map_err(|e| failure("internal", e.to_string()))
}

/// How long to gather changes after an emit: a frame, or [`BUSY_FRAME`] while changes stream in
/// (more than [`BUSY_ABOVE`] emits in the last second, until fewer than [`QUIET_BELOW`]). The
/// first change after a quiet spell still goes out at once.
#[derive(Default)]
struct Pace {
    emits: std::collections::VecDeque<std::time::Instant>,
    busy: bool,
}

impl Pace {
    fn after_emit(&mut self, now: std::time::Instant) -> Duration {
        self.emits.push_back(now);
        while self.emits.front().is_some_and(|&at| now.duration_since(at) > Duration::from_secs(1)) {
            self.emits.pop_front();
        }
        if self.emits.len() > BUSY_ABOVE {
            self.busy = true;
        } else if self.emits.len() < QUIET_BELOW {
            self.busy = false;
        }
        if self.busy {
            BUSY_FRAME
        } else {
            FRAME
        }
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
            Update::Changed(changed) => {
                let session = changed.change.session;
                let id = session.session_id.clone();
                self.removed.retain(|removed| *removed != id);
                if self.changed.insert(id.clone(), session).is_none() {
                    self.order.push(id);
                }
            }
            Update::Notices(_) => {}
            Update::Removed(id) => {
                if self.changed.remove(&id).is_some() {
                    self.order.retain(|changed| *changed != id);
                }
                self.removed.push(id);
            }
        }
    }

    fn extend(&mut self, updates: impl IntoIterator<Item = Update>) {
        for update in updates {
            self.push(update);
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
    let _ = app.emit(FOCUS_SESSION, session_id.to_owned());
}

/// A notification's "Jump to terminal": the agent's pane or window comes forward; when there is
/// none to show, the app does, on that session (its details offer the resume command).
fn jump_from_notification<R: Runtime>(app: &AppHandle<R>, hub: &Arc<Hub>, session_id: &str) {
    let Some(session) = hub.snapshot().sessions.into_iter().find(|s| s.session_id == session_id) else { return };
    let (app, hub) = (app.clone(), Arc::clone(hub));
    let _ = std::thread::Builder::new().name("jump".into()).spawn(move || {
        hub.clear_unread(&session.session_id);
        if let switchboard_engine::jump::Jump::Resume { .. } = switchboard_engine::jump::jump(&session) {
            open_session(&app, &hub, &session.session_id);
        }
    });
}

/// The app, generic over the runtime so tests can build it with `tauri::test::mock_builder()`.
/// `lock` is the state directory's instance lock, taken before any window exists.
pub fn builder<R: Runtime>(config: Config, lock: InstanceLock) -> tauri::Builder<R> {
    let lock = Mutex::new(Some(lock));
    let close_to_tray = switchboard_engine::config::AppConfig::from_env().close_to_tray;
    tauri::Builder::<R>::new()
        .plugin(tauri_plugin_window_state::Builder::default().build())
        .plugin(tauri_plugin_autostart::Builder::new().app_name("switchboard").build())
        .invoke_handler(tauri::generate_handler![
            snapshot,
            clear_unread,
            remove_session,
            remove_ended,
            set_position,
            session_history,
            jump_to_terminal,
            notices,
            install_hooks,
            doctor,
            decide,
            settings,
            set_settings,
            tray::autostart,
            tray::set_autostart
        ])
        .setup(move |app| {
            let handle = app.handle().clone();
            let lock = lock.lock().unwrap_or_else(PoisonError::into_inner).take().expect("setup runs once");
            let notify = config.notify;
            let state_dir = config.state_dir.clone();
            let instance = tauri::async_runtime::block_on(Instance::start_locked(config, lock))?;
            tracing::info!(port = instance.server.port(), "hook server listening");
            let hub = Arc::clone(&instance.hub);
            // The outputs of the app: the web view and notifications, each its own subscriber.
            emit_changes(handle.clone(), hub.updates());
            let decisions = Arc::clone(&instance.decisions);
            if notify {
                let (click_handle, click_hub, click_decisions) =
                    (handle.clone(), Arc::clone(&hub), Arc::clone(&decisions));
                let on_action: OnAction = Arc::new(move |session_id: String, action: Action| match action {
                    Action::Show => open_session(&click_handle, &click_hub, &session_id),
                    Action::Jump => jump_from_notification(&click_handle, &click_hub, &session_id),
                    Action::Decide { decision, verdict } => {
                        if let Err(error) = click_decisions.answer(&session_id, decision, verdict) {
                            tracing::info!(%error, session_id, "a notification's answer came too late");
                        }
                    }
                });
                Notifier::follow(hub.updates(), Some(on_action));
            }
            answer_focus_requests(handle.clone(), &state_dir);
            let (tray_hub, tray_updates) = (Arc::clone(&hub), hub.updates());
            app.manage(AppState { hub, decisions, instance: Mutex::new(Some(instance)) });
            tray::start(&handle, tray_hub, tray_updates);
            Ok(())
        })
        .on_window_event(move |window, event| {
            // With a tray icon to bring it back, closing the window hides it.
            if let WindowEvent::CloseRequested { api, .. } = event {
                if close_to_tray && window.try_state::<tray::Tray<R>>().is_some() {
                    api.prevent_close();
                    let _ = window.hide();
                }
            }
            if let &WindowEvent::Focused(focused) = event {
                if let Some(state) = window.try_state::<AppState>() {
                    state.hub.set_window_focused(focused);
                }
            }
        })
}

/// The web view's subscriber: the first change of a burst goes out at once; whatever follows
/// within the frame is gathered into the next `sessions-changed`.
fn emit_changes<R: Runtime>(handle: AppHandle<R>, updates: Receiver<Update>) {
    let spawned = std::thread::Builder::new().name("emit".into()).spawn(move || {
        let mut pending = Pending::default();
        let mut pace = Pace::default();
        while let Ok(update) = updates.recv() {
            if let Update::Notices(notices) = &update {
                let _ = handle.emit(NOTICES_CHANGED, notices.clone());
                continue;
            }
            pending.push(update);
            pending.extend(updates.try_iter());
            if let Some(batch) = pending.take() {
                let _ = handle.emit(SESSIONS_CHANGED, batch);
            }
            std::thread::sleep(pace.after_emit(std::time::Instant::now()));
        }
    });
    if let Err(error) = spawned {
        tracing::error!(%error, "cannot start the web view's updates");
    }
}

/// The socket a second launch uses to bring this window forward (the lock tells it we run).
fn focus_socket(state_dir: &Path) -> PathBuf {
    state_dir.join("app.sock")
}

/// Brings the window forward whenever a second launch connects and asks.
fn answer_focus_requests<R: Runtime>(handle: AppHandle<R>, state_dir: &Path) {
    let path = focus_socket(state_dir);
    // Only the lock holder gets here, so a socket file left by a crash is stale.
    let _ = std::fs::remove_file(&path);
    let listener = match UnixListener::bind(&path) {
        Ok(listener) => listener,
        Err(error) => {
            tracing::warn!(%error, "a second launch will not be able to bring this window forward");
            return;
        }
    };
    let _ = std::thread::Builder::new().name("focus".into()).spawn(move || {
        for mut stream in listener.incoming().flatten() {
            let _ = stream.set_read_timeout(Some(Duration::from_secs(1)));
            let mut request = [0u8; 5];
            if stream.read_exact(&mut request).is_ok() && &request == b"focus" {
                show_window(&handle);
                let _ = stream.write_all(b"ok");
            }
        }
    });
}

/// Asks the running app of this state directory to come forward; `false` if none answers
/// (a headless `serve` holds the lock).
fn ask_running_app_to_focus(state_dir: &Path) -> bool {
    let Ok(mut stream) = UnixStream::connect(focus_socket(state_dir)) else { return false };
    let _ = stream.set_read_timeout(Some(Duration::from_secs(2)));
    let mut answer = [0u8; 2];
    stream.write_all(b"focus").is_ok() && stream.read_exact(&mut answer).is_ok() && &answer == b"ok"
}

/// Runs the desktop app until its window closes.
pub fn run() -> anyhow::Result<()> {
    let config = Config::from_env()?;
    // One instance per state directory: bring the running one forward, or explain.
    let lock = match InstanceLock::acquire(&config.state_dir) {
        Ok(lock) => lock,
        Err(LockError::Held { pid, .. }) => {
            if ask_running_app_to_focus(&config.state_dir) {
                return Ok(());
            }
            anyhow::bail!(
                "Switchboard is already running without a window (`switchboard serve`, pid {pid}) on {}; stop it \
                 first, or use `switchboard status`",
                config.state_dir.display()
            );
        }
        Err(error) => return Err(error.into()),
    };
    let app = builder::<tauri::Wry>(config, lock).build(tauri::generate_context!())?;
    app.run(|handle, event| {
        if let tauri::RunEvent::Exit = event {
            let instance = handle.try_state::<AppState>().and_then(|state| state.instance.lock().ok()?.take());
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
        let change = Change { session, previous: None, notify: false };
        Update::Changed(Box::new(switchboard_engine::hub::Changed {
            change,
            event_title: None,
            agent_title: None,
            history: None,
        }))
    }

    #[test]
    fn a_stream_of_changes_is_paced_to_ten_a_second_and_a_quiet_spell_restores_frames() {
        let start = std::time::Instant::now();
        let at = |ms: u64| start + Duration::from_millis(ms);
        let mut pace = Pace::default();
        // An agent or two: every change goes out a frame apart.
        assert_eq!(pace.after_emit(at(0)), FRAME);
        assert_eq!(pace.after_emit(at(300)), FRAME);
        // Fifty a second (what 50 busy agents send): after a dozen frames, a tenth of a second.
        let paced: Vec<Duration> = (0..30).map(|n| pace.after_emit(at(400 + n * 20))).collect();
        assert_eq!(paced[..BUSY_ABOVE - 3], vec![FRAME; BUSY_ABOVE - 3], "not before the stream is busy");
        assert_eq!(*paced.last().unwrap(), BUSY_FRAME);
        // Still streaming at the paced rate (ten a second): it stays paced, no flapping.
        for n in 0..20 {
            assert_eq!(pace.after_emit(at(1_000 + n * 100)), BUSY_FRAME, "emit {n}");
        }
        // Quiet for a second: the next change is told at once, and frames come back.
        assert_eq!(pace.after_emit(at(5_000)), FRAME);
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

    /// The web view's side of the IPC that the app crate defines (the command error and the
    /// event names) is generated from here, like the core's types; this fails when it is stale.
    /// `UPDATE_BINDINGS=1 cargo test -p switchboard --lib bindings` rewrites it.
    #[test]
    fn ipc_bindings_are_up_to_date() {
        use ts_rs::TS;
        let header = "// Generated from the Rust types by ts-rs (src-tauri/lib.rs). Do not edit.\n";
        let files = [
            ("CommandError.ts", format!("{header}\nexport {}\n", CommandError::decl())),
            (
                "events.ts",
                format!(
                    "{header}\nexport const SESSIONS_CHANGED = {SESSIONS_CHANGED:?};\nexport const FOCUS_SESSION = {FOCUS_SESSION:?};\nexport const NOTICES_CHANGED = {NOTICES_CHANGED:?};\n"
                ),
            ),
        ];
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("ui/src/bindings");
        for (file, text) in files {
            let path = dir.join(file);
            if std::env::var_os("UPDATE_BINDINGS").is_some() {
                std::fs::write(&path, &text).unwrap();
            } else {
                let committed = std::fs::read_to_string(&path).unwrap_or_default();
                assert_eq!(
                    committed, text,
                    "{file} is stale: run `UPDATE_BINDINGS=1 cargo test -p switchboard --lib bindings`"
                );
            }
        }
    }
}
