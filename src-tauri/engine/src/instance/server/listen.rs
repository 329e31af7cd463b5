//! Accepting connections: hyper's builder with a header read timeout, a cap on connections at
//! once, and a flood of idle or keyless connections shed before a real hook is refused.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::Poll;
use std::time::Duration;

use axum::Router;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

use super::{hook, key_matches, ServerState, READ_TIMEOUT};

/// Under a flood of connections, a new one gets this long to send its request head: a real
/// hook sends it within a millisecond of connecting, an idle reconnecting client is cut.
pub const BUSY_READ_TIMEOUT: Duration = Duration::from_millis(250);

/// Raises the soft descriptor limit to the hard one (the default 1,024 is starved by a few
/// thousand idle connections) and returns how many connections to serve at once: the limit
/// less a reserve for the database, transcripts and notifications.
pub fn connection_cap() -> usize {
    // Where there is no descriptor limit (Windows), as many as a generous Unix limit allows.
    let limit = crate::platform::raise_fd_limit().unwrap_or(65_536 + 128);
    let descriptors = usize::try_from(limit).unwrap_or(usize::MAX).max(256);
    (descriptors - 128).min(65_536)
}

/// One open connection, as the accept loop sees it.
struct Connection {
    /// It sent a request with the key: a real client (a forwarder, `status`, the app's peers).
    proven: std::sync::atomic::AtomicBool,
    /// Close it now: the table is full and it never proved itself.
    shed: CancellationToken,
}

/// The open connections, oldest first, that have not proved themselves yet: when the table is
/// full, the oldest of them is shed to make room, so a flood of idle or keyless connections
/// cannot keep a real hook out — a keyed request is never the one refused.
#[derive(Default)]
struct Unproven(std::sync::Mutex<std::collections::VecDeque<Arc<Connection>>>);

impl Unproven {
    fn add(&self, connection: &Arc<Connection>) {
        self.0.lock().unwrap_or_else(std::sync::PoisonError::into_inner).push_back(Arc::clone(connection));
    }

    /// Sheds the oldest connection still unproven and open; `false` if there is none. Each
    /// entry is looked at once: proven or closed ones leave the list as they are met.
    fn shed_oldest(&self) -> bool {
        let mut list = self.0.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        while let Some(connection) = list.pop_front() {
            if connection.proven.load(std::sync::atomic::Ordering::Relaxed) || connection.shed.is_cancelled() {
                continue;
            }
            connection.shed.cancel();
            return true;
        }
        false
    }
}

/// axum's `serve` sets no header read timeout; hyper's own builder does, given a timer.
/// At the cap, the oldest connection that never sent a keyed request is shed for the new one
/// (only if every one is proven is the new one closed); past half the cap, new ones must be quick.
pub(super) async fn accept_loop(
    listener: TcpListener,
    router: Router,
    state: Arc<ServerState>,
    shutdown: CancellationToken,
) {
    let cap = connection_cap();
    let open = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let unproven = Arc::new(Unproven::default());
    let mut connections = tokio::task::JoinSet::new();
    loop {
        let (stream, _) = tokio::select! {
            () = shutdown.cancelled() => break,
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(error) => {
                    // Out of file descriptors and the like: back off instead of spinning.
                    tracing::warn!(%error, "accept failed");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
        };
        let count = open.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
        if count > cap && !unproven.shed_oldest() {
            open.fetch_sub(1, std::sync::atomic::Ordering::Relaxed);
            drop(stream);
            continue;
        }
        let read_timeout = if count > cap / 2 { BUSY_READ_TIMEOUT } else { READ_TIMEOUT };
        let _ = stream.set_nodelay(true);
        let connection = Arc::new(Connection { proven: false.into(), shed: CancellationToken::new() });
        unproven.add(&connection);
        let (router, state, this) = (router.clone(), Arc::clone(&state), Arc::clone(&connection));
        let service = tower::service_fn(move |request: axum::http::Request<hyper::body::Incoming>| {
            if !this.proven.load(std::sync::atomic::Ordering::Relaxed) && key_matches(request.uri().query(), &state.key)
            {
                this.proven.store(true, std::sync::atomic::Ordering::Relaxed);
            }
            // A hook is served here; only the other routes pay for the router.
            let (router, state) = (hook::hook_segment(&request).is_none().then(|| router.clone()), Arc::clone(&state));
            async move {
                match router {
                    None => Ok(hook::serve(&state, request).await),
                    Some(mut router) => tower::Service::call(&mut router, request).await,
                }
            }
        });
        let service = TowerToHyperService::new(service);
        let shutdown = shutdown.clone();
        let open = Arc::clone(&open);
        connections.spawn(async move {
            let served = hyper::server::conn::http1::Builder::new()
                .timer(TokioTimer::new())
                .header_read_timeout(read_timeout)
                .keep_alive(true)
                .serve_connection(TokioIo::new(stream), service);
            tokio::pin!(served);
            if until_served_or_cancelled(served.as_mut(), &connection.shed, &shutdown).await == End::Shutdown {
                served.as_mut().graceful_shutdown();
                let _ = tokio::time::timeout(Duration::from_secs(1), served).await;
            }
            // Closed: not a candidate for shedding any more.
            connection.shed.cancel();
            open.fetch_sub(1, std::sync::atomic::Ordering::Relaxed);
        });
        while connections.try_join_next().is_some() {}
    }
    drop(listener);
    while connections.join_next().await.is_some() {}
}

/// Why a connection's task stopped serving it.
#[derive(PartialEq, Eq)]
enum End {
    Served,
    Shed,
    Shutdown,
}

/// Serves until the connection ends, is shed or the instance stops. The two tokens are asked
/// by their flags each time the connection wakes, and polled as futures only once, to be woken
/// by them: a `select!` polled both (a lock on each one's waiters) at every wake, which is every
/// request (issue 47).
async fn until_served_or_cancelled<F: Future>(
    mut served: Pin<&mut F>,
    shed: &CancellationToken,
    shutdown: &CancellationToken,
) -> End {
    let (shed_wait, shutdown_wait) = (shed.cancelled(), shutdown.cancelled());
    tokio::pin!(shed_wait, shutdown_wait);
    let mut registered = false;
    std::future::poll_fn(|context| {
        if !registered {
            registered = true;
            // Pending, each now holds this task's waker: cancelling either wakes it.
            let _ = (shed_wait.as_mut().poll(context), shutdown_wait.as_mut().poll(context));
        }
        if shed.is_cancelled() {
            return Poll::Ready(End::Shed);
        }
        if shutdown.is_cancelled() {
            return Poll::Ready(End::Shutdown);
        }
        served.as_mut().poll(context).map(|_| End::Served)
    })
    .await
}
