//! A file in a folder, watched for writes: inotify on Linux, on the caller's tokio runtime.
//! Elsewhere there is no watch ([`FileWatch::new`] says `Unsupported`) and the caller polls.

use std::io;
use std::path::Path;

/// What the watch saw.
#[derive(Debug, PartialEq, Eq)]
pub enum Seen {
    /// The file was written, created or renamed in — or the kernel's queue overflowed, which
    /// may have dropped that.
    Written,
    /// The watch is gone (the folder moved or was removed, or reading failed): nothing more comes.
    Lost,
}

/// Writes to one file of a folder.
pub struct FileWatch {
    #[cfg(target_os = "linux")]
    events: inotify::EventStream<[u8; 1024]>,
    #[cfg(target_os = "linux")]
    file: std::ffi::OsString,
}

impl FileWatch {
    /// Watches `file` in `dir`; an error when the folder cannot be watched (`Unsupported` where
    /// the OS has no watch here).
    #[cfg(target_os = "linux")]
    pub fn new(dir: &Path, file: &str) -> io::Result<Self> {
        use inotify::{Inotify, WatchMask};
        let inotify = Inotify::init()?;
        // Appends (modify), a file written whole and closed, created or renamed in; the folder gone.
        let mask = WatchMask::MODIFY
            | WatchMask::CLOSE_WRITE
            | WatchMask::MOVED_TO
            | WatchMask::CREATE
            | WatchMask::DELETE_SELF
            | WatchMask::MOVE_SELF
            | WatchMask::ONLYDIR;
        inotify.watches().add(dir, mask)?;
        Ok(Self { events: inotify.into_event_stream([0u8; 1024])?, file: file.into() })
    }

    #[cfg(not(target_os = "linux"))]
    pub fn new(dir: &Path, file: &str) -> io::Result<Self> {
        let _ = (dir, file);
        Err(io::Error::new(io::ErrorKind::Unsupported, "no file watch on this OS"))
    }

    /// Waits until the file is written or the watch is lost. Cancel-safe: what the kernel said
    /// and was not yet looked at stays for the next call.
    #[cfg(target_os = "linux")]
    pub async fn next(&mut self) -> Seen {
        use futures_util::StreamExt;
        use inotify::EventMask;
        loop {
            let Some(Ok(event)) = self.events.next().await else { return Seen::Lost };
            if event.mask.intersects(EventMask::DELETE_SELF | EventMask::MOVE_SELF | EventMask::IGNORED) {
                return Seen::Lost;
            }
            if event.mask.contains(EventMask::Q_OVERFLOW) || event.name.as_deref() == Some(self.file.as_os_str()) {
                return Seen::Written;
            }
        }
    }

    #[cfg(not(target_os = "linux"))]
    pub async fn next(&mut self) -> Seen {
        Seen::Lost
    }
}
