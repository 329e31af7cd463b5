//! What the OS says about an agent's process (through [`crate::platform`]): who ran a hook (the
//! forwarder's side), whether a process is still the one we saw (pid reuse), and which children
//! it has (the watcher's side).

use std::collections::{HashMap, HashSet};

use switchboard_core::AgentProcess;

use crate::platform;
/// Where it lives: in the platform room, which runs commands too (lsof, osascript).
pub use crate::platform::output_within;

/// Shells a CLI may run its hook command through; the agent is the first ancestor past them.
const SHELLS: [&str; 6] = ["sh", "bash", "dash", "zsh", "fish", "ksh"];

pub use crate::platform::{boot_millis, cmdline, exe, running_for, stat, table, units, Stat, Usage};

/// The agent CLI that ran this hook: the parent, or the first ancestor past a shell. Cheap: a
/// few small reads of `/proc` on Linux, well inside the forwarder's budget.
pub fn identify_agent(env: impl Fn(&str) -> Option<String>) -> Option<AgentProcess> {
    let mut pid = platform::parent_pid()?;
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
        tty: stat.tty,
        tmux_pane: env("TMUX_PANE"),
        // `$TMUX` is `<socket>,<server pid>,<session>`.
        tmux_socket: tmux.and_then(|t| t.split(',').next().map(str::to_owned)).filter(|s| !s.is_empty()),
        window_id: env("WINDOWID"),
        term_program: env("TERM_PROGRAM"),
    })
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
    let mut found = platform::child_pids(pid);
    found.retain(|child| {
        let command = cmdline(*child);
        // An empty command line: a zombie, or a process in the middle of exec.
        command.as_deref().is_some_and(|c| !c.is_empty() && !is_hook(c)) && command != parent
    });
    found
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

/// A hook command: `switchboard hook <agent>` itself, or the shell running it.
fn is_hook(command: &str) -> bool {
    command.contains("switchboard") && command.contains(" hook ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::process::Command;
    use std::time::Duration;

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
