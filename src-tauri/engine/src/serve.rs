//! `switchboard serve`: the hook server and reducer without a window, for tests, SSH boxes and
//! tmux users. There is no window, so it counts as unfocused.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use switchboard_core::Ages;

use crate::endpoint::{Endpoint, EndpointError};
use crate::hub::{Hub, Update};
use crate::notifier::Notifier;
use crate::server::{now_millis, HookServer};
use crate::store::{Store, StoreHandle};

pub struct ServeOptions {
    pub state_dir: PathBuf,
    pub notify: bool,
}

#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    #[error(transparent)]
    Endpoint(#[from] EndpointError),
    #[error("cannot start the hook server: {0}")]
    Io(#[from] std::io::Error),
}

/// A running instance: store, hook server, reducer and endpoint file. Shared by `serve` and
/// the app.
pub struct Instance {
    pub hub: Arc<Hub>,
    pub server: HookServer,
    /// What the user should know about the session database (set aside, refused, …).
    pub notices: Vec<String>,
    state_dir: PathBuf,
    silence: tokio::task::JoinHandle<()>,
}

/// How often stale and archived flags are recomputed.
const SILENCE_EVERY: Duration = Duration::from_secs(15);

impl Instance {
    /// Claims the endpoint (refusing if another instance is live), restores saved sessions,
    /// binds, and writes the endpoint file.
    pub async fn start(state_dir: PathBuf, hub: Arc<Hub>) -> Result<Self, ServeError> {
        Endpoint::claim(&state_dir)?;
        let notices = if env_flag("SWITCHBOARD_NO_PERSIST") { Vec::new() } else { open_store(&state_dir, &hub) };
        for notice in &notices {
            tracing::warn!("{notice}");
        }
        let server = HookServer::start(Arc::clone(&hub)).await?;
        let endpoint = Endpoint { port: server.port(), key: server.key().to_owned(), pid: std::process::id() };
        endpoint.write(&state_dir)?;
        let ages = ages_from_env();
        let silence_hub = Arc::clone(&hub);
        let silence = tokio::spawn(async move {
            let mut every = tokio::time::interval(SILENCE_EVERY);
            loop {
                every.tick().await;
                silence_hub.mark_silence(now_millis(), ages);
            }
        });
        Ok(Self { hub, server, notices, state_dir, silence })
    }

    pub fn state_dir(&self) -> &std::path::Path {
        &self.state_dir
    }

    /// Stops taking events, commits what was acknowledged, and removes the endpoint file.
    pub async fn stop(self) {
        Endpoint::remove_if_ours(&self.state_dir);
        self.silence.abort();
        self.server.shutdown().await;
        if let Some(store) = self.hub.store() {
            store.flush(Duration::from_secs(5));
        }
    }
}

/// Runs until SIGINT or SIGTERM, then removes the endpoint file and exits cleanly.
pub async fn serve(options: ServeOptions) -> Result<(), ServeError> {
    let notifier = options.notify.then(|| Notifier::start(None));
    let hub = Arc::new(Hub::new(move |update| {
        if let (Update::Changed(change), Some(notifier)) = (&update, &notifier) {
            if change.notify {
                notifier.notify(&change.session);
            }
        }
    }));
    let instance = Instance::start(options.state_dir.clone(), hub).await?;
    eprintln!(
        "Switchboard is listening on 127.0.0.1:{} (endpoint file {}). Ctrl-C stops it.",
        instance.server.port(),
        Endpoint::path(&options.state_dir).display()
    );
    shutdown_signal().await;
    instance.stop().await;
    Ok(())
}

/// Opens the database, restores its sessions into the hub and attaches it. Problems are
/// returned as notices: the app runs on without persistence rather than not at all.
fn open_store(state_dir: &std::path::Path, hub: &Arc<Hub>) -> Vec<String> {
    let mut notices = Vec::new();
    let store = match Store::open(state_dir) {
        Ok((store, notice)) => {
            notices.extend(notice.map(|n| n.to_string()));
            store
        }
        Err(error) => {
            notices.push(error.to_string());
            return notices;
        }
    };
    match store.load() {
        Ok(sessions) => hub.restore(sessions),
        Err(error) => notices.push(error.to_string()),
    }
    match StoreHandle::start(store, Hub::store_source(hub)) {
        Ok(handle) => hub.attach_store(handle),
        Err(error) => notices.push(error.to_string()),
    }
    notices
}

fn env_flag(name: &str) -> bool {
    std::env::var_os(name).is_some_and(|value| !value.is_empty() && value != "0")
}

/// `SWITCHBOARD_STALE_MINUTES` (default 10) and `SWITCHBOARD_ARCHIVE_HOURS` (default 24).
fn ages_from_env() -> Ages {
    let number = |name: &str| std::env::var(name).ok().and_then(|v| v.trim().parse::<f64>().ok()).filter(|v| *v > 0.0);
    let defaults = Ages::default();
    Ages {
        stale_after: number("SWITCHBOARD_STALE_MINUTES").map_or(defaults.stale_after, |m| (m * 60_000.0) as u64),
        archive_after: number("SWITCHBOARD_ARCHIVE_HOURS").map_or(defaults.archive_after, |h| (h * 3_600_000.0) as u64),
    }
}

async fn shutdown_signal() {
    use tokio::signal::unix::{signal, SignalKind};
    let mut terminate = signal(SignalKind::terminate()).ok();
    tokio::select! {
        _ = tokio::signal::ctrl_c() => {}
        () = async {
            match terminate.as_mut() {
                Some(terminate) => { terminate.recv().await; }
                None => std::future::pending().await,
            }
        } => {}
    }
}
