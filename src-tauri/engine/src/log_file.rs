//! The desktop app's daily log file, `<state dir>/logs/switchboard.<YYYY-MM-DD>.log` (UTC), the
//! last [`KEPT_DAYS`] of them (issue 45). Opened our own way rather than by tracing-appender,
//! which follows whatever is at the path: each day's file is opened with `O_NOFOLLOW`, `0600`,
//! and only if this user owns it, so a link planted at tomorrow's name (`~/.bashrc`) is refused,
//! not written through. A day whose file is refused logs to stderr alone.

use std::fs::{self, File};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use crate::platform;

/// Days of logs kept; older files are removed when a day's file is opened.
pub const KEPT_DAYS: usize = 7;

const PREFIX: &str = "switchboard.";
const SUFFIX: &str = ".log";

/// Appends to the day's file, opening the next one when the (UTC) day changes.
#[derive(Debug)]
pub struct DailyFile {
    folder: PathBuf,
    /// The day (days since 1970) and its file, or `None` when that day's file was refused.
    open: Mutex<Option<(u64, Option<File>)>>,
}

impl DailyFile {
    /// The folder is made (`0700`, a looser one tightened) before anything is written in it.
    pub fn new(folder: &Path) -> io::Result<Self> {
        platform::create_private_dir(folder)?;
        platform::tighten(folder, 0o700)?;
        Ok(Self { folder: folder.to_path_buf(), open: Mutex::new(None) })
    }

    /// The file for `day` (days since 1970, UTC).
    pub fn path_of(&self, day: u64) -> PathBuf {
        self.folder.join(format!("{PREFIX}{}{SUFFIX}", date_of(day)))
    }

    /// Writes `bytes` to the file of `day`, whole.
    pub fn write_on(&self, day: u64, bytes: &[u8]) -> io::Result<()> {
        let mut open = self.open.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if open.as_ref().is_none_or(|(opened, _)| *opened != day) {
            let file = platform::open_private_append(&self.path_of(day));
            if let Err(error) = &file {
                // Said on stderr once a day: the log file itself is what was refused.
                eprintln!("switchboard: not logging to {}: {error}", self.path_of(day).display());
            }
            *open = Some((day, file.ok()));
            self.remove_old();
        }
        match open.as_mut().and_then(|(_, file)| file.as_mut()) {
            Some(file) => file.write_all(bytes),
            None => Ok(()),
        }
    }

    /// Removes our daily files past the newest [`KEPT_DAYS`] (names sort by date).
    fn remove_old(&self) {
        let Ok(entries) = fs::read_dir(&self.folder) else { return };
        let mut days: Vec<PathBuf> = entries
            .flatten()
            .filter(|entry| {
                let name = entry.file_name();
                let name = name.to_string_lossy();
                name.starts_with(PREFIX) && name.ends_with(SUFFIX) && name.len() == PREFIX.len() + 10 + SUFFIX.len()
            })
            .map(|entry| entry.path())
            .collect();
        days.sort();
        let old = days.len().saturating_sub(KEPT_DAYS);
        for path in &days[..old] {
            let _ = fs::remove_file(path);
        }
    }
}

/// `YYYY-MM-DD` of a day counted from 1970-01-01 (the proleptic Gregorian calendar).
fn date_of(day: u64) -> String {
    // Howard Hinnant's civil_from_days, for days on or after the epoch.
    let z = day + 719_468;
    let era = z / 146_097;
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + u64::from(m <= 2);
    format!("{y:04}-{m:02}-{d:02}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::{MetadataExt, PermissionsExt};

    #[test]
    fn days_are_named_by_their_utc_date() {
        assert_eq!(date_of(0), "1970-01-01");
        assert_eq!(date_of(59), "1970-03-01");
        assert_eq!(date_of(11_016), "2000-02-29");
        assert_eq!(date_of(20_426), "2025-12-04");
        assert_eq!(date_of(20_789), "2026-12-02");
    }

    #[test]
    fn a_days_file_is_0600_in_a_0700_folder_whatever_the_umask_and_old_days_go() {
        let home = tempfile::tempdir().unwrap();
        let logs = home.path().join("logs");
        // SAFETY: umask has no preconditions; this test only creates files under its temp dir.
        let old = unsafe { libc::umask(0) };
        let log = DailyFile::new(&logs);
        unsafe { libc::umask(old) };
        let log = log.unwrap();
        for day in 20_000..20_010 {
            log.write_on(day, b"line\n").unwrap();
        }
        let mode = |path: &Path| fs::metadata(path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&logs), 0o700);
        let kept: Vec<PathBuf> = fs::read_dir(&logs).unwrap().flatten().map(|entry| entry.path()).collect();
        assert_eq!(kept.len(), KEPT_DAYS, "{kept:?}");
        assert!(kept.iter().all(|path| mode(path) == 0o600));
        assert!(log.path_of(20_009).exists() && !log.path_of(20_002).exists());
    }

    #[test]
    fn a_link_planted_at_a_days_name_is_not_followed() {
        let home = tempfile::tempdir().unwrap();
        let target = home.path().join("bashrc");
        fs::write(&target, "# mine\n").unwrap();
        let log = DailyFile::new(&home.path().join("logs")).unwrap();
        std::os::unix::fs::symlink(&target, log.path_of(20_000)).unwrap();
        log.write_on(20_000, b"injected\n").unwrap();
        assert_eq!(fs::read_to_string(&target).unwrap(), "# mine\n", "the link's target is unchanged");
        assert!(fs::symlink_metadata(log.path_of(20_000)).unwrap().file_type().is_symlink());
        // The next day is a file of its own again.
        log.write_on(20_001, b"next\n").unwrap();
        assert_eq!(fs::read_to_string(log.path_of(20_001)).unwrap(), "next\n");
    }

    #[test]
    fn a_file_another_user_owns_is_refused_and_a_loose_one_of_ours_tightened() {
        let home = tempfile::tempdir().unwrap();
        let log = DailyFile::new(&home.path().join("logs")).unwrap();
        fs::write(log.path_of(20_000), "before\n").unwrap();
        fs::set_permissions(log.path_of(20_000), fs::Permissions::from_mode(0o666)).unwrap();
        log.write_on(20_000, b"after\n").unwrap();
        assert_eq!(fs::read_to_string(log.path_of(20_000)).unwrap(), "before\nafter\n");
        assert_eq!(fs::metadata(log.path_of(20_000)).unwrap().mode() & 0o777, 0o600);
        // Only root can give a file away; elsewhere the ownership check is left to the platform.
        // SAFETY: geteuid has no preconditions.
        if unsafe { libc::geteuid() } != 0 {
            return;
        }
        let theirs = log.path_of(20_001);
        fs::write(&theirs, "theirs\n").unwrap();
        std::os::unix::fs::chown(&theirs, Some(65_534), Some(65_534)).unwrap();
        log.write_on(20_001, b"ours\n").unwrap();
        assert_eq!(fs::read_to_string(&theirs).unwrap(), "theirs\n");
    }
}
