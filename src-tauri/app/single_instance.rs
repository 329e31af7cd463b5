//! One window per state directory: the instance lock says whether an app runs; a second launch
//! asks it, over `app.sock` in the state directory, to bring its window forward.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

use tauri::{AppHandle, Runtime};

/// The socket a second launch uses to bring this window forward (the lock tells it we run).
fn focus_socket(state_dir: &Path) -> PathBuf {
    state_dir.join("app.sock")
}

/// Brings the window forward whenever a second launch connects and asks.
pub fn answer_focus_requests<R: Runtime>(handle: AppHandle<R>, state_dir: &Path) {
    // Only the lock holder gets here, so what a crash left at the path is stale.
    let incoming = match switchboard_engine::platform::local::listen(&focus_socket(state_dir)) {
        Ok(incoming) => incoming,
        Err(error) => {
            tracing::warn!(%error, "a second launch will not be able to bring this window forward");
            return;
        }
    };
    let _ = std::thread::Builder::new().name("focus".into()).spawn(move || {
        for mut stream in incoming {
            let _ = stream.set_read_timeout(Some(Duration::from_secs(1)));
            let mut request = [0u8; 5];
            if stream.read_exact(&mut request).is_ok() && &request == b"focus" {
                crate::window::show_window(&handle);
                let _ = stream.write_all(b"ok");
            }
        }
    });
}

/// Asks the running app of this state directory to come forward; `false` if none answers
/// (a headless `serve` holds the lock).
pub fn ask_running_app_to_focus(state_dir: &Path) -> bool {
    let Ok(mut stream) = switchboard_engine::platform::local::connect(&focus_socket(state_dir)) else { return false };
    let _ = stream.set_read_timeout(Some(Duration::from_secs(2)));
    let mut answer = [0u8; 2];
    stream.write_all(b"focus").is_ok() && stream.read_exact(&mut answer).is_ok() && &answer == b"ok"
}
