//! The desktop app: the Tauri builder, window focus, notifications' actions and the tray. This is
//! the only code that says `use tauri`; everything else lives in the engine and core. Each job has
//! its file: `commands` (what the web view calls), `emit` (what it is told), `single_instance`
//! (a second launch), `terminal` (the one live terminal), `tray`, `window` (the app's state and
//! its window, which those share).

#[cfg(test)]
mod bindings;
mod commands;
mod emit;
mod single_instance;
mod terminal;
mod tray;
mod window;

use std::sync::{Arc, Mutex, PoisonError};

use switchboard_engine::instance::lock::{InstanceLock, LockError};
use switchboard_engine::instance::outputs::notifier::{Action, Notifier, OnAction};
use switchboard_engine::instance::runtime::EngineThread;
use switchboard_engine::{Config, Input, Instance};
use tauri::{Manager, Runtime, WindowEvent};
use tauri_plugin_window_state::StateFlags;

pub use commands::CommandError;
pub use emit::{CHIME, FOCUS_SESSION, NOTICES_CHANGED, SESSIONS_CHANGED};
use window::{jump_from_notification, open_session, AppState};

/// The app, generic over the runtime so tests can build it with `tauri::test::mock_builder()`.
/// `lock` is the state directory's instance lock, taken before any window exists.
pub fn builder<R: Runtime>(config: Config, lock: InstanceLock) -> tauri::Builder<R> {
    let lock = Mutex::new(Some(lock));
    let close_to_tray = switchboard_engine::config::AppConfig::from_env().close_to_tray;
    tauri::Builder::<R>::new()
        // Size, place and maximized are restored; never the visibility: the window shows itself
        // once the page has drawn (window.rs, `FirstShow`).
        .plugin(
            tauri_plugin_window_state::Builder::default()
                .with_state_flags(StateFlags::all() - StateFlags::VISIBLE)
                .build(),
        )
        .plugin(tauri_plugin_autostart::Builder::new().app_name("switchboard").build())
        .invoke_handler(tauri::generate_handler![
            commands::page_ready,
            commands::snapshot,
            commands::clear_unread,
            commands::remove_session,
            commands::remove_ended,
            commands::set_position,
            commands::session_history,
            commands::jump_to_terminal,
            commands::notices,
            commands::install_hooks,
            commands::doctor,
            commands::decide,
            commands::settings,
            commands::set_settings,
            commands::test_push,
            commands::push_url_problem,
            commands::remotes,
            commands::answer_question,
            commands::answer_text,
            commands::last_turn,
            commands::reply,
            commands::peek_screen,
            commands::new_agent,
            commands::end_agent,
            commands::terminal_open,
            commands::terminal_write,
            commands::terminal_resize,
            commands::terminal_close,
            tray::autostart,
            tray::set_autostart
        ])
        .manage(Arc::new(terminal::LiveTerminal::default()))
        .manage(window::FirstShow::default())
        .setup(move |app| {
            let handle = app.handle().clone();
            let lock = lock.lock().unwrap_or_else(PoisonError::into_inner).take().expect("setup runs once");
            let notify = config.notify;
            let state_dir = config.state_dir.clone();
            // The instance on a thread of its own (issue 47): the hook path never shares Tauri's
            // runtime; the engine thread lives as long as the app (kept in its state).
            let engine = EngineThread::start()?;
            let instance = engine.run(Instance::start_locked(config, lock)).ok_or("the engine's thread is gone")??;
            tracing::info!(port = instance.server.port(), "hook server listening");
            let (hub, inputs) = (Arc::clone(&instance.hub), instance.inputs.clone());
            // The outputs of the app: the web view and notifications, each its own subscriber.
            emit::emit_changes(handle.clone(), hub.updates());
            emit::emit_chimes(handle.clone(), hub.updates(), Arc::clone(&instance.push));
            let decisions = Arc::clone(&instance.decisions);
            if notify {
                let (click_handle, click_hub, click_inputs, click_decisions) =
                    (handle.clone(), Arc::clone(&hub), inputs.clone(), Arc::clone(&decisions));
                let on_action: OnAction = Arc::new(move |session_id: String, action: Action| match action {
                    Action::Show => open_session(&click_handle, &click_inputs, &session_id),
                    Action::Jump => jump_from_notification(&click_handle, &click_hub, &click_inputs, &session_id),
                    Action::Decide { decision, verdict } => {
                        let host = click_hub.session(&session_id).map(|session| session.host).unwrap_or_default();
                        if let Err(error) = click_decisions.answer_anywhere(&host, &session_id, decision, verdict) {
                            tracing::info!(%error, session_id, "a notification's answer came too late");
                        }
                    }
                });
                Notifier::follow(hub.updates(), Some(on_action));
            }
            single_instance::answer_focus_requests(handle.clone(), &state_dir);
            // The window-state plugin keeps its file in the app's config folder: private too,
            // whatever the umask (issue 45).
            if let Err(error) = app
                .path()
                .app_config_dir()
                .map_err(std::io::Error::other)
                .and_then(|dir| switchboard_engine::state_dir::make_private(&dir))
            {
                tracing::warn!(%error, "the app's config folder could not be made private");
            }
            let (tray_hub, tray_updates) = (Arc::clone(&hub), hub.updates());
            app.manage(AppState { hub, inputs, decisions, instance: Mutex::new(Some(instance)), engine });
            tray::start(&handle, tray_hub, tray_updates);
            let shown = handle.clone();
            tauri::async_runtime::spawn(async move {
                tokio::time::sleep(window::SHOW_ANYWAY_AFTER).await;
                window::show_first(&shown, window::FirstShowBy::Timeout);
            });
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
                    state.inputs.push(Input::WindowFocused(focused));
                }
            }
        })
}

/// Runs the desktop app until its window closes.
pub fn run() -> anyhow::Result<()> {
    let config = Config::from_env()?;
    // No web view, no window: said plainly here rather than in Tauri's panic once the event loop
    // runs (a Windows without the WebView2 runtime; issue 50).
    if let Err(error) = tauri::webview_version() {
        anyhow::bail!(
            "the window needs the system's web view, and none was found ({error}). On Windows, install the \
             Microsoft Edge WebView2 Runtime (https://developer.microsoft.com/microsoft-edge/webview2/); on \
             Linux, WebKitGTK 4.1. The `switchboard` command line (serve, status, hook) runs without it"
        );
    }
    // The web view creates its storage and caches there with the umask's modes (0777 under
    // `umask 000`): the folder is made the user's alone before it starts (issue 45).
    if let Some(webview) = switchboard_engine::state_dir::webview_data_dir() {
        if let Err(error) = switchboard_engine::state_dir::make_private(&webview) {
            tracing::warn!(%error, "the web view's data folder {} could not be made private", webview.display());
        }
    }
    // One instance per state directory: bring the running one forward, or explain.
    let lock = match InstanceLock::acquire(&config.state_dir) {
        Ok(lock) => lock,
        Err(LockError::Held { pid, .. }) => {
            if single_instance::ask_running_app_to_focus(&config.state_dir) {
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
            if let Some(state) = handle.try_state::<AppState>() {
                let instance = state.instance.lock().ok().and_then(|mut instance| instance.take());
                if let Some(instance) = instance {
                    // Stopped where it runs: the server's tasks are the engine thread's.
                    state.engine.run(instance.stop());
                }
            }
        }
    });
    Ok(())
}
