//! Linux: what `/proc` says about processes (one small read per question).

use std::collections::{HashMap, HashSet};
use std::fs;
use std::path::{Path, PathBuf};

use super::{Stat, Unsupported, Usage};

/// The fields of `/proc/<pid>/stat` we use, the terminal as the kernel numbers it.
#[derive(Clone, Debug, PartialEq, Eq)]
struct RawStat {
    comm: String,
    state: char,
    ppid: u32,
    tty_nr: u32,
    start: u64,
}

pub fn stat(pid: u32) -> Option<Stat> {
    let raw = parse_stat(&fs::read_to_string(format!("/proc/{pid}/stat")).ok()?)?;
    Some(Stat { comm: raw.comm, state: raw.state, ppid: raw.ppid, tty: tty_name(raw.tty_nr), start: raw.start })
}

/// Whether `pid` runs as this process's user: its real and effective uids (`/proc/<pid>/status`'s
/// `Uid:` line) both ours, so a signal from here reaches only what the user could signal anyway.
pub fn owned_by_me(pid: u32) -> Option<bool> {
    let status = fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let uids = status.lines().find_map(|line| line.strip_prefix("Uid:"))?;
    let mut ids = uids.split_whitespace().map(|id| id.parse::<u32>().ok());
    let (real, effective) = (ids.next()??, ids.next()??);
    // SAFETY: geteuid has no preconditions and cannot fail.
    let me = unsafe { libc::geteuid() };
    Some(real == me && effective == me)
}

pub fn parent_pid() -> Option<u32> {
    // SAFETY: getppid has no preconditions and cannot fail.
    u32::try_from(unsafe { libc::getppid() }).ok()
}

/// `pid (comm) state ppid pgrp session tty_nr … starttime(22nd) …`; `comm` may hold spaces and
/// parentheses, so the fields are counted from the last `)`.
fn parse_stat(text: &str) -> Option<RawStat> {
    let open = text.find('(')?;
    let close = text.rfind(')')?;
    let comm = text.get(open + 1..close)?.to_owned();
    let fields: Vec<&str> = text.get(close + 1..)?.split_whitespace().collect();
    // fields[0] is the state (3rd field); starttime is the 22nd field.
    Some(RawStat {
        comm,
        state: fields.first()?.chars().next()?,
        ppid: fields.get(1)?.parse().ok()?,
        tty_nr: fields.get(4)?.parse().ok()?,
        start: fields.get(19)?.parse().ok()?,
    })
}

/// `/dev/pts/N` for a pseudo-terminal's `tty_nr` (major 136–143), `/dev/ttyN` for a console.
fn tty_name(tty_nr: u32) -> Option<String> {
    let major = (tty_nr >> 8) & 0xfff;
    let minor = (tty_nr & 0xff) | ((tty_nr >> 12) & 0xfff00);
    match major {
        0 => None,
        136..=143 => Some(format!("/dev/pts/{}", (major - 136) * 256 + minor)),
        4 if minor < 64 => Some(format!("/dev/tty{minor}")),
        _ => None,
    }
}

/// From every thread's `children` file.
pub fn child_pids(pid: u32) -> HashSet<u32> {
    let mut found = HashSet::new();
    let Ok(tasks) = fs::read_dir(format!("/proc/{pid}/task")) else { return found };
    for task in tasks.flatten() {
        if let Ok(text) = fs::read_to_string(task.path().join("children")) {
            found.extend(text.split_whitespace().filter_map(|child| child.parse::<u32>().ok()));
        }
    }
    found
}

pub fn cmdline(pid: u32) -> Option<String> {
    let bytes = fs::read(Path::new("/proc").join(pid.to_string()).join("cmdline")).ok()?;
    Some(String::from_utf8_lossy(&bytes).replace('\0', " "))
}

pub fn exe(pid: u32) -> Option<PathBuf> {
    fs::read_link(Path::new("/proc").join(pid.to_string()).join("exe")).ok()
}

/// One pass over `/proc` (a few hundred small reads).
pub fn table() -> HashMap<u32, Usage> {
    let Ok(entries) = fs::read_dir("/proc") else { return HashMap::new() };
    entries
        .flatten()
        .filter_map(|entry| {
            let pid: u32 = entry.file_name().to_str()?.parse().ok()?;
            let usage = parse_usage(&fs::read_to_string(entry.path().join("stat")).ok()?)?;
            Some((pid, usage))
        })
        .collect()
}

fn parse_usage(text: &str) -> Option<Usage> {
    let close = text.rfind(')')?;
    let fields: Vec<&str> = text.get(close + 1..)?.split_whitespace().collect();
    // After the comm: state(0) ppid(1) … utime(11) stime(12) … starttime(19) vsize(20) rss(21).
    let field = |n: usize| fields.get(n).and_then(|f| f.parse::<u64>().ok());
    Some(Usage {
        ppid: u32::try_from(field(1)?).ok()?,
        cpu_ticks: field(11)? + field(12)?,
        start: field(19)?,
        rss_pages: field(21)?,
    })
}

/// Clock ticks per second and the page size in bytes.
pub fn units() -> (u64, u64) {
    // SAFETY: sysconf has no preconditions; it returns -1 for an unknown name.
    let (ticks, page) = unsafe { (libc::sysconf(libc::_SC_CLK_TCK), libc::sysconf(libc::_SC_PAGESIZE)) };
    (u64::try_from(ticks).unwrap_or(100).max(1), u64::try_from(page).unwrap_or(4096).max(1))
}

/// How long `pid` has run at the least: its start (in clock ticks after boot, on the boot-time
/// clock since Linux 5.5) taken as the end of its tick, against `CLOCK_BOOTTIME` now.
pub fn running_for(pid: u32) -> Option<std::time::Duration> {
    let start = stat(pid)?.start;
    let mut now = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: clock_gettime writes one timespec into `now`, which outlives the call.
    if unsafe { libc::clock_gettime(libc::CLOCK_BOOTTIME, &mut now) } != 0 {
        return None;
    }
    let (ticks, _) = units();
    let now_ms = u64::try_from(now.tv_sec).ok()? * 1000 + u64::try_from(now.tv_nsec).ok()? / 1_000_000;
    let latest_start_ms = (start + 1).saturating_mul(1000) / ticks;
    Some(std::time::Duration::from_millis(now_ms.saturating_sub(latest_start_ms)))
}

/// `/proc/stat`'s `btime`.
pub fn boot_millis() -> Option<u64> {
    let text = fs::read_to_string("/proc/stat").ok()?;
    let line = text.lines().find(|line| line.starts_with("btime "))?;
    Some(line[6..].trim().parse::<u64>().ok()? * 1000)
}

/// `/proc/<pid>/fd`'s links.
pub fn open_files(pid: u32) -> Result<Vec<PathBuf>, Unsupported> {
    let Ok(fds) = fs::read_dir(format!("/proc/{pid}/fd")) else { return Ok(Vec::new()) };
    Ok(fds.flatten().filter_map(|fd| fs::read_link(fd.path()).ok()).collect())
}

/// Nice 10 for the calling thread alone (on Linux a thread has its own nice value).
pub fn background_thread() {
    // SAFETY: plain system calls on this thread's own id; a failure only leaves its priority.
    unsafe {
        let thread = libc::syscall(libc::SYS_gettid);
        libc::setpriority(libc::PRIO_PROCESS, thread as libc::id_t, 10);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stat_fields_are_counted_from_the_last_parenthesis() {
        let line = "4242 (my (odd) name) S 17 4242 4242 34817 4242 4194304 100 0 0 0 5 3 0 0 20 0 3 0 987654 1000 200";
        let stat = parse_stat(line).unwrap();
        assert_eq!(stat, RawStat { comm: "my (odd) name".into(), state: 'S', ppid: 17, tty_nr: 34817, start: 987_654 });
        assert_eq!(tty_name(34817), Some("/dev/pts/1".into()));
        assert_eq!(tty_name(0), None);
        assert!(parse_stat("garbage").is_none());
    }

    #[test]
    fn usage_fields_are_counted_from_the_last_parenthesis() {
        let line =
            "4242 (a) b) S 17 4242 4242 0 -1 4194304 100 0 0 0 5 3 0 0 20 0 3 0 987654 1000 200 18446744073709551615";
        assert_eq!(parse_usage(line), Some(Usage { ppid: 17, cpu_ticks: 8, rss_pages: 200, start: 987_654 }));
        assert!(parse_usage("1 (x) S").is_none());
    }

    #[test]
    fn a_background_thread_is_niced_and_the_others_are_not() {
        let nice = |tid: i64| -> i64 {
            let stat = fs::read_to_string(format!("/proc/self/task/{tid}/stat")).unwrap();
            // After the command's closing parenthesis: state is field 3, nice field 19.
            stat.rsplit_once(") ").unwrap().1.split(' ').nth(16).unwrap().parse().unwrap()
        };
        let here = unsafe { libc::syscall(libc::SYS_gettid) };
        let before = nice(here);
        let (niced, tid) = std::thread::spawn(move || {
            super::background_thread();
            let tid = unsafe { libc::syscall(libc::SYS_gettid) };
            (nice(tid), tid)
        })
        .join()
        .unwrap();
        assert_eq!(niced, 10, "thread {tid}");
        assert_eq!(nice(here), before, "only the calling thread");
    }
}
