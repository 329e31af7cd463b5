//! The file of Switchboard's own a CLI loads to run its hooks (pi's extension, [`Bridge`]): planned
//! beside the hooks file and written the same careful way — never over a file that is not ours,
//! atomically, and only when it differs; taken out again by `--uninstall`.

use std::fs;
use std::io;
use std::path::PathBuf;

use switchboard_core::agent::Bridge;
use switchboard_core::hook_config::EditAction;

use super::{io_error, Cli, ConfigDirs, InstallError};

/// What an install or uninstall does to the CLI's bridge: nothing (`None`), or the change and
/// the file.
pub(super) fn plan(
    cli: Cli,
    dirs: &ConfigDirs,
    uninstall: bool,
) -> Result<Option<(EditAction, PathBuf)>, InstallError> {
    let Some(bridge) = cli.setup().bridge else { return Ok(None) };
    let path = dirs.dir(cli).join(bridge.file);
    let current = match fs::read(&path) {
        Ok(bytes) => Some(String::from_utf8_lossy(&bytes).into_owned()),
        Err(error) if error.kind() == io::ErrorKind::NotFound => None,
        Err(error) => return Err(io_error("read", &path, error)),
    };
    let ours = current.as_deref().map(|text| bridge.is_ours(text));
    let action = match (uninstall, current.as_deref(), ours) {
        (true, Some(_), Some(true)) => Some(EditAction::Remove),
        (true, _, _) => None,
        (false, None, _) => Some(EditAction::Add),
        (false, Some(_), Some(false)) => return Err(InstallError::NotOurs { path }),
        (false, Some(text), _) if text == bridge.source => None,
        (false, Some(_), _) => Some(EditAction::Update),
    };
    Ok(action.map(|action| (action, path)))
}

/// Carries out what [`plan`] found.
pub(super) fn apply(bridge: &Bridge, (action, path): &(EditAction, PathBuf)) -> Result<(), InstallError> {
    if *action == EditAction::Remove {
        return fs::remove_file(path).map_err(|error| io_error("remove", path, error));
    }
    // Folders it makes are 0700 and a new bridge 0600, whatever the umask; an update keeps the
    // mode the user gave the file (issue 45).
    if let Some(folder) = path.parent() {
        crate::platform::create_private_dir(folder).map_err(|error| io_error("create", folder, error))?;
    }
    let permissions = match fs::metadata(path) {
        Ok(existing) => Some(existing.permissions()),
        Err(_) => crate::platform::permissions(0o600),
    };
    crate::files::write_atomic(path, bridge.source.as_bytes(), permissions)
        .map_err(|error| io_error("write", path, error))
}

#[cfg(all(test, unix))]
mod tests {
    use super::super::testing::*;
    use super::super::InstallOptions;
    use super::*;

    fn pi() -> Cli {
        Cli::from_agent("pi").unwrap()
    }

    fn extension(home: &Home) -> PathBuf {
        home.dirs.dir(pi()).join("extensions/switchboard.ts")
    }

    #[test]
    fn pi_gets_its_hooks_file_and_the_extension_that_runs_it_and_loses_both_on_uninstall() {
        let home = home();
        let outcome = installed(&home, pi());
        let report = outcome.result.as_ref().unwrap();
        assert_eq!(report.bridge.as_ref().map(|(action, _)| *action), Some(EditAction::Add));
        let source = fs::read_to_string(extension(&home)).unwrap();
        assert!(source.starts_with("// Switchboard's bridge for pi"), "{source}");
        assert!(outcome.to_string().contains("extensions/switchboard.ts"), "{outcome}");

        let again = installed(&home, pi());
        assert!(!again.result.as_ref().unwrap().changed(), "{again}");

        // A new one is the user's alone, in folders of theirs alone (issue 45).
        assert_eq!(mode(&extension(&home)), 0o600);
        assert_eq!(mode(extension(&home).parent().unwrap()), 0o700);

        // An older bridge of ours is brought up to date, keeping the mode the user gave it.
        fs::write(extension(&home), "// Switchboard's bridge for pi (switchboard-bridge 0)\n").unwrap();
        fs::set_permissions(extension(&home), std::os::unix::fs::PermissionsExt::from_mode(0o640)).unwrap();
        let updated = installed(&home, pi());
        assert_eq!(updated.result.as_ref().unwrap().bridge.as_ref().map(|(a, _)| *a), Some(EditAction::Update));
        assert_eq!(fs::read_to_string(extension(&home)).unwrap(), source);
        assert_eq!(mode(&extension(&home)), 0o640);

        let removed = uninstalled(&home, pi());
        assert!(removed.result.is_ok(), "{removed}");
        assert!(!extension(&home).exists());
        assert!(!home.dirs.settings_file(pi()).exists(), "the emptied hooks file of our own goes too");
    }

    #[test]
    fn a_user_s_own_file_of_that_name_is_never_overwritten_or_removed() {
        let home = home();
        fs::create_dir_all(extension(&home).parent().unwrap()).unwrap();
        fs::write(extension(&home), "export default function (pi) { /* mine */ }\n").unwrap();
        let outcome = installed(&home, pi());
        assert!(matches!(outcome.result, Err(InstallError::NotOurs { .. })), "{outcome}");
        assert!(outcome.to_string().contains("not written by Switchboard"), "{outcome}");
        assert!(!home.dirs.settings_file(pi()).exists(), "nothing half-installed");
        uninstalled(&home, pi());
        assert!(fs::read_to_string(extension(&home)).unwrap().contains("mine"));
    }

    #[test]
    fn the_first_install_does_not_warn_that_the_bridge_it_writes_is_missing() {
        for agent in ["pi", "opencode"] {
            let home = home();
            let cli = Cli::from_agent(agent).unwrap();
            for dry_run in [true, false] {
                let outcome = run(&InstallOptions { dry_run, ..options(&home, cli) });
                let report = outcome.result.as_ref().unwrap();
                assert_eq!(report.bridge.as_ref().map(|(action, _)| *action), Some(EditAction::Add), "{outcome}");
                assert!(report.warnings.is_empty(), "{agent}, dry run {dry_run}: {outcome}");
                assert!(!outcome.to_string().contains("missing"), "{outcome}");
            }
        }
    }

    #[test]
    fn a_dry_run_names_the_extension_and_writes_nothing() {
        let home = home();
        let outcome = run(&InstallOptions { dry_run: true, ..options(&home, pi()) });
        assert!(outcome.to_string().contains("would"), "{outcome}");
        assert!(outcome.to_string().contains("extensions/switchboard.ts"), "{outcome}");
        assert!(!extension(&home).exists());
    }
}
