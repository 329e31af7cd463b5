//! `endpoint.json`: how `switchboard hook` and `switchboard status` find the running instance.
//! Written after bind, atomically, mode 0600 (it holds the secret), removed on clean exit.

use std::fs::{self, OpenOptions};
use std::io::{self, Read, Write};
use std::net::{Ipv4Addr, SocketAddr, TcpStream};
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::{Deserialize, Serialize};

pub const ENDPOINT_FILE: &str = "endpoint.json";

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Endpoint {
    pub port: u16,
    pub key: String,
    pub pid: u32,
}

#[derive(Debug, thiserror::Error)]
pub enum EndpointError {
    #[error("Switchboard is already running (pid {pid}, port {port}); its endpoint file is {path}")]
    AlreadyRunning { pid: u32, port: u16, path: PathBuf },
    #[error("cannot write {path}: {source}")]
    Write { path: PathBuf, source: io::Error },
}

impl Endpoint {
    pub fn path(state_dir: &Path) -> PathBuf {
        state_dir.join(ENDPOINT_FILE)
    }

    /// The endpoint file's content, or `None` when it is missing or not an endpoint.
    pub fn read(state_dir: &Path) -> Option<Self> {
        let text = fs::read(Self::path(state_dir)).ok()?;
        serde_json::from_slice(&text).ok()
    }

    /// The endpoint file only if it can be trusted with the hook payloads: a regular file
    /// (opened without blocking, so a FIFO in its place cannot hang the caller), owned by this
    /// user, not writable by group or others, and small.
    pub fn read_trusted(state_dir: &Path) -> Option<Self> {
        use std::os::unix::fs::MetadataExt;
        let file = OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NONBLOCK | libc::O_NOFOLLOW | libc::O_CLOEXEC)
            .open(Self::path(state_dir))
            .ok()?;
        let meta = file.metadata().ok()?;
        // SAFETY: geteuid has no preconditions and cannot fail.
        let uid = unsafe { libc::geteuid() };
        if !meta.is_file() || meta.uid() != uid || meta.mode() & 0o022 != 0 || meta.len() > 4096 {
            return None;
        }
        let mut text = Vec::with_capacity(256);
        io::Read::take(&file, 4096).read_to_end(&mut text).ok()?;
        serde_json::from_slice(&text).ok()
    }

    pub fn addr(&self) -> SocketAddr {
        SocketAddr::from((Ipv4Addr::LOCALHOST, self.port))
    }

    /// Whether the instance behind this file still runs: its process exists and its port answers.
    pub fn is_live(&self) -> bool {
        process_exists(self.pid) && TcpStream::connect_timeout(&self.addr(), Duration::from_millis(300)).is_ok()
    }

    /// Refuses to replace the endpoint of another live instance; a stale file is replaced.
    pub fn claim(state_dir: &Path) -> Result<(), EndpointError> {
        match Self::read(state_dir) {
            Some(other) if other.pid != std::process::id() && other.is_live() => {
                Err(EndpointError::AlreadyRunning { pid: other.pid, port: other.port, path: Self::path(state_dir) })
            }
            _ => Ok(()),
        }
    }

    /// Writes the file atomically (temp file + rename) with mode 0600, in a 0700 directory.
    pub fn write(&self, state_dir: &Path) -> Result<(), EndpointError> {
        let path = Self::path(state_dir);
        let error = |source| EndpointError::Write { path: path.clone(), source };
        fs::DirBuilder::new().recursive(true).mode(0o700).create(state_dir).map_err(error)?;
        let temp = state_dir.join(format!(".{ENDPOINT_FILE}.{}.tmp", std::process::id()));
        let write = || -> io::Result<()> {
            let mut file = OpenOptions::new().write(true).create(true).truncate(true).mode(0o600).open(&temp)?;
            file.write_all(&serde_json::to_vec(self).map_err(io::Error::other)?)?;
            file.sync_all()?;
            fs::rename(&temp, &path)
        };
        write().inspect_err(|_| drop(fs::remove_file(&temp))).map_err(error)
    }

    /// Removes the file if it still describes this process (a newer instance may own it now).
    pub fn remove_if_ours(state_dir: &Path) {
        if Self::read(state_dir).is_some_and(|endpoint| endpoint.pid == std::process::id()) {
            let _ = fs::remove_file(Self::path(state_dir));
        }
    }
}

fn process_exists(pid: u32) -> bool {
    let Ok(pid) = libc::pid_t::try_from(pid) else { return false };
    // Signal 0 checks existence and permission without sending anything.
    // SAFETY: kill with signal 0 has no effect on the target process.
    let result = unsafe { libc::kill(pid, 0) };
    result == 0 || io::Error::last_os_error().raw_os_error() == Some(libc::EPERM)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn the_endpoint_file_round_trips_with_mode_0600() {
        let dir = tempfile::tempdir().unwrap();
        let state = dir.path().join("nested");
        let endpoint = Endpoint { port: 4242, key: "ab".repeat(24), pid: 7 };
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
    fn a_stale_endpoint_can_be_claimed_but_a_live_one_cannot() {
        let dir = tempfile::tempdir().unwrap();
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        // This test process plays the live "other" instance: pid 1 is init, alive but not us.
        let live = Endpoint { port, key: "k".into(), pid: 1 };
        live.write(dir.path()).unwrap();
        assert!(matches!(Endpoint::claim(dir.path()), Err(EndpointError::AlreadyRunning { .. })));
        drop(listener);
        assert!(Endpoint::claim(dir.path()).is_ok(), "a dead port is stale");
    }

    #[test]
    fn only_our_own_endpoint_file_is_removed() {
        let dir = tempfile::tempdir().unwrap();
        Endpoint { port: 1, key: "k".into(), pid: 1 }.write(dir.path()).unwrap();
        Endpoint::remove_if_ours(dir.path());
        assert!(Endpoint::path(dir.path()).exists());
        Endpoint { port: 1, key: "k".into(), pid: std::process::id() }.write(dir.path()).unwrap();
        Endpoint::remove_if_ours(dir.path());
        assert!(!Endpoint::path(dir.path()).exists());
    }
}
