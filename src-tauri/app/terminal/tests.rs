use super::*;
use std::path::Path;
use std::time::{Duration, Instant};

fn tmux(socket: &Path, args: &[&str]) -> String {
    let output = std::process::Command::new("tmux").arg("-S").arg(socket).args(args).output().expect("tmux");
    String::from_utf8_lossy(&output.stdout).trim().to_owned()
}

const AGENT: &str = include_str!("../../../tests/fixtures/stand-in-agent.py");

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
        tmux(&self.socket, &["list-clients", "-F", "#{client_pid} #{client_width}x#{client_height} #{client_flags}"])
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
    eventually(Duration::from_secs(20), || Some(()).filter(|()| shows("STAND-IN AGENT")))
        .unwrap_or_else(|| panic!("the client drew the pane: {:?}", String::from_utf8_lossy(&seen.lock().unwrap().0)));
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
        switchboard_core::normalize("custom", &serde_json::json!({"sessionId": "s", "status": "working"}), 1).unwrap();
    let mut session = switchboard_core::Reducer::new().apply(&event, false).unwrap().session;
    let why = Target::of(&session).unwrap_err().to_string();
    assert!(why.contains("does not run in tmux"), "{why}");
    session.host = "devbox".into();
    let why = Target::of(&session).unwrap_err().to_string();
    assert!(why.contains("devbox is another machine's agent"), "{why}");
}
