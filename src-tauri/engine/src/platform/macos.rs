//! macOS: what differs from the other Unix (`unix.rs`) and from `sysinfo`'s process facts:
//! open files come from `lsof`, which every Mac has (`sysinfo` counts them but does not name them).
//! Compiled in CI for x86_64 and aarch64; not run there (no Mac).

use std::path::PathBuf;
use std::process::Command;
use std::time::Duration;

/// `lsof -p <pid> -Fn`: one `n<path>` line per open file.
pub fn open_files(pid: u32) -> Option<Vec<PathBuf>> {
    let output = crate::process::output_within(
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
        let mine = open_files(std::process::id()).expect("lsof runs");
        assert!(!mine.is_empty());
    }
}
