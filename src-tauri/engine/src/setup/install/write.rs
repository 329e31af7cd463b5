//! Writing settings back: the user's indent, a one-time backup, an atomic replace.

use std::fs::{self, Metadata, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::Value;

use super::read::Original;
use super::{io_error, InstallError};

/// The settings as pretty JSON, indented the way the original was (two spaces when unknown).
pub(super) fn render(settings: &Value, original: Option<&[u8]>) -> Vec<u8> {
    let indent = original.and_then(indent_of).unwrap_or_else(|| b"  ".to_vec());
    let mut out = Vec::new();
    let formatter = serde_json::ser::PrettyFormatter::with_indent(&indent);
    let mut serializer = serde_json::Serializer::with_formatter(&mut out, formatter);
    settings.serialize(&mut serializer).expect("a JSON value always serializes");
    out.push(b'\n');
    out
}

fn indent_of(text: &[u8]) -> Option<Vec<u8>> {
    text.split(|byte| *byte == b'\n').skip(1).find_map(|line| {
        let indent = line.iter().take_while(|byte| matches!(byte, b' ' | b'\t')).count();
        (indent > 0 && indent < line.len()).then(|| line[..indent].to_vec())
    })
}

/// Backs up the original (first run only), then replaces `target` atomically. Returns the
/// backup it made.
pub(super) fn write_settings(
    path: &Path,
    target: &Path,
    original: Option<&Original>,
    bytes: &[u8],
) -> Result<Option<PathBuf>, InstallError> {
    // The permission bits are checked, not just tried: root could write a file its owner made
    // read-only, and a rename would even replace it.
    if original.is_some_and(|original| original.metadata.permissions().readonly()) {
        return Err(InstallError::ReadOnly { path: target.to_owned() });
    }
    let dir = folder_of(target);
    match fs::metadata(dir) {
        Ok(metadata) if metadata.permissions().readonly() => {
            return Err(InstallError::ReadOnly { path: dir.to_owned() });
        }
        Ok(_) => {}
        Err(error) if error.kind() == io::ErrorKind::NotFound => {
            // The user's alone, whatever the umask (issue 45): the folder holds their settings.
            crate::platform::create_private_dir(dir).map_err(|error| io_error("create the folder", dir, error))?;
        }
        Err(error) => return Err(io_error("read", dir, error)),
    }
    let backup = match original {
        Some(original) => back_up(path, original)?,
        None => None,
    };
    replace_atomically(target, bytes, original.map(|original| &original.metadata))?;
    Ok(backup)
}

fn folder_of(path: &Path) -> &Path {
    path.parent().filter(|dir| !dir.as_os_str().is_empty()).unwrap_or(Path::new("."))
}

/// `<path>.switchboard.bak`, beside the settings file as the user names it. Made once: the
/// first original is the one worth keeping.
fn back_up(path: &Path, original: &Original) -> Result<Option<PathBuf>, InstallError> {
    let mut name = path.as_os_str().to_owned();
    name.push(".switchboard.bak");
    let backup = PathBuf::from(name);
    if fs::symlink_metadata(&backup).is_ok() {
        return Ok(None);
    }
    let write = || -> io::Result<()> {
        let mut options = OpenOptions::new();
        options.write(true).create_new(true);
        // Never readable by others, not even for the moment before its mode is set.
        crate::platform::create_mode(&mut options, 0o600);
        let mut file = options.open(&backup)?;
        // Settings can hold secrets: restrict the copy before it holds anything.
        file.set_permissions(original.metadata.permissions())?;
        file.write_all(&original.bytes)?;
        file.sync_all()
    };
    match write() {
        Ok(()) => Ok(Some(backup)),
        Err(error) if error.kind() == io::ErrorKind::AlreadyExists => Ok(None),
        Err(error) => {
            let _ = fs::remove_file(&backup);
            Err(io_error("back up to", &backup, error))
        }
    }
}

/// Writes `target` atomically, keeping the permissions of the file it replaces; a new file is
/// the user's alone (`0600`), whatever the umask (issue 45).
fn replace_atomically(target: &Path, bytes: &[u8], permissions_of: Option<&Metadata>) -> Result<(), InstallError> {
    let permissions = permissions_of.map(Metadata::permissions).or_else(|| crate::platform::permissions(0o600));
    crate::files::write_atomic(target, bytes, permissions).map_err(|error| io_error("write", target, error))
}

#[cfg(all(test, unix))]
mod tests {
    use super::super::testing::*;
    use super::super::{Cli, EditAction, InstallError, InstallOptions};
    use super::*;
    use serde_json::json;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn existing_settings_and_user_hooks_keep_their_order_and_indent() {
        for cli in Cli::all() {
            let home = home();
            let path = home.dirs.settings_file(cli);
            let (event, text) = user_settings(cli);
            write(&path, &text);
            let before: Value = serde_json::from_str(&text).unwrap();

            installed(&home, cli).result.unwrap();
            let after = json_at(&path);
            let keys: Vec<_> = after.as_object().unwrap().keys().cloned().collect();
            let flat = cli.setup().layout != switchboard_core::agent::Layout::Groups;
            let expected: &[&str] = match cli.agent() {
                "gemini" => &["theme", "hooks", "zzz", "hooksConfig"],
                _ if flat => &["theme", "hooks", "zzz", "version"],
                _ => &["theme", "hooks", "zzz"],
            };
            assert_eq!(keys, expected, "{cli:?}");
            assert_eq!(after["hooks"].as_object().unwrap().keys().next().unwrap(), event);
            assert_eq!(after["hooks"][event][0], before["hooks"][event][0], "the user's group stays first");
            assert_eq!(after["zzz"], json!([1, 2]));
            let written = fs::read_to_string(&path).unwrap();
            assert!(written.starts_with("{\n    \"theme\": \"dark\",\n    \"hooks\": {\n        \""), "{written}");
        }
    }

    #[test]
    fn a_read_only_file_is_refused_with_a_clear_error() {
        let home = home();
        let path = home.dirs.settings_file(claude());
        write(&path, "{}");
        fs::set_permissions(&path, fs::Permissions::from_mode(0o444)).unwrap();
        let outcome = installed(&home, claude());
        assert!(
            matches!(outcome.result, Err(InstallError::ReadOnly { ref path }) if path == &home.dirs.settings_file(claude()))
        );
        let message = outcome.to_string();
        assert!(message.starts_with("Claude Code: ") && message.contains("is read-only"), "{message}");
        assert_eq!(fs::read_to_string(&path).unwrap(), "{}");
        assert_eq!(listing(home.dirs.dir(claude())), ["settings.json"], "no backup, no temporary file");
    }

    #[test]
    fn a_read_only_folder_is_refused_with_a_clear_error() {
        let home = home();
        let path = home.dirs.settings_file(gemini());
        write(&path, "{}");
        fs::set_permissions(home.dirs.dir(gemini()), fs::Permissions::from_mode(0o555)).unwrap();
        let result = installed(&home, gemini()).result;
        fs::set_permissions(home.dirs.dir(gemini()), fs::Permissions::from_mode(0o755)).unwrap();
        assert!(
            matches!(result, Err(InstallError::ReadOnly { ref path }) if path == home.dirs.dir(gemini())),
            "{result:?}"
        );
        assert_eq!(fs::read_to_string(&path).unwrap(), "{}");
    }

    #[test]
    fn permissions_are_kept_and_the_backup_is_made_once() {
        let home = home();
        let path = home.dirs.settings_file(claude());
        write(&path, "{\"env\": {\"TOKEN\": \"secret\"}}");
        fs::set_permissions(&path, fs::Permissions::from_mode(0o600)).unwrap();
        let backup = PathBuf::from(format!("{}.switchboard.bak", path.display()));

        let first = installed(&home, claude());
        assert_eq!(first.result.as_ref().unwrap().backup.as_ref(), Some(&backup));
        assert!(first.to_string().contains("previous file is saved as"), "{first}");
        assert_eq!((mode(&path), mode(&backup)), (0o600, 0o600));

        // The binary moves: the hooks are repointed, and the first backup is kept as it was.
        let moved =
            run(&InstallOptions { command_path: "/usr/local/bin/switchboard".into(), ..options(&home, claude()) });
        let report = moved.result.as_ref().unwrap();
        assert_eq!(report.count(EditAction::Update), claude().events().len());
        assert_eq!(report.backup, None);
        assert!(
            moved
                .to_string()
                .contains(&format!("pointed {} hooks at this switchboard binary", claude().events().len())),
            "{moved}"
        );
        assert_eq!(fs::read_to_string(&backup).unwrap(), "{\"env\": {\"TOKEN\": \"secret\"}}");
        assert_eq!(mode(&path), 0o600);
    }
}
