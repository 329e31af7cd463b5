//! The running instance — what `switchboard serve` and the desktop app share — and `serve` itself:
//! the hook server and reducer without a window, for tests, SSH boxes and tmux users. There is
//! no window, so it counts as unfocused.
//!
//! The instance wires the parts together (docs/ARCHITECTURE.md): inputs (hook server, title
//! watcher, agent watcher, the clock, the user's actions) → the hub's queue → the reducer →
//! updates to each subscriber (store, notifier, titles, agent watch, held permissions, and
//! whatever the shell adds).

// The rooms of the instance, by what they do:
/// What acts on an agent for the user: answers and replies, Allow / Deny, Jump, new, end.
pub mod act;
/// The one queue in, the reducer's updates out, each subscriber's mailbox, the links' journal.
pub mod hub;
pub mod lock;
/// What watches the agents for what no hook says: transcripts, processes, titles, usage, screens.
pub mod observe;
/// What is told of every change: the database, the desktop's notifications, the push channels.
pub mod outputs;
/// The one thread the instance lives on inside the app.
pub mod runtime;
/// The hook server: the door everything from outside comes in by.
pub mod server;
pub mod settings;

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use tokio_util::sync::CancellationToken;

use crate::clock::now_millis;
use crate::config::Config;
use crate::endpoint::{Endpoint, EndpointError};
use crate::instance::act::decide::Decisions;
use crate::instance::act::phone::token::Key;
use crate::instance::act::phone::{Phone, PhoneOptions};
use crate::instance::hub::follow::{together, Priority};
use crate::instance::hub::{inputs, Hub, Input, Inputs};
use crate::instance::lock::{InstanceLock, LockError};
use crate::instance::observe::titles::TitleWatch;
use crate::instance::observe::watch::AgentWatch;
use crate::instance::outputs::notifier::Notifier;
use crate::instance::outputs::push::{Push, PushOptions};
use crate::instance::outputs::store::{Store, StoreHandle};
use crate::instance::server::{new_secret, HookServer, QUEUE_CAPACITY};
use crate::instance::settings::{Settings, SettingsError};

#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    #[error(transparent)]
    Lock(#[from] LockError),
    #[error(transparent)]
    Endpoint(#[from] EndpointError),
    #[error("cannot start the hook server: {0}")]
    Io(#[from] std::io::Error),
}

/// A running instance: lock, store, reducer, hook server and endpoint file.
pub struct Instance {
    pub hub: Arc<Hub>,
    pub inputs: Inputs,
    pub server: HookServer,
    /// Permissions held for an answer from the board.
    pub decisions: Arc<Decisions>,
    /// The other machines followed (issue 23).
    pub remotes: Arc<crate::remote::Remotes>,
    /// The push channels (issue 25): off until the settings turn one on.
    pub push: Arc<Push>,
    /// Answers from the phone (issue 49): off until the settings turn it on.
    pub phone: Arc<Phone>,
    settings: std::sync::Mutex<Settings>,
    pub store: Option<StoreHandle>,
    /// What the user should know about the session database (set aside, refused, …).
    pub notices: Vec<String>,
    config: Config,
    stop: CancellationToken,
    silence: tokio::task::JoinHandle<()>,
    ingest: tokio::task::JoinHandle<()>,
    _lock: InstanceLock,
}

/// How often stale and archived flags are recomputed.
const SILENCE_EVERY: Duration = Duration::from_secs(15);

impl Instance {
    /// Takes the state directory's lock (refusing if another instance holds it), restores
    /// saved sessions, binds, and writes the endpoint file. Subscribe further outputs to
    /// `hub` right after: nothing flows before the first hook arrives.
    pub async fn start(config: Config) -> Result<Self, ServeError> {
        let lock = InstanceLock::acquire(&config.state_dir)?;
        Self::start_locked(config, lock).await
    }

    /// The same, with the lock already taken (the app takes it before it opens a window).
    pub async fn start_locked(config: Config, lock: InstanceLock) -> Result<Self, ServeError> {
        let (inputs, queue) = inputs(QUEUE_CAPACITY);
        let (store, restored, notices) =
            if config.persist { open_store(&config.state_dir) } else { (None, Vec::new(), Vec::new()) };
        let restored = restored.into_iter().map(settle_if_dead).collect();
        let hub = Arc::new(Hub::with_restored(restored));
        let (store, notices) = match store.map(|store| StoreHandle::start(store, &hub, Some(inputs.clone()))) {
            Some(Err(error)) => (None, [notices, vec![error.to_string()]].concat()),
            Some(Ok(handle)) => (Some(handle), notices),
            None => (None, notices),
        };
        for notice in &notices {
            tracing::warn!("{notice}");
        }
        if !notices.is_empty() {
            inputs.push(Input::Notice { source: "database", text: Some(notices.join(" ")) });
        }
        // The light subscribers share one thread and one mailbox (`hub::follow`), subscribed
        // now so they miss nothing; push joins them once it is built.
        let observed = hub.updates();
        let titles = TitleWatch::new(inputs.clone(), config.cli_dirs.clone());
        let meter = observe::meter::Meter::follower(inputs.clone(), config.persist.then(|| config.state_dir.clone()));
        let watch = AgentWatch::new(inputs.clone());
        let stop = CancellationToken::new();
        let ingest = tokio::spawn(Arc::clone(&hub).run(queue, stop.clone()));
        let decisions = Decisions::new(inputs.clone());
        decisions.follow(&hub);
        let remotes = crate::remote::Remotes::start(inputs.clone(), config.state_dir.clone());
        decisions.set_remotes(Arc::clone(&remotes));
        let server =
            HookServer::start_with(inputs.clone(), Arc::clone(&hub), Arc::clone(&decisions), new_secret()).await?;
        let mut settings = Settings::load(&config.state_dir);
        if let Some(decide) = &config.decide {
            settings = Settings { decide: decide.iter().cloned().collect(), ..settings }.cleaned();
        }
        let push = Push::start(settings.reach.clone(), PushOptions::default());
        // Normal priority: the agent watch must take a screen baseline as a question appears.
        together(
            "observers",
            Priority::Normal,
            observed,
            vec![Box::new(watch), Box::new(titles), meter, push.follower()],
        );
        server.set_push(Arc::clone(&push));
        let phone = Phone::start(
            Key::load_or_create(&config.state_dir),
            settings.reach.clone(),
            Arc::clone(&hub),
            inputs.clone(),
            Arc::clone(&decisions),
            Arc::clone(&push),
            PhoneOptions::default(),
        );
        server.set_phone(Arc::clone(&phone));
        // Events spooled while no instance could take them: before new ones, then as they come.
        server.follow_spool(config.state_dir.clone());
        endpoint_for(&server, &settings).write(&config.state_dir)?;
        let (clock, ages) = (inputs.clone(), config.ages);
        let silence = tokio::spawn(async move {
            let mut every = tokio::time::interval(SILENCE_EVERY);
            loop {
                every.tick().await;
                clock.push(Input::Tick { now: now_millis(), ages });
            }
        });
        let settings = std::sync::Mutex::new(settings);
        Ok(Self {
            hub,
            inputs,
            server,
            decisions,
            remotes,
            push,
            phone,
            settings,
            store,
            notices,
            config,
            stop,
            silence,
            ingest,
            _lock: lock,
        })
    }

    pub fn settings(&self) -> Settings {
        self.settings.lock().unwrap_or_else(std::sync::PoisonError::into_inner).clone()
    }

    /// Saves new settings and tells the forwarders (through the endpoint file) at once.
    pub fn set_settings(&self, settings: Settings) -> Result<Settings, SettingsError> {
        let settings = settings.cleaned();
        settings.save(&self.config.state_dir)?;
        let endpoint = endpoint_for(&self.server, &settings);
        endpoint
            .write(&self.config.state_dir)
            .map_err(|EndpointError::Write { path, source }| SettingsError::Write { path, source })?;
        *self.settings.lock().unwrap_or_else(std::sync::PoisonError::into_inner) = settings.clone();
        self.push.set_reach(settings.reach.clone());
        self.remotes.reload();
        Ok(settings)
    }

    pub fn state_dir(&self) -> &Path {
        &self.config.state_dir
    }

    /// The session's recent history: committed in the store, plus what is not committed yet.
    pub fn history(&self, session_id: &str) -> Vec<switchboard_core::HistoryEntry> {
        let stored = self.store.as_ref().map(|store| store.history(session_id)).unwrap_or_default();
        self.hub.history(session_id, stored)
    }

    /// Stops taking events, applies and commits what was acknowledged, and removes the
    /// endpoint file.
    pub async fn stop(self) {
        Endpoint::remove_if_ours(&self.config.state_dir);
        self.server.shutdown().await;
        self.silence.abort();
        self.remotes.stop();
        self.phone.stop();
        self.stop.cancel();
        let _ = tokio::time::timeout(Duration::from_secs(2), self.ingest).await;
        if let Some(store) = &self.store {
            store.flush(Duration::from_secs(5));
        }
    }
}

/// What the forwarders read: where the server is, its key, and which permissions to hold.
fn endpoint_for(server: &HookServer, settings: &Settings) -> Endpoint {
    Endpoint {
        port: server.port(),
        key: server.key().to_owned(),
        pid: std::process::id(),
        decide: settings.decide.iter().cloned().collect(),
        hold_ms: if settings.decide.is_empty() { 0 } else { settings.hold().as_millis() as u64 },
    }
}

/// Runs until SIGINT or SIGTERM, then removes the endpoint file and exits cleanly.
pub async fn serve(config: Config) -> Result<(), ServeError> {
    let notify = config.notify;
    // Listening for the signals before the endpoint file exists: a SIGTERM sent as soon as it
    // appears is a clean stop, not the default action's kill.
    let stopped = shutdown_signal();
    let instance = Instance::start(config).await?;
    if notify {
        Notifier::follow(instance.hub.updates(), None);
    }
    eprintln!(
        "Switchboard is listening on 127.0.0.1:{} (endpoint file {}). Ctrl-C stops it.",
        instance.server.port(),
        Endpoint::path(instance.state_dir()).display()
    );
    stopped.await;
    instance.stop().await;
    Ok(())
}

/// Opens the database and reads its sessions. Problems are returned as notices: the app runs on
/// without persistence rather than not at all.
fn open_store(state_dir: &Path) -> (Option<Store>, Vec<switchboard_core::Restored>, Vec<String>) {
    let mut notices = Vec::new();
    let store = match Store::open(state_dir) {
        Ok((store, notice)) => {
            notices.extend(notice.map(|n| n.to_string()));
            store
        }
        Err(error) => {
            notices.push(error.to_string());
            return (None, Vec::new(), notices);
        }
    };
    let restored = store.load().unwrap_or_else(|error| {
        notices.push(error.to_string());
        Vec::new()
    });
    (Some(store), restored, notices)
}

use crate::platform::shutdown_signal;

/// A restored session whose agent died while no instance ran (issue 33.4): its process is checked
/// (pid and start time) before anything shows a pid, a footprint or End agent for it.
fn settle_if_dead(mut restored: switchboard_core::reducer::Restored) -> switchboard_core::reducer::Restored {
    let session = &mut restored.session;
    let dead = session.is_local() && session.process.as_ref().is_some_and(|agent| !crate::process::is_alive(agent));
    if dead {
        session.exited = true;
        session.footprint = None;
        session.idle_holding = false;
    }
    restored
}
