//! `switchboard new` (issue 24): the CLI started in Switchboard's own tmux server reports through
//! its hooks like any agent (its node appears with the pane), and a reply reaches it there. A
//! stand-in `claude` on PATH sends its first events through the real forwarder, then reads its
//! terminal.

use std::os::unix::fs::PermissionsExt;
use std::process::Command;
use std::time::Duration;

use crate::support::{eventually, Serve, BIN};

const STAND_IN: &str = r#"#!/bin/sh
# A stand-in Claude Code: its hooks through the real forwarder, then it reads its terminal.
hook() { printf '%s' "$1" | "$SWITCHBOARD_BIN" hook claude; }
hook "{\"session_id\":\"started-1\",\"hook_event_name\":\"SessionStart\",\"cwd\":\"$PWD\",\"source\":\"startup\"}"
hook "{\"session_id\":\"started-1\",\"hook_event_name\":\"UserPromptSubmit\",\"cwd\":\"$PWD\",\"prompt\":\"$1\"}"
hook "{\"session_id\":\"started-1\",\"hook_event_name\":\"Stop\",\"cwd\":\"$PWD\",\"last_assistant_message\":\"Done.\"}"
# Each line typed at its prompt is a new turn, as Claude's UserPromptSubmit says.
while IFS= read -r line; do
  printf '%s\n' "$line" >> "$PWD/typed"
  hook "{\"session_id\":\"started-1\",\"hook_event_name\":\"UserPromptSubmit\",\"cwd\":\"$PWD\",\"prompt\":\"$line\"}"
done
"#;

#[test]
fn an_agent_started_from_switchboard_reports_from_its_pane_and_takes_a_reply() {
    let serve = Serve::start();
    let dir = tempfile::tempdir().unwrap();
    let bin = dir.path().join("bin");
    std::fs::create_dir(&bin).unwrap();
    let claude = bin.join("claude");
    std::fs::write(&claude, STAND_IN).unwrap();
    std::fs::set_permissions(&claude, std::fs::Permissions::from_mode(0o755)).unwrap();
    let project = dir.path().join("webapp");
    std::fs::create_dir(&project).unwrap();
    let server = format!("sb-test-{}", std::process::id());
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap_or_default());
    let sb = |args: &[&str]| {
        Command::new(BIN)
            .args(args)
            .env("SWITCHBOARD_HOME", serve.home())
            .env("SWITCHBOARD_TMUX", &server)
            .env("SWITCHBOARD_BIN", BIN)
            .env("PATH", &path)
            .output()
            .unwrap()
    };
    let started = sb(&["new", "claude", "--cwd", project.to_str().unwrap(), "--", "fix", "the", "login"]);
    let said = String::from_utf8_lossy(&started.stdout).into_owned() + &String::from_utf8_lossy(&started.stderr);
    let _cleanup = KillServer(server.clone());
    assert!(started.status.success(), "{said}");
    assert!(said.contains(&format!("tmux -L {server} attach -t claude-")), "{said}");

    let done = serve.wait_for("started-1", |s| s["status"] == "done");
    assert_eq!(done["title"], "fix the login", "named after its first prompt");
    assert_eq!(done["cwd"], project.display().to_string());
    let pane = done["process"]["tmuxPane"].as_str().expect("the forwarder saw its pane").to_owned();
    assert!(done["process"]["tmuxSocket"].as_str().unwrap().ends_with(&server));

    let replied = sb(&["reply", "started-1", "now", "the", "signup"]);
    assert!(replied.status.success(), "{}", String::from_utf8_lossy(&replied.stderr));
    assert!(String::from_utf8_lossy(&replied.stdout).contains(&pane));
    let typed = project.join("typed");
    eventually(Duration::from_secs(30), || {
        std::fs::read_to_string(&typed).ok().filter(|text| text == "now the signup\n")
    })
    .unwrap_or_else(|| panic!("the agent got the reply: {:?}", std::fs::read_to_string(&typed)));

    let unknown = sb(&["new", "claude", "--cwd", dir.path().join("nowhere").to_str().unwrap()]);
    assert!(String::from_utf8_lossy(&unknown.stderr).contains("does not exist"));
}

struct KillServer(String);

impl Drop for KillServer {
    fn drop(&mut self) {
        let _ = Command::new("tmux").args(["-L", &self.0, "kill-server"]).output();
    }
}
