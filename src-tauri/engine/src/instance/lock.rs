//! One instance per state directory, for sure: an `flock`ed lock file taken before anything
//! else and held for the life of the process. The kernel drops it when the process ends, however
//! it ends, so a crash never leaves a stale lock behind (a stale `endpoint.json` may stay; the
//! next instance simply overwrites it).
//!
//! Taking the lock also makes the state directory private: it holds prompts, commands and the
//! hook secret, so it is 0700 and every file in it 0600, whatever the umask or an older version
//! left behind.

use std::fs::{File, OpenOptions};
use std::io::{self, Read, Seek, Write};
use std::path::{Path, PathBuf};

use crate::platform;

pub const LOCK_FILE: &str = "instance.lock";

/// Held while this process is the instance of its state directory.
#[derive(Debug)]
pub struct InstanceLock {
    _file: File,
}

#[derive(Debug, thiserror::Error)]
pub enum LockError {
    #[error("Switchboard is already running on {} (pid {pid}); use `switchboard status`, or stop it first", dir.display())]
    Held { dir: PathBuf, pid: String },
    #[error(
        "cannot use the state directory {}: {source}. It must be a directory you can write \
         (`chmod u+rwx` it), or set SWITCHBOARD_HOME to one",
        dir.display()
    )]
    Io { dir: PathBuf, source: io::Error },
}

impl InstanceLock {
    /// Takes the lock without waiting; refuses if another process holds it.
    pub fn acquire(state_dir: &Path) -> Result<Self, LockError> {
        let io_error = |source| LockError::Io { dir: state_dir.to_path_buf(), source };
        make_private(state_dir).map_err(io_error)?;
        let mut options = OpenOptions::new();
        options.read(true).write(true).create(true).truncate(false);
        platform::create_mode(&mut options, 0o600);
        let mut file =
            platform::open_flags(&mut options, false, true).open(state_dir.join(LOCK_FILE)).map_err(io_error)?;
        if !platform::try_lock(&file).map_err(io_error)? {
            let mut pid = String::new();
            let _ = file.read_to_string(&mut pid);
            return Err(LockError::Held { dir: state_dir.to_path_buf(), pid: pid.trim().to_owned() });
        }
        // Ours now: say who holds it, for the refusal message of the next one.
        let _ = file.set_len(0).and_then(|()| file.rewind()).and_then(|()| write!(file, "{}", std::process::id()));
        Ok(Self { _file: file })
    }
}

pub use crate::state_dir::make_private;

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn a_second_lock_on_the_same_directory_is_refused_until_the_first_is_dropped() {
        let dir = tempfile::tempdir().unwrap();
        let first = InstanceLock::acquire(dir.path()).unwrap();
        let second = InstanceLock::acquire(dir.path()).unwrap_err();
        assert!(matches!(&second, LockError::Held { pid, .. } if *pid == std::process::id().to_string()), "{second}");
        assert!(second.to_string().contains("already running"));
        drop(first);
        // A child forked by a test running beside this one holds a copy of the lock's descriptor
        // until it execs (close-on-exec): retry for that moment, bounded.
        let again = (0..500).find_map(|_| {
            InstanceLock::acquire(dir.path()).ok().or_else(|| {
                std::thread::sleep(std::time::Duration::from_millis(10));
                None
            })
        });
        assert!(again.is_some(), "free again once the first is dropped");
    }

    #[test]
    fn taking_the_lock_makes_the_state_directory_private() {
        let dir = tempfile::tempdir().unwrap();
        let state = dir.path().join("state");
        fs::create_dir(&state).unwrap();
        fs::set_permissions(&state, fs::Permissions::from_mode(0o777)).unwrap();
        fs::write(state.join("switchboard.db"), b"").unwrap();
        fs::set_permissions(state.join("switchboard.db"), fs::Permissions::from_mode(0o644)).unwrap();
        let _lock = InstanceLock::acquire(&state).unwrap();
        let mode = |p: &Path| fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&state), 0o700);
        assert_eq!(mode(&state.join("switchboard.db")), 0o600);
        assert_eq!(mode(&state.join(LOCK_FILE)), 0o600);
    }
}
