//! Remote sessions on the board (issue 23): a second instance (the "box", its own state dir) is
//! followed as remote `box` through a pipe (`env … sh -s`; the SSH transport has its own test in
//! tests/remote.rs). Its sessions are drawn in their own host's region beside the same folder
//! here; when the box goes away its cards say "box unreachable since …" (and keep their last
//! state); when it is back, they say nothing of the kind again.
//!
//! `REMOTE_SCREENSHOT=DIR` keeps pictures of both moments.

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use serde_json::{json, Value};
use switchboard_engine::endpoint::Endpoint;
use switchboard_engine::instance::settings::{RemoteSpec, Settings};

use crate::harness::{eventually, App, Notify};

const BIN: &str = env!("CARGO_BIN_EXE_switchboard");

fn picture(step: &str) {
    let Ok(dir) = std::env::var("REMOTE_SCREENSHOT") else { return };
    let shot = format!("xwd -root -silent | /usr/bin/convert xwd:- {dir}/remote-{step}.png");
    let status = Command::new("sh").args(["-c", &shot]).status().expect("run xwd");
    assert!(status.success(), "{shot}: {status}");
}

/// The box's own instance.
fn serve_box(state: &Path) -> Child {
    let child = Command::new(BIN)
        .args(["serve", "--no-notify"])
        .env("SWITCHBOARD_HOME", state)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("start the box's serve");
    eventually(Duration::from_secs(30), || Endpoint::read(state)).expect("the box's instance runs");
    child
}

fn post(endpoint: &Endpoint, body: &Value) {
    let path = format!("/hook/custom?key={}", endpoint.key);
    let response = switchboard_engine::client::request(
        endpoint.addr(),
        "POST",
        &path,
        body.to_string().as_bytes(),
        Duration::from_secs(10),
    )
    .expect("post to the box");
    assert_eq!(response.status, 204);
}

const READ_BOARD: &str = r#"
const regions = [...document.querySelectorAll('.react-flow__node-region .region-name')].map(e => e.textContent);
const cards = [...document.querySelectorAll('[data-testid="session-node"]')].map(e => ({
  id: e.dataset.sessionId,
  unreachable: e.dataset.unreachable === 'true',
  mark: (e.querySelector('[data-testid="unreachable-mark"]') || {}).textContent || '',
  text: e.textContent,
}));
return { regions, cards };
"#;

async fn board(app: &App) -> Value {
    app.client.execute(READ_BOARD, vec![]).await.expect("read the board")
}

#[tokio::test]
async fn remote_sessions_in_their_hosts_region_and_unreachable_while_the_box_is_away() {
    let work = tempfile::tempdir().unwrap();
    let box_state = work.path().join("box");
    let down = work.path().join("down");
    let mut box_serve = serve_box(&box_state);
    let box_endpoint = Endpoint::read(&box_state).unwrap();
    for (id, status) in [("r1", "blocked"), ("r2", "working"), ("r3", "done")] {
        post(
            &box_endpoint,
            &json!({"sessionId": id, "agent": "claude", "status": status, "cwd": "/srv/api",
            "title": format!("Remote {id}"), "tool": "Bash", "message": "make deploy"}),
        );
    }

    let app = App::start(Notify::Off).await;
    app.client.set_window_size(1280, 800).await.expect("resize the window");
    for (id, status) in [("l1", "working"), ("l2", "done")] {
        app.post(
            "custom",
            &json!({"sessionId": id, "agent": "claude", "status": status, "cwd": "/srv/api",
            "title": format!("Local {id}")}),
        );
    }
    // The box, reached by a command that fails while `down` exists (as ssh does when the box is
    // off): `sh -s` is appended and the box's `switchboard link` runs on the other end.
    let bin_dir = Path::new(BIN).parent().unwrap().display().to_string();
    let reach = vec![
        "sh".into(),
        "-c".into(),
        format!("test -e '{}' && exit 255; exec \"$@\"", down.display()),
        "reach".into(),
        "env".into(),
        format!("SWITCHBOARD_HOME={}", box_state.display()),
        format!("HOME={}", work.path().display()),
        format!("PATH={bin_dir}:/usr/bin:/bin"),
    ];
    let settings = Settings { remotes: vec![RemoteSpec { name: "box".into(), command: reach }], ..Settings::default() };
    settings.save(&app.state_dir()).unwrap();
    let endpoint = Endpoint::read(&app.state_dir()).unwrap();
    let path = format!("/remotes?key={}", endpoint.key);
    let told =
        switchboard_engine::client::request(endpoint.addr(), "POST", &path, b"", Duration::from_secs(10)).unwrap();
    assert_eq!(told.status, 204, "the app follows the remotes in its settings");

    app.wait_for_sessions_in_view(5).await;
    let seen = board(&app).await;
    let regions: Vec<&str> = seen["regions"].as_array().unwrap().iter().filter_map(Value::as_str).collect();
    assert!(regions.contains(&"box · api"), "the box's folder is its own region: {regions:?}");
    assert!(regions.contains(&"api"), "this machine's same folder is another: {regions:?}");
    let card = |seen: &Value, id: &str| {
        seen["cards"].as_array().unwrap().iter().find(|c| c["id"] == id).cloned().unwrap_or(Value::Null)
    };
    assert_eq!(card(&seen, "box:r1")["unreachable"], false);
    assert!(card(&seen, "box:r2")["text"].as_str().unwrap().contains("box"), "a remote card says where it runs");
    app.wait_still(".react-flow__viewport").await;
    picture("connected");

    // The box goes away: its cards keep their last state and say since when it is unreachable.
    std::fs::write(&down, b"").unwrap();
    let _ = box_serve.kill();
    let _ = box_serve.wait();
    let away = eventually(Duration::from_secs(60), || app.session("box:r2").filter(|s| s["unreachableSince"].is_u64()))
        .expect("the board is told the box is unreachable");
    assert_eq!(away["status"], "working", "not ended, not stale: its last known state");
    let mut seen = board(&app).await;
    for _ in 0..50 {
        if ["box:r1", "box:r2", "box:r3"].iter().all(|id| card(&seen, id)["unreachable"] == true) {
            break;
        }
        app.wait_still(".react-flow__viewport").await;
        seen = board(&app).await;
    }
    for id in ["box:r1", "box:r2", "box:r3"] {
        let card = card(&seen, id);
        assert_eq!(card["unreachable"], true, "{id}: {card}");
        assert!(card["mark"].as_str().unwrap().starts_with("box unreachable"), "{id}: {card}");
    }
    assert_eq!(card(&seen, "l1")["unreachable"], false, "this machine's sessions are not touched");
    picture("unreachable");

    // Back: the link starts the box's instance again; its sessions are current once more.
    std::fs::remove_file(&down).unwrap();
    eventually(Duration::from_secs(90), || app.session("box:r2").filter(|s| s["unreachableSince"].is_null()))
        .expect("caught up once the box is back");
    app.close().await;
    // The box's instance the link started again.
    if let Some(endpoint) = Endpoint::read(&box_state) {
        // SAFETY: signals the box's serve this test started (through its link).
        unsafe { libc::kill(endpoint.pid as i32, libc::SIGTERM) };
    }
}
