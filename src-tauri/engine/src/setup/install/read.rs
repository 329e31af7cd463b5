//! Reading a CLI's settings file: through any symlink, refusing what does not parse.

use std::fs::{self, Metadata};
use std::io;
use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use super::{io_error, Cli, InstallError};

/// A settings file as it is on disk.
pub(super) struct SettingsFile {
    /// The file a settings path names, through any symlinks.
    pub target: PathBuf,
    /// Its bytes and metadata; `None` when there is no file yet.
    pub original: Option<Original>,
    /// What it holds: empty settings for a missing or blank file.
    pub settings: Value,
}

/// The settings `path` holds for `cli`.
pub(super) fn load(cli: Cli, path: &Path) -> Result<SettingsFile, InstallError> {
    let target = resolve_links(path)?;
    let original = read_original(&target)?;
    let settings = parse_settings(cli, &target, original.as_ref().map(|original| original.bytes.as_slice()))?;
    Ok(SettingsFile { target, original, settings })
}

/// The file a settings path names, through any symlinks (relative targets resolve against the
/// link's folder). A dangling link gives its target, which install then creates.
fn resolve_links(path: &Path) -> Result<PathBuf, InstallError> {
    let mut path = path.to_owned();
    for _ in 0..40 {
        match fs::symlink_metadata(&path) {
            Ok(metadata) if metadata.file_type().is_symlink() => {
                let target = fs::read_link(&path).map_err(|error| io_error("read the link", &path, error))?;
                path = path.parent().map_or_else(|| target.clone(), |dir| dir.join(&target));
            }
            _ => return Ok(path),
        }
    }
    Err(io_error("follow", &path, io::Error::other("too many levels of symbolic links")))
}

pub(super) struct Original {
    pub bytes: Vec<u8>,
    pub metadata: Metadata,
}

fn read_original(target: &Path) -> Result<Option<Original>, InstallError> {
    match fs::read(target) {
        Ok(bytes) => {
            let metadata = fs::metadata(target).map_err(|error| io_error("read", target, error))?;
            Ok(Some(Original { bytes, metadata }))
        }
        Err(error) if error.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(error) => Err(io_error("read", target, error)),
    }
}

/// The settings in `bytes`; a missing or blank file is empty settings.
fn parse_settings(cli: Cli, path: &Path, bytes: Option<&[u8]>) -> Result<Value, InstallError> {
    let Some(bytes) = bytes.filter(|bytes| !bytes.iter().all(u8::is_ascii_whitespace)) else { return Ok(json!({})) };
    serde_json::from_slice(bytes).map_err(|error| {
        // A CLI that reads its settings with comments would lose them on a rewrite.
        if cli.setup().comments && serde_json::from_slice::<Value>(&without_comments(bytes)).is_ok() {
            return InstallError::HasComments { path: path.to_owned() };
        }
        let message = error.to_string();
        let reason = message.rsplit_once(" at line ").map_or(message.as_str(), |(reason, _)| reason).to_owned();
        InstallError::Unparsable { path: path.to_owned(), line: error.line(), column: error.column(), reason }
    })
}

/// `bytes` with `//` and `/* */` comments outside strings blanked out.
pub(crate) fn without_comments(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(bytes.len());
    let (mut i, mut in_string) = (0, false);
    while i < bytes.len() {
        let byte = bytes[i];
        if in_string {
            out.push(byte);
            if byte == b'\\' && i + 1 < bytes.len() {
                out.push(bytes[i + 1]);
                i += 1;
            } else if byte == b'"' {
                in_string = false;
            }
        } else if bytes[i..].starts_with(b"//") {
            while i < bytes.len() && bytes[i] != b'\n' {
                i += 1;
            }
            continue;
        } else if bytes[i..].starts_with(b"/*") {
            let end = bytes[i + 2..].windows(2).position(|pair| pair == b"*/").map_or(bytes.len(), |at| i + 2 + at + 2);
            out.push(b' ');
            i = end;
            continue;
        } else {
            in_string = byte == b'"';
            out.push(byte);
        }
        i += 1;
    }
    out
}

#[cfg(all(test, unix))]
mod tests {
    use super::super::testing::*;
    use super::*;
    use std::os::unix::fs::symlink;
    use switchboard_core::hook_config;

    #[test]
    fn broken_json_is_refused_by_name_and_line_and_left_byte_for_byte() {
        for cli in Cli::all() {
            let home = home();
            let path = home.dirs.settings_file(cli);
            let text = "{\n  \"hooks\": {\n    \"Stop\": [,]\n  }\n}\n";
            write(&path, text);
            let outcome = installed(&home, cli);
            let error = outcome.result.as_ref().unwrap_err();
            assert!(matches!(error, InstallError::Unparsable { line: 3, .. }), "{error:?}");
            let message = outcome.to_string();
            assert!(message.contains(&path.display().to_string()) && message.contains("line 3"), "{message}");
            assert_eq!(fs::read_to_string(&path).unwrap(), text);
            assert_eq!(listing(path.parent().unwrap()), [path.file_name().unwrap().to_string_lossy()]);
        }
    }

    #[test]
    fn gemini_settings_with_comments_are_refused_not_stripped() {
        let home = home();
        let path = home.dirs.settings_file(gemini());
        let text = "{\n  // my theme\n  \"ui\": {\"theme\": \"a//b\"} /* end */\n}\n";
        write(&path, text);
        let error = installed(&home, gemini()).result.unwrap_err();
        assert!(matches!(error, InstallError::HasComments { .. }), "{error:?}");
        assert_eq!(fs::read_to_string(&path).unwrap(), text);
        // Claude Code reads strict JSON, so there the same file is simply invalid.
        write(&home.dirs.settings_file(claude()), text);
        assert!(matches!(installed(&home, claude()).result, Err(InstallError::Unparsable { line: 2, .. })));
    }

    #[test]
    fn a_symlinked_settings_file_is_edited_through_the_link() {
        let home = home();
        let dotfiles = tempfile::tempdir().unwrap();
        let real = dotfiles.path().join("claude-settings.json");
        fs::write(&real, "{\"model\": \"opus\"}\n").unwrap();
        let link = home.dirs.settings_file(claude());
        fs::create_dir_all(home.dirs.dir(claude())).unwrap();
        symlink(&real, &link).unwrap();

        let outcome = installed(&home, claude());
        assert_eq!(outcome.result.as_ref().unwrap().target, real);
        assert!(fs::symlink_metadata(&link).unwrap().file_type().is_symlink(), "the link stays a link");
        assert_eq!(fs::read_link(&link).unwrap(), real);
        let settings = json_at(&real);
        assert_eq!(settings["model"], "opus");
        assert!(hook_config::installed(&settings, claude(), claude().events()).missing.is_empty());
        assert!(outcome.to_string().contains("through the link"), "{outcome}");
        // The backup sits beside the name the user knows, not in the dotfiles folder.
        assert!(Path::new(&format!("{}.switchboard.bak", link.display())).is_file());
        assert_eq!(listing(dotfiles.path()), ["claude-settings.json"]);
    }

    #[test]
    fn a_relative_symlink_resolves_against_its_folder() {
        let home = home();
        fs::create_dir_all(home.dirs.dir(codex()).join("real")).unwrap();
        symlink("real/hooks.json", home.dirs.settings_file(codex())).unwrap();
        installed(&home, codex()).result.unwrap();
        assert!(home.dirs.dir(codex()).join("real/hooks.json").is_file(), "a dangling link's target is created");
    }

    #[test]
    fn comments_are_blanked_outside_strings_only() {
        let text = br#"{"a": "http://x/*y*/", /* b */ "c": 1 // d
}"#;
        let value: Value = serde_json::from_slice(&without_comments(text)).unwrap();
        assert_eq!(value, json!({"a": "http://x/*y*/", "c": 1}));
    }
}
