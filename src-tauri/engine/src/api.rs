//! The use cases both shells offer — the `switchboard` command line and the app's commands —
//! written once: what each needs, what it does, and the kinds of error a user can be told
//! (they cross to the web view as a generated enum, never matched by string).

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Serialize;

use crate::endpoint::Endpoint;
use crate::setup::doctor::{self, DoctorOptions, DoctorReport};
use crate::setup::install::{self, InstallError, InstallOptions, InstallOutcome};

/// What went wrong, as the web view tells it apart.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub enum ErrorKind {
    /// No session with that id (removed, or never seen).
    UnknownSession,
    /// A position that is not a place on the canvas.
    BadPosition,
    /// That permission no longer waits for an answer (answered at the terminal, timed out).
    NotWaiting,
    /// The instance is shutting down.
    Stopping,
    /// No CLI of that name.
    UnknownAgent,
    /// No agent CLI is installed on this machine (and none was named).
    NoAgentCli,
    /// `HOME` is not set, so the CLIs' settings cannot be found.
    NoHome,
    /// No state directory can be found.
    NoStateDir,
    /// A settings file that does not parse (left untouched).
    Unparsable,
    /// A settings file with comments the installer would lose (left untouched).
    HasComments,
    /// A settings file whose hooks are not shaped as the CLI documents (left untouched).
    Shape,
    /// A settings file that cannot be written.
    ReadOnly,
    /// The path of the `switchboard` binary cannot go into a hook command.
    CommandPath,
    /// Reading or writing failed.
    Io,
    /// Start at login cannot be changed (no autostart support, or writing its entry failed).
    Autostart,
    /// Something inside Switchboard failed (a task panicked).
    Internal,
    /// An answer or reply was not typed: the message says why (not asking, not in tmux, its pane
    /// runs something else, …); Jump is the way to the agent then.
    NotDelivered,
}

/// An error for the user: its kind and what to tell them.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct ApiError {
    pub kind: ErrorKind,
    pub message: String,
}

impl ApiError {
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        Self { kind, message: message.into() }
    }

    fn no_home() -> Self {
        Self::new(ErrorKind::NoHome, "HOME is not set, so the CLIs' settings cannot be found")
    }
}

impl From<&InstallError> for ErrorKind {
    fn from(error: &InstallError) -> Self {
        match error {
            InstallError::Unparsable { .. } => Self::Unparsable,
            InstallError::HasComments { .. } => Self::HasComments,
            // A file of ours would go where one of the user's is: no safe place for it.
            InstallError::Shape { .. } | InstallError::NotOurs { .. } => Self::Shape,
            InstallError::ReadOnly { .. } => Self::ReadOnly,
            InstallError::Io { .. } => Self::Io,
            InstallError::CommandPath { .. } => Self::CommandPath,
        }
    }
}

/// The `switchboard` binary the hooks run: this one, or the one beside the app's binary.
pub fn hook_command(beside_app: bool) -> Result<PathBuf, ApiError> {
    let me = std::env::current_exe()
        .map_err(|e| ApiError::new(ErrorKind::Io, format!("cannot locate the switchboard binary: {e}")))?;
    Ok(if beside_app { me.with_file_name("switchboard") } else { me })
}

/// `switchboard install <target>` and the app's "Connect my CLIs": registers (or removes) the
/// hooks of `target` (a CLI's id, or `all`). One outcome per CLI, each with its
/// own result.
pub fn install(
    target: &str,
    uninstall: bool,
    dry_run: bool,
    command_path: PathBuf,
) -> Result<Vec<InstallOutcome>, ApiError> {
    let clis = install::clis_named(target)
        .ok_or_else(|| ApiError::new(ErrorKind::UnknownAgent, format!("no CLI called {target}")))?;
    let mut options = InstallOptions::for_user(clis, uninstall, dry_run, command_path).ok_or_else(ApiError::no_home)?;
    if target == "all" && !uninstall {
        // Only the CLIs this machine uses: a named one is set up whether or not it is there yet.
        let search_path = std::env::var_os("PATH");
        options.clis.retain(|cli| install::used_here(*cli, &options.dirs, search_path.as_deref()));
        if options.clis.is_empty() {
            let all: Vec<install::Cli> = install::Cli::all().collect();
            let programs: Vec<&str> = all.iter().map(|cli| cli.setup().program).collect();
            let folders: Vec<String> = all.iter().map(|cli| format!("~/{}", cli.setup().dir)).collect();
            return Err(ApiError::new(
                ErrorKind::NoAgentCli,
                format!(
                    "No agent CLI found on this machine (none of {} on PATH, and none of {}). Install one \
                     first, or name it: switchboard install {}",
                    programs.join(", "),
                    folders.join(", "),
                    all.first().map_or("<cli>", |cli| cli.agent())
                ),
            ));
        }
    }
    Ok(install::install(&options))
}

/// The outcomes as the user reads them, one paragraph a CLI; the first failure's kind if any
/// failed (the text still tells every CLI's outcome).
pub fn install_summary(outcomes: &[InstallOutcome]) -> Result<String, ApiError> {
    let summary = outcomes.iter().map(ToString::to_string).collect::<Vec<_>>().join("\n\n");
    match outcomes.iter().find_map(|outcome| outcome.result.as_ref().err()) {
        Some(error) => Err(ApiError::new(error.into(), summary)),
        None => Ok(summary),
    }
}

/// `switchboard doctor` and the Connections panel: every check, and the test event through the
/// running instance, handed back to `remove_test_session` once it has been seen.
pub fn doctor(
    command_path: PathBuf,
    state_dir: PathBuf,
    folder: Option<PathBuf>,
    remove_test_session: impl FnOnce(&str),
) -> Result<DoctorReport, ApiError> {
    doctor_in(|name| std::env::var_os(name), command_path, state_dir, folder, remove_test_session)
}

/// [`doctor`] on the environment `var` reads (a test's machine rather than the test's own).
pub fn doctor_in(
    var: impl Fn(&str) -> Option<std::ffi::OsString>,
    command_path: PathBuf,
    state_dir: PathBuf,
    folder: Option<PathBuf>,
    remove_test_session: impl FnOnce(&str),
) -> Result<DoctorReport, ApiError> {
    let options = DoctorOptions::from_vars(var, command_path, state_dir, folder).ok_or_else(ApiError::no_home)?;
    Ok(doctor::examine(&options, remove_test_session))
}

/// Asks the running instance of `state_dir` to forget a session (what the app's remove button
/// does), from another process; `false` if none answered yes.
pub fn remove_through_instance(state_dir: &Path, session_id: &str) -> bool {
    let Some(endpoint) = Endpoint::read(state_dir) else { return false };
    let path = crate::protocol::session_path(session_id, &endpoint.key);
    crate::client::request(endpoint.addr(), "DELETE", &path, b"", Duration::from_secs(2))
        .is_ok_and(|response| response.status == 204)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unknown_target_is_told_apart_from_a_failed_install() {
        let error = install("vim", false, true, PathBuf::from("/bin/switchboard")).unwrap_err();
        assert_eq!(error.kind, ErrorKind::UnknownAgent);
        assert_eq!(error.message, "no CLI called vim");
        assert_eq!(serde_json::to_value(ErrorKind::NotWaiting).unwrap(), "notWaiting");
    }
}
