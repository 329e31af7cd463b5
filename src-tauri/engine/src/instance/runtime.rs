//! The thread the instance lives on inside the app (issue 47): a current-thread tokio runtime of
//! the engine's own, so the hook server, the normalizer, the hub and the reducer share one
//! thread — a hook wakes no other on its way into the state — whatever runtime the window's
//! side runs. `switchboard serve` runs the same shape on its main thread.

use std::future::Future;
use std::sync::mpsc;

use tokio::sync::oneshot;

/// A thread running a current-thread runtime until this is dropped.
pub struct EngineThread {
    handle: tokio::runtime::Handle,
    stop: Option<oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl EngineThread {
    pub fn start() -> std::io::Result<Self> {
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
        let handle = runtime.handle().clone();
        let (stop, stopped) = oneshot::channel::<()>();
        let thread = std::thread::Builder::new().name("switchboard-engine".into()).spawn(move || {
            // Drives every task spawned on it until the app lets go of it.
            let _ = runtime.block_on(stopped);
        })?;
        Ok(Self { handle, stop: Some(stop), thread: Some(thread) })
    }

    /// Runs `future` on the engine's thread and waits for its output here (tasks it spawns stay
    /// on the engine's thread). `None` if the engine's thread is gone.
    pub fn run<F>(&self, future: F) -> Option<F::Output>
    where
        F: Future + Send + 'static,
        F::Output: Send + 'static,
    {
        let (done, output) = mpsc::sync_channel(1);
        self.handle.spawn(async move {
            let _ = done.send(future.await);
        });
        output.recv().ok()
    }
}

impl Drop for EngineThread {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_it_runs_and_spawns_runs_on_its_one_thread() {
        let engine = EngineThread::start().unwrap();
        let here = std::thread::current().id();
        let (ran_on, spawned_on) = engine
            .run(async {
                let spawned = tokio::spawn(async { std::thread::current().id() });
                (std::thread::current().id(), spawned.await.unwrap())
            })
            .unwrap();
        assert_ne!(ran_on, here);
        assert_eq!(ran_on, spawned_on, "one thread for the future and what it spawns");
        // A task left running keeps going until the engine is dropped.
        let (tick, ticks) = mpsc::channel();
        engine.run(async move {
            tokio::spawn(async move {
                for n in 0..3 {
                    tokio::task::yield_now().await;
                    let _ = tick.send(n);
                }
            });
        });
        assert_eq!(ticks.iter().take(3).collect::<Vec<_>>(), [0, 1, 2]);
    }
}
