//! Answering from the board through a real tmux server (issue 24): a stand-in agent in a tmux
//! pane records every key it gets; `switchboard answer` types the option's number into it,
//! `switchboard reply` the next prompt and Enter — and nothing is typed into a pane that runs
//! something else, or for an agent not in tmux. `peek` shows the question's numbered options
//! and the pane's screen.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

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
    let path = format!("/hook/claude?key={}", serve.endpoint.key);
    let header = format!("{}: {process}\r\n", switchboard_engine::protocol::PROCESS_HEADER);
    let response = switchboard_engine::client::request_until(
        serve.addr(),
        "POST",
        &path,
        &header,
        body.to_string().as_bytes(),
        Instant::now() + Duration::from_secs(5),
    )
    .unwrap();
    assert_eq!(response.status, 204);
}

fn claude(name: &str, session_id: &str) -> Value {
    let mut body = fixture(&format!("claude/{name}.json"));
    body["session_id"] = json!(session_id);
    body
}

fn said(output: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr))
}

fn keys(file: &Path) -> String {
    String::from_utf8_lossy(&std::fs::read(file).unwrap_or_default()).into_owned()
}

#[test]
fn answers_are_typed_into_the_agents_own_pane_and_nowhere_else() {
    let serve = Serve::start();
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

    let answered = run(serve.home(), &["answer", "ask", "2"], b"");
    assert!(answered.status.success(), "{}", said(&answered));
    assert!(said(&answered).contains(&format!("pane {pane}")), "{}", said(&answered));
    eventually(Duration::from_secs(30), || Some(()).filter(|()| keys(&got) == "2")).expect("the agent got the key 2");

    // The CLI goes on with the answer (its tool returns), then finishes the turn: a reply is its
    // next prompt, then Enter.
    post_from(&serve, &claude("PostToolUse", "asks"), &process);
    post_from(&serve, &claude("Stop", "asks"), &process);
    serve.wait_for("asks", |s| s["status"] == "done");
    let replied = run(serve.home(), &["reply", "asks", "now", "fix\nthe tests"], b"");
    assert!(replied.status.success(), "{}", said(&replied));
    eventually(Duration::from_secs(30), || Some(()).filter(|()| keys(&got) == "2now fix the tests\r"))
        .unwrap_or_else(|| panic!("the agent got the reply and Enter: {:?}", keys(&got)));

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
    assert_eq!(keys(&got), "2now fix the tests\r", "nothing more was typed");
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
