//! Remotes over a real SSH server (issue 23): Debian's OpenSSH `sshd`, started here on
//! 127.0.0.1 with a temporary host key and `authorized_keys`; the "remote box" is a second Unix
//! user with its own home. From nothing: `remote add`, `remote install` (the static build), its
//! agent's session followed through working → blocked → Allow from this board → done; the link
//! cut during a burst of 1,000 events and sshd stopped: unreachable, then caught up exactly.
//!
//! Needs root (to create the user and run sshd), `openssh-server`, and the static build
//! (`make static`; `make test` builds it).

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use switchboard_engine::endpoint::Endpoint;

use crate::support::{eventually, request, run, Serve};

const USER: &str = "switchboard-remote";
const SSHD: &str = "/usr/sbin/sshd";
/// Long enough for a cold start of everything on a slow machine; the conditions end it sooner.
const PATIENCE: Duration = Duration::from_secs(90);

fn sh(command: &str) -> Output {
    Command::new("sh").args(["-c", command]).output().unwrap()
}

fn ok(command: &str) -> String {
    let output = sh(command);
    assert!(output.status.success(), "`{command}` failed: {}", String::from_utf8_lossy(&output.stderr));
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// The remote box: a Unix user, emptied, nothing of Switchboard on it, nothing of it running.
fn fresh_remote_user() -> PathBuf {
    assert!(unsafe { libc::geteuid() } == 0, "the remote test needs root: it creates the user {USER} and runs sshd");
    let _ = sh(&format!("pkill -KILL -u {USER}"));
    if !sh(&format!("id -u {USER}")).status.success() {
        ok(&format!("useradd --create-home --shell /bin/sh {USER}"));
    }
    // No password, but not locked either (sshd without PAM refuses a locked account, keys or not).
    ok(&format!("usermod -p '*' {USER}"));
    let home = PathBuf::from(ok(&format!("getent passwd {USER} | cut -d: -f6")).trim());
    ok(&format!("find '{}' -mindepth 1 -delete", home.display()));
    home
}

/// A private sshd on 127.0.0.1 that lets in [`USER`] with one key.
struct Sshd {
    dir: tempfile::TempDir,
    port: u16,
    child: Option<Child>,
}

impl Sshd {
    fn start() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let path = |name: &str| dir.path().join(name);
        // Readable by sshd's checks and by the user's login.
        ok(&format!("chmod 755 '{}'", dir.path().display()));
        ok(&format!("ssh-keygen -q -t ed25519 -N '' -f '{}'", path("host_key").display()));
        ok(&format!("ssh-keygen -q -t ed25519 -N '' -f '{}'", path("client_key").display()));
        std::fs::copy(path("client_key.pub"), path("authorized_keys")).unwrap();
        ok(&format!("chmod 644 '{}'", path("authorized_keys").display()));
        std::fs::create_dir_all("/run/sshd").unwrap();
        let port = free_port();
        let config = format!(
            "Port {port}\nListenAddress 127.0.0.1\nHostKey {}\nPidFile {}\nAuthorizedKeysFile {}\n\
             PasswordAuthentication no\nKbdInteractiveAuthentication no\nUsePAM no\nPermitRootLogin no\n\
             AllowUsers {USER}\nStrictModes no\nLogLevel ERROR\n",
            path("host_key").display(),
            path("sshd.pid").display(),
            path("authorized_keys").display(),
        );
        std::fs::write(path("sshd_config"), config).unwrap();
        let host_key = std::fs::read_to_string(path("host_key.pub")).unwrap();
        std::fs::write(path("known_hosts"), format!("[127.0.0.1]:{port} {host_key}")).unwrap();
        let mut sshd = Self { dir, port, child: None };
        sshd.run();
        sshd
    }

    /// (Re)starts the daemon and waits until it accepts connections.
    fn run(&mut self) {
        let config = self.dir.path().join("sshd_config");
        let child = Command::new(SSHD)
            .args(["-D", "-e", "-f"])
            .arg(&config)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .process_group(0)
            .spawn()
            .unwrap_or_else(|error| panic!("cannot run {SSHD} (apt install openssh-server): {error}"));
        self.child = Some(child);
        let port = self.port;
        eventually(PATIENCE, || std::net::TcpStream::connect(("127.0.0.1", port)).ok()).expect("sshd listens");
    }

    /// Stops the daemon and every connection it serves (what a reboot of the box does).
    fn stop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let group = libc::pid_t::try_from(child.id()).unwrap();
            // SAFETY: signals the process group of our own child (sshd and its connections).
            unsafe { libc::kill(-group, libc::SIGKILL) };
            let _ = child.wait();
        }
        // A connection's own process may have left the group: end it by its user.
        let _ = sh(&format!("pkill -KILL -u {USER} -f 'sshd:'"));
    }

    /// The user's command to reach the box, as they would write it.
    fn command(&self) -> Vec<String> {
        let path = |name: &str| self.dir.path().join(name).display().to_string();
        [
            "ssh",
            "-F",
            "/dev/null",
            "-i",
            &path("client_key"),
            "-p",
            &self.port.to_string(),
            "-o",
            &format!("UserKnownHostsFile={}", path("known_hosts")),
            "-o",
            "StrictHostKeyChecking=yes",
            "-o",
            "BatchMode=yes",
            "-o",
            "IdentitiesOnly=yes",
            &format!("{USER}@127.0.0.1"),
        ]
        .map(str::to_owned)
        .to_vec()
    }
}

impl Drop for Sshd {
    fn drop(&mut self) {
        self.stop();
        let _ = sh(&format!("pkill -KILL -u {USER}"));
    }
}

use std::os::unix::process::CommandExt;

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

/// The remote box's own instance, as its user sees it.
struct Box_ {
    home: PathBuf,
}

impl Box_ {
    fn binary(&self) -> PathBuf {
        self.home.join(".local/bin/switchboard")
    }

    fn state_dir(&self) -> PathBuf {
        self.home.join(".local/share").join(switchboard_engine::state_dir::APP_IDENTIFIER)
    }

    /// `switchboard <args>` run there, as its user, with `stdin`.
    fn run(&self, args: &[&str], stdin: &[u8]) -> Output {
        let mut child = Command::new("runuser")
            .args(["-u", USER, "--", "env", &format!("HOME={}", self.home.display()), "SWITCHBOARD_NO_NOTIFY=1"])
            .arg(self.binary())
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        child.stdin.take().unwrap().write_all(stdin).unwrap();
        child.wait_with_output().unwrap()
    }

    /// Its instance's endpoint (read as root: `Endpoint::read` trusts only its own user's file).
    fn endpoint(&self) -> Endpoint {
        let path = Endpoint::path(&self.state_dir());
        eventually(PATIENCE, || serde_json::from_slice(&std::fs::read(&path).ok()?).ok())
            .expect("the remote's instance runs")
    }

    /// One hook event straight to its instance (as its forwarder would send it).
    fn post(&self, agent: &str, body: &Value) {
        let endpoint = self.endpoint();
        let path = format!("/hook/{agent}?key={}", endpoint.key);
        assert_eq!(request(endpoint.addr(), "POST", &path, body.to_string().as_bytes()).0, 204);
    }

    /// Its sessions, by id, as its own `status --json` reports them.
    fn sessions(&self) -> BTreeMap<String, Value> {
        let output = self.run(&["status", "--json"], b"");
        assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
        by_id(&serde_json::from_slice(&output.stdout).unwrap(), |id| Some(id.to_owned()))
    }
}

/// The sessions of a snapshot by id; `rename` maps (or drops) ids.
fn by_id(snapshot: &Value, rename: impl Fn(&str) -> Option<String>) -> BTreeMap<String, Value> {
    snapshot["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|session| Some((rename(session["sessionId"].as_str()?)?, session.clone())))
        .collect()
}

/// What both boards must agree on for a session (not this board's dot, place or id).
fn shown(session: &Value) -> Value {
    let keep = ["agent", "status", "title", "cwd", "message", "question", "awaitingInput", "ended", "lastEventAt"];
    keep.iter().map(|key| (key.to_string(), session[*key].clone())).collect::<serde_json::Map<_, _>>().into()
}

fn desktop_remote_sessions(desktop: &Serve) -> BTreeMap<String, Value> {
    by_id(&desktop.sessions(), |id| id.strip_prefix("box:").map(str::to_owned))
}

fn remote_list(desktop: &Serve) -> Value {
    let output = run(desktop.home(), &["remote", "list", "--json"], b"");
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    serde_json::from_slice::<Value>(&output.stdout).unwrap()[0].clone()
}

fn claude(event: &str, session_id: &str, extra: Value) -> Value {
    let mut body = json!({ "session_id": session_id, "hook_event_name": event, "cwd": "/srv/api" });
    for (key, value) in extra.as_object().unwrap() {
        body[key] = value.clone();
    }
    body
}

/// `switchboard hook claude` on the box, run by a stand-in agent (`runuser`, past the shell) that
/// goes on after its hook as a real CLI does: were it gone, the box's watcher would rightly end
/// the session ("exited without ending its session") while the test still looks at it.
fn box_hook(remote: &Box_, payload: &Value) -> Child {
    let mut agent = Command::new("runuser")
        .args(["-u", USER, "--", "env", &format!("HOME={}", remote.home.display())])
        .args(["sh", "-c", r#""$0" hook claude; exec sleep 120 >/dev/null 2>&1"#])
        .arg(remote.binary())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null()) // runuser's "Session terminated" when it is ended
        .spawn()
        .unwrap();
    agent.stdin.take().unwrap().write_all(payload.to_string().as_bytes()).unwrap();
    agent
}

/// What the box's hook printed: read until it is a whole JSON value (the agent keeps its
/// output open while it lives).
fn hook_said(agent: &mut Child) -> Value {
    use std::io::Read;
    let mut stdout = agent.stdout.take().expect("stdout");
    let (mut out, mut chunk) = (Vec::new(), [0u8; 4096]);
    loop {
        if let Ok(value) = serde_json::from_slice::<Value>(&out) {
            return value;
        }
        match stdout.read(&mut chunk) {
            Ok(0) | Err(_) => panic!("the box's hook said no decision: {}", String::from_utf8_lossy(&out)),
            Ok(n) => out.extend_from_slice(&chunk[..n]),
        }
    }
}

/// Ends the stand-in agent of [`box_hook`]: `runuser` passes SIGTERM on to its `sleep`.
fn end_agent(mut agent: Child) {
    // SAFETY: a plain kill(2) of our own child, which has not been waited for yet.
    unsafe { libc::kill(agent.id() as libc::pid_t, libc::SIGTERM) };
    let _ = agent.wait();
}

fn static_build() -> PathBuf {
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("target/x86_64-unknown-linux-musl/release/switchboard-static");
    assert!(path.is_file(), "the static build is missing: `make static` builds {}", path.display());
    path
}

#[test]
fn a_box_over_real_ssh_from_nothing_through_a_cut_link_and_a_stopped_sshd() {
    let remote = Box_ { home: fresh_remote_user() };
    let mut sshd = Sshd::start();
    let desktop = Serve::start();

    // 0. The same box, saying it is a Mac (a `uname` first on its PATH says "Darwin arm64"), is
    // sent the Mac build of its processor; a build that cannot run there is refused before a
    // byte goes (issue 50).
    let command = sshd.command();
    a_box_that_says_it_is_a_mac_gets_the_mac_build_or_nothing(&remote, &desktop, &command);

    // 1. Add and install, from nothing.
    let mut add = vec!["remote", "add", "box", "--"];
    add.extend(command.iter().map(String::as_str));
    let added = run(desktop.home(), &add, b"");
    assert!(added.status.success(), "{}", String::from_utf8_lossy(&added.stderr));
    let install = run(desktop.home(), &["remote", "install", "box"], b"");
    let said = String::from_utf8_lossy(&install.stdout);
    assert!(install.status.success(), "{said}{}", String::from_utf8_lossy(&install.stderr));
    assert!(said.contains("box runs Linux x86_64: copied"), "{said}");
    assert_eq!(
        std::fs::read(remote.binary()).unwrap(),
        std::fs::read(static_build()).unwrap(),
        "the static build went"
    );
    let again = run(desktop.home(), &["remote", "install", "box"], b"");
    assert!(String::from_utf8_lossy(&again.stdout).contains("has this build already"));

    // The follower retries with a back-off; once connected, the box's instance runs (started
    // by the link) and its hook key stays there.
    let connected = eventually(PATIENCE, || Some(remote_list(&desktop)).filter(|r| r["state"] == "connected"))
        .unwrap_or_else(|| panic!("never connected: {}", remote_list(&desktop)));
    assert_eq!(connected["version"], env!("CARGO_PKG_VERSION"));
    let key = remote.endpoint().key;
    assert!(!std::fs::read_to_string(desktop.home().join("settings.json")).unwrap().contains(&key));

    // 2. A session there, through working → blocked (held for the board) → Allow here → done.
    let settings = json!({ "decide": ["claude"], "holdSeconds": 60 });
    let saved = remote.state_dir().join("settings.json");
    std::fs::write(&saved, settings.to_string()).unwrap();
    ok(&format!("chown {USER} '{}' && chmod 600 '{}'", saved.display(), saved.display()));
    // The instance reads its settings at start: restart it (the link starts it again).
    let _ = sh(&format!("pkill -TERM -u {USER} -f 'switchboard serve'"));
    eventually(PATIENCE, || Some(()).filter(|()| remote.endpoint().decide.contains(&"claude".to_owned())))
        .expect("the box's instance holds Claude's permissions");
    remote.post("claude", &claude("UserPromptSubmit", "s1", json!({ "prompt": "deploy the api" })));
    let working = desktop.wait_for("box:s1", |s| s["status"] == "working");
    assert_eq!(working["host"], "box");
    assert_eq!(working["title"], "deploy the api");

    let permission = claude(
        "PermissionRequest",
        "s1",
        json!({ "tool_name": "Bash", "tool_input": { "command": "make deploy" }, "permission_suggestions": [] }),
    );
    let mut agent = box_hook(&remote, &permission);
    let blocked = eventually(PATIENCE, || {
        desktop.session("box:s1").filter(|s| s["status"] == "blocked" && s["decision"].is_u64())
    })
    .expect("blocked, with Allow / Deny offered here");
    assert_eq!(blocked["command"], "make deploy");
    let decision = format!(
        "/decision/box%3As1?key={}&id={}&verdict=allow",
        desktop.endpoint.key,
        blocked["decision"].as_u64().unwrap()
    );
    assert_eq!(request(desktop.addr(), "POST", &decision, b"").0, 204, "the box took the answer");
    let answer = hook_said(&mut agent);
    assert_eq!(answer["hookSpecificOutput"]["decision"]["behavior"], "allow", "the agent there was allowed");
    desktop.wait_for("box:s1", |s| s["status"] == "working");
    end_agent(agent);
    // The same answer again is refused: nothing waits for it any more.
    assert_eq!(request(desktop.addr(), "POST", &decision, b"").0, 409);
    // Its question (issue 24), held there like a permission: answered from this board, down the
    // link, through Claude's hook on the box.
    let questions = json!([{ "question": "Which region?", "header": "Region", "multiSelect": false,
        "options": [{ "label": "eu-west", "description": null }, { "label": "us-east", "description": null }] }]);
    let question = claude(
        "PermissionRequest",
        "s1",
        json!({ "tool_name": "AskUserQuestion", "tool_input": { "questions": questions }, "permission_suggestions": [] }),
    );
    let mut agent = box_hook(&remote, &question);
    eventually(PATIENCE, || desktop.session("box:s1").filter(|s| s["status"] == "waiting" && s["decision"].is_u64()))
        .expect("its question held there, an answer on offer here");
    let answer_path = format!("/answer/box%3As1?key={}&option=2", desktop.endpoint.key);
    let (status, body) = request(desktop.addr(), "POST", &answer_path, b"");
    assert_eq!(status, 200, "{}", String::from_utf8_lossy(&body));
    let delivered: Value = serde_json::from_slice(&body).unwrap();
    assert_eq!((delivered["throughHook"].as_bool(), delivered["typed"].as_str()), (Some(true), Some("us-east")));
    let answer = hook_said(&mut agent);
    assert_eq!(
        answer["hookSpecificOutput"]["decision"]["updatedInput"]["answers"],
        json!({ "Which region?": "us-east" })
    );
    desktop.wait_for("box:s1", |s| s["message"] == "Answered from Switchboard: us-east");
    let (status, body) = request(desktop.addr(), "POST", &answer_path, b"");
    assert_eq!(status, 409, "answered: the box says nothing waits ({})", String::from_utf8_lossy(&body));
    end_agent(agent);
    remote.post("claude", &claude("Stop", "s1", json!({ "last_assistant_message": "Deployed." })));
    let done = desktop.wait_for("box:s1", |s| s["status"] == "done");
    assert_eq!(done["message"], "Deployed.");
    assert_eq!(done["unread"], true, "this board's own dot");

    // 3. The link cut during a burst of 1,000 events: caught up exactly afterwards.
    let burst = |range: std::ops::Range<usize>| {
        for n in range {
            let session = format!("b{}", n % 50);
            let event = if n % 3 == 2 { "Stop" } else { "UserPromptSubmit" };
            remote.post(
                "claude",
                &claude(
                    event,
                    &session,
                    json!({ "prompt": format!("step {n}"), "last_assistant_message": format!("answer {n}") }),
                ),
            );
        }
    };
    burst(0..300);
    let cut = Instant::now();
    sshd.stop();
    burst(300..700);
    let unreachable = eventually(PATIENCE, || {
        Some(remote_list(&desktop)).filter(|r| r["state"] != "connected")?;
        desktop.session("box:s1").filter(|s| s["unreachableSince"].is_u64())
    });
    let noticed = cut.elapsed();
    assert!(unreachable.is_some(), "the board says the box is unreachable");
    // What it last knew is still there, not ended and not stale.
    assert_eq!(unreachable.unwrap()["status"], "done");
    burst(700..1000);
    // The box stays cut off for 10 s in all (the scenario's length, not a wait for anything).
    std::thread::sleep(Duration::from_secs(10).saturating_sub(cut.elapsed()));
    sshd.run();
    let there = remote.sessions();
    assert_eq!(there.len(), 51);
    let caught_up = eventually(PATIENCE, || {
        let here = desktop_remote_sessions(&desktop);
        let same = here.len() == there.len()
            && here.iter().all(|(id, session)| there.get(id).map(shown) == Some(shown(session)))
            && here.values().all(|session| session["unreachableSince"].is_null());
        same.then_some(here)
    });
    assert!(
        caught_up.is_some(),
        "after the reconnect the board equals the box:\nhere {:?}\nthere {:?}",
        desktop_remote_sessions(&desktop).values().map(shown).collect::<Vec<_>>(),
        there.values().map(shown).collect::<Vec<_>>()
    );
    // The last of each session's events is what both show (b0's was #950, a Stop; b49's #999,
    // a prompt).
    let here = desktop_remote_sessions(&desktop);
    assert_eq!((&here["b0"]["status"], &here["b0"]["message"]), (&json!("done"), &json!("answer 950")));
    assert_eq!(here["b49"]["status"], "working");
    eprintln!("remote test: the cut was noticed after {} ms", noticed.as_millis());

    // 4. Removed: its sessions leave the board.
    let removed = run(desktop.home(), &["remote", "remove", "box"], b"");
    assert!(removed.status.success());
    eventually(PATIENCE, || Some(()).filter(|()| desktop_remote_sessions(&desktop).is_empty()))
        .expect("the box's sessions left the board");
}

/// `switchboard remote install <name>` with `SWITCHBOARD_REMOTE_BINARY` naming what to send.
fn install_sending(home: &Path, name: &str, binary: &Path) -> Output {
    Command::new(crate::support::BIN)
        .args(["remote", "install", name])
        .env("SWITCHBOARD_HOME", home)
        .env("SWITCHBOARD_REMOTE_BINARY", binary)
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

fn a_box_that_says_it_is_a_mac_gets_the_mac_build_or_nothing(remote: &Box_, desktop: &Serve, ssh: &[String]) {
    use std::os::unix::fs::PermissionsExt;
    let fake = remote.home.join("fake-darwin");
    std::fs::create_dir_all(&fake).unwrap();
    std::fs::write(fake.join("uname"), "#!/bin/sh\necho 'Darwin arm64'\n").unwrap();
    for path in [&fake, &fake.join("uname")] {
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let path_var = format!("PATH={}:/usr/bin:/bin", fake.display());
    let mut add = vec!["remote", "add", "mac", "--"];
    add.extend(ssh.iter().map(String::as_str));
    add.extend(["env", path_var.as_str()]);
    let added = run(desktop.home(), &add, b"");
    assert!(added.status.success(), "{}", String::from_utf8_lossy(&added.stderr));

    // A 64-bit arm64 Mach-O program's header, as the cross build makes it.
    let mac_build = desktop.home().join("switchboard-aarch64-apple-darwin");
    let mut mach_o = vec![0xcf, 0xfa, 0xed, 0xfe, 0x0c, 0x00, 0x00, 0x01];
    mach_o.resize(4096, 0);
    std::fs::write(&mac_build, &mach_o).unwrap();
    let sent = install_sending(desktop.home(), "mac", &mac_build);
    let said = String::from_utf8_lossy(&sent.stdout);
    assert!(sent.status.success(), "{said}{}", String::from_utf8_lossy(&sent.stderr));
    assert!(said.contains("mac runs Darwin arm64: copied"), "{said}");
    assert_eq!(std::fs::read(remote.binary()).unwrap(), mach_o, "the Mac build went");

    let refused = install_sending(desktop.home(), "mac", &static_build());
    let why = String::from_utf8_lossy(&refused.stderr);
    assert!(!refused.status.success(), "{}", String::from_utf8_lossy(&refused.stdout));
    assert!(why.contains("is a static Linux x86-64 program, and the box runs Darwin arm64: nothing was sent"), "{why}");
    assert_eq!(std::fs::read(remote.binary()).unwrap(), mach_o, "nothing was sent over it");

    let removed = run(desktop.home(), &["remote", "remove", "mac"], b"");
    assert!(removed.status.success(), "{}", String::from_utf8_lossy(&removed.stderr));
}
