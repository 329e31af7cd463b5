//! Node titles from the agents' own files (docs/model.md §4), through a running `serve`.

use serde_json::json;

use crate::support::{fixture, Serve};

#[test]
fn a_claude_sessions_title_comes_from_its_transcript() {
    let serve = Serve::start();
    let transcript =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/transcripts/claude-session.jsonl");
    let mut event = fixture("claude/UserPromptSubmit.json");
    event["transcript_path"] = json!(transcript);
    serve.post("claude", &event);
    // custom-title wins over the later ai-title.
    serve.wait_for("00893aaf-19fa-41d2-8238-13269b9b3ca0", |s| s["title"] == "auth-refactor");
}

#[test]
fn a_codex_sessions_title_comes_from_the_newest_session_index_line() {
    let codex_home = tempfile::tempdir().unwrap();
    let index =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/transcripts/codex-session_index.jsonl");
    std::fs::copy(index, codex_home.path().join("session_index.jsonl")).unwrap();
    let serve = Serve::start_with_env(&[("CODEX_HOME", codex_home.path())]);
    serve.post("codex", &fixture("codex/PreToolUse-Bash.json"));
    serve.wait_for("019fb3cc-1111-7000-8000-000000000001", |s| s["title"] == "Deploy to staging");
}

#[test]
fn without_a_title_file_the_node_is_named_after_its_folder() {
    let serve = Serve::start();
    let mut event = fixture("claude/Stop.json");
    event["transcript_path"] = json!("/nonexistent/transcript.jsonl");
    serve.post("claude", &event);
    serve.wait_for("00893aaf-19fa-41d2-8238-13269b9b3ca0", |s| s["title"] == "webapp");
}

/// Issue 20.6 (stand-in): Codex writes the thread name just after SessionStart, and a short
/// first turn sends nothing after it: the title is looked for again without another event.
#[test]
fn a_codex_thread_name_written_after_the_last_event_still_names_the_node() {
    let codex_home = tempfile::tempdir().unwrap();
    let serve = Serve::start_with_env(&[("CODEX_HOME", codex_home.path())]);
    let id = "019fb3cc-2222-7000-8000-000000000002";
    serve.post(
        "codex",
        &serde_json::json!({"hook_event_name": "SessionStart", "session_id": id, "cwd": "/w/api",
        "source": "startup", "transcript_path": null, "model": "gpt-5"}),
    );
    serve.wait_for(id, |s| s["title"] == "api");
    let line = serde_json::json!({"id": id, "thread_name": "Tidy the API", "updated_at": "2026-12-01T00:00:00Z"});
    std::fs::write(codex_home.path().join("session_index.jsonl"), format!("{line}\n")).unwrap();
    serve.wait_for(id, |s| s["title"] == "Tidy the API");
}
