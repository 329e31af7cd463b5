//! What Linux and macOS share: modes, descriptors, signals, process groups, the local time.

use std::fs::{self, File, Metadata, OpenOptions};
use std::io;
use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt, PermissionsExt};
use std::os::unix::io::AsRawFd;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Sets how `options` opens: never blocking on the open itself (a FIFO in a file's place),
/// never through a symlink at the last component; closed on exec either way.
pub fn open_flags(options: &mut OpenOptions, nonblocking: bool, no_follow: bool) -> &mut OpenOptions {
    let mut flags = libc::O_CLOEXEC;
    if nonblocking {
        flags |= libc::O_NONBLOCK;
    }
    if no_follow {
        flags |= libc::O_NOFOLLOW;
    }
    options.custom_flags(flags)
}

/// The mode a file is created with (`0o600`: the user's alone).
pub fn create_mode(options: &mut OpenOptions, mode: u32) {
    options.mode(mode);
}

/// Creates files with these permissions' mode.
pub fn create_with(options: &mut OpenOptions, permissions: &fs::Permissions) {
    options.mode(permissions.mode());
}

/// `mode` as permissions to set on a file.
pub fn permissions(mode: u32) -> Option<fs::Permissions> {
    Some(fs::Permissions::from_mode(mode))
}

/// The directory and its parents, the directory itself `0700`.
pub fn create_private_dir(path: &Path) -> io::Result<()> {
    fs::DirBuilder::new().recursive(true).mode(0o700).create(path)
}

/// Opens `path` to append (and read), creating it `0600`: never through a symlink (`O_NOFOLLOW`), never a
/// FIFO or device, never a file another user owns (one planted in a folder they could write),
/// and a looser mode left by an older version is tightened before anything is written.
pub fn open_private_append(path: &Path) -> io::Result<File> {
    let mut options = OpenOptions::new();
    options.read(true).append(true).create(true).mode(0o600);
    let file = open_flags(&mut options, true, true).open(path)?;
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Err(io::Error::new(io::ErrorKind::InvalidInput, format!("{} is not a regular file", path.display())));
    }
    // SAFETY: geteuid has no preconditions and cannot fail.
    if meta.uid() != unsafe { libc::geteuid() } {
        return Err(io::Error::new(
            io::ErrorKind::PermissionDenied,
            format!("{} belongs to another user", path.display()),
        ));
    }
    if meta.mode() & 0o077 != 0 {
        file.set_permissions(fs::Permissions::from_mode(0o600))?;
    }
    Ok(file)
}

/// Takes from `path`'s mode whatever `mode` does not allow.
pub fn tighten(path: &Path, mode: u32) -> io::Result<()> {
    let current = fs::symlink_metadata(path)?.permissions().mode() & 0o777;
    if current & !mode != 0 {
        fs::set_permissions(path, fs::Permissions::from_mode(current & mode))?;
    }
    Ok(())
}

/// A regular file someone may run.
pub fn is_executable(meta: &Metadata) -> bool {
    meta.is_file() && meta.permissions().mode() & 0o111 != 0
}

/// The program `name` in `dir`, if it is there and runnable.
pub fn program_in(dir: &Path, name: &str) -> Option<PathBuf> {
    let path = dir.join(name);
    fs::metadata(&path).is_ok_and(|meta| is_executable(&meta)).then_some(path)
}

/// What tells a file from the one that replaced it at the same path (its inode).
pub fn file_id(meta: &Metadata) -> u64 {
    meta.ino()
}

/// Owned by this user and writable by no one else.
pub fn private_to_me(meta: &Metadata) -> bool {
    // SAFETY: geteuid has no preconditions and cannot fail.
    let uid = unsafe { libc::geteuid() };
    meta.uid() == uid && meta.mode() & 0o022 == 0
}

/// Takes the file's exclusive lock without waiting: `Ok(false)` when another process holds it.
pub fn try_lock(file: &File) -> io::Result<bool> {
    // SAFETY: flock on a descriptor we own; LOCK_NB makes it return at once.
    if unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } != 0 {
        let error = io::Error::last_os_error();
        if error.raw_os_error() == Some(libc::EWOULDBLOCK) {
            return Ok(false);
        }
        return Err(error);
    }
    Ok(true)
}

/// The command runs in a session of its own: the end of ours (an SSH session's) does not end it.
pub fn detach(command: &mut Command) -> &mut Command {
    // SAFETY: setsid(2) is async-signal-safe; nothing else runs between fork and exec.
    unsafe {
        command.pre_exec(|| {
            libc::setsid();
            Ok(())
        })
    }
}

/// The command leads a process group of its own ([`terminate_group`] ends it and what it starts).
pub fn own_group(command: &mut Command) -> &mut Command {
    command.process_group(0)
}

/// Becomes `command` (same pid); returns only if that failed.
pub fn exec(command: &mut Command) -> io::Error {
    command.exec()
}

/// Raises the soft limit on open descriptors to the hard one; the limit now.
pub fn raise_fd_limit() -> Option<u64> {
    let mut limit = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
    // SAFETY: getrlimit/setrlimit with a valid pointer to a local struct.
    unsafe {
        if libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) == 0 && limit.rlim_cur < limit.rlim_max {
            let raised = libc::rlimit { rlim_cur: limit.rlim_max, rlim_max: limit.rlim_max };
            if libc::setrlimit(libc::RLIMIT_NOFILE, &raised) == 0 {
                limit = raised;
            }
        }
    }
    #[allow(clippy::useless_conversion)] // rlim_t is u64 on Linux, not everywhere.
    u64::try_from(limit.rlim_cur).ok()
}

pub fn host_name() -> Option<String> {
    let mut name = [0u8; 256];
    // SAFETY: gethostname writes at most `len` bytes into the buffer we own.
    let ok = unsafe { libc::gethostname(name.as_mut_ptr().cast(), name.len()) } == 0;
    let end = name.iter().position(|&b| b == 0).unwrap_or(name.len());
    (ok && end > 0).then(|| String::from_utf8_lossy(&name[..end]).into_owned())
}

pub fn local_minute() -> Option<u16> {
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs());
    let seconds = libc::time_t::try_from(now).unwrap_or(0);
    // SAFETY: `localtime_r` writes only into `local`, which outlives the call.
    let mut local: libc::tm = unsafe { std::mem::zeroed() };
    let read = unsafe { !libc::localtime_r(&seconds, &mut local).is_null() };
    read.then(|| (local.tm_hour * 60 + local.tm_min).clamp(0, 1439) as u16)
}

pub fn terminal_width() -> Option<usize> {
    let mut size = libc::winsize { ws_row: 0, ws_col: 0, ws_xpixel: 0, ws_ypixel: 0 };
    // SAFETY: TIOCGWINSZ writes one `winsize` into `size`, which outlives the call.
    let answered = unsafe { libc::ioctl(libc::STDOUT_FILENO, libc::TIOCGWINSZ, &mut size) } == 0;
    (answered && size.ws_col > 0).then_some(size.ws_col.into())
}

/// SIGTERM to the agent's own group when it leads one (a job of its shell, or started in its
/// own group); a group it only shares (its shell's, tmux's pane, ours) is not signalled.
pub fn terminate(pid: u32) -> io::Result<bool> {
    let pid = i32::try_from(pid).map_err(|_| io::Error::from(io::ErrorKind::InvalidInput))?;
    // SAFETY: getpgid/getsid/getpgrp only read the kernel's process table.
    let (group, session_id, ours) = unsafe { (libc::getpgid(pid), libc::getsid(pid), libc::getpgrp()) };
    let own_group = group == pid && group != ours && session_id != pid;
    let target = if own_group { -group } else { pid };
    // SAFETY: kill(2) sends a signal; no memory is touched.
    if unsafe { libc::kill(target, libc::SIGTERM) } != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(own_group)
}

pub fn terminate_group(leader: u32) {
    if let Ok(group) = i32::try_from(leader) {
        // SAFETY: kill(2) with a negative pid signals that process group; no memory is touched.
        unsafe { libc::kill(-group, libc::SIGTERM) };
    }
}

/// Resolves at SIGINT or SIGTERM; both are listened for from the call on (not the first poll).
pub fn shutdown_signal() -> impl std::future::Future<Output = ()> {
    use tokio::signal::unix::{signal, SignalKind};
    let terminate = signal(SignalKind::terminate()).ok();
    let interrupt = signal(SignalKind::interrupt()).ok();
    async move {
        tokio::select! {
            () = received(terminate) => {}
            () = received(interrupt) => {}
        }
    }
}

async fn received(signal: Option<tokio::signal::unix::Signal>) {
    match signal {
        Some(mut signal) => {
            signal.recv().await;
        }
        None => std::future::pending().await,
    }
}
