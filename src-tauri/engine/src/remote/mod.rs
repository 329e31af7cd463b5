//! Remotes (issue 23): other machines' agents on this board, over a pipe the user already trusts.
//!
//! For each remote in the settings a follower (its own thread, [`follow`]) runs the remote's
//! command with `sh -s` appended (`ssh devbox sh -s`, `docker exec -i box sh -s`) and tells the
//! shell there to run `switchboard link --serve`: that machine's own instance (started if none
//! runs) streams its sessions as link frames (`protocol::link`). The follower hands them to the
//! hub as [`Input::Remote`], remembers the last number applied and, after a disconnect, resumes
//! from it — backing off up to [`MAX_BACKOFF`]. No port is opened on either machine; the remote's
//! hook key never leaves it.
//!
//! [`Input::Remote`]: crate::instance::hub::Input::Remote

pub mod builds;
pub mod follow;
pub mod manage;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use serde::{Deserialize, Serialize};
use switchboard_core::Millis;

use self::follow::Follower;
use crate::instance::hub::{Input, Inputs, RemoteReport};
use crate::instance::settings::{RemoteSpec, Settings};
use crate::protocol::Verdict;

/// The longest wait between two attempts to reach a remote.
pub const MAX_BACKOFF: Duration = Duration::from_secs(30);

/// Where a remote's link stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum LinkState {
    /// Starting its command, or waiting for its first frame.
    Connecting,
    /// Its sessions are current.
    Connected,
    /// The link is down (since `since`); the board shows its last known sessions.
    Unreachable,
    /// In the settings, but no instance follows it (`remote list` without a running instance).
    NotFollowed,
}

/// One remote as `remote list` and the Connections panel show it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct RemoteState {
    pub name: String,
    pub command: Vec<String>,
    pub state: LinkState,
    /// Connected since, or unreachable since (Unix ms).
    #[cfg_attr(test, ts(type = "number | null"))]
    pub since: Option<Millis>,
    /// Its sessions on the board.
    pub sessions: usize,
    /// The last update number applied (of the remote instance's current run).
    #[cfg_attr(test, ts(type = "number | null"))]
    pub last_seq: Option<u64>,
    /// How long its last change took from its agent's event to this board (includes any clock
    /// difference between the machines).
    #[cfg_attr(test, ts(type = "number | null"))]
    pub lag_ms: Option<u64>,
    /// Why it is not connected (the command's own words, when it said any).
    pub error: Option<String>,
    /// The Switchboard version running there.
    pub version: Option<String>,
}

impl RemoteState {
    pub fn not_followed(spec: &RemoteSpec) -> Self {
        Self {
            name: spec.name.clone(),
            command: spec.command.clone(),
            state: LinkState::NotFollowed,
            since: None,
            sessions: 0,
            last_seq: None,
            lag_ms: None,
            error: None,
            version: None,
        }
    }
}

/// Why a decision for a remote's session did not reach it.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum RemoteDecideError {
    #[error("{0} is unreachable: the decision was not sent")]
    Unreachable(String),
    #[error("{0}")]
    Refused(String),
    #[error("{0} did not answer within {1} s")]
    NoAnswer(String, u64),
}

/// The remotes an instance follows.
pub struct Remotes {
    inputs: Inputs,
    state_dir: PathBuf,
    followers: Mutex<BTreeMap<String, Follower>>,
}

impl Remotes {
    /// Follows the remotes saved in the settings.
    pub fn start(inputs: Inputs, state_dir: PathBuf) -> Arc<Self> {
        let remotes = Arc::new(Self { inputs, state_dir, followers: Mutex::new(BTreeMap::new()) });
        remotes.reload();
        remotes
    }

    fn followers(&self) -> MutexGuard<'_, BTreeMap<String, Follower>> {
        self.followers.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Reads the settings again: follows new remotes, stops following removed ones (their
    /// sessions leave the board), restarts one whose command changed.
    pub fn reload(&self) {
        let wanted: BTreeMap<String, RemoteSpec> =
            Settings::load(&self.state_dir).remotes.into_iter().map(|spec| (spec.name.clone(), spec)).collect();
        let mut followers = self.followers();
        let stale: Vec<String> = followers
            .iter()
            .filter(|(name, follower)| wanted.get(*name) != Some(follower.spec()))
            .map(|(name, _)| name.clone())
            .collect();
        for name in stale {
            if let Some(follower) = followers.remove(&name) {
                follower.stop();
            }
            if !wanted.contains_key(&name) {
                self.inputs.push(Input::Remote { host: name, report: RemoteReport::Forget });
            }
        }
        for (name, spec) in wanted {
            if let std::collections::btree_map::Entry::Vacant(entry) = followers.entry(name) {
                entry.insert(Follower::start(spec, self.inputs.clone()));
            }
        }
    }

    /// Each followed remote's state, by name.
    pub fn list(&self) -> Vec<RemoteState> {
        self.followers().values().map(Follower::state).collect()
    }

    /// Hands a decision for the remote `host`'s session (`<host>:<id>` on this board) to that
    /// remote; `None` when `host` is not a followed remote. The host is the session's own (never
    /// read from the id: a local id may hold a `:`). Waits for the remote's answer (up to 5 s):
    /// call it off the async workers.
    pub fn decide(
        &self,
        host: &str,
        session_id: &str,
        id: u64,
        verdict: Verdict,
    ) -> Option<Result<(), RemoteDecideError>> {
        let remote_id = remote_id(host, session_id)?;
        let follower = self.followers().get(host)?.handle();
        Some(follower.decide(remote_id, id, verdict))
    }

    /// Hands an answer or reply for a remote's session to that remote, which delivers it as it
    /// would its own; `None` when the session is not a followed remote's. Waits (up to 5 s).
    pub fn answer(
        &self,
        host: &str,
        session_id: &str,
        said: crate::protocol::link::Said,
    ) -> Option<Result<serde_json::Value, RemoteDecideError>> {
        let remote_id = remote_id(host, session_id)?;
        let follower = self.followers().get(host)?.handle();
        Some(follower.answer(remote_id, said))
    }

    /// Stops every follower (the instance is stopping).
    pub fn stop(&self) {
        for (_, follower) in std::mem::take(&mut *self.followers()) {
            follower.stop();
        }
    }
}

/// The id a remote's session has on its box: the board's `<host>:<id>` less its host. `None` for
/// this machine's sessions, whatever their id holds.
fn remote_id<'a>(host: &str, session_id: &'a str) -> Option<&'a str> {
    if host == switchboard_core::session::LOCAL_HOST {
        return None;
    }
    session_id.strip_prefix(host)?.strip_prefix(':')
}

#[cfg(test)]
mod tests {
    use super::remote_id;

    /// Issue 34.5: a session is named by its host and id together; a local id holding `:` is
    /// never read as a remote's.
    #[test]
    fn a_session_address_is_its_host_and_id_never_a_split_of_the_id() {
        assert_eq!(remote_id("evil", "evil:held"), Some("held"));
        assert_eq!(remote_id("local", "evil:held"), None, "a local session stays local");
        assert_eq!(remote_id("evil", "other:held"), None, "another host's session");
        assert_eq!(remote_id("ev", "evil:held"), None, "a host is matched whole");
        assert_eq!(remote_id("box", "box:a:b"), Some("a:b"), "an id there may hold ':' too");
    }
}
