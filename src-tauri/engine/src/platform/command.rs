//! Running a command with a time limit, for the room's own commands (lsof, osascript) and the
//! rest of the engine (git, tmux, a CLI's `--version`). Portable: std only.

use std::io::Read;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

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
