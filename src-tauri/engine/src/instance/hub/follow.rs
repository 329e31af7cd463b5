//! Subscribers that share one thread and one mailbox (issue 47). The agent watch, the titles,
//! the meter and push each had a thread and a mailbox of their own: every update was posted four
//! times, crossed to four threads, and each of them woke for it, though each does little with a
//! change — a lookup, a field or two copied — and its real work (a file's tail, a process's
//! children, a push queued) on a schedule of its own. Now each is a [`Follower`], and one thread
//! takes each update once and tells them all, in the hub's order, then runs whichever is due.
//! What may block for long (a notification on a wedged bus, git) keeps a thread of its own.

use std::sync::mpsc::RecvTimeoutError;
use std::time::{Duration, Instant};

use crate::instance::hub::mailbox::Updates;
use crate::instance::hub::Update;

/// A subscriber on a shared thread: it must never block for long, or it holds up the others.
pub trait Follower: Send {
    /// One update, in the hub's order; `now`: when its batch was taken.
    fn see(&mut self, update: &Update, now: Instant);
    /// Does what is due at `now`: called after each batch of updates, and when the time it last
    /// returned comes. Returns when it next wants to run without an update (`None`: not before
    /// one).
    fn run(&mut self, now: Instant) -> Option<Instant>;
}

/// The longest the thread sleeps when no follower is due: only an update wakes it sooner.
const IDLE: Duration = Duration::from_secs(3600);

/// How a followers' thread is scheduled.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Priority {
    /// As the hook path: a follower that must look in time (the agent watch's screen baseline,
    /// taken as a question appears, before the user can dismiss it).
    Normal,
    /// Below it (`platform::background_thread`): the hook path gets the CPU first.
    Background,
}

/// Follows `updates` on a thread named `name` until the hub is gone, telling each follower
/// every update.
pub fn together(name: &str, priority: Priority, updates: Updates, mut followers: Vec<Box<dyn Follower>>) {
    let spawned = std::thread::Builder::new().name(name.into()).spawn(move || {
        if priority == Priority::Background {
            crate::platform::background_thread();
        }
        let now = Instant::now();
        let mut due: Vec<Option<Instant>> = followers.iter_mut().map(|follower| follower.run(now)).collect();
        loop {
            let next = due.iter().flatten().min().copied();
            let timeout = next.map_or(IDLE, |at| at.saturating_duration_since(Instant::now()));
            let saw = match updates.recv_timeout(timeout) {
                Ok(update) => {
                    let now = Instant::now();
                    tell(&mut followers, &update, now);
                    for update in updates.try_iter() {
                        tell(&mut followers, &update, now);
                    }
                    true
                }
                Err(RecvTimeoutError::Timeout) => false,
                Err(RecvTimeoutError::Disconnected) => return,
            };
            let now = Instant::now();
            for (follower, due) in followers.iter_mut().zip(&mut due) {
                if saw || due.is_some_and(|at| at <= now) {
                    *due = follower.run(now);
                }
            }
        }
    });
    if let Err(error) = spawned {
        tracing::warn!(%error, name, "cannot follow the updates");
    }
}

fn tell(followers: &mut [Box<dyn Follower>], update: &Update, now: Instant) {
    for follower in followers {
        follower.see(update, now);
    }
}

#[cfg(test)]
mod tests {
    use std::sync::{mpsc, Arc};

    use serde_json::json;
    use switchboard_core::{normalize, Reducer};

    use super::*;
    use crate::instance::hub::mailbox::mailbox;
    use crate::instance::hub::Changed;

    /// Reports what it saw and when it ran; due again `every` after each run, if given.
    struct Probe {
        name: &'static str,
        every: Option<Duration>,
        told: mpsc::Sender<String>,
    }

    impl Follower for Probe {
        fn see(&mut self, update: &Update, _now: Instant) {
            if let Update::Changed(changed) = update {
                let _ = self.told.send(format!("{} saw {}", self.name, changed.change.session.session_id));
            }
        }

        fn run(&mut self, now: Instant) -> Option<Instant> {
            let _ = self.told.send(format!("{} ran", self.name));
            self.every.map(|every| now + every)
        }
    }

    fn changed(id: &str) -> Update {
        let event = normalize("custom", &json!({"sessionId": id, "status": "working"}), 1).expect("an event");
        let change = Reducer::new().apply(&event, false).expect("a change");
        let changed = Changed { change, event_title: None, agent_title: None, history: None, transcript_from: None };
        Update::Changed(Arc::new(changed))
    }

    #[test]
    fn every_follower_sees_each_update_in_order_then_runs() {
        let (poster, updates) = mailbox(Vec::new());
        let (told, heard) = mpsc::channel();
        let probe = |name| Box::new(Probe { name, every: None, told: told.clone() }) as Box<dyn Follower>;
        together("follow-test", Priority::Normal, updates, vec![probe("a"), probe("b")]);
        let started: Vec<String> = heard.iter().take(2).collect();
        assert_eq!(started, ["a ran", "b ran"], "each runs once at the start");
        assert!(poster.post_all(&[changed("s1"), changed("s2")]));
        let seen: Vec<String> = heard.iter().take(6).collect();
        assert_eq!(seen, ["a saw s1", "b saw s1", "a saw s2", "b saw s2", "a ran", "b ran"]);
    }

    #[test]
    fn a_follower_runs_when_its_time_comes_without_an_update() {
        let (_poster, updates) = mailbox(Vec::new());
        let (told, heard) = mpsc::channel();
        let ticking = Box::new(Probe { name: "tick", every: Some(Duration::from_millis(5)), told: told.clone() });
        let idle = Box::new(Probe { name: "idle", every: None, told });
        together("follow-test", Priority::Normal, updates, vec![ticking, idle]);
        // The idle one ran at the start only; the ticking one keeps running on its own time.
        let runs: Vec<String> = heard.iter().take(5).collect();
        assert_eq!(runs.iter().filter(|run| *run == "idle ran").count(), 1, "{runs:?}");
        assert_eq!(runs.iter().filter(|run| *run == "tick ran").count(), 4, "{runs:?}");
    }

    #[test]
    fn the_thread_ends_when_the_hub_is_gone() {
        let (poster, updates) = mailbox(Vec::new());
        let (told, heard) = mpsc::channel();
        together("follow-test", Priority::Normal, updates, vec![Box::new(Probe { name: "a", every: None, told })]);
        assert_eq!(heard.recv().as_deref(), Ok("a ran"));
        drop(poster);
        // The follower (and its sender) is dropped with the thread: the channel disconnects.
        assert!(heard.iter().next().is_none());
    }
}
