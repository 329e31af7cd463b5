//! The harness: the real `switchboard-app` binary driven through `tauri-driver` and
//! `WebKitWebDriver`, its hook server found through `endpoint.json` in a private state directory,
//! and the X focus moved with `xdotool` (there is no window manager under Xvfb).

use std::fs::File;
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use fantoccini::{Client, ClientBuilder, Locator};
use serde_json::{json, Value};
use switchboard_engine::endpoint::Endpoint;
use tokio::sync::{Mutex, MutexGuard};

/// The app under test: the binary cargo built with this test, or `SWITCHBOARD_E2E_APP` (e.g. a
/// release build, for the measurements).
pub fn app_path() -> String {
    std::env::var("SWITCHBOARD_E2E_APP").unwrap_or_else(|_| env!("CARGO_BIN_EXE_switchboard-app").to_owned())
}

/// WebDriver ports, the notification bus name and X focus are shared by the whole machine: one
/// test at a time, even when the suite is run without `--test-threads=1`.
static SERIAL: Mutex<()> = Mutex::const_new(());

/// Polls `check` every 10 ms until it returns `Some`, for at most `limit`.
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

/// Evaluates `script` in the web view every 20 ms until it returns something truthy (not null,
/// false or ""), and returns that; bounded at 20 s, for a slower machine.
pub async fn wait_for(app: &App, what: &str, script: &str, args: Vec<Value>) -> Value {
    let started = Instant::now();
    loop {
        let value = app.client.execute(script, args.clone()).await.expect(what);
        if !matches!(value, Value::Null | Value::Bool(false)) && value != Value::String(String::new()) {
            return value;
        }
        assert!(started.elapsed() < Duration::from_secs(20), "never: {what}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

pub fn fixture(name: &str) -> Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(name);
    serde_json::from_str(&std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display())))
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// A fixture with its `session_id` (and optionally `cwd`, hence the node title) replaced.
pub fn hook(name: &str, session_id: &str, cwd: Option<&str>) -> Value {
    let mut body = fixture(name);
    body["session_id"] = json!(session_id);
    if let Some(cwd) = cwd {
        body["cwd"] = json!(cwd);
    }
    body
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0").and_then(|listener| listener.local_addr()).expect("a free port").port()
}

/// What the web view shows for one node, read in one script so the fields are consistent.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NodeView {
    pub status: String,
    pub unread: bool,
    pub dot: bool,
    pub selected: bool,
    pub badge: String,
    pub reason: String,
}

const READ_NODE: &str = r#"
const node = document.querySelector(`[data-testid="session-node"][data-session-id="${CSS.escape(arguments[0])}"]`);
if (!node) return null;
const text = (sel) => { const el = node.querySelector(sel); return el ? el.textContent : ""; };
return {
  status: node.dataset.status,
  unread: node.dataset.unread === "true",
  dot: node.querySelector('[data-testid="unread-dot"]') !== null,
  selected: node.classList.contains("is-selected"),
  badge: text('[data-testid="status-badge"]'),
  reason: text('[data-testid="session-reason"]'),
};
"#;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Notify {
    On,
    Off,
}

/// One running app and its WebDriver session. Dropping it ends every process it started.
pub struct App {
    pub client: Client,
    pub endpoint: Endpoint,
    pub window: String,
    _driver: Driver,
    home: tempfile::TempDir,
    probes: u32,
    decoy: Option<Decoy>,
    // Last: the next test may start only once everything above is gone.
    _serial: MutexGuard<'static, ()>,
}

impl App {
    pub async fn start(notify: Notify) -> Self {
        Self::start_with(notify, &[]).await
    }

    /// The same, with more environment variables for the app.
    pub async fn start_with(notify: Notify, env: &[(&str, &str)]) -> Self {
        let serial = SERIAL.lock().await;
        let home = tempfile::tempdir().expect("a temp dir");
        let app = Self::launch(serial, home, notify, env).await;
        app.wait_for_ui().await;
        app
    }

    /// Starts the app on a state directory that `seed` has filled first (see [`seed_sessions`]),
    /// so the app starts *with* those sessions. Returns as soon as the WebDriver session is up,
    /// without waiting for the UI: for measuring how long the page takes to show them.
    pub async fn start_seeded(notify: Notify, env: &[(&str, &str)], seed: impl FnOnce(&Path)) -> Self {
        let serial = SERIAL.lock().await;
        let home = tempfile::tempdir().expect("a temp dir");
        seed(&home.path().join("state"));
        Self::launch(serial, home, notify, env).await
    }

    async fn launch(
        serial: MutexGuard<'static, ()>,
        home: tempfile::TempDir,
        notify: Notify,
        env: &[(&str, &str)],
    ) -> Self {
        let (port, native_port) = (free_port(), free_port());
        let log = File::create(home.path().join("driver.log")).expect("the driver log");
        let mut command = Command::new("tauri-driver");
        command
            .args(["--port", &port.to_string(), "--native-port", &native_port.to_string()])
            // Inherited by WebKitWebDriver and from there by the app.
            .env("SWITCHBOARD_HOME", home.path().join("state"))
            .env("CODEX_HOME", home.path().join("codex"))
            .env("XDG_DATA_HOME", home.path().join("data"))
            .env("XDG_CONFIG_HOME", home.path().join("config"))
            .env("RUST_LOG", std::env::var("RUST_LOG").unwrap_or_else(|_| "info".into()))
            .stdin(Stdio::null())
            .stdout(log.try_clone().expect("the driver log"))
            .stderr(log);
        // SAFETY: prctl(2) only, between fork and exec. If the test process is killed (so no Drop
        // runs), tauri-driver gets SIGTERM and takes WebKitWebDriver with it.
        unsafe {
            command.pre_exec(|| {
                libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGTERM);
                Ok(())
            });
        }
        match notify {
            Notify::On => command.env_remove("SWITCHBOARD_NO_NOTIFY"),
            Notify::Off => command.env("SWITCHBOARD_NO_NOTIFY", "1"),
        };
        command.envs(env.iter().copied());
        // Guarded from here on: a panic while connecting must not leave the driver running.
        let driver = Driver(command.spawn().expect("tauri-driver (cargo install tauri-driver --locked)"));
        Self::connect(driver, home, serial, port, native_port).await
    }

    async fn connect(
        driver: Driver,
        home: tempfile::TempDir,
        serial: MutexGuard<'static, ()>,
        port: u16,
        native_port: u16,
    ) -> Self {
        // tauri-driver listens at once but starts WebKitWebDriver beside it without waiting for it:
        // a session asked for before the native driver listens fails ("tcp connect error").
        let addr = SocketAddr::from(([127, 0, 0, 1], port));
        for (what, addr) in
            [("tauri-driver", addr), ("WebKitWebDriver", SocketAddr::from(([127, 0, 0, 1], native_port)))]
        {
            let listening = eventually(Duration::from_secs(30), || TcpStream::connect(addr).ok());
            assert!(listening.is_some(), "{what} never listened on {addr}; driver log:\n{}", read_log(home.path()));
        }
        let mut capabilities = serde_json::Map::new();
        capabilities.insert("browserName".into(), json!("wry"));
        capabilities.insert("tauri:options".into(), json!({ "application": app_path() }));
        // The test build links rustls with two crypto providers (ring for the engine's push
        // client, aws-lc-rs for this WebDriver client), so rustls cannot pick one by itself.
        let _ = rustls::crypto::aws_lc_rs::default_provider().install_default();
        let mut builder = ClientBuilder::rustls().expect("rustls");
        builder.capabilities(capabilities);
        let url = format!("http://{addr}");
        // WebKitWebDriver waits for ever on an app that never opens its window.
        let Ok(session) = tokio::time::timeout(Duration::from_secs(60), builder.connect(&url)).await else {
            panic!("no WebDriver session within 60 s; driver log:\n{}", read_log(home.path()));
        };
        let client =
            session.unwrap_or_else(|e| panic!("WebDriver session: {e}; driver log:\n{}", read_log(home.path())));
        let state = home.path().join("state");
        let endpoint = eventually(Duration::from_secs(20), || Endpoint::read(&state))
            .unwrap_or_else(|| panic!("endpoint.json never appeared; driver log:\n{}", read_log(home.path())));
        let window = eventually(Duration::from_secs(20), || {
            xdotool(&["search", "--onlyvisible", "--pid", &endpoint.pid.to_string(), "--name", "^Switchboard$"])
                .and_then(|out| out.lines().next().map(str::to_owned))
        })
        .expect("the app's X window");
        Self { client, endpoint, window, _driver: driver, home, probes: 0, decoy: None, _serial: serial }
    }

    pub async fn wait_for_ui(&self) {
        let started = Instant::now();
        loop {
            let ready = self
                .client
                .execute(r#"return document.querySelector('[data-testid="count-needs"]') !== null;"#, vec![])
                .await;
            if ready.ok().and_then(|v| v.as_bool()) == Some(true) {
                return;
            }
            assert!(started.elapsed() < Duration::from_secs(20), "the UI never rendered its header");
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    pub fn pid(&self) -> u32 {
        self.endpoint.pid
    }

    /// The app's `SWITCHBOARD_HOME`.
    pub fn state_dir(&self) -> std::path::PathBuf {
        self.home.path().join("state")
    }

    // ---- the hook server ----

    pub fn post(&self, agent: &str, body: &Value) {
        post_hook(&self.endpoint, agent, body);
    }

    /// POSTs a hook as the forwarder would from an agent whose process is `process` (the
    /// `x-switchboard-process` header).
    pub fn post_from(&self, agent: &str, body: &Value, process: &Value) {
        post_hook_from(&self.endpoint, agent, body, Some(process));
    }

    /// Clicks the element with `data-testid` = `test_id` (the first one).
    pub async fn click_test_id(&self, test_id: &str) {
        self.click_settled(&format!(r#"[data-testid="{test_id}"]"#)).await;
    }

    /// Clicks the first element matching `selector` once it has settled (see [`SETTLE`]): nodes
    /// glide when the layout changes, the canvas pans after a click and panels open beside a
    /// node, so a click at once can land on whatever moved there. Settled means still for
    /// 300 ms, no animation running, and the element itself under its centre: then one click.
    pub async fn click_settled(&self, selector: &str) {
        let settled = self.client.execute_async(SETTLE, vec![json!(selector)]).await.expect("wait for the element");
        assert_eq!(settled["found"], json!(true), "{selector} never appeared: {settled}");
        assert_eq!(settled["settled"], json!(true), "{selector} never settled under its centre: {settled}");
        let element = self.client.find(Locator::Css(selector)).await.expect("find the element");
        element.click().await.unwrap_or_else(|error| panic!("click {selector}: {error} ({settled})"));
    }

    /// Waits (bounded) until the element matching `selector` and the canvas have held still for
    /// 300 ms with no animation running ([`SETTLE`], without the hit test).
    pub async fn wait_still(&self, selector: &str) {
        let settled =
            self.client.execute_async(SETTLE, vec![json!(selector), json!(false)]).await.expect("wait for stillness");
        assert_eq!(settled["settled"], json!(true), "{selector} never held still: {settled}");
    }

    /// Waits (bounded) until the board has taken in `count` sessions: the header's count chips
    /// add up to it.
    pub async fn wait_for_sessions_in_view(&self, count: u64) {
        let script = r#"return [...document.querySelectorAll('[data-testid^="count-"]')]
            .reduce((sum, chip) => sum + (parseInt(chip.dataset.count, 10) || 0), 0);"#;
        let started = Instant::now();
        loop {
            let seen = self.client.execute(script, vec![]).await.expect("read the count chips").as_u64().unwrap_or(0);
            if seen >= count {
                return;
            }
            assert!(started.elapsed() < Duration::from_secs(20), "the board shows {seen} of {count} sessions");
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// The text of the element with `data-testid` = `test_id`, once it exists (bounded).
    pub async fn text_of(&self, test_id: &str) -> String {
        let script = format!(
            r#"const e = document.querySelector('[data-testid="{test_id}"]'); return e ? e.textContent : null;"#
        );
        let started = Instant::now();
        loop {
            let value = self.client.execute(&script, vec![]).await.expect("read an element");
            if let Some(text) = value.as_str() {
                return text.to_owned();
            }
            assert!(started.elapsed() < Duration::from_secs(10), "{test_id} never appeared");
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    pub fn sessions(&self) -> Vec<Value> {
        let path = format!("/sessions?key={}", self.endpoint.key);
        let response =
            switchboard_engine::client::request(self.endpoint.addr(), "GET", &path, b"", Duration::from_secs(5))
                .expect("GET /sessions");
        assert_eq!(response.status, 200);
        let snapshot: Value = serde_json::from_slice(&response.body).expect("snapshot JSON");
        snapshot["sessions"].as_array().cloned().unwrap_or_default()
    }

    pub fn session(&self, id: &str) -> Option<Value> {
        self.sessions().into_iter().find(|s| s["sessionId"] == id)
    }

    /// Waits (bounded) until the reducer's view of `id` satisfies `check`.
    pub fn wait_session(&self, id: &str, what: &str, check: impl Fn(&Value) -> bool) -> Value {
        eventually(Duration::from_secs(10), || self.session(id).filter(|s| check(s)))
            .unwrap_or_else(|| panic!("session {id}: never {what}; last seen {:#?}", self.session(id)))
    }

    // ---- the web view ----

    pub async fn node(&self, id: &str) -> Option<NodeView> {
        let value = self.client.execute(READ_NODE, vec![json!(id)]).await.expect("read a node");
        if value.is_null() {
            return None;
        }
        Some(NodeView {
            status: value["status"].as_str().unwrap_or_default().to_owned(),
            unread: value["unread"].as_bool().unwrap_or_default(),
            dot: value["dot"].as_bool().unwrap_or_default(),
            selected: value["selected"].as_bool().unwrap_or_default(),
            badge: value["badge"].as_str().unwrap_or_default().to_owned(),
            reason: value["reason"].as_str().unwrap_or_default().to_owned(),
        })
    }

    /// Polls the DOM (bounded) until the node exists and satisfies `check`.
    pub async fn wait_node(&self, id: &str, what: &str, check: impl Fn(&NodeView) -> bool) -> NodeView {
        let started = Instant::now();
        loop {
            let node = self.node(id).await;
            if let Some(node) = node.as_ref().filter(|n| check(n)) {
                return node.clone();
            }
            if started.elapsed() > Duration::from_secs(10) {
                panic!("node {id}: never {what} in the DOM; last seen {node:#?}");
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }

    pub async fn count(&self, category: &str) -> u64 {
        let script = format!(r#"return document.querySelector('[data-testid="count-{category}"]').dataset.count;"#);
        let value = self.client.execute(&script, vec![]).await.expect("read a count chip");
        value.as_str().and_then(|s| s.parse().ok()).unwrap_or_else(|| panic!("count-{category}: {value}"))
    }

    pub async fn click_node(&self, id: &str) {
        self.click_settled(&format!(r#"[data-testid="session-node"][data-session-id="{id}"]"#)).await;
    }

    // ---- window focus ----

    /// Moves the X input focus to another window and waits until the app has seen it lose focus.
    /// Returns the title of the probe that showed it (see `wait_focus_seen`).
    pub fn unfocus(&mut self) -> String {
        let decoy = self.decoy.get_or_insert_with(Decoy::start);
        let id = decoy.window.clone();
        focus_window(&id);
        self.wait_focus_seen(false)
    }

    /// Gives the X input focus back to the app window and waits until the app has seen it.
    pub fn focus(&mut self) -> String {
        focus_window(&self.window.clone());
        self.wait_focus_seen(true)
    }

    /// The window focus the app acts on is only observable through its behaviour: a terminal
    /// event marks a session unread exactly when the window is not focused. So each probe is a
    /// fresh session that goes working → done; it is retried until the app answers as expected.
    /// Probe sessions are titled `focus probe N` (their notifications are told apart by that).
    pub fn wait_focus_seen(&mut self, focused: bool) -> String {
        let started = Instant::now();
        loop {
            self.probes += 1;
            let id = format!("focus-probe-{}", self.probes);
            let title = format!("focus probe {}", self.probes);
            self.post("custom", &json!({"sessionId": id, "title": title, "status": "working"}));
            self.post("custom", &json!({"sessionId": id, "title": title, "status": "done"}));
            let probe = self.wait_session(&id, "done", |s| s["status"] == "done");
            if probe["unread"] == json!(!focused) {
                return title;
            }
            assert!(
                started.elapsed() < Duration::from_secs(10),
                "the app never saw its window {}",
                if focused { "focused" } else { "unfocused" }
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Which X window has the input focus now.
    pub fn focused_window() -> Option<String> {
        xdotool(&["getwindowfocus"]).map(|out| out.trim().to_owned())
    }

    /// Ends the WebDriver session (which closes the app), then every process left.
    pub async fn close(self) {
        let _ = self.client.clone().close().await;
        drop(self);
    }
}

impl Drop for App {
    fn drop(&mut self) {
        if std::thread::panicking() {
            eprintln!("---- driver and app log ----\n{}", read_log(self.home.path()));
        }
        // Then the fields: the driver's tree ends before its temp dir goes.
    }
}

/// tauri-driver, and through it WebKitWebDriver and the app: all ended when this drops. (On
/// SIGTERM tauri-driver kills WebKitWebDriver but not the app that one started, so the whole tree
/// is collected first.)
struct Driver(Child);

impl Drop for Driver {
    fn drop(&mut self) {
        end_tree(&mut self.0);
    }
}

fn read_log(home: &Path) -> String {
    let text = std::fs::read_to_string(home.join("driver.log")).unwrap_or_default();
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(80)..].join("\n")
}

/// Every process below `root` (children of children…), read from /proc.
pub fn descendants(root: u32) -> Vec<u32> {
    let mut parents: Vec<(u32, u32)> = Vec::new();
    for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        let Some(pid) = entry.file_name().to_str().and_then(|s| s.parse::<u32>().ok()) else { continue };
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else { continue };
        // The command name may contain spaces and parentheses: the fields start after the last ')'.
        let Some(rest) = stat.rfind(')').map(|i| &stat[i + 1..]) else { continue };
        if let Some(ppid) = rest.split_whitespace().nth(1).and_then(|s| s.parse().ok()) {
            parents.push((pid, ppid));
        }
    }
    let mut found = vec![root];
    let mut i = 0;
    while i < found.len() {
        let parent = found[i];
        found.extend(parents.iter().filter(|(_, ppid)| *ppid == parent).map(|(pid, _)| *pid));
        i += 1;
    }
    found.remove(0);
    found
}

fn kill(pid: u32, signal: libc::c_int) {
    if let Ok(pid) = libc::pid_t::try_from(pid) {
        // SAFETY: a plain kill(2) of a process this test started (directly or through the driver).
        unsafe { libc::kill(pid, signal) };
    }
}

/// Ends a child and everything it started: SIGTERM first, SIGKILL for what is left after 2 s.
fn end_tree(child: &mut Child) {
    let root = child.id();
    let tree = descendants(root);
    kill(root, libc::SIGTERM);
    for pid in &tree {
        kill(*pid, libc::SIGTERM);
    }
    let alive = |pid: &u32| Path::new(&format!("/proc/{pid}")).exists() && !is_zombie(*pid);
    let gone = eventually(Duration::from_secs(2), || {
        let _ = child.try_wait();
        (!tree.iter().any(alive)).then_some(())
    });
    if gone.is_none() {
        kill(root, libc::SIGKILL);
        for pid in tree.iter().filter(|pid| alive(pid)) {
            kill(*pid, libc::SIGKILL);
        }
    }
    let _ = child.kill();
    let _ = child.wait();
}

fn is_zombie(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|stat| stat.rfind(')').map(|i| stat[i + 1..].trim_start().starts_with('Z')))
        .unwrap_or(true)
}

pub fn xdotool(args: &[&str]) -> Option<String> {
    let output =
        Command::new("xdotool").args(args).stderr(Stdio::null()).output().expect("xdotool (apt-get install xdotool)");
    let out = String::from_utf8_lossy(&output.stdout).into_owned();
    (output.status.success() && !out.trim().is_empty()).then_some(out)
}

fn focus_window(id: &str) {
    let done = eventually(Duration::from_secs(5), || {
        xdotool(&["windowfocus", id]);
        (App::focused_window().as_deref() == Some(id)).then_some(())
    });
    assert!(done.is_some(), "X focus never moved to window {id}");
}

/// Another X window to give the focus to: with no window manager, the app only loses focus when
/// something else takes it.
struct Decoy {
    child: Child,
    window: String,
}

impl Decoy {
    fn start() -> Self {
        let title = format!("switchboard-e2e-decoy-{}", std::process::id());
        let child = Command::new("xclock")
            .args(["-geometry", "120x120+1150+670", "-title", &title])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("xclock (apt-get install x11-apps)");
        let mut decoy = Self { child, window: String::new() };
        decoy.window = eventually(Duration::from_secs(10), || {
            xdotool(&["search", "--onlyvisible", "--name", &format!("^{title}$")])
                .and_then(|out| out.lines().next().map(str::to_owned))
        })
        .expect("the decoy window maps");
        decoy
    }
}

impl Drop for Decoy {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Sums of `fields` (KiB) from /proc/<pid>/smaps_rollup over `pids`: `["Pss"]` for PSS,
/// `["Private_Clean", "Private_Dirty"]` for USS, `["Rss"]` for RSS.
pub fn smaps_kib(pids: &[u32], fields: &[&str]) -> u64 {
    let mut total = 0;
    for pid in pids {
        let Ok(rollup) = std::fs::read_to_string(format!("/proc/{pid}/smaps_rollup")) else { continue };
        for line in rollup.lines() {
            let Some((name, value)) = line.split_once(':') else { continue };
            if fields.contains(&name) {
                total += value.trim().trim_end_matches("kB").trim().parse::<u64>().unwrap_or(0);
            }
        }
    }
    total
}
/// The name of a process (`comm`).
pub fn comm(pid: u32) -> String {
    std::fs::read_to_string(format!("/proc/{pid}/comm")).map(|s| s.trim().to_owned()).unwrap_or_default()
}

/// Fills `state` (a `SWITCHBOARD_HOME`) with sessions the way a user's would be: a headless
/// `switchboard serve` on it gets every `(agent, body)` POSTed to its hook server, then stops
/// (SIGTERM commits the store). Returns how many sessions it held.
/// POSTs a hook to the hook server at `endpoint`, as the forwarder does; it must be taken (204).
pub fn post_hook(endpoint: &Endpoint, agent: &str, body: &Value) {
    post_hook_from(endpoint, agent, body, None);
}

/// [`post_hook`] as sent from `process` (the forwarder's header: pid, start time, pane).
pub fn post_hook_from(endpoint: &Endpoint, agent: &str, body: &Value, process: Option<&Value>) {
    let path = format!("/hook/{agent}?key={}", endpoint.key);
    let header = process
        .map(|process| format!("{}: {process}\r\n", switchboard_engine::protocol::PROCESS_HEADER))
        .unwrap_or_default();
    let response = switchboard_engine::client::request_until(
        endpoint.addr(),
        "POST",
        &path,
        &header,
        body.to_string().as_bytes(),
        Instant::now() + Duration::from_secs(5),
    )
    .expect("POST a hook");
    assert_eq!(response.status, 204, "POST /hook/{agent}");
}

pub fn seed_sessions(state: &Path, hooks: &[(&str, Value)]) -> usize {
    seed_sessions_from(state, hooks, None)
}

/// [`seed_sessions`], every hook sent from `process`.
pub fn seed_sessions_from(state: &Path, hooks: &[(&str, Value)], process: Option<&Value>) -> usize {
    let home = state.parent().expect("the state directory's parent");
    let log = File::create(home.join("seed.log")).expect("the seed log");
    let mut serve = Command::new(env!("CARGO_BIN_EXE_switchboard"))
        .args(["serve", "--no-notify"])
        .env("SWITCHBOARD_HOME", state)
        .env("CODEX_HOME", home.join("codex"))
        .env("XDG_DATA_HOME", home.join("data"))
        .env("XDG_CONFIG_HOME", home.join("config"))
        .stdin(Stdio::null())
        .stdout(log.try_clone().expect("the seed log"))
        .stderr(log)
        .spawn()
        .expect("switchboard serve");
    let endpoint = eventually(Duration::from_secs(20), || Endpoint::read(state)).expect("serve's endpoint.json");
    for (agent, body) in hooks {
        post_hook_from(&endpoint, agent, body, process);
    }
    let held = || {
        let path = format!("/sessions?key={}", endpoint.key);
        let response =
            switchboard_engine::client::request(endpoint.addr(), "GET", &path, b"", Duration::from_secs(5)).ok()?;
        let snapshot: Value = serde_json::from_slice(&response.body).ok()?;
        snapshot["sessions"].as_array().map(Vec::len)
    };
    let ids: std::collections::HashSet<&Value> = hooks
        .iter()
        .map(|(_, body)| if body["sessionId"].is_null() { &body["session_id"] } else { &body["sessionId"] })
        .collect();
    let count = eventually(Duration::from_secs(30), || held().filter(|held| *held >= ids.len()))
        .unwrap_or_else(|| panic!("serve never held the {} seeded sessions", ids.len()));
    kill(serve.id(), libc::SIGTERM);
    let _ = serve.wait();
    // Removed on a clean exit; gone for sure, so the app's own is the one found.
    let _ = std::fs::remove_file(Endpoint::path(state));
    count
}

/// When `pid` was started, in Unix milliseconds (from its `starttime` in /proc: 10 ms
/// resolution; the boot clock it counts from is read with `CLOCK_BOOTTIME`).
pub fn process_started_unix_ms(pid: u32) -> Option<f64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let rest = &stat[stat.rfind(')')? + 1..];
    // Field 22 of stat; `rest` starts at field 3.
    let ticks: f64 = rest.split_whitespace().nth(19)?.parse().ok()?;
    let mut boot = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: sysconf(3), and clock_gettime(2) with a valid clock and out-pointer.
    let hz = unsafe {
        libc::clock_gettime(libc::CLOCK_BOOTTIME, &mut boot);
        libc::sysconf(libc::_SC_CLK_TCK) as f64
    };
    let since_boot_ms = boot.tv_sec as f64 * 1000.0 + boot.tv_nsec as f64 / 1e6;
    let unix_ms = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).ok()?.as_secs_f64() * 1000.0;
    Some(unix_ms - since_boot_ms + ticks / hz * 1000.0)
}

/// An async WebDriver script: resolves `{found, settled, hit, box}` for the first element
/// matching `arguments[0]` once, for 300 ms of wall time, its box and the canvas's viewport
/// transform have not changed, no finite animation or transition runs anywhere in the page
/// (a node's glide, a panel opening; the infinite "working" pulse does not count), the element is
/// enabled, and the point WebDriver will click (the centre of its part inside the window) hits
/// it. Gives up after 10 s (`settled: false`). Polls with timers, not animation frames, which a
/// window under another may not get.
const SETTLE: &str = r#"
const [selector, needsHit, done] = arguments.length === 3 ? arguments : [arguments[0], true, arguments[1]];
const started = performance.now();
let last = null, stillSince = performance.now();
const moving = () => document.getAnimations().some((a) => {
  if (a.playState !== 'running' && a.playState !== 'pending') return false;
  // The working ring's few pulses after each event move nothing.
  if (a.animationName === 'working-pulse') return false;
  const timing = a.effect && a.effect.getComputedTiming ? a.effect.getComputedTiming() : null;
  return !!timing && Number.isFinite(timing.endTime);
});
const poll = () => {
  const now = performance.now();
  const el = document.querySelector(selector);
  if (!el) {
    if (now - started > 20000) { done({found: false}); return; }
    stillSince = now; last = null; setTimeout(poll, 16); return;
  }
  const r = el.getBoundingClientRect();
  const viewport = document.querySelector('.react-flow__viewport');
  const state = [r.x, r.y, r.width, r.height].map((v) => v.toFixed(1)).join(',') + '|' + (viewport ? viewport.style.transform : '');
  if (state !== last || moving() || el.disabled) { stillSince = now; }
  last = state;
  const x = (Math.max(r.left, 0) + Math.min(r.right, window.innerWidth)) / 2;
  const y = (Math.max(r.top, 0) + Math.min(r.bottom, window.innerHeight)) / 2;
  const at = document.elementFromPoint(x, y);
  const hit = !!at && (at === el || el.contains(at));
  const settled = now - stillSince >= 300 && (hit || !needsHit) && r.width > 0 && r.height > 0;
  if (settled || now - started > 20000) { done({found: true, settled, hit, box: state, at: at ? at.className || at.tagName : null}); return; }
  setTimeout(poll, 16);
};
poll();
"#;
