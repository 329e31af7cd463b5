//! Which release of a CLI is installed, from its `--version`.

use std::io::Read;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use switchboard_core::hook_config::{self, Cli, Version};

/// The release of `cli`'s program on `PATH` (`<program> --version`); `None` when there is none,
/// or it does not answer within two seconds.
pub fn cli_version(cli: Cli) -> Option<Version> {
    version_of(Command::new(cli.setup().program).arg("--version"), Duration::from_secs(2))
}

fn version_of(command: &mut Command, limit: Duration) -> Option<Version> {
    Version::parse(&version_output(command, limit)?)
}

/// What `command` (a `--version` call) prints, if it exits within `limit`; it is killed otherwise.
pub(crate) fn version_output(command: &mut Command, limit: Duration) -> Option<String> {
    let mut child = command.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::null()).spawn().ok()?;
    let deadline = Instant::now() + limit;
    while child.try_wait().ok()?.is_none() {
        if Instant::now() >= deadline {
            let _ = child.kill();
            let _ = child.wait();
            return None;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let mut output = String::new();
    child.stdout.take()?.read_to_string(&mut output).ok()?;
    Some(output)
}

/// The releases of the CLIs on `PATH` whose rows list events an older release refuses (the
/// others are not asked: their release changes nothing).
pub fn cli_versions() -> Vec<(Cli, Version)> {
    let asked = Cli::all().filter(|cli| !cli.setup().introduced.is_empty());
    asked.filter_map(|cli| Some((cli, cli_version(cli)?))).collect()
}

/// `cli`'s release among `versions`.
pub(super) fn release_of(cli: Cli, versions: &[(Cli, Version)]) -> Option<Version> {
    versions.iter().find(|(of, _)| *of == cli).map(|(_, version)| *version)
}

/// The events to register for `cli`, given what is known of its release.
pub(super) fn wanted_events(cli: Cli, versions: &[(Cli, Version)]) -> Vec<&'static str> {
    hook_config::events_for(cli, release_of(cli, versions))
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[test]
    fn a_cli_version_is_read_from_its_output_within_a_time_limit() {
        let echo = version_of(Command::new("sh").args(["-c", "echo '2.1.78 (Claude Code)'"]), Duration::from_secs(5));
        assert_eq!(echo, Some(Version(2, 1, 78)));
        let started = Instant::now();
        // A CLI that never answers is given up on at the deadline, not waited for (the guard is
        // far below the child's 600 s, far above any machine's scheduling).
        assert_eq!(version_of(Command::new("sh").args(["-c", "exec sleep 600"]), Duration::from_millis(100)), None);
        assert!(started.elapsed() < Duration::from_secs(60));
        assert_eq!(version_of(&mut Command::new("/nonexistent/claude"), Duration::from_secs(1)), None);
    }
}
