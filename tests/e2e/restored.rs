//! Issue 33.4: after a restart, a session whose agent died while the app was closed shows no
//! pid, no footprint and no End agent — its process is checked (pid and start time) first.

use std::process::Command;

use serde_json::json;

use crate::harness::{hook, seed_sessions_from, App, Notify};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_restored_session_whose_agent_died_shows_no_pid_and_no_end_agent() {
    let mut agent = Command::new("sleep").arg("600").spawn().expect("a stand-in agent");
    let pid = agent.id();
    let start = switchboard_engine::process::stat(pid).expect("its /proc/<pid>/stat").start;
    let process = json!({"pid": pid, "start": start, "tty": "/dev/pts/9"});
    let app = App::start_seeded(Notify::Off, &[], |state| {
        seed_sessions_from(state, &[("claude", hook("claude/Stop.json", "died", Some("/src/gone")))], Some(&process));
        // The agent dies while no instance runs.
        agent.kill().expect("kill the agent");
        agent.wait().expect("reap it");
    })
    .await;
    app.wait_for_ui().await;
    app.wait_node("died", "restored", |n| n.status == "done").await;
    let session = app.session("died").expect("restored");
    assert_eq!(session["exited"], true, "{session:#}");
    app.click_node("died").await;
    let said = app.text_of("details-where").await;
    assert!(said.contains("exited") && !said.contains(&format!("pid {pid}")), "{said}");
    let end = app.client.find(fantoccini::Locator::Css(r#"[data-testid="end-agent"]"#)).await;
    assert!(end.is_err(), "no End agent for a dead agent");
    app.close().await;
}
