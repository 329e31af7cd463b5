//! Process facts on Windows (and the BSDs), from the `sysinfo` crate.
//! Its units are kept as they come: [`units`] says ticks are milliseconds and pages are bytes,
//! and a start time is milliseconds after boot.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use sysinfo::{Pid, Process, ProcessRefreshKind, ProcessStatus, ProcessesToUpdate, System, UpdateKind};

use super::{Stat, Unsupported, Usage};

fn one(pid: u32, kind: ProcessRefreshKind) -> Option<System> {
    let mut system = System::new();
    let pid = Pid::from_u32(pid);
    system.refresh_processes_specifics(ProcessesToUpdate::Some(&[pid]), true, kind);
    system.process(pid)?;
    Some(system)
}

fn all(kind: ProcessRefreshKind) -> System {
    let mut system = System::new();
    system.refresh_processes_specifics(ProcessesToUpdate::All, true, kind);
    system
}

fn start_of(process: &Process) -> u64 {
    process.start_time().saturating_sub(System::boot_time()).saturating_mul(1000)
}

fn state_of(process: &Process) -> char {
    match process.status() {
        ProcessStatus::Zombie => 'Z',
        ProcessStatus::Dead => 'X',
        ProcessStatus::Run => 'R',
        ProcessStatus::Stop => 'T',
        ProcessStatus::UninterruptibleDiskSleep => 'D',
        _ => 'S',
    }
}

pub fn stat(pid: u32) -> Option<Stat> {
    let system = one(pid, ProcessRefreshKind::nothing())?;
    let process = system.process(Pid::from_u32(pid))?;
    Some(Stat {
        comm: process.name().to_string_lossy().into_owned(),
        state: state_of(process),
        ppid: process.parent().map_or(0, Pid::as_u32),
        // `sysinfo` does not say which terminal a process has.
        tty: None,
        start: start_of(process),
    })
}

/// Whether `pid` runs as the user this process runs as (`None` when the OS does not say).
pub fn owned_by_me(pid: u32) -> Option<bool> {
    let me = std::process::id();
    let mut system = System::new();
    let pids = [Pid::from_u32(pid), Pid::from_u32(me)];
    system.refresh_processes_specifics(
        ProcessesToUpdate::Some(&pids),
        true,
        ProcessRefreshKind::nothing().with_user(UpdateKind::Always),
    );
    let user = |pid: u32| system.process(Pid::from_u32(pid))?.user_id().cloned();
    Some(user(pid)? == user(me)?)
}

pub fn parent_pid() -> Option<u32> {
    stat(std::process::id())?.ppid.into()
}

pub fn child_pids(pid: u32) -> HashSet<u32> {
    let system = all(ProcessRefreshKind::nothing());
    let parent = Pid::from_u32(pid);
    system.processes().iter().filter(|(_, p)| p.parent() == Some(parent)).map(|(child, _)| child.as_u32()).collect()
}

pub fn cmdline(pid: u32) -> Option<String> {
    let system = one(pid, ProcessRefreshKind::nothing().with_cmd(UpdateKind::Always))?;
    let process = system.process(Pid::from_u32(pid))?;
    Some(process.cmd().iter().map(|word| word.to_string_lossy()).collect::<Vec<_>>().join(" "))
}

pub fn exe(pid: u32) -> Option<PathBuf> {
    let system = one(pid, ProcessRefreshKind::nothing().with_exe(UpdateKind::Always))?;
    system.process(Pid::from_u32(pid))?.exe().map(Path::to_path_buf)
}

pub fn table() -> HashMap<u32, Usage> {
    let system = all(ProcessRefreshKind::nothing().with_cpu().with_memory());
    system
        .processes()
        .iter()
        .map(|(pid, process)| {
            let usage = Usage {
                ppid: process.parent().map_or(0, Pid::as_u32),
                cpu_ticks: process.accumulated_cpu_time(),
                rss_pages: process.memory(),
                start: start_of(process),
            };
            (pid.as_u32(), usage)
        })
        .collect()
}

/// Milliseconds, and bytes.
pub fn units() -> (u64, u64) {
    (1000, 1)
}

/// How long `pid` has run at the least: `sysinfo` tells start times to the second.
pub fn running_for(pid: u32) -> Option<std::time::Duration> {
    let system = one(pid, ProcessRefreshKind::nothing())?;
    let start = system.process(Pid::from_u32(pid))?.start_time();
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).ok()?.as_secs();
    Some(std::time::Duration::from_secs(now.saturating_sub(start + 1)))
}

pub fn boot_millis() -> Option<u64> {
    Some(System::boot_time()).filter(|&boot| boot > 0).map(|boot| boot * 1000)
}

pub fn open_files(_pid: u32) -> Result<Vec<PathBuf>, Unsupported> {
    Err(Unsupported::new(
        "the files a process holds open",
        "no list of another process's open files is read here (it needs the system's handle table)",
    ))
}
