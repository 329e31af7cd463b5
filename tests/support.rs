//! Shared helpers: a real `switchboard serve` in a temp dir, raw HTTP over TCP, fixtures.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;
use switchboard_engine::endpoint::Endpoint;

pub const BIN: &str = env!("CARGO_BIN_EXE_switchboard");

pub fn fixture(name: &str) -> Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(name);
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// Polls `check` until it returns `Some`, for at most `limit`.
pub fn eventually<T>(limit: Duration, mut check: impl FnMut() -> Option<T>) -> Option<T> {
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

/// A `switchboard serve --no-notify` process with its own state directory.
pub struct Serve {
    pub child: Child,
    pub home: tempfile::TempDir,
    pub endpoint: Endpoint,
}

impl Serve {
    pub fn start() -> Self {
        Self::start_with_env(&[])
    }

    pub fn start_with_env(env: &[(&str, &Path)]) -> Self {
        Self::start_in(tempfile::tempdir().unwrap(), env)
    }

    /// Starts with a hard limit of `descriptors` open files (soft and hard), as a box with a
    /// low `ulimit -Hn` has.
    pub fn start_with_descriptors(descriptors: u64) -> Self {
        let home = tempfile::tempdir().unwrap();
        let mut command = Command::new(BIN);
        // SAFETY: setrlimit only, between fork and exec.
        unsafe {
            std::os::unix::process::CommandExt::pre_exec(&mut command, move || {
                let limit = libc::rlimit { rlim_cur: descriptors, rlim_max: descriptors };
                libc::setrlimit(libc::RLIMIT_NOFILE, &limit);
                Ok(())
            });
        }
        Self::start_command(command, home, &[])
    }

    /// Starts in an existing state directory (a restart).
    pub fn start_in(home: tempfile::TempDir, env: &[(&str, &Path)]) -> Self {
        Self::start_command(Command::new(BIN), home, env)
    }

    /// Starts with what it logs (its stderr) written to `log`, read by nobody else.
    pub fn start_logging_to(log: &Path) -> Self {
        let mut command = Command::new(BIN);
        command.stderr(std::fs::File::create(log).unwrap());
        Self::start_set_up(command, tempfile::tempdir().unwrap(), &[])
    }

    fn start_command(mut command: Command, home: tempfile::TempDir, env: &[(&str, &Path)]) -> Self {
        command.stderr(Stdio::piped());
        Self::start_set_up(command, home, env)
    }

    fn start_set_up(mut command: Command, home: tempfile::TempDir, env: &[(&str, &Path)]) -> Self {
        let child = command
            .args(["serve", "--no-notify"])
            .env("SWITCHBOARD_HOME", home.path())
            .envs(env.iter().copied())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .spawn()
            .unwrap();
        let endpoint =
            eventually(Duration::from_secs(20), || Endpoint::read(home.path())).expect("endpoint.json appears");
        Self { child, home, endpoint }
    }

    pub fn addr(&self) -> SocketAddr {
        self.endpoint.addr()
    }

    pub fn home(&self) -> &Path {
        self.home.path()
    }

    pub fn post(&self, agent: &str, body: &Value) -> u16 {
        let path = format!("/hook/{agent}?key={}", self.endpoint.key);
        request(self.addr(), "POST", &path, body.to_string().as_bytes()).0
    }

    /// POSTs a hook as the forwarder would from `process` (its `X-Switchboard-Agent` report).
    pub fn post_from(&self, agent: &str, body: &Value, process: &Value) {
        let path = format!("/hook/{agent}?key={}", self.endpoint.key);
        let header = format!("{}: {process}\r\n", switchboard_engine::protocol::PROCESS_HEADER);
        let deadline = Instant::now() + Duration::from_secs(5);
        let response = switchboard_engine::client::request_until(
            self.addr(),
            "POST",
            &path,
            &header,
            body.to_string().as_bytes(),
            deadline,
        )
        .unwrap();
        assert_eq!(response.status, 204);
    }

    pub fn sessions(&self) -> Value {
        let path = format!("/sessions?key={}", self.endpoint.key);
        let response = switchboard_engine::client::get_large(self.addr(), &path, Duration::from_secs(20)).unwrap();
        assert_eq!(response.status, 200);
        serde_json::from_slice(&response.body).unwrap()
    }

    pub fn session(&self, id: &str) -> Option<Value> {
        self.sessions()["sessions"].as_array().unwrap().iter().find(|s| s["sessionId"] == id).cloned()
    }

    /// Waits until the session satisfies `check` (events reach the reducer asynchronously).
    pub fn wait_for(&self, id: &str, check: impl Fn(&Value) -> bool) -> Value {
        eventually(Duration::from_secs(5), || self.session(id).filter(|s| check(s)))
            .unwrap_or_else(|| panic!("session {id} never matched; last seen {:?}", self.session(id)))
    }

    /// The session's history entries as the store has them (written within a second or so),
    /// once one contains `wanted`; all of them, joined by newlines.
    pub fn history_with(&self, id: &str, wanted: &str) -> String {
        let path = self.home().join(switchboard_engine::instance::outputs::store::DATABASE_FILE);
        let read = || -> Option<String> {
            let conn = rusqlite::Connection::open_with_flags(&path, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY).ok()?;
            let mut query = conn.prepare("SELECT entry FROM history WHERE session_id = ?1 ORDER BY id").ok()?;
            let rows = query.query_map([id], |row| row.get::<_, String>(0)).ok()?;
            Some(rows.flatten().collect::<Vec<_>>().join("\n"))
        };
        eventually(Duration::from_secs(20), || read().filter(|all| all.contains(wanted)))
            .unwrap_or_else(|| read().unwrap_or_default())
    }

    /// Stops with SIGTERM and hands back the state directory and what serve printed.
    pub fn stop(mut self) -> (tempfile::TempDir, String) {
        let status = self.terminate();
        assert!(status.success(), "{status:?}");
        let mut stderr = String::new();
        if let Some(mut pipe) = self.child.stderr.take() {
            let _ = pipe.read_to_string(&mut stderr);
        }
        let home = std::mem::replace(&mut self.home, tempfile::tempdir().unwrap());
        (home, stderr)
    }

    pub fn terminate(&mut self) -> std::process::ExitStatus {
        let pid = libc::pid_t::try_from(self.child.id()).unwrap();
        // SAFETY: sends SIGTERM to our own child process.
        unsafe { libc::kill(pid, libc::SIGTERM) };
        self.child.wait().unwrap()
    }
}

impl Drop for Serve {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// One HTTP/1.1 request over a fresh connection; returns status and body.
pub fn request(addr: SocketAddr, method: &str, path: &str, body: &[u8]) -> (u16, Vec<u8>) {
    let response = switchboard_engine::client::request(addr, method, path, body, Duration::from_secs(10)).unwrap();
    (response.status, response.body)
}

/// Writes raw bytes and reads whatever comes back until the server closes or `timeout`.
pub fn raw(addr: SocketAddr, bytes: &[u8], timeout: Duration) -> Vec<u8> {
    let mut stream = TcpStream::connect(addr).unwrap();
    stream.set_read_timeout(Some(timeout)).unwrap();
    let _ = stream.write_all(bytes);
    let mut response = Vec::new();
    let _ = stream.read_to_end(&mut response);
    response
}

/// Runs `switchboard <args>` with `stdin`, in the given state dir.
pub fn run(home: &Path, args: &[&str], stdin: &[u8]) -> Output {
    let mut child = Command::new(BIN)
        .args(args)
        .env("SWITCHBOARD_HOME", home)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut pipe = child.stdin.take().unwrap();
    let input = stdin.to_vec();
    let writer = std::thread::spawn(move || {
        let _ = pipe.write_all(&input);
    });
    let output = child.wait_with_output().unwrap();
    let _ = writer.join();
    output
}

pub fn temp_home() -> PathBuf {
    tempfile::tempdir().unwrap().keep()
}
