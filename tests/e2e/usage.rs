//! What each agent spends, on the board (issue 25): three Claude sessions whose transcripts
//! carry real `usage` records. Their nodes show the context bar and the cost the meter read,
//! sorting by cost orders them inside their project's region, and the header's "today" total is
//! their sum. `USAGE_SCREENSHOT=DIR` keeps a picture of the board as `DIR/usage.png`.

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::harness::{hook, App, Notify};

/// One model response as Claude's transcript records it.
fn response(id: &str, text: &str, input: u64, cache_read: u64, output: u64) -> String {
    json!({"type": "assistant", "message": {"id": id, "model": "claude-sonnet-4-5", "role": "assistant",
        "content": [{"type": "text", "text": text}],
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
        .stderr(Stdio::null())
        .status()
        .expect("git");
    assert!(status.success(), "git {args:?} in {}", dir.display());
}

/// A stand-in for an agent's process (for its footprint); ended on drop.
struct Sleeper(Child);

impl Drop for Sleeper {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// A session of the test: its id, folder, first prompt (its title), and the responses in its
/// transcript as (input, cache read, output) tokens.
struct Agent {
    id: &'static str,
    folder: &'static str,
    prompt: &'static str,
    responses: &'static [(u64, u64, u64)],
}

/// Built-in prices of claude-sonnet: $3 per million input tokens, $0.30 cache read, $15 output.
fn expected_micros(agent: &Agent) -> u64 {
    agent.responses.iter().map(|(input, cache_read, output)| input * 3 + cache_read * 3 / 10 + output * 15).sum()
}

/// Each node's cost text, context bar, branch and box, by session id.
const READ_USAGE: &str = r#"
const out = {};
for (const n of document.querySelectorAll('[data-testid="session-node"]')) {
  const cost = n.querySelector('[data-testid="node-cost"]');
  const bar = n.querySelector('[data-testid="node-context"]');
  const branch = n.querySelector('[data-testid="node-branch"]');
  const r = n.getBoundingClientRect();
  out[n.dataset.sessionId] = {
    cost: cost ? cost.textContent : null,
    percent: bar ? Number(bar.dataset.percent) : null,
    fill: bar ? bar.querySelector('.context-fill').getBoundingClientRect().width / bar.getBoundingClientRect().width : null,
    warning: bar ? bar.classList.contains('is-warning') : null,
    branch: branch ? branch.textContent : null,
    top: Math.round(r.top), left: Math.round(r.left),
  };
}
return out;
"#;

fn dollars(micros: u64) -> String {
    // Cents, rounded half up, as the UI's toFixed(2) does for these sums.
    format!("${}.{:02}", micros / 1_000_000, (micros % 1_000_000 + 5_000) / 10_000)
}

/// The ids in reading order (top to bottom, then left to right) of the nodes on screen.
fn reading_order(seen: &Value, ids: &[&str]) -> Vec<String> {
    let mut boxes: Vec<(i64, i64, String)> = ids
        .iter()
        .filter_map(|id| Some((seen[id]["top"].as_i64()?, seen[id]["left"].as_i64()?, id.to_string())))
        .collect();
    boxes.sort();
    boxes.into_iter().map(|(_, _, id)| id).collect()
}

/// Polls the board (bounded) until `check` holds for what `READ_USAGE` sees.
async fn wait_board(app: &App, what: &str, check: impl Fn(&Value) -> bool) -> Value {
    let started = Instant::now();
    loop {
        let seen = app.client.execute(READ_USAGE, vec![]).await.expect("read the nodes' usage");
        if check(&seen) {
            return seen;
        }
        assert!(started.elapsed() < Duration::from_secs(20), "the board never showed {what}; last seen {seen:#}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn nodes_show_context_and_cost_sort_by_cost_and_the_header_sums_today() {
    let app = App::start(Notify::Off).await;
    app.client.set_window_size(1280, 800).await.expect("resize the window");

    // One project: a repository on `main` with uncommitted changes, and two linked worktrees
    // inside it, each on its own branch (so all three sessions share one region).
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("webapp");
    std::fs::create_dir(&root).unwrap();
    git(&root, &["init", "-q", "-b", "main"]);
    std::fs::write(root.join("README.md"), "webapp\n").unwrap();
    git(&root, &["add", "."]);
    git(&root, &["commit", "-q", "-m", "start"]);
    git(&root, &["worktree", "add", "-q", "-b", "feature/passkeys", "wt/passkeys"]);
    git(&root, &["worktree", "add", "-q", "-b", "fix/invoice-rounding", "wt/invoices"]);
    std::fs::write(root.join("wt/passkeys/login.ts"), "export {};\n").unwrap();

    let agents = [
        Agent {
            id: "usage-api",
            folder: "",
            prompt: "Refactor the API client",
            responses: &[(40_000, 0, 1_500), (20_000, 0, 2_500)],
        },
        Agent {
            id: "usage-login",
            folder: "wt/passkeys",
            prompt: "Add login with passkeys",
            responses: &[(20_000, 0, 2_000)],
        },
        Agent {
            id: "usage-invoices",
            folder: "wt/invoices",
            prompt: "Fix rounding in invoices",
            responses: &[(120_000, 0, 3_000), (150_000, 20_000, 3_000)],
        },
    ];
    let ids: Vec<&str> = agents.iter().map(|a| a.id).collect();

    // The first plays a live agent (a process of its own, so its footprint is sampled).
    let sleeper = Sleeper(Command::new("sleep").arg("600").spawn().expect("sleep"));
    let pid = sleeper.0.id();
    let start = switchboard_engine::process::stat(pid).expect("/proc/<sleep>/stat").start;
    let process = json!({"pid": pid, "start": start, "tty": null, "tmuxPane": null, "tmuxSocket": null,
        "windowId": null, "termProgram": null});

    for (n, agent) in agents.iter().enumerate() {
        let cwd = if agent.folder.is_empty() { root.clone() } else { root.join(agent.folder) };
        let transcript = dir.path().join(format!("{}.jsonl", agent.id));
        let records: String = agent
            .responses
            .iter()
            .enumerate()
            .map(|(i, &(a, b, c))| {
                let last = i + 1 == agent.responses.len();
                let text = if last { "Done; the tests pass." } else { "Reading the code first." };
                response(&format!("msg_{n}_{i}"), text, a, b, c)
            })
            .collect();
        std::fs::write(&transcript, format!("{{\"type\":\"user\"}}\n{records}")).unwrap();
        let mut prompt = hook("claude/UserPromptSubmit.json", agent.id, Some(cwd.to_str().unwrap()));
        prompt["transcript_path"] = json!(transcript);
        prompt["prompt"] = json!(agent.prompt);
        if n == 0 {
            app.post_from("claude", &prompt, &process);
            continue;
        }
        app.post("claude", &prompt);
        let mut stop = hook("claude/Stop.json", agent.id, Some(cwd.to_str().unwrap()));
        stop["transcript_path"] = json!(transcript);
        stop["last_assistant_message"] = json!(format!("Done: {}.", agent.prompt.to_lowercase()));
        app.post("claude", &stop);
    }

    // The meter reads each transcript (every second) and prices it from the built-in table.
    let mut total = 0;
    let mut usages = Vec::new();
    for agent in &agents {
        let micros = expected_micros(agent);
        let session = app.wait_session(agent.id, "metered", |s| s["usage"]["costMicros"].as_u64() == Some(micros));
        total += micros;
        usages.push(session["usage"].clone());
    }

    // Each node: the cost as the panel words it, the bar at the share of the window in use.
    let seen = wait_board(&app, "every node's cost, context bar and branch", |seen| {
        agents.iter().all(|a| {
            seen[a.id]["cost"].is_string() && seen[a.id]["percent"].is_number() && seen[a.id]["branch"].is_string()
        })
    })
    .await;
    for (agent, usage) in agents.iter().zip(&usages) {
        let node = &seen[agent.id];
        assert_eq!(node["cost"], json!(dollars(expected_micros(agent))), "{}: {node}", agent.id);
        let percent = usage["contextTokens"].as_u64().unwrap() * 100 / usage["contextWindow"].as_u64().unwrap();
        assert_eq!(node["percent"], json!(percent), "{}: {node} from {usage}", agent.id);
        let fill = node["fill"].as_f64().unwrap();
        assert!(
            (fill - percent as f64 / 100.0).abs() < 0.03,
            "{}: the bar is {fill:.2} full for {percent} %",
            agent.id
        );
        assert_eq!(node["warning"], json!(percent >= 80), "{}: warns from 80 %: {node}", agent.id);
    }
    assert_eq!(seen["usage-login"]["branch"], "feature/passkeys");
    assert_eq!(seen["usage-invoices"]["branch"], "fix/invoice-rounding");

    // The header: today's estimated cost is the sum of the three.
    let header = app.text_of("today-cost").await;
    assert_eq!(header, format!("{} today", dollars(total)), "{header:?}");
    let micros = app
        .client
        .execute(r#"return Number(document.querySelector('[data-testid="today-cost"]').dataset.micros);"#, vec![])
        .await
        .unwrap();
    assert_eq!(micros.as_u64(), Some(total));

    // The default order inside the region is what needs you first, then arrival; sorted by
    // cost, the most expensive comes first.
    let by_cost = {
        let mut sorted: Vec<&Agent> = agents.iter().collect();
        sorted.sort_by_key(|a| std::cmp::Reverse(expected_micros(a)));
        sorted.iter().map(|a| a.id.to_string()).collect::<Vec<_>>()
    };
    app.wait_still(".react-flow__viewport").await;
    let before = reading_order(&app.client.execute(READ_USAGE, vec![]).await.unwrap(), &ids);
    assert_ne!(before, by_cost, "the test needs a default order that is not the cost order");
    app.client
        .execute("document.body.dispatchEvent(new KeyboardEvent('keydown', {key: '/', bubbles: true}));", vec![])
        .await
        .unwrap();
    let sort = app.client.wait().for_element(fantoccini::Locator::Css(r#"[data-testid="filter-sort"]"#)).await.unwrap();
    sort.select_by_value("cost").await.expect("choose the cost sort");
    wait_board(&app, "the nodes in cost order", |seen| reading_order(seen, &ids) == by_cost).await;
    app.wait_still(".react-flow__viewport").await;
    assert_eq!(reading_order(&app.client.execute(READ_USAGE, vec![]).await.unwrap(), &ids), by_cost);
    // Escape closes the bar; while the sort is on, a pill says so.
    app.client
        .execute(
            r#"document.querySelector('[data-testid="filter-sort"]').dispatchEvent(new KeyboardEvent('keydown', {key: 'Escape', bubbles: true}));"#,
            vec![],
        )
        .await
        .unwrap();
    assert_eq!(app.text_of("filter-sort-pill").await, "Sorted by cost");
    assert_eq!(reading_order(&app.client.execute(READ_USAGE, vec![]).await.unwrap(), &ids), by_cost);

    // The live one's panel: its usage, its footprint once sampled (every 5 s), its branch.
    let footprint = crate::harness::eventually(Duration::from_secs(20), || {
        app.session("usage-api").filter(|s| s["footprint"].is_object())
    })
    .expect("the live agent's footprint is sampled");
    assert_eq!(footprint["footprint"]["processes"], 1, "{footprint:#}");
    app.click_node("usage-api").await;
    app.text_of("details-usage").await;
    let started = Instant::now();
    let panel = loop {
        let panel = app.text_of("details-usage").await;
        if panel.contains("Memory") && panel.contains("uncommitted changes") {
            break panel;
        }
        assert!(started.elapsed() < Duration::from_secs(10), "the Usage section never showed it all: {panel:?}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert!(panel.contains("claude-sonnet-4-5"), "{panel:?}");
    assert!(panel.contains(&dollars(expected_micros(&agents[0]))), "{panel:?}");
    assert!(panel.contains("60k in · 0 cached · 4k out"), "{panel:?}");
    assert!(panel.contains("% of 200k"), "{panel:?}");
    assert!(panel.contains("1 process"), "{panel:?}");
    assert!(panel.contains("main"), "{panel:?}");

    if let Ok(dir) = std::env::var("USAGE_SCREENSHOT") {
        // The panel from its top (its title), wherever it scrolled to.
        let top = r#"document.querySelector('[data-testid="details-panel"]').scrollTop = 0;"#;
        app.client.execute(top, vec![]).await.unwrap();
        app.wait_still(".react-flow__viewport").await;
        let shot = format!("xwd -root -silent | /usr/bin/convert xwd:- {dir}/usage.png");
        let status = Command::new("sh").args(["-c", &shot]).status().expect("run xwd");
        assert!(status.success(), "{shot}: {status}");
    }
    app.close().await;
    drop(sleeper);
}
