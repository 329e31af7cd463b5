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
mod tests {
    use super::*;
    use std::path::Path;
    use std::time::{Duration, Instant};

    fn tmux(socket: &Path, args: &[&str]) -> String {
        let output = std::process::Command::new("tmux").arg("-S").arg(socket).args(args).output().expect("tmux");
        String::from_utf8_lossy(&output.stdout).trim().to_owned()
    }

    const AGENT: &str = include_str!("../tests/fixtures/stand-in-agent.py");

    fn eventually<T>(limit: Duration, mut check: impl FnMut() -> Option<T>) -> Option<T> {
        let started = Instant::now();
        loop {
            if let Some(value) = check() {
                return Some(value);
            }
            if started.elapsed() > limit {
                return None;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    /// A private tmux server with the stand-in agent in a 100×20 pane; killed when dropped.
    struct Server {
        dir: tempfile::TempDir,
        socket: PathBuf,
        pane: String,
    }

    impl Server {
        fn start() -> Self {
            let dir = tempfile::tempdir().unwrap();
            let socket = dir.path().join("tmux.sock");
            let script = dir.path().join("agent.py");
            std::fs::write(&script, AGENT).unwrap();
            let keys = dir.path().join("keys");
            let run = format!("exec python3 '{}' '{}'", script.display(), keys.display());
            let status = std::process::Command::new("tmux")
                .arg("-S")
                .arg(&socket)
                .args(["new-session", "-d", "-x", "100", "-y", "20", "-s", "agents", &run])
                .status()
                .expect("tmux");
            assert!(status.success());
            let pane = tmux(&socket, &["display-message", "-p", "-t", "agents", "#{pane_id}"]);
            eventually(Duration::from_secs(20), || {
                Some(()).filter(|()| tmux(&socket, &["capture-pane", "-p", "-t", &pane]).contains("STAND-IN AGENT"))
            })
            .expect("the stand-in agent is up");
            Self { dir, socket, pane }
        }

        fn keys(&self) -> String {
            String::from_utf8_lossy(&std::fs::read(self.dir.path().join("keys")).unwrap_or_default()).into_owned()
        }

        fn target(&self) -> Target {
            Target { socket: Some(self.socket.clone()), pane: self.pane.clone() }
        }

        fn clients(&self) -> String {
            tmux(
                &self.socket,
                &["list-clients", "-F", "#{client_pid} #{client_width}x#{client_height} #{client_flags}"],
            )
        }
    }

    impl Drop for Server {
        fn drop(&mut self) {
            let _ = std::process::Command::new("tmux").arg("-S").arg(&self.socket).arg("kill-server").output();
        }
    }

    /// What a test's sink saw: the bytes, and the end the client reported.
    type Seen = Arc<Mutex<(Vec<u8>, Option<String>)>>;

    /// A sink that keeps everything, readable from the test.
    fn recorder() -> (Sink, Seen) {
        let seen = Arc::new(Mutex::new((Vec::new(), None)));
        let into = Arc::clone(&seen);
        let sink: Sink = Box::new(move |output| {
            let mut seen = into.lock().unwrap();
            match output {
                Output::Bytes(bytes) => seen.0.extend_from_slice(&bytes),
                Output::Ended(why) => seen.1 = Some(why),
            }
            true
        });
        (sink, seen)
    }

    /// The user's own terminal on the agents' session, `cols`×`rows`, as a plain PTY.
    struct UserClient {
        child: Box<dyn Child + Send + Sync>,
        // Held open: the client's terminal.
        _master: Box<dyn MasterPty + Send>,
    }

    impl UserClient {
        fn attach(server: &Server, cols: u16, rows: u16) -> Self {
            let pair = native_pty_system().openpty(size(cols, rows).unwrap()).unwrap();
            let mut command = CommandBuilder::new("tmux");
            command.args(["-u", "-S"]);
            command.arg(&server.socket);
            command.args(["attach-session", "-t", "agents"]);
            command.env_remove("TMUX");
            command.env("TERM", "xterm-256color");
            let child = pair.slave.spawn_command(command).unwrap();
            drop(pair.slave);
            let mut reader = pair.master.try_clone_reader().unwrap();
            std::thread::spawn(move || std::io::copy(&mut reader, &mut std::io::sink()));
            Self { child, _master: pair.master }
        }
    }

    impl Drop for UserClient {
        fn drop(&mut self) {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }

    #[test]
    fn attaches_to_the_pane_shows_its_screen_and_types_into_it_without_resizing_it() {
        let server = Server::start();
        let window =
            || tmux(&server.socket, &["display-message", "-p", "-t", &server.pane, "#{window_width}x#{window_height}"]);
        // The user looks at the agents in a terminal of their own, 100×21 (a line for tmux's status).
        let _user = UserClient::attach(&server, 100, 21);
        eventually(Duration::from_secs(20), || {
            Some(()).filter(|()| server.clients().lines().count() == 1 && window() == "100x20")
        })
        .unwrap_or_else(|| panic!("the user's client: {} {}", server.clients(), window()));

        let terminal = LiveTerminal::default();
        let (sink, seen) = recorder();
        let id = terminal.open(&server.target(), 60, 15, sink).expect("attached");
        let shows = |text: &str| String::from_utf8_lossy(&seen.lock().unwrap().0).contains(text);
        eventually(Duration::from_secs(20), || Some(()).filter(|()| shows("STAND-IN AGENT"))).unwrap_or_else(|| {
            panic!("the client drew the pane: {:?}", String::from_utf8_lossy(&seen.lock().unwrap().0))
        });
        let pid = terminal.client_pid().expect("a client");
        let ours = || server.clients().lines().find(|line| line.starts_with(&format!("{pid} "))).map(str::to_owned);
        assert!(
            ours().is_some_and(|line| line.contains(" 60x15 ") && line.contains("ignore-size")),
            "{}",
            server.clients()
        );

        terminal.write(id, b"x").unwrap();
        eventually(Duration::from_secs(20), || Some(()).filter(|()| server.keys() == "x"))
            .unwrap_or_else(|| panic!("the agent got the key: {:?}", server.keys()));

        terminal.resize(id, 80, 24).unwrap();
        eventually(Duration::from_secs(20), || ours().filter(|line| line.contains(" 80x24 ")))
            .unwrap_or_else(|| panic!("the client took the new size: {}", server.clients()));
        // -f ignore-size: the user's own view keeps its size, whatever size the panel has.
        assert_eq!(window(), "100x20");

        assert!(terminal.close(id));
        assert!(terminal.client_pid().is_none());
        eventually(Duration::from_secs(20), || Some(()).filter(|()| ours().is_none()))
            .unwrap_or_else(|| panic!("the client is gone: {}", server.clients()));
        assert!(!Path::new(&format!("/proc/{pid}")).exists(), "the client was reaped");
        assert_eq!(server.clients().lines().count(), 1, "the user's client stays: {}", server.clients());
        assert_eq!(terminal.write(id, b"y").unwrap_err().to_string(), TerminalError::Closed.to_string());
        // Closing typed nothing (no newline, no EOF) into the agent.
        let marker = "after-close";
        tmux(&server.socket, &["send-keys", "-t", &server.pane, "-l", marker]);
        eventually(Duration::from_secs(20), || Some(()).filter(|()| server.keys().ends_with(marker)))
            .expect("the marker arrived");
        assert_eq!(server.keys(), format!("x{marker}"));
        assert!(seen.lock().unwrap().1.is_none(), "a close by the app is not reported as tmux's own end");
    }

    #[test]
    fn one_terminal_at_a_time_and_a_stale_close_leaves_the_new_one() {
        let server = Server::start();
        let terminal = LiveTerminal::default();
        let first = terminal.open(&server.target(), 40, 10, recorder().0).unwrap();
        let first_pid = terminal.client_pid().unwrap();
        let second = terminal.open(&server.target(), 40, 10, recorder().0).unwrap();
        let second_pid = terminal.client_pid().unwrap();
        assert_ne!(first, second);
        assert_ne!(first_pid, second_pid);
        assert!(!Path::new(&format!("/proc/{first_pid}")).exists(), "the first client was ended and reaped");
        assert!(!terminal.close(first), "a close for the replaced one does nothing");
        assert_eq!(terminal.client_pid(), Some(second_pid));
        assert!(terminal.write(first, b"z").is_err(), "keys for the replaced one go nowhere");
        assert!(terminal.close(second));
        assert!(server.keys().is_empty(), "{:?}", server.keys());
    }

    #[test]
    fn the_client_ending_by_itself_is_reported() {
        let server = Server::start();
        let terminal = LiveTerminal::default();
        let (sink, seen) = recorder();
        let id = terminal.open(&server.target(), 40, 10, sink).unwrap();
        eventually(Duration::from_secs(20), || Some(()).filter(|()| !server.clients().is_empty())).expect("attached");
        tmux(&server.socket, &["detach-client", "-s", "agents"]);
        let why = eventually(Duration::from_secs(20), || seen.lock().unwrap().1.clone()).expect("the end is reported");
        assert!(why.contains("detached"), "{why}");
        assert!(terminal.close(id), "still the current one until the web view closes it");
    }

    #[test]
    fn bad_sizes_and_long_writes_are_refused() {
        assert!(matches!(size(0, 10), Err(TerminalError::BadSize { .. })));
        assert!(matches!(size(80, 60_000), Err(TerminalError::BadSize { .. })));
        assert!(size(80, 24).is_ok());
        let server = Server::start();
        let terminal = LiveTerminal::default();
        assert!(matches!(terminal.open(&server.target(), 1, 1, recorder().0), Err(TerminalError::BadSize { .. })));
        assert!(terminal.client_pid().is_none());
        let id = terminal.open(&server.target(), 40, 10, recorder().0).unwrap();
        assert!(matches!(terminal.write(id, &vec![b'a'; MAX_WRITE + 1]), Err(TerminalError::TooLong(_))));
        assert!(matches!(terminal.resize(id, 0, 0), Err(TerminalError::BadSize { .. })));
        assert!(terminal.close(id));
        assert!(server.keys().is_empty());
    }

    #[test]
    fn a_remote_or_untied_session_is_refused_with_the_reason() {
        let event =
            switchboard_core::normalize("custom", &serde_json::json!({"sessionId": "s", "status": "working"}), 1)
                .unwrap();
        let mut session = switchboard_core::Reducer::new().apply(&event, false).unwrap().session;
        let why = Target::of(&session).unwrap_err().to_string();
        assert!(why.contains("does not run in tmux"), "{why}");
        session.host = "devbox".into();
        let why = Target::of(&session).unwrap_err().to_string();
        assert!(why.contains("devbox is another machine's agent"), "{why}");
    }
}
