//! The one room that names an operating system (issue 38). Everything Switchboard asks of the
//! OS about processes, files' modes, signals and the terminal is here, behind one portable face:
//!
//! - Linux: `/proc` and libc, exactly as before this room existed (`linux.rs`, `unix.rs`).
//! - macOS: process facts from libproc and `sysctl`, open files from `lsof` (`macos.rs`), the
//!   rest as on Linux (`unix.rs`).
//! - Windows: process facts from the `sysinfo` crate (`sysinfo.rs`), the rest in `windows.rs`;
//!   what Windows has no answer for is an [`Unsupported`] with its reason, never a made-up value.
//!
//! Outside this room the engine names no OS (`cfg(target_os)`, `std::os::unix`, `libc`) but in
//! its Linux tests; nor does the desktop app (`src-tauri/app/`), whose second-launch channel is
//! `local.rs`.

use std::collections::{HashMap, HashSet};
use std::path::PathBuf;

#[cfg(target_os = "linux")]
mod linux;
// Built on Linux too under test: its `lsof` reading is tested there.
#[cfg(any(target_os = "macos", test))]
#[cfg_attr(not(target_os = "macos"), allow(dead_code))]
mod macos;
#[cfg(not(any(target_os = "linux", target_os = "macos")))]
mod sysinfo;
#[cfg(unix)]
mod unix;
#[cfg(windows)]
mod windows;

#[cfg(not(any(target_os = "linux", target_os = "macos")))]
use self::sysinfo as procs;
#[cfg(target_os = "linux")]
use linux as procs;
#[cfg(target_os = "macos")]
use macos as procs;
#[cfg(unix)]
use unix as sys;
#[cfg(windows)]
use windows as sys;

mod command;
/// A file in a folder, watched for writes where the OS can (the spool).
pub mod file_watch;
/// The terminal tab an agent runs in, brought forward where the terminal lets a program find it.
pub mod focus;
/// The channel a second launch of the app asks the first through.
pub mod local;
/// Desktop notifications (the one place that knows which OS can hear their clicks).
pub mod notify;

pub use command::output_within;

pub use sys::{
    create_mode, create_private_dir, create_with, detach, exec, file_id, is_executable, open_flags,
    open_private_append, own_group, permissions, private_to_me, program_in, raise_fd_limit, shutdown_signal, tighten,
    try_lock,
};

/// The operating system this build is for, as people name it.
pub const OS: &str = if cfg!(target_os = "linux") {
    "Linux"
} else if cfg!(target_os = "macos") {
    "macOS"
} else if cfg!(windows) {
    "Windows"
} else {
    std::env::consts::OS
};

/// What this OS cannot tell or do, and why: said to the user, never papered over.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{what} is not available on {os}: {why}")]
pub struct Unsupported {
    pub what: &'static str,
    pub os: &'static str,
    pub why: &'static str,
}

impl Unsupported {
    // Linux can answer everything asked of it.
    #[cfg_attr(not(windows), allow(dead_code))]
    pub(crate) const fn new(what: &'static str, why: &'static str) -> Self {
        Self { what, os: OS, why }
    }
}

/// What Switchboard needs to know of one process.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stat {
    /// Its program's short name.
    pub comm: String,
    /// `R`, `S`, `D`, … ; `Z` (zombie) and `X` (dead) are no longer running.
    pub state: char,
    /// Its parent (0 when it has none).
    pub ppid: u32,
    /// Its controlling terminal (`/dev/pts/3`), when it has one and the OS says which.
    pub tty: Option<String>,
    /// When it started, in [`units`]' ticks after boot: with the pid, who it is (a reused pid
    /// is another process).
    pub start: u64,
}

/// What one process spends.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Usage {
    pub ppid: u32,
    /// User and system CPU time, in [`units`]' ticks.
    pub cpu_ticks: u64,
    /// Resident memory, in [`units`]' pages.
    pub rss_pages: u64,
    /// Start time, ticks after boot.
    pub start: u64,
}

/// The process `pid`, if it exists (and this user may see it).
pub fn stat(pid: u32) -> Option<Stat> {
    procs::stat(pid)
}

/// Whether `pid` runs as the user this process runs as; `None` when the OS does not say (the
/// process is gone, or hidden from us).
pub fn owned_by_me(pid: u32) -> Option<bool> {
    procs::owned_by_me(pid)
}

/// This process's parent.
pub fn parent_pid() -> Option<u32> {
    procs::parent_pid()
}

/// The processes whose parent is `pid`, as the OS lists them (nothing filtered).
pub fn child_pids(pid: u32) -> HashSet<u32> {
    procs::child_pids(pid)
}

/// The process's command line, its arguments joined by spaces.
pub fn cmdline(pid: u32) -> Option<String> {
    procs::cmdline(pid)
}

/// The program the process runs (its executable's path), when the OS says.
pub fn exe(pid: u32) -> Option<PathBuf> {
    procs::exe(pid)
}

/// Every process's usage now, in one pass.
pub fn table() -> HashMap<u32, Usage> {
    procs::table()
}

/// What [`Usage`]'s and [`Stat`]'s numbers count in: ticks per second, and bytes per page.
pub fn units() -> (u64, u64) {
    procs::units()
}

/// How long `pid` has run, at the least: never more than it has, short of it by up to the OS
/// clock's resolution (a tick on Linux, a second on Windows). `None` when the process is gone or
/// cannot be read.
pub fn running_for(pid: u32) -> Option<std::time::Duration> {
    procs::running_for(pid)
}

/// When the machine booted (Unix ms).
pub fn boot_millis() -> Option<u64> {
    procs::boot_millis()
}

/// The files `pid` holds open. Empty when the process cannot be read (gone, another user's).
pub fn open_files(pid: u32) -> Result<Vec<PathBuf>, Unsupported> {
    procs::open_files(pid)
}

/// This machine's host name.
pub fn host_name() -> Option<String> {
    sys::host_name().map(|name| name.trim().to_owned()).filter(|name| !name.is_empty())
}

/// The minute of the local day now (0..1440), if the OS says what the local time is.
pub fn local_minute() -> Option<u16> {
    sys::local_minute()
}

/// The width of the terminal standard output is, if it is one.
pub fn terminal_width() -> Option<usize> {
    sys::terminal_width()
}

/// Ends `pid`: its own process group when it leads one that is neither ours nor a login
/// session's (the agent and the tools it runs), else the process alone. `Ok(true)` when the
/// group was signalled.
pub fn terminate(pid: u32) -> std::io::Result<bool> {
    sys::terminate(pid)
}

/// Ends the process group that `leader` leads (a command started with [`own_group`]).
pub fn terminate_group(leader: u32) {
    sys::terminate_group(leader);
}

/// Puts the calling thread behind the hook path: a thread that does the instance's slower work
/// (the meter, the titles, pushes) yields the CPU to the thread that answers hooks when both want
/// it (issue 47). Not for a thread with a deadline of its own: the store must commit within a
/// second whatever the load. Linux: nice 10 for the thread. Elsewhere it keeps its priority.
pub fn background_thread() {
    #[cfg(target_os = "linux")]
    linux::background_thread();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn this_process_is_seen_with_its_parent_and_its_usage() {
        let me = std::process::id();
        let seen = stat(me).expect("this process");
        assert_eq!(Some(seen.ppid), parent_pid());
        assert!(!matches!(seen.state, 'Z' | 'X'));
        let usage = table().remove(&me).expect("in the table");
        assert_eq!((usage.ppid, usage.start), (seen.ppid, seen.start));
        assert!(usage.rss_pages > 0);
        let (ticks, page) = units();
        assert!(ticks > 0 && page > 0);
        assert!(boot_millis().is_some_and(|boot| boot > 1_000_000_000_000));
        assert!(cmdline(me).is_some_and(|line| !line.is_empty()));
        assert!(stat(u32::MAX - 1).is_none());
    }

    #[test]
    fn a_process_has_run_no_longer_than_since_it_was_spawned_and_no_longer_than_its_parent() {
        let before = std::time::Instant::now();
        let mut child = std::process::Command::new("sleep").arg("30").spawn().unwrap();
        let ran = running_for(child.id()).expect("the child");
        // The elapsed time is read after the child's age: read before, the age could pass it.
        let most = before.elapsed();
        assert!(ran <= most, "{ran:?} > {most:?}");
        assert!(ran <= running_for(std::process::id()).expect("this process"));
        assert!(running_for(u32::MAX - 1).is_none());
        child.kill().unwrap();
        child.wait().unwrap();
    }

    #[test]
    fn a_child_is_listed_under_its_parent_and_its_open_files_are_seen() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("held.txt");
        std::fs::write(&file, "").unwrap();
        let mut child = std::process::Command::new("sh")
            .args(["-c", &format!("exec sleep 30 3<'{}'", file.display())])
            .spawn()
            .unwrap();
        let pid = child.id();
        let mut held = false;
        for _ in 0..2_000 {
            if cmdline(pid).is_some_and(|c| c.contains("sleep")) {
                held = open_files(pid).unwrap().iter().any(|open| open == &file);
                if held {
                    break;
                }
            }
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        assert!(held, "{:?}", open_files(pid));
        assert!(child_pids(std::process::id()).contains(&pid));
        assert_eq!(open_files(u32::MAX - 1), Ok(Vec::new()), "a process that is not there holds nothing");
        child.kill().unwrap();
        child.wait().unwrap();
    }

    #[test]
    fn the_machine_has_a_name_a_local_time_and_no_terminal_under_test() {
        assert!(host_name().is_some());
        assert!(local_minute().is_some_and(|minute| minute < 1440));
        // Standard output is cargo's pipe, not a terminal.
        if !std::io::IsTerminal::is_terminal(&std::io::stdout()) {
            assert_eq!(terminal_width(), None);
        }
        assert_eq!(OS, "Linux");
        let refusal = Unsupported::new("the tie", "no tmux");
        assert_eq!(refusal.to_string(), "the tie is not available on Linux: no tmux");
    }

    #[test]
    fn a_process_in_its_own_group_is_ended_with_its_group() {
        let mut command = std::process::Command::new("sh");
        command.args(["-c", "sleep 600 & wait"]);
        own_group(&mut command);
        let mut agent = command.spawn().unwrap();
        std::thread::sleep(std::time::Duration::from_millis(100));
        assert!(terminate(agent.id()).unwrap(), "it leads its own group");
        assert!(!agent.wait().unwrap().success());
        let mut alone = std::process::Command::new("sleep").arg("600").spawn().unwrap();
        assert!(!terminate(alone.id()).unwrap(), "it shares this process's group");
        assert!(!alone.wait().unwrap().success());
    }
}
