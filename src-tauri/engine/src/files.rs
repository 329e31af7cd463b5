//! Small file helpers every reader and writer of the engine shares.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};

/// Opens a file for reading only if it is a regular file. The open itself never blocks (a FIFO
/// or a device put in a transcript's place would otherwise hang the reader).
pub fn open_regular(path: &Path) -> io::Result<File> {
    let file = crate::platform::open_flags(OpenOptions::new().read(true), true, false).open(path)?;
    if !file.metadata()?.is_file() {
        return Err(io::Error::new(io::ErrorKind::InvalidInput, format!("{} is not a regular file", path.display())));
    }
    Ok(file)
}

/// A regular file's length in bytes, without opening it; `None` for anything else.
pub fn regular_length(path: &Path) -> Option<u64> {
    fs::metadata(path).ok().filter(fs::Metadata::is_file).map(|meta| meta.len())
}

/// A regular file's contents, if it is no larger than `limit` bytes.
pub fn read_small(path: &Path, limit: u64) -> Option<Vec<u8>> {
    use std::io::Read;
    let file = open_regular(path).ok()?;
    let mut bytes = Vec::new();
    file.take(limit + 1).read_to_end(&mut bytes).ok()?;
    (bytes.len() as u64 <= limit).then_some(bytes)
}

/// Replaces `path` atomically: a temporary file beside it, synced, renamed over it, so a reader
/// sees the old file or the new one, never half of one. `permissions` are set exactly (not
/// masked by the umask); `None` makes the file the user's alone (`0600` where files have modes),
/// whatever the umask (issue 45).
pub fn write_atomic(path: &Path, bytes: &[u8], permissions: Option<fs::Permissions>) -> io::Result<()> {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let name = path.file_name().map_or_else(|| "file".into(), |name| name.to_string_lossy());
    let folder = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let temp = folder.join(format!(
        ".{name}.switchboard-{}-{}.tmp",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    ));
    let write = || -> io::Result<()> {
        let mut options = OpenOptions::new();
        options.write(true).create_new(true);
        match &permissions {
            Some(permissions) => crate::platform::create_with(&mut options, permissions),
            None => crate::platform::create_mode(&mut options, 0o600),
        }
        let mut file = options.open(&temp)?;
        if let Some(permissions) = permissions {
            file.set_permissions(permissions)?;
        }
        file.write_all(bytes)?;
        file.sync_all()?;
        fs::rename(&temp, path)
    };
    write().inspect_err(|_| drop(fs::remove_file(&temp)))?;
    // Make the rename itself durable; a failure here loses nothing already written.
    if let Ok(dir) = File::open(folder) {
        let _ = dir.sync_all();
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn a_fifo_is_refused_without_blocking() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("fifo");
        let c_path = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        // SAFETY: a valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(c_path.as_ptr(), 0o600) }, 0);
        assert_eq!(open_regular(&fifo).unwrap_err().kind(), io::ErrorKind::InvalidInput);
        assert!(open_regular(dir.path()).is_err(), "a directory is not a regular file");
    }

    #[test]
    fn an_atomic_write_sets_the_exact_mode_whatever_the_umask() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f.json");
        // SAFETY: umask has no preconditions.
        let old = unsafe { libc::umask(0) };
        write_atomic(&path, b"{}", Some(fs::Permissions::from_mode(0o640))).unwrap();
        let unsaid = dir.path().join("g.json");
        write_atomic(&unsaid, b"{}", None).unwrap();
        unsafe { libc::umask(old) };
        assert_eq!(fs::metadata(&path).unwrap().permissions().mode() & 0o777, 0o640);
        assert_eq!(fs::metadata(&unsaid).unwrap().permissions().mode() & 0o777, 0o600, "none said: private");
        assert_eq!(fs::read(&path).unwrap(), b"{}");
    }
}
