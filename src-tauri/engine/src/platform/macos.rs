//! macOS: process facts from libproc and `sysctl` (both in libSystem: no framework to link, so
//! the CLI cross-links from Linux with zig), open files from `lsof`, which every Mac has. The
//! rest is shared with Linux (`unix.rs`). Compiled and linked in CI for x86_64 and aarch64; not
//! run there (no Mac). Its parsers are built on Linux too and tested there.
//!
//! Units, as [`super::units`] says: ticks are milliseconds, pages are bytes, a start time is
//! milliseconds after boot.

use std::path::PathBuf;
use std::process::Command;
use std::time::Duration;

#[cfg(target_os = "macos")]
pub use self::libproc::*;

/// `lsof -p <pid> -Fn`: one `n<path>` line per open file.
pub fn lsof_open_files(pid: u32) -> Option<Vec<PathBuf>> {
    let output = super::output_within(
        Command::new("lsof").args(["-n", "-P", "-w", "-Fn", "-p", &pid.to_string()]),
        Duration::from_secs(2),
    )?;
    Some(parse_lsof(&output))
}

fn parse_lsof(output: &str) -> Vec<PathBuf> {
    output
        .lines()
        .filter_map(|line| line.strip_prefix('n'))
        .filter(|path| path.starts_with('/'))
        .map(PathBuf::from)
        .collect()
}

/// `KERN_PROCARGS2`'s buffer: `argc` (a native-endian i32), the executable's path, NULs, then
/// `argc` NUL-terminated arguments (the environment after them is not read).
fn parse_procargs(buffer: &[u8]) -> Option<String> {
    let argc = i32::from_ne_bytes(buffer.get(..4)?.try_into().ok()?);
    let rest = buffer.get(4..)?;
    let path_end = rest.iter().position(|&b| b == 0)?;
    let args = rest[path_end..].iter().skip_while(|&&b| b == 0).copied().collect::<Vec<u8>>();
    let words: Vec<String> = args
        .split(|&b| b == 0)
        .take(usize::try_from(argc).ok()?)
        .map(|word| String::from_utf8_lossy(word).into_owned())
        .collect();
    Some(words.join(" "))
}

#[cfg(target_os = "macos")]
mod libproc {
    use std::collections::{HashMap, HashSet};
    use std::ffi::{c_int, c_void, CStr};
    use std::mem::{size_of, zeroed};
    use std::path::PathBuf;
    use std::sync::OnceLock;

    use super::super::{Stat, Unsupported, Usage};

    fn bsd_info(pid: u32) -> Option<libc::proc_bsdinfo> {
        let pid = c_int::try_from(pid).ok()?;
        // SAFETY: proc_pidinfo writes at most `size` bytes into `info`, which outlives the call.
        let mut info: libc::proc_bsdinfo = unsafe { zeroed() };
        let size = size_of::<libc::proc_bsdinfo>() as c_int;
        let wrote = unsafe {
            libc::proc_pidinfo(pid, libc::PROC_PIDTBSDINFO, 0, (&mut info as *mut libc::proc_bsdinfo).cast(), size)
        };
        (wrote == size).then_some(info)
    }

    fn task_info(pid: u32) -> Option<libc::proc_taskinfo> {
        let pid = c_int::try_from(pid).ok()?;
        // SAFETY: as above.
        let mut info: libc::proc_taskinfo = unsafe { zeroed() };
        let size = size_of::<libc::proc_taskinfo>() as c_int;
        let wrote = unsafe {
            libc::proc_pidinfo(pid, libc::PROC_PIDTASKINFO, 0, (&mut info as *mut libc::proc_taskinfo).cast(), size)
        };
        (wrote == size).then_some(info)
    }

    fn start_of(info: &libc::proc_bsdinfo) -> u64 {
        let started = info.pbi_start_tvsec * 1000 + info.pbi_start_tvusec / 1000;
        started.saturating_sub(boot_millis().unwrap_or(0))
    }

    /// How long `pid` has run at the least: its start on the wall clock, to the millisecond,
    /// against the wall clock now.
    pub fn running_for(pid: u32) -> Option<std::time::Duration> {
        let info = bsd_info(pid)?;
        let started = info.pbi_start_tvsec * 1000 + info.pbi_start_tvusec.div_ceil(1000);
        let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).ok()?.as_millis();
        Some(std::time::Duration::from_millis(u64::try_from(now).ok()?.saturating_sub(started)))
    }

    pub fn stat(pid: u32) -> Option<Stat> {
        let info = bsd_info(pid)?;
        // SAFETY: pbi_comm is NUL-terminated within its array (zeroed first).
        let comm = unsafe { CStr::from_ptr(info.pbi_comm.as_ptr()) }.to_string_lossy().into_owned();
        let state = match info.pbi_status {
            libc::SZOMB => 'Z',
            2 => 'R', // SRUN
            4 => 'T', // SSTOP
            _ => 'S',
        };
        Some(Stat { comm, state, ppid: info.pbi_ppid, tty: tty_name(info.e_tdev), start: start_of(&info) })
    }

    fn tty_name(dev: u32) -> Option<String> {
        if dev == u32::MAX || dev == 0 {
            return None;
        }
        // SAFETY: devname returns a pointer to a static buffer or NULL.
        let name = unsafe { libc::devname(dev as libc::dev_t, libc::S_IFCHR) };
        (!name.is_null()).then(|| format!("/dev/{}", unsafe { CStr::from_ptr(name) }.to_string_lossy()))
    }

    /// Whether `pid` runs as this process's user (real and effective uid).
    pub fn owned_by_me(pid: u32) -> Option<bool> {
        let info = bsd_info(pid)?;
        // SAFETY: geteuid has no preconditions and cannot fail.
        let me = unsafe { libc::geteuid() };
        Some(info.pbi_uid == me && info.pbi_ruid == me)
    }

    pub fn parent_pid() -> Option<u32> {
        // SAFETY: getppid has no preconditions and cannot fail.
        u32::try_from(unsafe { libc::getppid() }).ok()
    }

    fn all_pids() -> Vec<u32> {
        // SAFETY: with a null buffer proc_listallpids returns how many pids there are.
        let count = unsafe { libc::proc_listallpids(std::ptr::null_mut(), 0) }.max(0) as usize;
        let mut pids = vec![0 as libc::pid_t; count + 64];
        let bytes = (pids.len() * size_of::<libc::pid_t>()) as c_int;
        // SAFETY: writes at most `bytes` into `pids`.
        let found = unsafe { libc::proc_listallpids(pids.as_mut_ptr().cast::<c_void>(), bytes) }.max(0) as usize;
        pids.truncate(found.min(pids.len()));
        pids.into_iter().filter_map(|pid| u32::try_from(pid).ok()).filter(|&pid| pid > 0).collect()
    }

    pub fn child_pids(pid: u32) -> HashSet<u32> {
        all_pids().into_iter().filter(|&child| bsd_info(child).is_some_and(|info| info.pbi_ppid == pid)).collect()
    }

    pub fn cmdline(pid: u32) -> Option<String> {
        let mut mib = [libc::CTL_KERN, libc::KERN_PROCARGS2, c_int::try_from(pid).ok()?];
        let mut size: libc::size_t = 0;
        // SAFETY: a first call with a null buffer says how large the answer is.
        if unsafe { libc::sysctl(mib.as_mut_ptr(), 3, std::ptr::null_mut(), &mut size, std::ptr::null_mut(), 0) } != 0 {
            return None;
        }
        let mut buffer = vec![0u8; size];
        // SAFETY: writes at most `size` bytes into `buffer`.
        let read = unsafe {
            libc::sysctl(mib.as_mut_ptr(), 3, buffer.as_mut_ptr().cast(), &mut size, std::ptr::null_mut(), 0)
        };
        if read != 0 {
            return None;
        }
        buffer.truncate(size);
        super::parse_procargs(&buffer)
    }

    /// The program the process runs (`proc_pidpath`).
    pub fn exe(pid: u32) -> Option<PathBuf> {
        let mut buffer = vec![0u8; libc::PROC_PIDPATHINFO_MAXSIZE as usize];
        let size = u32::try_from(buffer.len()).ok()?;
        // SAFETY: writes at most `size` bytes into `buffer`; returns how many.
        let written =
            unsafe { libc::proc_pidpath(c_int::try_from(pid).ok()?, buffer.as_mut_ptr().cast::<c_void>(), size) };
        let written = usize::try_from(written).ok().filter(|n| *n > 0)?;
        buffer.truncate(written);
        Some(PathBuf::from(String::from_utf8(buffer).ok()?))
    }

    /// Nanoseconds per Mach absolute-time unit, as a ratio (1/1 on Intel, 125/3 on Apple silicon).
    // libc marks the Mach calls deprecated in favour of the mach2 crate; this one call is not
    // worth a dependency.
    #[allow(deprecated)]
    fn timebase() -> (u64, u64) {
        static TIMEBASE: OnceLock<(u64, u64)> = OnceLock::new();
        *TIMEBASE.get_or_init(|| {
            let mut info = libc::mach_timebase_info { numer: 0, denom: 0 };
            // SAFETY: writes one struct into `info`.
            let ok = unsafe { libc::mach_timebase_info(&mut info) } == 0;
            if ok && info.denom > 0 {
                (u64::from(info.numer), u64::from(info.denom))
            } else {
                (1, 1)
            }
        })
    }

    pub fn table() -> HashMap<u32, Usage> {
        let (numer, denom) = timebase();
        all_pids()
            .into_iter()
            .filter_map(|pid| {
                let info = bsd_info(pid)?;
                let task = task_info(pid);
                let cpu = task.map_or(0, |t| (t.pti_total_user + t.pti_total_system) * numer / denom / 1_000_000);
                let usage = Usage {
                    ppid: info.pbi_ppid,
                    cpu_ticks: cpu,
                    rss_pages: task.map_or(0, |t| t.pti_resident_size),
                    start: start_of(&info),
                };
                Some((pid, usage))
            })
            .collect()
    }

    pub fn units() -> (u64, u64) {
        (1000, 1)
    }

    /// `kern.boottime`.
    pub fn boot_millis() -> Option<u64> {
        static BOOT: OnceLock<Option<u64>> = OnceLock::new();
        *BOOT.get_or_init(|| {
            let mut mib = [libc::CTL_KERN, libc::KERN_BOOTTIME];
            let mut boot = libc::timeval { tv_sec: 0, tv_usec: 0 };
            let mut size = size_of::<libc::timeval>();
            // SAFETY: writes at most `size` bytes into `boot`.
            let ok = unsafe {
                libc::sysctl(
                    mib.as_mut_ptr(),
                    2,
                    (&mut boot as *mut libc::timeval).cast(),
                    &mut size,
                    std::ptr::null_mut(),
                    0,
                )
            } == 0;
            let millis = u64::try_from(boot.tv_sec).ok()? * 1000 + u64::try_from(boot.tv_usec).ok()? / 1000;
            (ok && millis > 0).then_some(millis)
        })
    }

    pub fn open_files(pid: u32) -> Result<Vec<PathBuf>, Unsupported> {
        Ok(super::lsof_open_files(pid).unwrap_or_default())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lsof_names_are_the_paths_of_open_files() {
        let listing =
            "p42\nfcwd\nn/Users/me/project\nf3\nn/Users/me/.codex/sessions/rollout-1.jsonl\nf4\nnlocalhost:5000->x\n";
        assert_eq!(
            parse_lsof(listing),
            [PathBuf::from("/Users/me/project"), PathBuf::from("/Users/me/.codex/sessions/rollout-1.jsonl")]
        );
        // The same lsof runs on Linux: this process's own executable is among its open files.
        let mine = lsof_open_files(std::process::id()).expect("lsof runs");
        assert!(!mine.is_empty());
    }

    #[test]
    fn procargs_give_the_arguments_not_the_path_or_the_environment() {
        let mut buffer = 3i32.to_ne_bytes().to_vec();
        buffer.extend_from_slice(b"/usr/local/bin/node\0\0\0\0node\0/usr/local/bin/codex\0resume\0HOME=/Users/me\0");
        assert_eq!(parse_procargs(&buffer).as_deref(), Some("node /usr/local/bin/codex resume"));
        assert_eq!(parse_procargs(b"\x01\0"), None, "cut short");
    }
}
