//! Act from the board (issue 14): a permission answered from Switchboard.
//!
//! When the user has opted a CLI in, `switchboard hook` holds that CLI's permission hook open
//! (`POST /hold/<agent>`) for at most the configured time. The server registers the hold here and
//! the session offers Allow / Deny (`Session::decision` carries the hold's id). The first answer
//! wins: the board's ([`Decisions::answer`]), the terminal's (any later event of the main agent
//! withdraws the offer and releases the hold, see [`Decisions::follow`]), or the clock's (the hold
//! ends unanswered and the CLI shows its own prompt as if Switchboard were not there).
//!
//! One hold per session: a newer one releases the older. Nothing here blocks another event —
//! every other hook is answered by its own request as before.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use tokio::sync::oneshot;

use crate::instance::hub::{Input, Inputs, Update};
use crate::protocol::{HoldAnswer, Verdict};

#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum DecideError {
    /// Answered at the terminal, timed out, or never held: nothing waits for this answer.
    #[error("that permission is no longer waiting for an answer (answered at the terminal, or it timed out)")]
    NotWaiting,
    /// A remote's session: its link did not carry the answer, or the remote refused it.
    #[error(transparent)]
    Remote(#[from] crate::remote::RemoteDecideError),
}

struct Pending {
    id: u64,
    answer: oneshot::Sender<HoldAnswer>,
    /// The reducer has shown this hold on the session: from then on, a session update without it
    /// means the offer was withdrawn.
    shown: bool,
}

/// The holds in progress, by session.
pub struct Decisions {
    pending: Mutex<HashMap<String, Pending>>,
    next: AtomicU64,
    inputs: Inputs,
    /// The remotes, whose sessions' holds are answered down their links.
    remotes: std::sync::OnceLock<Arc<crate::remote::Remotes>>,
}

/// One held request, waiting for its answer. Dropping it (the CLI gave up on its hook, the
/// request timed out) withdraws the offer.
pub struct Held {
    pub id: u64,
    session_id: String,
    answer: oneshot::Receiver<HoldAnswer>,
    decisions: Arc<Decisions>,
}

impl Decisions {
    pub fn new(inputs: Inputs) -> Arc<Self> {
        Arc::new(Self {
            pending: Mutex::new(HashMap::new()),
            next: AtomicU64::new(1),
            inputs,
            remotes: std::sync::OnceLock::new(),
        })
    }

    /// Answers for remotes' sessions go down their links from now on.
    pub fn set_remotes(&self, remotes: Arc<crate::remote::Remotes>) {
        let _ = self.remotes.set(remotes);
    }

    pub fn remotes(&self) -> Option<&Arc<crate::remote::Remotes>> {
        self.remotes.get()
    }

    /// The board's answer, wherever the hold is: a remote's session's goes down its link and
    /// waits for the remote's word (up to 5 s: call it off the async workers); a local one is
    /// [`answer`](Self::answer)ed.
    pub fn answer_anywhere(&self, host: &str, session_id: &str, id: u64, verdict: Verdict) -> Result<(), DecideError> {
        if host != switchboard_core::session::LOCAL_HOST {
            let remote = self.remotes.get().and_then(|remotes| remotes.decide(host, session_id, id, verdict));
            return match remote {
                Some(result) => result.map_err(DecideError::from),
                None => Err(DecideError::from(crate::remote::RemoteDecideError::Unreachable(host.to_owned()))),
            };
        }
        self.answer(session_id, id, verdict)
    }

    fn pending(&self) -> MutexGuard<'_, HashMap<String, Pending>> {
        self.pending.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Registers a hold for the session; an older one for the same session is released.
    pub fn hold(self: &Arc<Self>, session_id: &str) -> Held {
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        let (sender, receiver) = oneshot::channel();
        self.pending().insert(session_id.to_owned(), Pending { id, answer: sender, shown: false });
        Held { id, session_id: session_id.to_owned(), answer: receiver, decisions: Arc::clone(self) }
    }

    /// The board's answer to hold `id`. The hold is answered at once; the session is told
    /// through the hub (`working`, the decision in its history).
    pub fn answer(&self, session_id: &str, id: u64, verdict: Verdict) -> Result<(), DecideError> {
        self.resolve(session_id, id, HoldAnswer::from(verdict), None)
    }

    /// The board's answer to a held question (issue 24): the CLI's hook allows its question tool
    /// with these `answers` (keyed by question text); `said` goes into the session's history.
    pub fn answer_question(
        &self,
        session_id: &str,
        id: u64,
        answers: std::collections::BTreeMap<String, String>,
        said: String,
    ) -> Result<(), DecideError> {
        self.resolve(session_id, id, HoldAnswer { verdict: Verdict::Allow, answers: Some(answers) }, Some(said))
    }

    fn resolve(&self, session_id: &str, id: u64, answer: HoldAnswer, said: Option<String>) -> Result<(), DecideError> {
        let pending = {
            let mut pending = self.pending();
            match pending.get(session_id) {
                Some(held) if held.id == id => pending.remove(session_id),
                _ => None,
            }
        };
        let pending = pending.ok_or(DecideError::NotWaiting)?;
        if pending.answer.is_closed() {
            return Err(DecideError::NotWaiting);
        }
        // Queued before the hold wakes: its end (`DecisionEnded`) must not reach the reducer
        // first and withdraw the offer this answer is for.
        let verdict = answer.verdict;
        let (session_id, allow, at) = (session_id.to_owned(), verdict == Verdict::Allow, crate::clock::now_millis());
        self.inputs.push(Input::Decided { session_id: session_id.clone(), id, allow, said, at });
        pending.answer.send(answer).map_err(|_| DecideError::NotWaiting)?;
        tracing::info!(%session_id, ?verdict, "permission answered from Switchboard");
        Ok(())
    }

    /// How many holds are in progress.
    pub fn len(&self) -> usize {
        self.pending().len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Releases holds whose offer the reducer withdrew (the user answered at the terminal, the
    /// turn moved on, the session was removed), for as long as the hub sends updates. Told on the
    /// hub's own thread as each change is made (issue 47): a look into a table of the holds in
    /// progress is cheaper than waking a thread of its own for every change.
    pub fn follow(self: &Arc<Self>, hub: &crate::instance::hub::Hub) {
        let decisions = Arc::downgrade(self);
        hub.subscribe(move |update| match decisions.upgrade() {
            Some(decisions) => {
                decisions.see(update);
                true
            }
            None => false,
        });
    }

    fn see(&self, update: &Update) {
        let mut pending = self.pending();
        let (session_id, offered) = match update {
            Update::Changed(changed) => (&changed.change.session.session_id, changed.change.session.decision),
            Update::Removed(session_id) => (session_id, None),
            Update::Notices(_) => return,
        };
        let Some(held) = pending.get_mut(session_id) else { return };
        if offered == Some(held.id) {
            held.shown = true;
        } else if held.shown || matches!(update, Update::Removed(_)) {
            // Dropping the sender ends the hold unanswered: the CLI goes on with its own prompt,
            // where the user already answered.
            pending.remove(session_id);
        }
    }
}

impl Held {
    /// Waits for the board's answer for at most `limit`; `None` when there is none (time out,
    /// answered at the terminal, replaced by a newer hold).
    pub async fn wait(mut self, limit: Duration) -> Option<HoldAnswer> {
        tokio::time::timeout(limit, &mut self.answer).await.ok()?.ok()
    }
}

impl Drop for Held {
    fn drop(&mut self) {
        let mut pending = self.decisions.pending();
        if pending.get(&self.session_id).is_some_and(|held| held.id == self.id) {
            pending.remove(&self.session_id);
        }
        drop(pending);
        // The offer goes (a no-op for the reducer if it was answered or withdrawn already).
        self.decisions.inputs.push(Input::DecisionEnded { session_id: self.session_id.clone(), id: self.id });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::instance::hub::{inputs, Changed};
    use switchboard_core::{Change, Session};

    fn changed(session_id: &str, decision: Option<u64>) -> Update {
        let mut session: Session = serde_json::from_value(serde_json::json!({
            "sessionId": session_id, "agent": "claude", "status": "blocked", "kind": "session", "tool": null,
            "title": null, "cwd": null, "awaitingInput": false, "question": null, "message": null,
            "interrupted": false, "errored": false, "ended": false, "unread": true, "subagents": 0,
            "firstEventAt": 0, "lastEventAt": 0, "statusChangedAt": null, "transcriptPath": null,
        }))
        .unwrap();
        session.decision = decision;
        Update::Changed(std::sync::Arc::new(Changed {
            change: Change { session, previous: None, notify: false },
            event_title: None,
            agent_title: None,
            history: None,
            transcript_from: None,
        }))
    }

    #[tokio::test]
    async fn the_first_answer_wins_and_a_stale_one_is_refused() {
        let (inputs, mut queue) = inputs(16);
        let decisions = Decisions::new(inputs);
        let held = decisions.hold("s1");
        let id = held.id;
        assert_eq!(decisions.answer("s1", id + 1, Verdict::Allow), Err(DecideError::NotWaiting), "another hold");
        assert_eq!(decisions.answer("s1", id, Verdict::Deny), Ok(()));
        assert_eq!(decisions.answer("s1", id, Verdict::Allow), Err(DecideError::NotWaiting), "already answered");
        assert_eq!(held.wait(Duration::from_secs(5)).await, Some(Verdict::Deny.into()));
        assert!(matches!(queue.try_recv(), Some(Input::Decided { id: got, allow: false, .. }) if got == id));
        assert!(matches!(queue.try_recv(), Some(Input::DecisionEnded { .. })), "the offer goes with the hold");
        assert!(decisions.is_empty());
    }

    #[tokio::test]
    async fn an_unanswered_hold_times_out_and_withdraws_its_offer() {
        let (inputs, mut queue) = inputs(16);
        let decisions = Decisions::new(inputs);
        let held = decisions.hold("s1");
        let id = held.id;
        assert_eq!(held.wait(Duration::from_millis(20)).await, None);
        assert!(matches!(queue.try_recv(), Some(Input::DecisionEnded { id: got, .. }) if got == id));
        assert_eq!(decisions.answer("s1", id, Verdict::Allow), Err(DecideError::NotWaiting));
    }

    #[tokio::test]
    async fn a_withdrawn_offer_releases_the_hold_but_an_update_from_before_it_does_not() {
        let (inputs, _queue) = inputs(16);
        let decisions = Decisions::new(inputs);
        let held = decisions.hold("s1");
        let id = held.id;
        // An update from before the held event was applied does not carry the offer yet.
        decisions.see(&changed("s1", None));
        assert_eq!(decisions.len(), 1);
        decisions.see(&changed("s1", Some(id)));
        decisions.see(&changed("other", None));
        assert_eq!(decisions.len(), 1);
        // Answered at the terminal: the next event of the main agent withdrew it.
        decisions.see(&changed("s1", None));
        assert_eq!(held.wait(Duration::from_secs(5)).await, None, "released at once, not at the time-out");
    }

    #[tokio::test]
    async fn a_newer_hold_replaces_the_older_one() {
        let (inputs, _queue) = inputs(16);
        let decisions = Decisions::new(inputs);
        let older = decisions.hold("s1");
        let newer = decisions.hold("s1");
        assert_eq!(older.wait(Duration::from_secs(5)).await, None);
        assert_eq!(decisions.answer("s1", newer.id, Verdict::Allow), Ok(()));
        assert_eq!(newer.wait(Duration::from_secs(5)).await, Some(Verdict::Allow.into()));
    }

    #[tokio::test]
    async fn a_held_question_is_answered_with_its_answers_and_says_so_in_the_history() {
        let (inputs, mut queue) = inputs(16);
        let decisions = Decisions::new(inputs);
        let held = decisions.hold("s1");
        let answers: std::collections::BTreeMap<String, String> = [("Which color?".into(), "Blue".into())].into();
        assert_eq!(decisions.answer_question("s1", held.id, answers.clone(), "Blue".into()), Ok(()));
        let got = held.wait(Duration::from_secs(5)).await.unwrap();
        assert_eq!((got.verdict, got.answers), (Verdict::Allow, Some(answers)));
        assert!(
            matches!(queue.try_recv(), Some(Input::Decided { allow: true, said: Some(said), .. }) if said == "Blue")
        );
    }
}
