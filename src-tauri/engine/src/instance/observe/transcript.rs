//! Which file a session's transcript is, if Switchboard may read it (issue 45). A hook's payload
//! names it, and a payload can name any file: `peek` once showed an outside file's content for a
//! Copilot CLI session. A CLI whose transcripts live in its own folder (its row's
//! `transcript_in`: Copilot CLI's `session-state/<id>/events.jsonl`) has them read only from
//! there — the path made absolute and canonical (no `..`, no symlink out of the folder), the
//! folder canonical too. The CLI's folder may also be one this process does not know (its
//! `$COPILOT_HOME` set for the CLI alone, not for the app): then only that very session's
//! transcript, by the row's place for it (`…/session-state/<this id>/events.jsonl`), with no
//! link anywhere on its path, is read. Every reader of a transcript (peek's last turn, the
//! watch, the meter, the titles) asks here first.

use std::path::{Component, Path, PathBuf};

use switchboard_core::hook_config::{Cli, ConfigDirs};
use switchboard_core::Session;

/// The session's transcript as it may be read, or `None` (none said, or one outside its CLI's
/// folder). The CLIs' folders are this process's (`$HOME`, `$COPILOT_HOME`, …).
pub fn readable(session: &Session) -> Option<PathBuf> {
    let path = session.transcript_path.as_deref()?;
    confined(&session.agent, &session.session_id, Path::new(path), ConfigDirs::from_env().as_ref())
}

/// `path` as `agent`'s transcript for `session_id`: as said for a CLI whose row does not keep them
/// in its folder; else canonical and inside that folder — or, wherever the folder is, exactly
/// this session's transcript by the row's place for it, no link on its path — or `None`.
pub fn confined(agent: &str, session_id: &str, path: &Path, dirs: Option<&ConfigDirs>) -> Option<PathBuf> {
    let Some(template) =
        switchboard_core::agent(agent).and_then(|agent| agent.setup.as_ref()).and_then(|setup| setup.transcript_in)
    else {
        return Some(path.to_path_buf());
    };
    if !path.is_absolute() || path.components().any(|part| part == Component::ParentDir) {
        return None;
    }
    let real = canonical(path)?;
    let folder = dirs.and_then(|dirs| dirs.dir(Cli::from_agent(agent)?).canonicalize().ok());
    if folder.is_some_and(|folder| real.starts_with(folder)) {
        return Some(real);
    }
    let plain_id =
        !session_id.is_empty() && !session_id.contains(['/', '\\']) && session_id != "." && session_id != "..";
    let its_own = plain_id && real == path && real.ends_with(template.replace("{id}", session_id));
    its_own.then_some(real)
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
        assert_eq!(confined("copilot", "s1", &inside, Some(&dirs)), Some(real.clone()));
        // Not written yet: still its place in the folder.
        let later = home.path().join(".copilot/session-state/s2/events.jsonl");
        assert!(confined("copilot", "s1", &later, Some(&dirs)).is_some_and(|path| path.ends_with("s2/events.jsonl")));
        // Outside, by name, by `..`, relative, or through a link in the folder.
        let secret = home.path().join("secret.txt");
        assert_eq!(confined("copilot", "s1", &secret, Some(&dirs)), None);
        let climbing = home.path().join(".copilot/session-state/../../secret.txt");
        assert_eq!(confined("copilot", "s1", &climbing, Some(&dirs)), None);
        assert_eq!(confined("copilot", "s1", Path::new("secret.txt"), Some(&dirs)), None);
        let link = home.path().join(".copilot/session-state/s3");
        std::os::unix::fs::symlink(home.path(), &link).unwrap();
        assert_eq!(confined("copilot", "s1", &link.join("secret.txt"), Some(&dirs)), None);
    }

    /// `$COPILOT_HOME` set for the CLI alone: its folder is not this process's. Only that
    /// session's own transcript, by its place, with no link on the way, is read there.
    #[test]
    fn a_copilot_folder_this_process_does_not_know_gives_only_the_sessions_own_transcript() {
        let (home, dirs) = copilot_home();
        let elsewhere = tempfile::tempdir().unwrap();
        let root = elsewhere.path().canonicalize().unwrap();
        std::fs::create_dir_all(root.join("session-state/s1")).unwrap();
        let own = root.join("session-state/s1/events.jsonl");
        std::fs::write(&own, "{}\n").unwrap();
        assert_eq!(confined("copilot", "s1", &own, Some(&dirs)), Some(own.clone()));
        assert_eq!(confined("copilot", "s1", &own, None), Some(own.clone()), "no folder known at all");
        assert_eq!(confined("copilot", "s2", &own, Some(&dirs)), None, "another session's");
        std::fs::write(root.join("secret.txt"), "secret\n").unwrap();
        assert_eq!(confined("copilot", "s1", &root.join("secret.txt"), Some(&dirs)), None);
        // A link on the way (a folder, or the file itself) is refused.
        std::os::unix::fs::symlink(root.join("session-state"), root.join("linked")).unwrap();
        assert_eq!(confined("copilot", "s1", &root.join("linked/s1/events.jsonl"), Some(&dirs)), None);
        std::fs::create_dir_all(root.join("x/session-state/s1")).unwrap();
        std::os::unix::fs::symlink(home.path().join("secret.txt"), root.join("x/session-state/s1/events.jsonl"))
            .unwrap();
        assert_eq!(confined("copilot", "s1", &root.join("x/session-state/s1/events.jsonl"), Some(&dirs)), None);
    }

    #[test]
    fn a_cli_that_names_its_own_transcripts_is_read_where_it_says() {
        let (home, dirs) = copilot_home();
        let anywhere = home.path().join("secret.txt");
        assert_eq!(confined("claude", "s1", &anywhere, Some(&dirs)), Some(anywhere.clone()));
        assert_eq!(confined("custom", "s1", &anywhere, None), Some(anywhere));
    }
}
