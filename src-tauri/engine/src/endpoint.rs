//! `endpoint.json`: how `switchboard hook` and `switchboard status` find the running instance.
//! Written after bind, atomically, mode 0600 (it holds the secret), removed on clean exit.

use std::fs::{self, OpenOptions};
use std::io::{self, Read};
use std::net::{Ipv4Addr, SocketAddr};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

pub const ENDPOINT_FILE: &str = "endpoint.json";

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Endpoint {
    pub port: u16,
    pub key: String,
    pub pid: u32,
    /// The CLIs whose permission hooks wait for an answer from the board (issue 14), and for how
    /// long; empty unless the user opted in. Rewritten when the setting changes.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub decide: Vec<String>,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub hold_ms: u64,
}

fn is_zero(value: &u64) -> bool {
    *value == 0
}

#[derive(Debug, thiserror::Error)]
pub enum EndpointError {
    #[error("cannot write {path}: {source}")]
    Write { path: PathBuf, source: io::Error },
}

impl Endpoint {
    pub fn path(state_dir: &Path) -> PathBuf {
        state_dir.join(ENDPOINT_FILE)
    }

    /// The endpoint file, only if it can be trusted with the hook payloads and the key: a regular file
    /// (opened without blocking, so a FIFO in its place cannot hang the caller), owned by this
    /// user, not writable by group or others, and small.
    pub fn read(state_dir: &Path) -> Option<Self> {
        let file =
            crate::platform::open_flags(OpenOptions::new().read(true), true, true).open(Self::path(state_dir)).ok()?;
        let meta = file.metadata().ok()?;
        if !meta.is_file() || !crate::platform::private_to_me(&meta) || meta.len() > 4096 {
            return None;
        }
        let mut text = Vec::with_capacity(256);
        io::Read::take(&file, 4096).read_to_end(&mut text).ok()?;
        serde_json::from_slice(&text).ok()
    }

    pub fn addr(&self) -> SocketAddr {
        SocketAddr::from((Ipv4Addr::LOCALHOST, self.port))
    }

    /// Writes the file atomically with mode 0600, in a 0700 directory.
    pub fn write(&self, state_dir: &Path) -> Result<(), EndpointError> {
        let path = Self::path(state_dir);
        let error = |source| EndpointError::Write { path: path.clone(), source };
        crate::platform::create_private_dir(state_dir).map_err(error)?;
        let json = serde_json::to_vec(self).map_err(|e| error(io::Error::other(e)))?;
        crate::files::write_atomic(&path, &json, crate::platform::permissions(0o600)).map_err(error)
    }

    /// Removes the file if it still describes this process (a newer instance may own it now).
    pub fn remove_if_ours(state_dir: &Path) {
        if Self::read(state_dir).is_some_and(|endpoint| endpoint.pid == std::process::id()) {
            let _ = fs::remove_file(Self::path(state_dir));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn the_endpoint_file_round_trips_with_mode_0600() {
        let dir = tempfile::tempdir().unwrap();
        let state = dir.path().join("nested");
        let endpoint =
            Endpoint { port: 4242, key: "ab".repeat(24), pid: 7, decide: vec!["claude".into()], hold_ms: 30_000 };
        endpoint.write(&state).unwrap();
        assert_eq!(Endpoint::read(&state), Some(endpoint));
        let mode = fs::metadata(Endpoint::path(&state)).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
        assert_eq!(fs::read_dir(&state).unwrap().count(), 1, "no temp file left behind");
    }

    #[test]
    fn garbage_or_a_missing_file_reads_as_no_endpoint() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(Endpoint::read(dir.path()), None);
        fs::write(Endpoint::path(dir.path()), b"{not json").unwrap();
        assert_eq!(Endpoint::read(dir.path()), None);
    }

    #[test]
    fn only_our_own_endpoint_file_is_removed() {
        let dir = tempfile::tempdir().unwrap();
        Endpoint { port: 1, key: "k".into(), pid: 1, ..Endpoint::default() }.write(dir.path()).unwrap();
        Endpoint::remove_if_ours(dir.path());
        assert!(Endpoint::path(dir.path()).exists());
        Endpoint { port: 1, key: "k".into(), pid: std::process::id(), ..Endpoint::default() }
            .write(dir.path())
            .unwrap();
        Endpoint::remove_if_ours(dir.path());
        assert!(!Endpoint::path(dir.path()).exists());
    }
}
