//! Switchboard's engine: everything with IO but no window, in rooms that show its processes —
//! the `hook` forwarder, the running instance, setting up, and the clients of an instance — over
//! what they share (`protocol`, `endpoint`, `clock`, …). No Tauri here, so the headless commands
//! and their tests need no web view. No room imports another's internals: the forwarder and the
//! instance meet only in `protocol`.

// Shared by every process: what crosses between them, and the ground they stand on.
pub mod clock;
pub mod config;
pub mod endpoint;
pub mod files;
pub mod process;
pub mod protocol;
pub mod state_dir;
/// Text from outside made safe to print (issue 34).
pub mod text;

/// The use cases both shells (the command line and the app) call.
pub mod api;
#[cfg(test)]
mod bindings;

// The rooms, one per process or job (docs/ARCHITECTURE.md):
/// Talking to a running instance from another process: HTTP over loopback, `status`, `link`.
pub mod client;
/// The `hook` forwarder: a short-lived process on every tool call of every agent.
pub mod hook;
/// The running instance (`serve` and the app): hub, hook server, store, watchers, notifier.
pub mod instance;
/// Other machines' agents on this board, over the user's own pipes (issue 23).
pub mod remote;
/// Setting up: the installer, `doctor`, Codex's trust entries.
pub mod setup;
/// The one door to an agent's terminal: tmux, the tie, typing, the screen (issue 33).
pub mod terminal;

pub use config::Config;
pub use instance::hub::{Hub, Input, Inputs, Update};
pub use instance::server::HookServer;
pub use instance::{serve, Instance, ServeError};

/// An error and its causes on one line, each cause said once: a message that already quotes its
/// source (`cannot write x: Permission denied`) is not followed by the same words again.
pub fn error_text(error: &(dyn std::error::Error + 'static)) -> String {
    let mut text = error.to_string();
    let mut cause = error.source();
    while let Some(error) = cause {
        let words = error.to_string();
        if !text.contains(&words) {
            text = format!("{text}: {words}");
        }
        cause = error.source();
    }
    text
}

/// Logs go to stderr, filtered by `RUST_LOG` (default: Switchboard's own info and up), in colour
/// only on a terminal: stderr redirected to a file (a systemd unit, `serve 2>log`) gets plain text.
pub fn init_tracing() {
    let _ = tracing_subscriber::fmt()
        .with_env_filter(log_filter())
        .with_ansi(stderr_is_terminal())
        .with_writer(std::io::stderr)
        .try_init();
}

fn stderr_is_terminal() -> bool {
    use std::io::IsTerminal;
    std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
}

/// The desktop app also keeps a daily log file in `<state dir>/logs` (the last 7 days), since
/// nobody watches its stderr.
pub fn init_tracing_with_file(state_dir: &std::path::Path) {
    use tracing_subscriber::layer::SubscriberExt;
    use tracing_subscriber::util::SubscriberInitExt;
    let file = tracing_appender::rolling::Builder::new()
        .rotation(tracing_appender::rolling::Rotation::DAILY)
        .filename_prefix("switchboard")
        .filename_suffix("log")
        .max_log_files(7)
        .build(state_dir.join("logs"));
    let stderr = tracing_subscriber::fmt::layer().with_ansi(stderr_is_terminal()).with_writer(std::io::stderr);
    let registry = tracing_subscriber::registry().with(log_filter()).with(stderr);
    let _ = match file {
        Ok(file) => registry.with(tracing_subscriber::fmt::layer().with_ansi(false).with_writer(file)).try_init(),
        Err(_) => registry.try_init(),
    };
}

fn log_filter() -> tracing_subscriber::EnvFilter {
    tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn,switchboard=info,switchboard_engine=info"))
}

#[cfg(test)]
mod tests {
    #[derive(Debug, thiserror::Error)]
    #[error("cannot write /x: {source}")]
    struct Quoting {
        source: std::io::Error,
    }

    #[derive(Debug, thiserror::Error)]
    #[error("cannot start")]
    struct Silent {
        source: std::io::Error,
    }

    #[test]
    fn each_cause_is_said_once() {
        let denied = || std::io::Error::from_raw_os_error(libc::EACCES);
        let text = super::error_text(&Quoting { source: denied() });
        assert_eq!(text.matches("Permission denied").count(), 1, "{text}");
        assert_eq!(super::error_text(&Silent { source: denied() }), "cannot start: Permission denied (os error 13)");
    }
}
