//! Windows: the same questions as `unix.rs`, answered the Windows way. Compiled and its CLI run
//! under Wine in CI; not run on a real Windows here.
//!
//! Files have no Unix mode: Switchboard's state lives in the user's profile (`%APPDATA%`),
//! which the profile's ACL already keeps to the user, so modes are not set or checked.

use std::fs::{self, File, Metadata, OpenOptions};
use std::io;
use std::os::windows::fs::{MetadataExt, OpenOptionsExt};
use std::os::windows::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::Command;

const FILE_FLAG_OPEN_REPARSE_POINT: u32 = 0x0020_0000;
const CREATE_NEW_PROCESS_GROUP: u32 = 0x0000_0200;
const DETACHED_PROCESS: u32 = 0x0000_0008;

/// No FIFOs at a path to block on here; `no_follow` opens a symlink itself, not its target.
pub fn open_flags(options: &mut OpenOptions, _nonblocking: bool, no_follow: bool) -> &mut OpenOptions {
    if no_follow {
        options.custom_flags(FILE_FLAG_OPEN_REPARSE_POINT);
    }
    options
}

/// No mode: the profile's ACL keeps the file the user's.
pub fn create_mode(_options: &mut OpenOptions, _mode: u32) {}

pub fn create_with(_options: &mut OpenOptions, _permissions: &fs::Permissions) {}

pub fn permissions(_mode: u32) -> Option<fs::Permissions> {
    None
}

pub fn create_private_dir(path: &Path) -> io::Result<()> {
    fs::create_dir_all(path)
}

/// Opens `path` to append (and read), creating it; a symlink at the path is opened as itself and refused.
pub fn open_private_append(path: &Path) -> io::Result<File> {
    let mut options = OpenOptions::new();
    options.read(true).append(true).create(true);
    let file = open_flags(&mut options, false, true).open(path)?;
    let meta = file.metadata()?;
    if meta.file_type().is_symlink() || !meta.is_file() {
        return Err(io::Error::new(io::ErrorKind::InvalidInput, format!("{} is not a regular file", path.display())));
    }
    Ok(file)
}

pub fn tighten(_path: &Path, _mode: u32) -> io::Result<()> {
    Ok(())
}

/// Windows runs a file by its extension; the caller looked for one of `PATHEXT`'s.
pub fn is_executable(meta: &Metadata) -> bool {
    meta.is_file()
}

/// `name`, `name.exe`, `name.cmd`, … (`PATHEXT`) in `dir`: npm installs the CLIs as `.cmd`.
pub fn program_in(dir: &Path, name: &str) -> Option<PathBuf> {
    let extensions = std::env::var("PATHEXT").unwrap_or_else(|_| ".COM;.EXE;.BAT;.CMD".into());
    std::iter::once(String::new())
        .chain(extensions.split(';').filter(|ext| !ext.is_empty()).map(str::to_lowercase))
        .map(|ext| dir.join(format!("{name}{ext}")))
        .find(|path| fs::metadata(path).is_ok_and(|meta| meta.is_file()))
}

/// No inode: the creation time tells a file from the one that replaced it.
pub fn file_id(meta: &Metadata) -> u64 {
    meta.creation_time()
}

pub fn private_to_me(meta: &Metadata) -> bool {
    meta.is_file()
}

pub fn try_lock(file: &File) -> io::Result<bool> {
    match file.try_lock() {
        Ok(()) => Ok(true),
        Err(fs::TryLockError::WouldBlock) => Ok(false),
        Err(fs::TryLockError::Error(error)) => Err(error),
    }
}

pub fn detach(command: &mut Command) -> &mut Command {
    command.creation_flags(DETACHED_PROCESS | CREATE_NEW_PROCESS_GROUP)
}

pub fn own_group(command: &mut Command) -> &mut Command {
    command.creation_flags(CREATE_NEW_PROCESS_GROUP)
}

/// No exec on Windows: runs `command`, waits, and exits with its code.
pub fn exec(command: &mut Command) -> io::Error {
    match command.status() {
        Ok(status) => std::process::exit(status.code().unwrap_or(1)),
        Err(error) => error,
    }
}

/// No descriptor limit to raise (sockets are handles, limited by memory).
pub fn raise_fd_limit() -> Option<u64> {
    None
}

pub fn host_name() -> Option<String> {
    std::env::var("COMPUTERNAME").ok()
}

pub fn local_minute() -> Option<u16> {
    use windows_sys::Win32::Foundation::SYSTEMTIME;
    // SAFETY: GetLocalTime writes one SYSTEMTIME into `now`, which outlives the call.
    let mut now: SYSTEMTIME = unsafe { std::mem::zeroed() };
    unsafe { windows_sys::Win32::System::SystemInformation::GetLocalTime(&mut now) };
    Some((now.wHour * 60 + now.wMinute).min(1439))
}

pub fn terminal_width() -> Option<usize> {
    use windows_sys::Win32::System::Console::{
        GetConsoleScreenBufferInfo, GetStdHandle, CONSOLE_SCREEN_BUFFER_INFO, STD_OUTPUT_HANDLE,
    };
    // SAFETY: the call writes one CONSOLE_SCREEN_BUFFER_INFO into `info`, which outlives it.
    let mut info: CONSOLE_SCREEN_BUFFER_INFO = unsafe { std::mem::zeroed() };
    let answered = unsafe { GetConsoleScreenBufferInfo(GetStdHandle(STD_OUTPUT_HANDLE), &mut info) } != 0;
    let width = i32::from(info.srWindow.Right) - i32::from(info.srWindow.Left) + 1;
    usize::try_from(width).ok().filter(|&width| answered && width > 0)
}

/// `taskkill /T`: the process and every process it started (Windows has no SIGTERM; this ends
/// them at once).
pub fn terminate(pid: u32) -> io::Result<bool> {
    let status = Command::new("taskkill").args(["/PID", &pid.to_string(), "/T", "/F"]).output()?;
    if status.status.success() {
        Ok(true)
    } else {
        Err(io::Error::other(String::from_utf8_lossy(&status.stderr).trim().to_owned()))
    }
}

pub fn terminate_group(leader: u32) {
    let _ = terminate(leader);
}

/// Resolves at Ctrl+C or Ctrl+Break, or when the console closes (Windows has no SIGTERM).
pub fn shutdown_signal() -> impl std::future::Future<Output = ()> {
    use tokio::signal::windows::{ctrl_break, ctrl_c, ctrl_close};
    let (mut c, mut brk, mut close) = (ctrl_c().ok(), ctrl_break().ok(), ctrl_close().ok());
    async move {
        tokio::select! {
            Some(_) = async { c.as_mut()?.recv().await } => {}
            Some(_) = async { brk.as_mut()?.recv().await } => {}
            Some(_) = async { close.as_mut()?.recv().await } => {}
            else => std::future::pending().await,
        }
    }
}
