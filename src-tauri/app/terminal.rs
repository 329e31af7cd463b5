//! The one live terminal (issue 24): the selected agent's tmux pane, live and typable in the
//! details panel. A `tmux attach-session -f ignore-size` client runs in a PTY sized like the web
//! view's xterm; its output goes to the web view in batches, the user's keys come back in. At most
//! one is alive in the whole app: opening another ends the first, and the panel ends it when it
//! closes, so nothing runs when nobody looks. It attaches only to a pane tied to the session's
//! agent, by the same check answers use ([`answer::tied_pane`]).
//!
//! Why the client is killed before its PTY's writer is dropped: portable-pty's writer, when
//! dropped, writes a newline and the EOF character into the PTY — a live tmux client would type
//! them into the agent.

use std::io::{Read, Write};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, SyncSender, TryRecvError};
use std::sync::{Arc, Mutex, PoisonError};

use portable_pty::{native_pty_system, Child, ChildKiller, CommandBuilder, MasterPty, PtySize};
use switchboard_core::Session;
use switchboard_engine::instance::act::answer;

/// The smallest and largest terminal the web view may ask for (columns, rows).
const MIN_SIZE: u16 = 2;
const MAX_COLS: u16 = 1_000;
const MAX_ROWS: u16 = 500;
/// One read from the PTY; output is then sent in batches of at most [`MAX_BATCH`].
const READ_CHUNK: usize = 16 * 1024;
const MAX_BATCH: usize = 64 * 1024;
/// Reads waiting to be sent: past this the reader waits (and tmux with it) — at most
/// `QUEUED_READS × READ_CHUNK` bytes in flight.
const QUEUED_READS: usize = 64;
/// The most one `write` may carry (the web view splits a larger paste), and writes waiting.
pub const MAX_WRITE: usize = 64 * 1024;
const QUEUED_WRITES: usize = 64;

/// What the terminal hands the web view.
#[derive(Debug, PartialEq, Eq)]
pub enum Output {
    /// Bytes the tmux client wrote, as they came.
    Bytes(Vec<u8>),
    /// The tmux client exited by itself (detached, pane gone): why.
    Ended(String),
}

/// The message that says the terminal ended by itself (the web view's xterm stays, with why).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct TerminalEnded {
    pub ended: String,
}

/// Where output goes; `false` when nobody takes it any more (the web view went away), which
/// ends the terminal.
pub type Sink = Box<dyn FnMut(Output) -> bool + Send>;

/// Why the terminal was not opened, or a call on it failed.
#[derive(Debug, thiserror::Error)]
pub enum TerminalError {
    #[error("{0} is another machine's agent: its terminal opens only there (use Jump)")]
    Remote(String),
    #[error("{0}")]
    Untied(#[from] answer::AnswerError),
    #[error("a terminal of {cols}×{rows} is not one tmux can draw")]
    BadSize { cols: u16, rows: u16 },
    #[error("the terminal could not be started: {0}")]
    Start(String),
    #[error("that terminal is closed")]
    Closed,
    #[error("{0} bytes at once is more than a terminal takes ({MAX_WRITE} at most)")]
    TooLong(usize),
    #[error("the terminal is not taking input (tmux does not read it)")]
    Stalled,
    #[error("the terminal could not be resized: {0}")]
    Resize(String),
}

/// The tmux pane to attach to: its server's socket (`None`: the default server) and pane id.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Target {
    pub socket: Option<PathBuf>,
    pub pane: String,
}

impl Target {
    /// The session's pane, once it is tied to its agent; refused with the reason otherwise.
    pub fn of(session: &Session) -> Result<Self, TerminalError> {
        if !session.is_local() {
            return Err(TerminalError::Remote(session.host.clone()));
        }
        let pane = answer::tied_pane(session)?;
        Ok(Self { socket: pane.socket, pane: pane.id })
    }

    /// The tmux client's command line: attached without resizing anyone's view, on the pane.
    fn command(&self) -> CommandBuilder {
        let mut command = CommandBuilder::new("tmux");
        // xterm.js speaks UTF-8 whatever the app's locale says: agents draw boxes and symbols.
        command.arg("-u");
        if let Some(socket) = &self.socket {
            command.arg("-S");
            command.arg(socket);
        }
        let pane = self.pane.as_str();
        command.args(["attach-session", "-f", "ignore-size", "-t", pane]);
        command.args([";", "select-window", "-t", pane, ";", "select-pane", "-t", pane]);
        // Inside the app's own tmux (the app started from a pane), tmux refuses to nest.
        command.env_remove("TMUX");
        command.env_remove("TMUX_PANE");
        command.env("TERM", "xterm-256color");
        if let Some(home) = std::env::var_os("HOME") {
            command.cwd(home);
        }
        command
    }
}

fn size(cols: u16, rows: u16) -> Result<PtySize, TerminalError> {
    if !(MIN_SIZE..=MAX_COLS).contains(&cols) || !(MIN_SIZE..=MAX_ROWS).contains(&rows) {
        return Err(TerminalError::BadSize { cols, rows });
    }
    Ok(PtySize { cols, rows, pixel_width: 0, pixel_height: 0 })
}

/// One tmux client in its PTY. Dropping it kills the client (then closes the PTY).
pub struct Attached {
    pub id: u64,
    // Field order matters for Drop: the child is killed in `drop` before any of these go.
    child: Box<dyn Child + Send + Sync>,
    master: Box<dyn MasterPty + Send>,
    keys: Option<SyncSender<Vec<u8>>>,
    /// Set when the app closes it, so its end is not reported as the client's own.
    closing: Arc<AtomicBool>,
}

impl Attached {
    /// Starts `tmux attach-session` on `target` in a PTY of `cols`×`rows`; its output goes to
    /// `sink` from a thread of its own until the client exits or the terminal is closed.
    pub fn start(id: u64, target: &Target, cols: u16, rows: u16, sink: Sink) -> Result<Self, TerminalError> {
        let size = size(cols, rows)?;
        let start = |e: anyhow::Error| TerminalError::Start(e.to_string());
        let pair = native_pty_system().openpty(size).map_err(start)?;
        let child = pair.slave.spawn_command(target.command()).map_err(start)?;
        // Only the client holds the PTY's other end: when it exits, reads end.
        drop(pair.slave);
        let master = pair.master;
        let mut attached = Self { id, child, master, keys: None, closing: Arc::new(AtomicBool::new(false)) };
        let reader = attached.master.try_clone_reader().map_err(start)?;
        let writer = attached.master.take_writer().map_err(start)?;
        let (keys, typed) = mpsc::sync_channel(QUEUED_WRITES);
        attached.keys = Some(keys);
        spawn("terminal-keys", move || type_keys(writer, typed))?;
        let (read, batches) = mpsc::sync_channel(QUEUED_READS);
        spawn("terminal-read", move || read_output(reader, read))?;
        let (killer, closing) = (attached.child.clone_killer(), Arc::clone(&attached.closing));
        spawn("terminal-out", move || forward(batches, sink, killer, closing))?;
        Ok(attached)
    }

    /// Queues the user's keys for the tmux client; never waits on it.
    pub fn write(&self, data: &[u8]) -> Result<(), TerminalError> {
        if data.len() > MAX_WRITE {
            return Err(TerminalError::TooLong(data.len()));
        }
        let keys = self.keys.as_ref().ok_or(TerminalError::Closed)?;
        keys.try_send(data.to_vec()).map_err(|error| match error {
            mpsc::TrySendError::Full(_) => TerminalError::Stalled,
            mpsc::TrySendError::Disconnected(_) => TerminalError::Closed,
        })
    }

    /// The web view's xterm changed size: so does the PTY (tmux redraws for it).
    pub fn resize(&self, cols: u16, rows: u16) -> Result<(), TerminalError> {
        self.master.resize(size(cols, rows)?).map_err(|e| TerminalError::Resize(e.to_string()))
    }

    /// The tmux client's pid.
    #[cfg(test)]
    fn client_pid(&self) -> Option<u32> {
        self.child.process_id()
    }
}

impl Drop for Attached {
    fn drop(&mut self) {
        self.closing.store(true, Ordering::SeqCst);
        // SIGHUP (tmux detaches quietly), SIGKILL if it lingers; then reaped.
        let _ = self.child.kill();
        let _ = self.child.wait();
        // Only now may the writer go (see the module's note): the keys thread drops it.
        self.keys = None;
    }
}

fn spawn(name: &str, work: impl FnOnce() + Send + 'static) -> Result<(), TerminalError> {
    std::thread::Builder::new()
        .name(name.into())
        .spawn(work)
        .map(|_| ())
        .map_err(|e| TerminalError::Start(e.to_string()))
}

fn type_keys(mut writer: Box<dyn Write + Send>, typed: Receiver<Vec<u8>>) {
    for keys in typed {
        if writer.write_all(&keys).and_then(|()| writer.flush()).is_err() {
            break;
        }
    }
}

fn read_output(mut reader: Box<dyn Read + Send>, read: SyncSender<Vec<u8>>) {
    let mut buffer = vec![0; READ_CHUNK];
    loop {
        match reader.read(&mut buffer) {
            // EOF, or EIO once the client has exited and closed its end.
            Ok(0) => return,
            Ok(n) => {
                if read.send(buffer[..n].to_vec()).is_err() {
                    return;
                }
            }
            Err(error) if error.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => return,
        }
    }
}

/// Sends what was read in batches: everything queued (up to [`MAX_BATCH`]) goes as one message.
fn forward(
    batches: Receiver<Vec<u8>>,
    mut sink: Sink,
    mut killer: Box<dyn ChildKiller + Send + Sync>,
    closing: Arc<AtomicBool>,
) {
    while let Ok(mut batch) = batches.recv() {
        let mut ended = false;
        while batch.len() < MAX_BATCH {
            match batches.try_recv() {
                Ok(more) => batch.extend_from_slice(&more),
                Err(TryRecvError::Empty) => break,
                Err(TryRecvError::Disconnected) => {
                    ended = true;
                    break;
                }
            }
        }
        if closing.load(Ordering::SeqCst) {
            return;
        }
        if !sink(Output::Bytes(batch)) {
            // Nobody looks any more: the client goes (unless it is being closed, and so reaped:
            // its pid is not to be signalled then).
            if !closing.load(Ordering::SeqCst) {
                let _ = killer.kill();
            }
            return;
        }
        if ended {
            break;
        }
    }
    if !closing.load(Ordering::SeqCst) {
        sink(Output::Ended("tmux detached from the pane (the pane or its session is gone, or it was detached)".into()));
    }
}

/// The app's one live terminal.
#[derive(Default)]
pub struct LiveTerminal {
    current: Mutex<Option<Attached>>,
    next_id: Mutex<u64>,
}

impl LiveTerminal {
    /// Opens the terminal on `target`, ending the one open before (if any). Returns its id.
    pub fn open(&self, target: &Target, cols: u16, rows: u16, sink: Sink) -> Result<u64, TerminalError> {
        // The one before goes first: never two clients at once.
        drop(self.close_any());
        let id = {
            let mut next = self.next_id.lock().unwrap_or_else(PoisonError::into_inner);
            *next += 1;
            *next
        };
        let attached = Attached::start(id, target, cols, rows, sink)?;
        let replaced = self.current.lock().unwrap_or_else(PoisonError::into_inner).replace(attached);
        // Another open raced this one: the earlier one ends.
        drop(replaced);
        Ok(id)
    }

    pub fn write(&self, id: u64, data: &[u8]) -> Result<(), TerminalError> {
        self.with(id, |attached| attached.write(data))
    }

    pub fn resize(&self, id: u64, cols: u16, rows: u16) -> Result<(), TerminalError> {
        self.with(id, |attached| attached.resize(cols, rows))
    }

    /// Ends terminal `id`; a close for one already replaced or gone does nothing.
    pub fn close(&self, id: u64) -> bool {
        let taken = {
            let mut current = self.current.lock().unwrap_or_else(PoisonError::into_inner);
            if current.as_ref().is_some_and(|attached| attached.id == id) {
                current.take()
            } else {
                None
            }
        };
        // Killed outside the lock: it may take a moment.
        taken.is_some()
    }

    fn close_any(&self) -> Option<Attached> {
        self.current.lock().unwrap_or_else(PoisonError::into_inner).take()
    }

    /// The tmux client's pid while a terminal is open.
    #[cfg(test)]
    fn client_pid(&self) -> Option<u32> {
        self.current.lock().unwrap_or_else(PoisonError::into_inner).as_ref().and_then(Attached::client_pid)
    }

    fn with<T>(&self, id: u64, call: impl FnOnce(&Attached) -> Result<T, TerminalError>) -> Result<T, TerminalError> {
        let current = self.current.lock().unwrap_or_else(PoisonError::into_inner);
        match current.as_ref() {
            Some(attached) if attached.id == id => call(attached),
            _ => Err(TerminalError::Closed),
        }
    }
}

#[cfg(test)]
mod tests;
