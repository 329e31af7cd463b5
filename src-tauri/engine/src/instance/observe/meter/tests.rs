use std::io::Write;
use std::path::Path;
use std::process::Command;

use switchboard_core::usage::GitInfo;

use super::*;

fn claude_line(id: &str, input: u64) -> String {
    format!(
        "{{\"type\":\"assistant\",\"message\":{{\"id\":\"{id}\",\"model\":\"claude-sonnet-4-5\",\"usage\":{{\"input_tokens\":{input},\"output_tokens\":7}}}}}}\n"
    )
}

#[test]
fn a_transcript_is_read_from_its_start_then_only_what_is_appended() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.jsonl");
    std::fs::write(&path, claude_line("a", 100)).unwrap();
    let (mut reader, mut meter) = (Reader::new(path.clone()), switchboard_core::agent::meter("claude"));
    assert!(reader.read(&mut meter));
    assert!(!reader.read(&mut meter), "nothing new");
    let mut file = std::fs::OpenOptions::new().append(true).open(&path).unwrap();
    // Half a line is left for the next look.
    let line = claude_line("b", 50);
    file.write_all(&line.as_bytes()[..20]).unwrap();
    assert!(!reader.read(&mut meter));
    file.write_all(&line.as_bytes()[20..]).unwrap();
    assert!(reader.read(&mut meter));
    assert_eq!(meter.usage(&Prices::default()).input_tokens, 150);
    // Replaced by a shorter file: counted afresh.
    std::fs::write(&path, claude_line("c", 9)).unwrap();
    assert!(reader.read(&mut meter));
    assert_eq!(meter.usage(&Prices::default()).input_tokens, 9);
}

#[test]
fn a_line_longer_than_a_chunk_is_skipped_and_what_follows_counts() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.jsonl");
    let mut file = std::fs::File::create(&path).unwrap();
    file.write_all(claude_line("a", 1).as_bytes()).unwrap();
    file.write_all(&vec![b'x'; (CHUNK as usize) * 2 + 10]).unwrap();
    file.write_all(b"\n").unwrap();
    file.write_all(claude_line("b", 2).as_bytes()).unwrap();
    let (mut reader, mut meter) = (Reader::new(path), switchboard_core::agent::meter("claude"));
    // Bounded per look: a few looks get through the 8 MiB line.
    for _ in 0..4 {
        reader.read(&mut meter);
    }
    assert_eq!(meter.usage(&Prices::default()).input_tokens, 3);
    assert_eq!(meter.usage(&Prices::default()).requests, 2);
}

#[test]
fn a_steady_footprint_is_not_told_again_but_a_real_change_is() {
    let shown = Footprint { cpu_tenths: 100, rss_bytes: 500 << 20, processes: 3, started_at: 1 };
    assert!(!worth_telling(
        Some(shown),
        Some(Footprint { cpu_tenths: 105, rss_bytes: (500 << 20) + (5 << 20), ..shown })
    ));
    assert!(worth_telling(Some(shown), Some(Footprint { cpu_tenths: 120, ..shown })));
    assert!(worth_telling(Some(shown), Some(Footprint { rss_bytes: 520 << 20, ..shown })));
    assert!(worth_telling(Some(shown), Some(Footprint { processes: 4, ..shown })));
    assert!(worth_telling(Some(shown), None));
    assert!(worth_telling(None, Some(shown)));
}

fn run(dir: &Path, args: &[&str]) {
    let status = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .env("GIT_AUTHOR_NAME", "t")
        .env("GIT_AUTHOR_EMAIL", "t@t")
        .env("GIT_COMMITTER_NAME", "t")
        .env("GIT_COMMITTER_EMAIL", "t@t")
        .status()
        .unwrap();
    assert!(status.success(), "git {args:?}");
}

#[test]
fn git_tells_the_branch_a_linked_worktree_and_uncommitted_changes() {
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path().join("repo");
    std::fs::create_dir(&repo).unwrap();
    assert_eq!(git_info(&repo), None, "not a repository");
    run(&repo, &["init", "-q", "-b", "main"]);
    std::fs::write(repo.join("a.txt"), "a").unwrap();
    assert_eq!(git_info(&repo), Some(GitInfo { branch: Some("main".into()), worktree: None, dirty: true }));
    run(&repo, &["add", "."]);
    run(&repo, &["commit", "-qm", "a"]);
    assert_eq!(git_info(&repo), Some(GitInfo { branch: Some("main".into()), worktree: None, dirty: false }));
    let linked = dir.path().join("repo-fix");
    run(&repo, &["worktree", "add", "-q", "-b", "fix", linked.to_str().unwrap()]);
    let inside = linked.join("sub");
    std::fs::create_dir(&inside).unwrap();
    let info = git_info(&inside).unwrap();
    assert_eq!(info.branch.as_deref(), Some("fix"));
    assert_eq!(info.worktree.map(PathBuf::from), Some(linked.canonicalize().unwrap()));
    run(&repo, &["checkout", "-q", "--detach"]);
    assert_eq!(git_info(&repo).unwrap().branch, None, "detached");
}

/// Idle is idle (issue 47): sessions with nothing to read or sample (a custom source's) ask for
/// no look; one with a transcript asks for the next.
#[test]
fn a_meter_with_nothing_to_read_asks_for_no_look() {
    use crate::instance::observe::testing::{hook, show, twenty_custom};
    let dir = tempfile::tempdir().unwrap();
    let (inputs, _queue) = crate::instance::hub::inputs(1024);
    let hub = crate::instance::hub::Hub::new();
    let updates = hub.updates();
    let mut meter = Meter::follower(inputs, None);
    twenty_custom(&hub);
    let now = Instant::now();
    show(&updates, meter.as_mut(), now);
    assert_eq!(meter.run(now + LOOK_EVERY), None);
    let path = dir.path().join("t.jsonl");
    std::fs::write(&path, claude_line("m1", 10)).unwrap();
    let prompt = serde_json::json!({"hook_event_name": "UserPromptSubmit", "session_id": "c", "transcript_path": path, "prompt": "go"});
    hook(&hub, "claude", prompt);
    show(&updates, meter.as_mut(), now);
    assert!(meter.run(now + 2 * LOOK_EVERY).is_some(), "a transcript to read: the next look");
}
