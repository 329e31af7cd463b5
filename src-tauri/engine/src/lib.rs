//! Switchboard's engine: everything with IO but no window — the hook server, the endpoint file,
//! the `hook` forwarder, the `status` client, notifications and `serve`. No Tauri here, so the
//! headless commands and their tests need no web view.

pub mod client;
pub mod endpoint;
pub mod forward;
pub mod hub;
pub mod install;
pub mod notifier;
pub mod serve;
pub mod server;
pub mod state_dir;
pub mod status;
pub mod store;
pub mod titles;

pub use hub::{Hub, Update};
pub use serve::{serve, Instance, ServeError, ServeOptions};
pub use server::HookServer;

/// Logs go to stderr, filtered by `RUST_LOG` (default: Switchboard's own info and up).
pub fn init_tracing() {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn,switchboard=info,switchboard_engine=info"));
    let _ = tracing_subscriber::fmt().with_env_filter(filter).with_writer(std::io::stderr).try_init();
}
