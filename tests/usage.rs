//! Issue 25 against a real `serve`: a session's tokens and cost read from its transcript (and
//! re-priced when the user edits `pricing.json`), its folder's git state, and its agent's
//! process tree's footprint compared with what `ps` says of the same tree.

use std::io::Write;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use serde_json::{json, Value};

use crate::support::{eventually, Serve, BIN};

/// A stand-in agent CLI (python, so the forwarder stops at it): it runs `switchboard hook
/// claude` with `payload`, then does `then` (Python code) and sleeps.
fn agent(serve: &Serve, payload: &Value, then: &str) -> Child {
    let script = format!(
        "import subprocess, sys, time\n\
         subprocess.run([{BIN:?}, 'hook', 'claude'], input=sys.stdin.buffer.read())\n\
         {then}\n\
         time.sleep(120)\n"
    );
    let mut child = Command::new("python3")
        .args(["-c", &script])
        .env("SWITCHBOARD_HOME", serve.home())
        .stdin(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(payload.to_string().as_bytes()).unwrap();
    child
}

fn response(id: &str, model: &str, input: u64, cache_read: u64, output: u64) -> String {
    json!({"type": "assistant", "message": {"id": id, "model": model, "role": "assistant",
        "content": [{"type": "text", "text": "ok"}],
        "usage": {"input_tokens": input, "cache_creation_input_tokens": 0, "cache_read_input_tokens": cache_read,
                  "output_tokens": output}}})
    .to_string()
        + "\n"
}

fn git(dir: &Path, args: &[&str]) {
    let status = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .env("GIT_AUTHOR_NAME", "t")
        .env("GIT_AUTHOR_EMAIL", "t@t")
        .env("GIT_COMMITTER_NAME", "t")
        .env("GIT_COMMITTER_EMAIL", "t@t")
        .stdout(Stdio::null())
        .status()
        .unwrap();
    assert!(status.success(), "git {args:?}");
}

#[test]
fn tokens_cost_and_git_state_come_from_the_sessions_files_and_follow_the_users_prices() {
    let serve = Serve::start();
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path().join("api");
    std::fs::create_dir(&repo).unwrap();
    git(&repo, &["init", "-q", "-b", "feature/login"]);
    std::fs::write(repo.join("README"), "x").unwrap();
    let transcript = dir.path().join("t.jsonl");
    // One response written as two records (two content blocks), then another response.
    let first = response("msg_1", "claude-sonnet-4-5", 1_000, 0, 200);
    std::fs::write(&transcript, format!("{{\"type\":\"user\"}}\n{first}{first}")).unwrap();
    let payload = json!({"hook_event_name": "UserPromptSubmit", "session_id": "metered", "prompt": "go",
        "cwd": repo, "transcript_path": transcript});
    let mut child = agent(&serve, &payload, "");
    let session = eventually(Duration::from_secs(10), || serve.session("metered").filter(|s| s["usage"].is_object()))
        .expect("the usage is read from the transcript");
    let usage = &session["usage"];
    assert_eq!((usage["inputTokens"].as_u64(), usage["outputTokens"].as_u64()), (Some(1_000), Some(200)), "{usage}");
    assert_eq!(usage["requests"], 1, "one response, counted once");
    assert_eq!(usage["model"], "claude-sonnet-4-5");
    assert_eq!(usage["contextTokens"], 1_200);
    assert_eq!(usage["contextWindow"], 200_000);
    // The built-in table: $3 and $15 per million tokens.
    assert_eq!(usage["costMicros"], 1_000 * 3 + 200 * 15);
    let git_state = eventually(Duration::from_secs(10), || {
        serve.session("metered").map(|s| s["git"].clone()).filter(|g| g.is_object())
    })
    .expect("the git state is read");
    assert_eq!(git_state, json!({"branch": "feature/login", "worktree": null, "dirty": true}));

    let mut file = std::fs::OpenOptions::new().append(true).open(&transcript).unwrap();
    file.write_all(response("msg_2", "claude-sonnet-4-5", 10, 5_000, 100).as_bytes()).unwrap();
    let usage = eventually(Duration::from_secs(10), || {
        serve.session("metered").map(|s| s["usage"].clone()).filter(|u| u["requests"] == 2)
    })
    .expect("an appended response is counted");
    assert_eq!((usage["inputTokens"].as_u64(), usage["cacheReadTokens"].as_u64()), (Some(1_010), Some(5_000)));
    assert_eq!(usage["contextTokens"], 10 + 5_000 + 100);

    // The user's own prices (the file serve wrote from the built-in table, edited).
    let pricing = serve.home().join("pricing.json");
    let table: Value =
        serde_json::from_str(&std::fs::read_to_string(&pricing).expect("pricing.json is written")).unwrap();
    assert!(table["models"].as_array().is_some_and(|m| m.len() > 5));
    std::fs::write(
        &pricing,
        json!({"models": [{"match": "claude-sonnet", "input": 1.0, "output": 1.0,
        "cacheRead": 1.0, "contextWindow": 1_000_000}]})
        .to_string(),
    )
    .unwrap();
    let usage = eventually(Duration::from_secs(30), || {
        serve.session("metered").map(|s| s["usage"].clone()).filter(|u| u["contextWindow"] == 1_000_000)
    })
    .expect("an edited pricing.json applies without a restart");
    assert_eq!(usage["costMicros"], 1_010 + 300 + 5_000);
    child.kill().unwrap();
    child.wait().unwrap();
}

/// `ps`'s resident memory (KiB) of `pid` and everything under it.
fn ps_tree_rss_kib(pid: u32) -> u64 {
    let out = Command::new("ps").args(["-e", "-o", "pid=,ppid=,rss="]).output().unwrap();
    let rows: Vec<(u32, u32, u64)> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|line| {
            let mut fields = line.split_whitespace().map(|f| f.parse::<u64>().ok());
            Some((fields.next()?? as u32, fields.next()?? as u32, fields.next()??))
        })
        .collect();
    let mut tree = vec![pid];
    let mut next = 0;
    while next < tree.len() {
        let parent = tree[next];
        tree.extend(rows.iter().filter(|(_, ppid, _)| *ppid == parent).map(|(pid, _, _)| *pid));
        next += 1;
    }
    rows.iter().filter(|(pid, _, _)| tree.contains(pid)).map(|(_, _, rss)| rss).sum()
}

#[test]
fn a_live_agents_footprint_is_its_whole_process_tree_as_ps_sees_it() {
    let serve = Serve::start();
    let payload = json!({"hook_event_name": "UserPromptSubmit", "session_id": "heavy", "prompt": "go", "cwd": "/tmp"});
    // The agent starts a tool that holds 64 MiB and spins, and another that sleeps.
    let mut child = agent(
        &serve,
        &payload,
        "subprocess.Popen(['python3', '-c', 'b = bytearray(64 << 20)\\nwhile True: pass'])\n\
         subprocess.Popen(['sleep', '120'])",
    );
    let footprint = eventually(Duration::from_secs(30), || {
        serve
            .session("heavy")
            .map(|s| s["footprint"].clone())
            .filter(|f| f["processes"].as_u64() == Some(3) && f["rssBytes"].as_u64() > Some(64 << 20))
    })
    .expect("the agent and its two tools are sampled");
    let ours_kib = footprint["rssBytes"].as_u64().unwrap() / 1024;
    let ps_kib = ps_tree_rss_kib(child.id());
    let off = ours_kib.abs_diff(ps_kib) as f64 / ps_kib as f64;
    assert!(off <= 0.10, "RSS {ours_kib} KiB here, {ps_kib} KiB by ps ({:.1} % apart)", off * 100.0);
    // The spinning tool keeps a core busy (as much of one as this machine gives it).
    let busy = eventually(Duration::from_secs(30), || {
        serve.session("heavy").map(|s| s["footprint"].clone()).filter(|f| f["cpuTenths"].as_u64() >= Some(300))
    });
    assert!(
        busy.is_some(),
        "a spinning tool shows as CPU use; last {:?}",
        serve.session("heavy").map(|s| s["footprint"].clone())
    );
    let started = footprint["startedAt"].as_u64().unwrap();
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_millis() as u64;
    assert!(started <= now && now - started < 120_000, "started {started}, now {now}");
    // Its tools end with it, and so does its footprint.
    let _ = Command::new("pkill").args(["-P", &child.id().to_string()]).status();
    child.kill().unwrap();
    child.wait().unwrap();
    eventually(Duration::from_secs(30), || serve.session("heavy").filter(|s| s["footprint"].is_null()))
        .expect("a gone agent has no footprint");
}
