//! What `/proc` says about an agent's process: who ran a hook (the forwarder's side), whether a
//! process is still the one we saw (pid reuse), and which children it has (the watcher's side).
//! Linux only; elsewhere every answer is "unknown".

use std::collections::{HashMap, HashSet};
use std::fs;
use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use switchboard_core::AgentProcess;

/// Shells a CLI may run its hook command through; the agent is the first ancestor past them.
const SHELLS: [&str; 6] = ["sh", "bash", "dash", "zsh", "fish", "ksh"];

/// The fields of `/proc/<pid>/stat` we use.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stat {
    pub comm: String,
    /// `R`, `S`, `D`, … ; `Z` (zombie) and `X` (dead) are no longer running.
    pub state: char,
    pub ppid: u32,
    pub tty_nr: u32,
    /// Clock ticks after boot.
    pub start: u64,
}

pub fn stat(pid: u32) -> Option<Stat> {
    parse_stat(&fs::read_to_string(format!("/proc/{pid}/stat")).ok()?)
}

/// `pid (comm) state ppid pgrp session tty_nr … starttime(22nd) …`; `comm` may hold spaces and
/// parentheses, so the fields are counted from the last `)`.
fn parse_stat(text: &str) -> Option<Stat> {
    let open = text.find('(')?;
    let close = text.rfind(')')?;
    let comm = text.get(open + 1..close)?.to_owned();
    let fields: Vec<&str> = text.get(close + 1..)?.split_whitespace().collect();
    // fields[0] is the state (3rd field); starttime is the 22nd field.
    Some(Stat {
        comm,
        state: fields.first()?.chars().next()?,
        ppid: fields.get(1)?.parse().ok()?,
        tty_nr: fields.get(4)?.parse().ok()?,
        start: fields.get(19)?.parse().ok()?,
    })
}

/// The agent CLI that ran this hook: the parent, or the first ancestor past a shell. Cheap: a
/// few small reads of `/proc`, well inside the forwarder's budget.
pub fn identify_agent(env: impl Fn(&str) -> Option<String>) -> Option<AgentProcess> {
    // SAFETY: getppid has no preconditions and cannot fail.
    let mut pid = u32::try_from(unsafe { libc::getppid() }).ok()?;
    let mut stat = stat(pid)?;
    for _ in 0..3 {
        if !SHELLS.contains(&stat.comm.as_str()) || stat.ppid <= 1 {
            break;
        }
        pid = stat.ppid;
        stat = self::stat(pid)?;
    }
    let tmux = env("TMUX");
    Some(AgentProcess {
        pid,
        start: stat.start,
        tty: tty_name(stat.tty_nr),
        tmux_pane: env("TMUX_PANE"),
        // `$TMUX` is `<socket>,<server pid>,<session>`.
        tmux_socket: tmux.and_then(|t| t.split(',').next().map(str::to_owned)).filter(|s| !s.is_empty()),
        window_id: env("WINDOWID"),
        term_program: env("TERM_PROGRAM"),
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

/// Whether the process we saw is still there: same pid and same start time (a reused pid is
/// another process), and still running — a zombie has exited, whether or not its parent (tmux,
/// a shell) has reaped it yet.
pub fn is_alive(process: &AgentProcess) -> bool {
    stat(process.pid).is_some_and(|stat| stat.start == process.start && !matches!(stat.state, 'Z' | 'X'))
}

/// The process's children that are not Switchboard's own hooks. Empty when unknown. A child
/// that has not exec'd yet (it still shows the parent's command line) is left for the next look.
pub fn children(pid: u32) -> HashSet<u32> {
    let parent = cmdline(pid);
    let mut found = HashSet::new();
    let Ok(tasks) = fs::read_dir(format!("/proc/{pid}/task")) else { return found };
    for task in tasks.flatten() {
        if let Ok(text) = fs::read_to_string(task.path().join("children")) {
            found.extend(text.split_whitespace().filter_map(|child| child.parse::<u32>().ok()));
        }
    }
    found.retain(|child| {
        let command = cmdline(*child);
        // An empty command line: a zombie, or a process in the middle of exec.
        command.as_deref().is_some_and(|c| !c.is_empty() && !is_hook(c)) && command != parent
    });
    found
}

/// The process's command line, its arguments joined by spaces.
pub fn cmdline(pid: u32) -> Option<String> {
    let bytes = fs::read(Path::new("/proc").join(pid.to_string()).join("cmdline")).ok()?;
    Some(String::from_utf8_lossy(&bytes).replace('\0', " "))
}

/// What one process spends, from `/proc/<pid>/stat`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Usage {
    pub ppid: u32,
    /// User and system CPU time, in clock ticks.
    pub cpu_ticks: u64,
    /// Resident pages.
    pub rss_pages: u64,
    /// Start time, clock ticks after boot.
    pub start: u64,
}

/// Every process's usage now: one pass over `/proc` (a few hundred small reads).
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

/// `pid` and every process under it, in `table`.
pub fn tree(table: &HashMap<u32, Usage>, pid: u32) -> Vec<u32> {
    let mut children: HashMap<u32, Vec<u32>> = HashMap::new();
    for (child, usage) in table {
        children.entry(usage.ppid).or_default().push(*child);
    }
    let mut found = vec![pid];
    let mut next = 0;
    // Bounded: a pid table cannot hold a cycle, but a racy read could fake one.
    while next < found.len() && found.len() <= table.len() {
        if let Some(kids) = children.get(&found[next]) {
            found.extend(kids.iter().filter(|kid| **kid != pid));
        }
        next += 1;
    }
    found
}

/// Clock ticks per second and the page size in bytes.
pub fn units() -> (u64, u64) {
    // SAFETY: sysconf has no preconditions; it returns -1 for an unknown name.
    let (ticks, page) = unsafe { (libc::sysconf(libc::_SC_CLK_TCK), libc::sysconf(libc::_SC_PAGESIZE)) };
    (u64::try_from(ticks).unwrap_or(100).max(1), u64::try_from(page).unwrap_or(4096).max(1))
}

/// When the machine booted (Unix ms), from `/proc/stat`'s `btime`.
pub fn boot_millis() -> Option<u64> {
    let text = fs::read_to_string("/proc/stat").ok()?;
    let line = text.lines().find(|line| line.starts_with("btime "))?;
    Some(line[6..].trim().parse::<u64>().ok()? * 1000)
}

/// Runs `command` and returns its standard output if it succeeds within `deadline`; killed
/// and `None` past it. The output is read while it runs (a full pipe cannot stall it) and kept
/// up to `MAX_OUTPUT`.
pub fn output_within(command: &mut Command, deadline: Duration) -> Option<String> {
    const MAX_OUTPUT: u64 = 1024 * 1024;
    let mut child = command.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::null()).spawn().ok()?;
    let stdout = child.stdout.take()?;
    let reader = std::thread::spawn(move || {
        let mut out = Vec::new();
        let mut stdout = stdout;
        let _ = (&mut stdout).take(MAX_OUTPUT).read_to_end(&mut out);
        // Past the cap the rest is drained, so the command is not stalled on a full pipe.
        let _ = std::io::copy(&mut stdout, &mut std::io::sink());
        out
    });
    let started = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break Some(status),
            Ok(None) if started.elapsed() < deadline => std::thread::sleep(Duration::from_millis(5)),
            Ok(None) | Err(_) => {
                let _ = child.kill();
                let _ = child.wait();
                break None;
            }
        }
    };
    // Killed: not waited for, in case something it started still holds the pipe.
    status.filter(|status| status.success())?;
    let out = reader.join().ok()?;
    Some(String::from_utf8_lossy(&out).into_owned())
}

/// A hook command: `switchboard hook <agent>` itself, or the shell running it.
fn is_hook(command: &str) -> bool {
    command.contains("switchboard") && command.contains(" hook ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stat_fields_are_counted_from_the_last_parenthesis() {
        let line = "4242 (my (odd) name) S 17 4242 4242 34817 4242 4194304 100 0 0 0 5 3 0 0 20 0 3 0 987654 1000 200";
        let stat = parse_stat(line).unwrap();
        assert_eq!(stat, Stat { comm: "my (odd) name".into(), state: 'S', ppid: 17, tty_nr: 34817, start: 987_654 });
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
    fn the_tree_holds_the_process_and_all_under_it_and_nothing_else() {
        let usage = |ppid| Usage { ppid, ..Usage::default() };
        let table: HashMap<u32, Usage> =
            [(10, usage(1)), (11, usage(10)), (12, usage(11)), (13, usage(10)), (20, usage(1)), (21, usage(20))].into();
        let mut tree = tree(&table, 10);
        tree.sort_unstable();
        assert_eq!(tree, vec![10, 11, 12, 13]);
        assert_eq!(self::tree(&table, 99), vec![99], "unknown: itself alone");
    }

    #[test]
    fn this_process_is_in_the_table_with_its_memory() {
        let me = table().remove(&std::process::id()).expect("this process is listed");
        assert!(me.rss_pages > 0 && me.start > 0);
        assert!(boot_millis().is_some_and(|boot| boot > 1_000_000_000_000));
    }

    #[test]
    fn output_is_read_while_the_command_runs_and_a_slow_one_is_killed() {
        // More than a pipe holds: read while it runs, not after.
        let big = output_within(
            Command::new("sh").args(["-c", "head -c 300000 /dev/zero | tr '\\0' x"]),
            Duration::from_secs(20),
        );
        assert_eq!(big.map(|out| out.len()), Some(300_000));
        assert_eq!(output_within(&mut Command::new("false"), Duration::from_secs(20)), None);
        assert_eq!(output_within(Command::new("sleep").arg("30"), Duration::from_millis(100)), None);
    }

    #[test]
    fn a_live_process_is_alive_and_a_reused_pid_is_not() {
        let me = std::process::id();
        let start = stat(me).unwrap().start;
        assert!(is_alive(&AgentProcess { pid: me, start, ..AgentProcess::default() }));
        assert!(
            !is_alive(&AgentProcess { pid: me, start: start + 1, ..AgentProcess::default() }),
            "another start time"
        );
        assert!(!is_alive(&AgentProcess { pid: u32::MAX - 1, start, ..AgentProcess::default() }));
    }

    /// Issue 20.5: an agent killed with `kill -9` stays a zombie until its parent reaps it (tmux
    /// may take seconds); it is dead all the same.
    #[test]
    fn a_zombie_that_its_parent_has_not_reaped_is_not_alive() {
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let pid = child.id();
        let start = stat(pid).map(|s| s.start);
        // Not waited for: once it has exited it is a zombie of this process.
        let zombie = (0..2_000).find_map(|_| {
            let now = stat(pid)?;
            if now.state == 'Z' {
                return Some(now);
            }
            std::thread::sleep(std::time::Duration::from_millis(5));
            None
        });
        let zombie = zombie.expect("the child exits and stays unreaped");
        if let Some(start) = start {
            assert_eq!(zombie.start, start);
        }
        assert!(!is_alive(&AgentProcess { pid, start: zombie.start, ..AgentProcess::default() }));
        child.wait().unwrap();
    }

    #[test]
    fn children_are_listed_and_hooks_are_left_out() {
        let mut sleeper = std::process::Command::new("sleep").arg("30").spawn().unwrap();
        let mut hook =
            std::process::Command::new("sh").args(["-c", "sleep 30; : switchboard hook claude"]).spawn().unwrap();
        // Both have exec'd once their command lines differ from ours.
        let me = cmdline(std::process::id());
        for pid in [sleeper.id(), hook.id()] {
            while cmdline(pid) == me || cmdline(pid).is_some_and(|c| c.is_empty()) {
                std::thread::sleep(std::time::Duration::from_millis(5));
            }
        }
        let kids = children(std::process::id());
        assert!(kids.contains(&sleeper.id()), "{kids:?}");
        assert!(!kids.contains(&hook.id()), "a hook is not a tool: {kids:?} {:?}", cmdline(hook.id()));
        for child in [&mut sleeper, &mut hook] {
            child.kill().unwrap();
            child.wait().unwrap();
        }
    }

    #[test]
    fn the_agent_is_found_past_the_shell_that_ran_the_hook() {
        // This test process plays the agent: its child shell runs a program that identifies.
        let env = |name: &str| (name == "TMUX").then(|| "/tmp/tmux-0/default,99,0".to_owned());
        let found = identify_agent(env).unwrap();
        // Run from here, the parent is cargo's test harness or a shell's parent: a real pid
        // with a matching start time.
        assert!(is_alive(&found));
        assert_eq!(found.tmux_socket.as_deref(), Some("/tmp/tmux-0/default"));
    }
}
