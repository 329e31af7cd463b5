//! `switchboard serve`: the hook server and reducer without a window, for tests, SSH boxes and
//! tmux users. There is no window, so it counts as unfocused.

use std::path::PathBuf;
use std::sync::Arc;

use crate::endpoint::{Endpoint, EndpointError};
use crate::hub::{Hub, Update};
use crate::notifier::Notifier;
use crate::server::HookServer;

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

/// A running instance: hook server, reducer and endpoint file. Shared by `serve` and the app.
pub struct Instance {
    pub hub: Arc<Hub>,
    pub server: HookServer,
    state_dir: PathBuf,
}

impl Instance {
    /// Claims the endpoint (refusing if another instance is live), binds, and writes the file.
    pub async fn start(state_dir: PathBuf, hub: Arc<Hub>) -> Result<Self, ServeError> {
        Endpoint::claim(&state_dir)?;
        let server = HookServer::start(Arc::clone(&hub)).await?;
        let endpoint = Endpoint { port: server.port(), key: server.key().to_owned(), pid: std::process::id() };
        endpoint.write(&state_dir)?;
        Ok(Self { hub, server, state_dir })
    }

    pub fn state_dir(&self) -> &std::path::Path {
        &self.state_dir
    }

    pub async fn stop(self) {
        Endpoint::remove_if_ours(&self.state_dir);
        self.server.shutdown().await;
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
