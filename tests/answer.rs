//! Answering from the board through a real tmux server (issue 24): a stand-in agent in a tmux
//! pane records every key it gets; `switchboard answer` types the option's number into it,
//! `switchboard reply` the next prompt and Enter — and nothing is typed into a pane that runs
//! something else, or for an agent not in tmux. `peek` shows the question's numbered options
//! and the pane's screen.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Duration;

use serde_json::{json, Value};

use crate::support::{eventually, fixture, run, Serve};

/// Draws its question, then records each byte its terminal sends, raw (no line editing).
const AGENT: &str = include_str!("fixtures/stand-in-agent.py");

struct Tmux {
    socket: PathBuf,
}

impl Tmux {
    fn run(&self, args: &[&str]) -> String {
        let output = Command::new("tmux").arg("-S").arg(&self.socket).args(args).output().expect("tmux runs");
        assert!(output.status.success(), "tmux {args:?}: {}", String::from_utf8_lossy(&output.stderr));
        String::from_utf8_lossy(&output.stdout).trim().to_owned()
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = Command::new("tmux").arg("-S").arg(&self.socket).arg("kill-server").output();
    }
}

/// The process as the forwarder would report it: pid, start time, pane and socket.
fn reported(pid: u32, pane: Option<&str>, socket: &Path) -> Value {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
    let start: u64 = stat[stat.rfind(')').unwrap() + 2..].split(' ').nth(19).unwrap().parse().unwrap();
    let mut process = json!({"pid": pid, "start": start});
    if let Some(pane) = pane {
        process["tmuxPane"] = json!(pane);
        process["tmuxSocket"] = json!(socket.display().to_string());
    }
    process
}

fn post_from(serve: &Serve, body: &Value, process: &Value) {
    post_as(serve, "claude", body, process);
}

fn post_as(serve: &Serve, agent: &str, body: &Value, process: &Value) {
    serve.post_from(agent, body, process);
}

fn claude(name: &str, session_id: &str) -> Value {
    let mut body = fixture(&format!("claude/{name}.json"));
    body["session_id"] = json!(session_id);
    body
}

fn said(output: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr))
}

/// Runs `switchboard ARGS` in the background (it waits for the CLI to take what it typed).
fn spawn(home: &Path, args: &[&str]) -> std::process::Child {
    Command::new(crate::support::BIN)
        .args(args)
        .env("SWITCHBOARD_HOME", home)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap()
}

fn keys(file: &Path) -> String {
    String::from_utf8_lossy(&std::fs::read(file).unwrap_or_default()).into_owned()
}

#[test]
fn answers_are_typed_into_the_agents_own_pane_and_nowhere_else() {
    // What is typed and not taken is refused after 3 s here (10 s by default).
    let serve = Serve::start_with_env(&[("SWITCHBOARD_CONFIRM_MS", Path::new("3000"))]);
    let dir = tempfile::tempdir().unwrap();
    let tmux = Tmux { socket: dir.path().join("tmux.sock") };
    let script = dir.path().join("agent.py");
    std::fs::write(&script, AGENT).unwrap();
    let got = dir.path().join("keys");
    let command = format!("exec python3 '{}' '{}'", script.display(), got.display());
    tmux.run(&["new-session", "-d", "-x", "120", "-y", "30", "-s", "agents", &command]);
    let pane = tmux.run(&["display-message", "-p", "-t", "agents", "#{pane_id}"]);
    let pid: u32 = tmux.run(&["display-message", "-p", "-t", &pane, "#{pane_pid}"]).parse().unwrap();
    eventually(Duration::from_secs(30), || {
        Some(()).filter(|()| tmux.run(&["capture-pane", "-p", "-t", &pane]).contains("STAND-IN AGENT"))
    })
    .expect("the stand-in agent is up");
    let process = reported(pid, Some(&pane), &tmux.socket);

    // Its question, with options, as Claude's AskUserQuestion reports it.
    // Its transcript: a real Claude Code one (a prompt, a tool call, its result, the interrupt).
    let transcript = dir.path().join("transcript.jsonl");
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/real-transcripts/claude/esc-during-tool.jsonl"),
        &transcript,
    )
    .unwrap();
    let mut asked = claude("PreToolUse-AskUserQuestion", "asks");
    asked["transcript_path"] = json!(transcript);
    post_from(&serve, &asked, &process);
    serve.wait_for("asks", |s| s["status"] == "waiting" && s["questions"][0]["options"][1]["label"] == "Vue");

    let peek = run(serve.home(), &["peek", "asks"], b"");
    let text = said(&peek);
    assert!(peek.status.success(), "{text}");
    assert!(text.contains("Asks: Which framework?") && text.contains("  2. Vue — Use Vue"), "{text}");
    assert!(text.contains("STAND-IN AGENT"), "its screen: {text}");
    assert!(
        text.contains("--- its last turn ---\n> Run the slow script [[scenario:sleep]]\n  ⏺ Bash: ./slow.sh\n"),
        "its last turn, from the transcript: {text}"
    );

    let wrong = run(serve.home(), &["answer", "asks", "5"], b"");
    assert!(!wrong.status.success());
    assert!(said(&wrong).contains("there is no option 5"), "{}", said(&wrong));
    let reply = run(serve.home(), &["reply", "asks", "hello"], b"");
    assert!(said(&reply).contains("choose an option instead"), "{}", said(&reply));
    assert_eq!(keys(&got), "", "nothing typed by a refused answer");

    // The answer counts once the CLI goes on with it (its tool returns): the command waits.
    let answering = spawn(serve.home(), &["answer", "ask", "2"]);
    eventually(Duration::from_secs(30), || Some(()).filter(|()| keys(&got) == "2")).expect("the agent got the key 2");
    post_from(&serve, &claude("PostToolUse", "asks"), &process);
    let answered = answering.wait_with_output().unwrap();
    assert!(answered.status.success(), "{}", said(&answered));
    assert!(said(&answered).contains(&format!("pane {pane}")), "{}", said(&answered));
    assert!(said(&answered).contains("Claude Code took it"), "{}", said(&answered));

    // Then it finishes the turn: a reply is its next prompt, drawn, then Enter — sent once the
    // CLI's prompt event says it took it.
    post_from(&serve, &claude("Stop", "asks"), &process);
    serve.wait_for("asks", |s| s["status"] == "done");
    let replying = spawn(serve.home(), &["reply", "asks", "now", "fix\nthe tests;"]);
    eventually(Duration::from_secs(30), || Some(()).filter(|()| keys(&got) == "2now fix the tests;\r"))
        .unwrap_or_else(|| panic!("the agent got the reply (its `;` too) and Enter: {:?}", keys(&got)));
    post_from(&serve, &claude("UserPromptSubmit", "asks"), &process);
    let replied = replying.wait_with_output().unwrap();
    assert!(replied.status.success(), "{}", said(&replied));
    assert!(said(&replied).contains("Claude Code took it"), "{}", said(&replied));
    let history = serve.history_with("asks", "Replied from Switchboard");
    assert!(history.contains("Replied from Switchboard: now fix the tests;, typed into pane"), "{history}");

    // Typed but never taken (no prompt event): refused, non-zero, and the history says so.
    post_from(&serve, &claude("Stop", "asks"), &process);
    serve.wait_for("asks", |s| s["status"] == "done");
    let ignored = run(serve.home(), &["reply", "asks", "are you there"], b"");
    assert!(!ignored.status.success(), "{}", said(&ignored));
    assert!(said(&ignored).contains("did not take it"), "{}", said(&ignored));
    let history = serve.history_with("asks", "did not take it");
    assert!(history.contains("Claude Code did not take it"), "{history}");

    // A session that claims that pane, from a process that is not in it: nothing is typed.
    let outsider = Command::new("sleep").arg("60").spawn().unwrap();
    post_from(&serve, &claude("Stop", "impostor"), &reported(outsider.id(), Some(&pane), &tmux.socket));
    serve.wait_for("impostor", |s| s["status"] == "done");
    let refused = run(serve.home(), &["reply", "impostor", "rm -rf /"], b"");
    assert!(!refused.status.success());
    assert!(said(&refused).contains("runs something else"), "{}", said(&refused));
    // Not in tmux at all: the reason, and Jump.
    post_from(&serve, &claude("Stop", "no-tmux"), &reported(outsider.id(), None, &tmux.socket));
    serve.wait_for("no-tmux", |s| s["status"] == "done");
    let elsewhere = run(serve.home(), &["reply", "no-tmux", "hello"], b"");
    assert!(said(&elsewhere).contains("does not run in tmux"), "{}", said(&elsewhere));
    let mut outsider = outsider;
    let _ = outsider.kill();
    let _ = outsider.wait();
    assert_eq!(keys(&got), "2now fix the tests;\rare you there\r", "nothing more was typed");
}

fn codex(name: &str, session_id: &str, rollout: &Path) -> Value {
    let mut body = fixture(&format!("codex/{name}.json"));
    body["session_id"] = json!(session_id);
    body["transcript_path"] = json!(rollout);
    body
}

impl Tmux {
    /// A new window running `command`: its pane id and the pid tmux started there.
    fn window(&self, command: &str) -> (String, u32) {
        let pane = self.run(&["new-window", "-P", "-F", "#{pane_id}", command]);
        let pid = self.run(&["display-message", "-p", "-t", &pane, "#{pane_pid}"]).parse().unwrap();
        eventually(Duration::from_secs(30), || {
            Some(()).filter(|()| self.run(&["capture-pane", "-p", "-t", &pane]).contains("STAND-IN AGENT"))
        })
        .expect("the stand-in agent is up");
        (pane, pid)
    }
}

/// Issue 33.1: Codex's default daemon mode. Two stand-in windows in two panes and a shared
/// "daemon" in the first pane's tree that holds both sessions' rollouts; every hook reports the
/// daemon and the first pane, as real Codex's do. Reply, answer and peek for the second session
/// never touch the first pane: refused with the reason and the fix — or, where a window in
/// another pane holds the session's rollout itself, delivered there. The bytes each pane
/// received are asserted.
#[test]
fn a_daemon_serving_several_windows_never_ties_a_session_to_its_pane() {
    let serve = Serve::start_with_env(&[("SWITCHBOARD_CONFIRM_MS", Path::new("3000"))]);
    let dir = tempfile::tempdir().unwrap();
    let tmux = Tmux { socket: dir.path().join("tmux.sock") };
    let script = dir.path().join("agent.py");
    std::fs::write(&script, AGENT).unwrap();
    let rollout = |n: u32| {
        let path = dir.path().join(format!("rollout-2026-12-03T07-35-19-session-{n}.jsonl"));
        std::fs::write(&path, "").unwrap();
        path
    };
    let (one, two, four) = (rollout(1), rollout(2), rollout(4));
    let keys_of = |n: u32| dir.path().join(format!("keys-{n}"));
    let agent = |n: u32| format!("python3 '{}' '{}' '›'", script.display(), keys_of(n).display());
    // Window 1 starts the daemon (a child of its TUI, as `codex` starts `codex app-server`); it
    // holds every session's rollout.
    let daemon = format!(
        "python3 -c 'import sys, time; held = [open(p) for p in sys.argv[2:]]; time.sleep(600)' app-server '{}' '{}' '{}'",
        one.display(),
        two.display(),
        four.display()
    );
    tmux.run(&["new-session", "-d", "-x", "120", "-y", "30", "-s", "agents", "sleep 600"]);
    let (first, _) = tmux.window(&format!("{daemon} & exec {}", agent(1)));
    let (second, _) = tmux.window(&format!("exec {}", agent(2)));
    // Window 4 holds its own session's rollout (in-process, as `codex --no-daemon`).
    let (fourth, _) = tmux.window(&format!("exec {} 3<'{}'", agent(4), four.display()));
    let daemon_pid = eventually(Duration::from_secs(30), || {
        let out = Command::new("pgrep").args(["-f", "app-server"]).output().ok()?;
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .filter_map(|pid| pid.trim().parse::<u32>().ok())
            .find(|pid| std::fs::read_link(format!("/proc/{pid}/fd/5")).is_ok_and(|f| f == four))
    })
    .expect("the daemon holds the rollouts");
    let from_daemon = reported(daemon_pid, Some(&first), &tmux.socket);
    for (id, path) in [("session-1", &one), ("session-2", &two), ("session-4", &four)] {
        post_as(&serve, "codex", &codex("Stop", id, path), &from_daemon);
        serve.wait_for(id, |s| s["status"] == "done" && s["process"]["tmuxPane"] == json!(first));
    }

    for id in ["session-2", "session-1"] {
        let refused = run(serve.home(), &["reply", id, "hello"], b"");
        assert!(!refused.status.success(), "{}", said(&refused));
        let text = said(&refused);
        assert!(text.contains("serves all its windows") && text.contains("--no-daemon"), "{text}");
        let peek = said(&run(serve.home(), &["peek", id], b""));
        assert!(peek.contains("(no screen: ") && !peek.contains("STAND-IN AGENT"), "{peek}");
    }
    post_as(&serve, "codex", &codex("PreToolUse-request_user_input", "session-2", &two), &from_daemon);
    serve.wait_for("session-2", |s| s["status"] == "waiting");
    let refused = run(serve.home(), &["answer", "session-2", "1"], b"");
    assert!(said(&refused).contains("serves all its windows"), "{}", said(&refused));

    // Session 4's own window holds its rollout: the reply goes there, and only there.
    let replying = spawn(serve.home(), &["reply", "session-4", "only for four"]);
    eventually(Duration::from_secs(30), || Some(()).filter(|()| keys(&keys_of(4)) == "only for four\r"))
        .unwrap_or_else(|| panic!("window 4 got the reply: {:?}", keys(&keys_of(4))));
    post_as(&serve, "codex", &codex("UserPromptSubmit", "session-4", &four), &from_daemon);
    let replied = replying.wait_with_output().unwrap();
    assert!(replied.status.success(), "{}", said(&replied));
    assert!(said(&replied).contains(&format!("pane {fourth}")), "{}", said(&replied));
    let peek = said(&run(serve.home(), &["peek", "session-4"], b""));
    assert!(peek.contains("(sent) only for four"), "its own screen: {peek}");
    // Nothing else was typed there: not Backspace, not a second Enter.
    assert_eq!(keys(&keys_of(4)), "only for four\r");

    assert_eq!(keys(&keys_of(1)), "", "nothing was typed into the daemon's pane {first}");
    assert_eq!(keys(&keys_of(2)), "", "nothing was typed into the second window {second} either");
}

/// A stand-in agent in a window of a private tmux server: the server (killed on drop, with its
/// folder), the file of the keys it gets, its pane and its process as the forwarder reports it.
fn stand_in_window() -> (tempfile::TempDir, Tmux, PathBuf, String, Value) {
    let dir = tempfile::tempdir().unwrap();
    let tmux = Tmux { socket: dir.path().join("tmux.sock") };
    let script = dir.path().join("agent.py");
    std::fs::write(&script, AGENT).unwrap();
    let got = dir.path().join("keys");
    tmux.run(&["new-session", "-d", "-x", "120", "-y", "30", "-s", "agents", "sleep 600"]);
    let (pane, pid) = tmux.window(&format!("exec python3 '{}' '{}'", script.display(), got.display()));
    let process = reported(pid, Some(&pane), &tmux.socket);
    (dir, tmux, got, pane, process)
}

/// Issue 33.2: a composer holding the user's unsent draft is never appended to or wiped: what was
/// typed is erased again, the reply refused with the draft quoted, and nothing is sent.
#[test]
fn a_reply_into_a_composer_holding_a_draft_is_refused_and_the_draft_kept() {
    let serve = Serve::start();
    let (_dir, tmux, got, pane, process) = stand_in_window();
    post_from(&serve, &claude("Stop", "drafted"), &process);
    serve.wait_for("drafted", |s| s["status"] == "done");
    tmux.run(&["send-keys", "-t", &pane, "-l", "half a thought"]);
    eventually(Duration::from_secs(30), || {
        Some(()).filter(|()| tmux.run(&["capture-pane", "-p", "-t", &pane]).contains("> half a thought"))
    })
    .expect("the user's draft is drawn");
    let refused = run(serve.home(), &["reply", "drafted", "run the tests"], b"");
    assert!(!refused.status.success(), "{}", said(&refused));
    assert!(said(&refused).contains("holds text not sent yet (\"half a thought\")"), "{}", said(&refused));
    let screen = tmux.run(&["capture-pane", "-p", "-t", &pane]);
    assert!(screen.lines().any(|line| line.trim_end() == "> half a thought"), "the draft is as it was: {screen}");
    assert!(!keys(&got).contains('\r'), "nothing was sent: {:?}", keys(&got));
}

/// A script reporting through `custom` under its own label (`aider`) is replied to like a CLI:
/// typed as the `custom` row says, and sent once its own next `working` (a new turn) arrives.
#[test]
fn a_custom_agent_under_its_own_label_takes_a_reply() {
    let serve = Serve::start();
    let (_dir, _tmux, got, _pane, process) = stand_in_window();
    let event = |status: &str| json!({"sessionId": "scripted", "agent": "aider", "status": status});
    post_as(&serve, "custom", &event("done"), &process);
    serve.wait_for("scripted", |s| s["status"] == "done" && s["agent"] == "aider");
    let replying = spawn(serve.home(), &["reply", "scripted", "carry on"]);
    eventually(Duration::from_secs(30), || Some(()).filter(|()| keys(&got) == "carry on\r"))
        .unwrap_or_else(|| panic!("the script got the reply: {:?}", keys(&got)));
    post_as(&serve, "custom", &event("working"), &process);
    let replied = replying.wait_with_output().unwrap();
    assert!(replied.status.success(), "{}", said(&replied));
}

/// Issue 25's "End agent": `switchboard end` sends SIGTERM to the agent's own group — the CLI and
/// the tools it runs — and nothing else; without a terminal to ask on it needs `--yes`.
#[test]
fn end_stops_the_agent_and_its_tools_and_nothing_else() {
    use std::os::unix::process::CommandExt;
    let serve = Serve::start();
    let mut agent = Command::new("sh").args(["-c", "sleep 600 & wait"]).process_group(0).spawn().unwrap();
    let mut sibling = Command::new("sleep").arg("600").spawn().unwrap();
    let pid = agent.id();
    let tool = eventually(Duration::from_secs(30), || {
        let children = std::fs::read_to_string(format!("/proc/{pid}/task/{pid}/children")).ok()?;
        children.split_whitespace().next()?.parse::<u32>().ok()
    })
    .expect("the agent's tool runs");
    post_from(&serve, &claude("UserPromptSubmit", "ending"), &reported(pid, None, Path::new("/")));
    serve.wait_for("ending", |s| s["status"] == "working");

    let unasked = run(serve.home(), &["end", "ending"], b"y\n");
    assert!(!unasked.status.success());
    assert!(said(&unasked).contains("--yes"), "{}", said(&unasked));
    assert!(agent.try_wait().unwrap().is_none(), "nothing was sent without a yes");

    let ended = run(serve.home(), &["end", "ending", "--yes"], b"");
    assert!(ended.status.success(), "{}", said(&ended));
    assert!(said(&ended).contains(&format!("pid {pid}")), "{}", said(&ended));
    agent.wait().unwrap();
    let tool_gone = eventually(Duration::from_secs(30), || {
        let stat = std::fs::read_to_string(format!("/proc/{tool}/stat")).ok();
        stat.is_none_or(|stat| stat.contains(") Z ")).then_some(())
    });
    assert!(tool_gone.is_some(), "its tool ended with it");
    assert!(sibling.try_wait().unwrap().is_none(), "a sibling process survives");
    let _ = sibling.kill();
    let _ = sibling.wait();
}

/// Issue 45: a shell that runs `switchboard end` on its own session (the agent the session
/// reports is that shell) survives, and the command says why it refused.
#[test]
fn end_from_the_agents_own_shell_is_refused_and_the_shell_survives() {
    use std::io::{BufRead, BufReader, Write};
    let serve = Serve::start();
    // The "agent": a shell that, once told, runs `switchboard end` on its own session.
    let script = format!("read go; '{}' end own --yes 2>&1; echo \"exit $?\"; cat >/dev/null", crate::support::BIN);
    let mut shell = Command::new("sh")
        .args(["-c", &script])
        .env("SWITCHBOARD_HOME", serve.home())
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    post_from(&serve, &claude("UserPromptSubmit", "own"), &reported(shell.id(), None, Path::new("/")));
    serve.wait_for("own", |s| s["status"] == "working");
    let mut stdin = shell.stdin.take().unwrap();
    stdin.write_all(b"go\n").unwrap();
    let mut said = Vec::new();
    for line in BufReader::new(shell.stdout.take().unwrap()).lines() {
        let line = line.unwrap();
        let done = line.starts_with("exit ");
        said.push(line);
        if done {
            break;
        }
    }
    let said = said.join("\n");
    assert!(said.ends_with("exit 1"), "{said}");
    assert!(said.contains(&format!("pid {}", shell.id())) && said.contains("its shell"), "{said}");
    assert!(shell.try_wait().unwrap().is_none(), "the shell that asked survives");
    drop(stdin);
    assert!(shell.wait().unwrap().success(), "it ends on its own, not by a signal");
}

/// Issue 45: with the instance running as root, a session whose agent is another user's process
/// is not ended (root could signal it; the user the instance runs as does not own it).
#[test]
fn end_refuses_another_users_process() {
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        return; // Only root can start a process as another user here.
    }
    let serve = Serve::start();
    let mut theirs = Command::new("setpriv")
        .args(["--reuid=65534", "--regid=65534", "--clear-groups", "sleep", "600"])
        .spawn()
        .unwrap();
    let pid = theirs.id();
    let exec_done = eventually(Duration::from_secs(30), || {
        let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
        status.lines().any(|line| line.starts_with("Uid:\t65534")).then_some(())
    });
    assert!(exec_done.is_some(), "the process runs as nobody");
    post_from(&serve, &claude("UserPromptSubmit", "theirs"), &reported(pid, None, Path::new("/")));
    serve.wait_for("theirs", |s| s["status"] == "working");
    let refused = run(serve.home(), &["end", "theirs", "--yes"], b"");
    assert!(!refused.status.success());
    assert!(said(&refused).contains("another user's process"), "{}", said(&refused));
    assert!(theirs.try_wait().unwrap().is_none(), "it runs on");
    let _ = theirs.kill();
    let _ = theirs.wait();
}
