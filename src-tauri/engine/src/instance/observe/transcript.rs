//! Which file a session's transcript is, if Switchboard may read it (issue 45). A hook's payload
//! names it, and a payload can name any file: `peek` once showed an outside file's content for a
//! Copilot CLI session. A CLI whose transcripts live in its own folder (its row's
//! `transcript_in`: Copilot CLI's `session-state/<id>/events.jsonl`) has them read only from
//! there — the path made absolute and canonical (no `..`, no symlink out of the folder), the
//! folder canonical too. Every reader of a transcript (peek's last turn, the watch, the meter,
//! the titles) asks here first.

use std::path::{Component, Path, PathBuf};

use switchboard_core::hook_config::{Cli, ConfigDirs};
use switchboard_core::Session;

/// The session's transcript as it may be read, or `None` (none said, or one outside its CLI's
/// folder). The CLIs' folders are this process's (`$HOME`, `$COPILOT_HOME`, …).
pub fn readable(session: &Session) -> Option<PathBuf> {
    let path = session.transcript_path.as_deref()?;
    confined(&session.agent, Path::new(path), ConfigDirs::from_env().as_ref())
}

/// `path` as `agent`'s transcript: as said for a CLI whose row does not keep them in its folder;
/// else canonical and inside that folder, or `None`.
pub fn confined(agent: &str, path: &Path, dirs: Option<&ConfigDirs>) -> Option<PathBuf> {
    let in_folder = switchboard_core::agent(agent)
        .and_then(|agent| agent.setup.as_ref())
        .is_some_and(|setup| setup.transcript_in.is_some());
    if !in_folder {
        return Some(path.to_path_buf());
    }
    if !path.is_absolute() || path.components().any(|part| part == Component::ParentDir) {
        return None;
    }
    let folder = dirs?.dir(Cli::from_agent(agent)?).canonicalize().ok()?;
    let real = canonical(path)?;
    real.starts_with(&folder).then_some(real)
}

/// The canonical path of `path`, which need not exist yet (a transcript not written so far): its
/// deepest existing ancestor canonical, the rest as said (plain names only, checked above).
fn canonical(path: &Path) -> Option<PathBuf> {
    let mut existing = path;
    let mut rest = Vec::new();
    loop {
        match existing.canonicalize() {
            Ok(real) => return Some(rest.iter().rev().fold(real, |real, name| real.join(name))),
            Err(_) => {
                rest.push(existing.file_name()?);
                existing = existing.parent()?;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn copilot_home() -> (tempfile::TempDir, ConfigDirs) {
        let home = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(home.path().join(".copilot/session-state/s1")).unwrap();
        std::fs::write(home.path().join(".copilot/session-state/s1/events.jsonl"), "{}\n").unwrap();
        std::fs::write(home.path().join("secret.txt"), "secret\n").unwrap();
        let dirs = ConfigDirs::in_home(home.path());
        (home, dirs)
    }

    #[test]
    fn a_copilot_transcript_is_read_only_from_inside_its_folder() {
        let (home, dirs) = copilot_home();
        let inside = home.path().join(".copilot/session-state/s1/events.jsonl");
        let real = inside.canonicalize().unwrap();
        assert_eq!(confined("copilot", &inside, Some(&dirs)), Some(real.clone()));
        // Not written yet: still its place in the folder.
        let later = home.path().join(".copilot/session-state/s2/events.jsonl");
        assert!(confined("copilot", &later, Some(&dirs)).is_some_and(|path| path.ends_with("s2/events.jsonl")));
        // Outside, by name, by `..`, relative, or through a link in the folder.
        let secret = home.path().join("secret.txt");
        assert_eq!(confined("copilot", &secret, Some(&dirs)), None);
        let climbing = home.path().join(".copilot/session-state/../../secret.txt");
        assert_eq!(confined("copilot", &climbing, Some(&dirs)), None);
        assert_eq!(confined("copilot", Path::new("secret.txt"), Some(&dirs)), None);
        let link = home.path().join(".copilot/session-state/s3");
        std::os::unix::fs::symlink(home.path(), &link).unwrap();
        assert_eq!(confined("copilot", &link.join("secret.txt"), Some(&dirs)), None);
        // No folder known: nothing is read.
        assert_eq!(confined("copilot", &inside, None), None);
    }

    #[test]
    fn a_cli_that_names_its_own_transcripts_is_read_where_it_says() {
        let (home, dirs) = copilot_home();
        let anywhere = home.path().join("secret.txt");
        assert_eq!(confined("claude", &anywhere, Some(&dirs)), Some(anywhere.clone()));
        assert_eq!(confined("custom", &anywhere, None), Some(anywhere));
    }
}
