//! The door against a daemon that speaks the protocol as Codex 0.171.0 does (the real one is
//! driven in `tests/real_cli/codex.py`): a WebSocket on a Unix socket in the CLI's home.

use std::os::unix::net::UnixListener;
use std::sync::mpsc;

use super::*;

/// A session of `thread` whose rollout lies in `home`'s `sessions` folder.
fn session_in(home: &Path, thread: &str) -> Session {
    let event = switchboard_core::normalize("custom", &json!({"sessionId": thread, "status": "done"}), 1);
    let mut session = switchboard_core::Reducer::new().apply(&event.unwrap(), false).unwrap().session;
    session.agent = "codex".into();
    let rollout = home.join(format!("sessions/2026/12/05/rollout-2026-12-05T16-13-21-{thread}.jsonl"));
    session.transcript_path = Some(rollout.to_string_lossy().into_owned());
    session
}

/// A daemon serving `loaded` threads at `home`'s control socket; each message a client sends
/// goes to the returned channel, and `answer` says what the daemon replies to it.
fn daemon(home: &Path, loaded: &'static [&'static str], answer: fn(&Value) -> Vec<Value>) -> mpsc::Receiver<Value> {
    let socket = home.join("app-server-control/app-server-control.sock");
    std::fs::create_dir_all(socket.parent().unwrap()).unwrap();
    let listener = UnixListener::bind(&socket).unwrap();
    let (heard, hear) = mpsc::channel();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut ws) = tungstenite::accept(stream.unwrap()) else { continue };
            while let Ok(Message::Text(text)) = ws.read() {
                let message: Value = serde_json::from_str(&text).unwrap();
                let mut replies = match message["method"].as_str() {
                    Some("initialize") => vec![json!({"id": message["id"], "result": {"userAgent": "codex"}})],
                    Some("thread/loaded/list") => {
                        vec![json!({"id": message["id"], "result": {"data": loaded, "nextCursor": null}})]
                    }
                    _ => answer(&message),
                };
                let handshake = ["initialize", "initialized", "thread/loaded/list"];
                if !handshake.iter().any(|method| message["method"] == *method) {
                    heard.send(message).unwrap();
                }
                for reply in replies.drain(..) {
                    ws.send(Message::text(reply.to_string())).unwrap();
                }
            }
        }
    });
    hear
}

#[test]
fn a_socket_linked_from_a_home_too_deep_for_a_socket_path_is_reached_where_it_leads() {
    let short = tempfile::tempdir().unwrap();
    let _hear = daemon(short.path(), &["t-1"], nothing);
    let deep = tempfile::tempdir().unwrap();
    let home = deep.path().join("a-folder-name-long-enough-".repeat(4)).join(".codex");
    let link = home.join("app-server-control/app-server-control.sock");
    std::fs::create_dir_all(link.parent().unwrap()).unwrap();
    std::os::unix::fs::symlink(short.path().join("app-server-control/app-server-control.sock"), &link).unwrap();
    assert!(link.as_os_str().len() > 108, "longer than a socket's path may be");
    assert!(door(&session_in(&home, "t-1")).is_some());
}

fn nothing(_: &Value) -> Vec<Value> {
    Vec::new()
}

#[test]
fn the_home_is_the_folder_above_the_transcripts_folder() {
    let rollout = Path::new("/home/u/.codex/sessions/2026/12/05/rollout-x.jsonl");
    assert_eq!(home_of(rollout, "sessions"), Some(Path::new("/home/u/.codex")));
    assert_eq!(home_of(Path::new("/home/u/elsewhere/rollout-x.jsonl"), "sessions"), None);
}

#[test]
fn a_session_is_the_daemons_only_when_it_has_the_thread_loaded() {
    let home = tempfile::tempdir().unwrap();
    assert_eq!(door(&session_in(home.path(), "t-1")), None, "no daemon listens");
    let _hear = daemon(home.path(), &["t-1", "t-2"], nothing);
    assert!(door(&session_in(home.path(), "t-2")).is_some());
    assert_eq!(door(&session_in(home.path(), "t-3")), None, "a --no-daemon window holds t-3 itself");
    let mut claude = session_in(home.path(), "t-1");
    claude.agent = "claude".into();
    assert_eq!(door(&claude), None, "Claude Code has no daemon");
}

#[test]
fn a_reply_starts_a_turn_on_the_sessions_own_thread() {
    let home = tempfile::tempdir().unwrap();
    let hear = daemon(home.path(), &["t-1", "t-2"], |message| {
        vec![json!({"id": message["id"], "result": {"turn": {"id": "turn-9", "status": "inProgress"}}})]
    });
    let door = door(&session_in(home.path(), "t-2")).unwrap();
    door.reply("run the tests").unwrap();
    let sent = hear.recv().unwrap();
    assert_eq!(sent["method"], "turn/start");
    assert_eq!(sent["params"]["threadId"], "t-2");
    assert_eq!(sent["params"]["input"], json!([{"type": "text", "text": "run the tests", "text_elements": []}]));
}

#[test]
fn a_reply_the_daemon_refuses_says_its_reason() {
    let home = tempfile::tempdir().unwrap();
    let _hear = daemon(home.path(), &["t-1"], |message| {
        vec![json!({"id": message["id"], "error": {"code": -32600, "message": "thread t-1 is busy"}})]
    });
    let refused = door(&session_in(home.path(), "t-1")).unwrap().reply("hi").unwrap_err();
    assert_eq!(refused, DoorError::Refused("Codex CLI", "thread t-1 is busy".into()));
    assert!(refused.to_string().contains("refused it: thread t-1 is busy"), "{refused}");
}

#[test]
fn a_question_is_answered_by_its_id_once_the_daemon_hands_it_over() {
    let home = tempfile::tempdir().unwrap();
    let hear = daemon(home.path(), &["t-1"], |message| match message["method"].as_str() {
        Some("thread/resume") => vec![
            json!({"id": message["id"], "result": {"thread": {"id": "t-1"}}}),
            json!({"method": "thread/goal/cleared", "params": {"threadId": "t-1"}}),
            json!({"method": "item/tool/requestUserInput", "id": 7, "params": {"threadId": "t-1", "questions": [
                {"id": "size", "question": "Which size?", "options": [{"label": "S"}, {"label": "L"}]},
                {"id": "color", "question": "Which color should I use?", "options": [{"label": "Red"}, {"label": "Blue"}]},
            ]}}),
        ],
        None if message["id"] == 7 => {
            vec![json!({"method": "serverRequest/resolved", "params": {"threadId": "t-1", "requestId": 7}})]
        }
        _ => Vec::new(),
    });
    let door = door(&session_in(home.path(), "t-1")).unwrap();
    door.answer("Which color should I use?", "Blue").unwrap();
    assert_eq!(hear.recv().unwrap()["params"], json!({"threadId": "t-1", "excludeTurns": true}));
    let answered = hear.recv().unwrap();
    assert_eq!(answered, json!({"id": 7, "result": {"answers": {"color": {"answers": ["Blue"]}}}}));
}

#[test]
fn no_pending_question_means_nothing_is_sent() {
    let home = tempfile::tempdir().unwrap();
    let hear = daemon(home.path(), &["t-1"], |message| match message["method"].as_str() {
        Some("thread/resume") => vec![
            json!({"id": message["id"], "result": {"thread": {"id": "t-1"}}}),
            // Another thread's question is not this session's.
            json!({"method": "item/tool/requestUserInput", "id": 3, "params": {"threadId": "t-2", "questions": [
                {"id": "color", "question": "Which color should I use?", "options": [{"label": "Red"}]}]}}),
        ],
        _ => Vec::new(),
    });
    let door = door(&session_in(home.path(), "t-1")).unwrap();
    assert_eq!(door.answer("Which color should I use?", "Red"), Err(DoorError::NoQuestion("Codex CLI")));
    assert_eq!(hear.recv().unwrap()["method"], "thread/resume");
    assert!(hear.try_recv().is_err(), "no answer was sent to the other thread's question");
}

#[test]
fn a_question_the_board_did_not_show_is_not_answered_blind() {
    let home = tempfile::tempdir().unwrap();
    let hear = daemon(home.path(), &["t-1"], |message| match message["method"].as_str() {
        Some("thread/resume") => vec![
            json!({"id": message["id"], "result": {"thread": {"id": "t-1"}}}),
            json!({"method": "item/tool/requestUserInput", "id": 4, "params": {"threadId": "t-1", "questions": [
                {"id": "size", "question": "Which size?", "options": [{"label": "S"}, {"label": "Blue"}]}]}}),
        ],
        _ => Vec::new(),
    });
    let door = door(&session_in(home.path(), "t-1")).unwrap();
    assert_eq!(door.answer("Which color should I use?", "Blue"), Err(DoorError::NoQuestion("Codex CLI")));
    assert_eq!(hear.recv().unwrap()["method"], "thread/resume");
    assert!(hear.try_recv().is_err(), "no answer was sent to the other thread's question");
}

#[test]
fn the_screen_is_the_threads_last_turns_oldest_first() {
    let home = tempfile::tempdir().unwrap();
    let _hear = daemon(home.path(), &["t-1"], |message| {
        let turn = |prompt: &str, said: &str| {
            json!({"items": [
                {"type": "userMessage", "content": [{"type": "text", "text": prompt}]},
                {"type": "commandExecution", "command": "ls"},
                {"type": "reasoning", "summary": []},
                {"type": "agentMessage", "text": said},
            ]})
        };
        vec![
            json!({"id": message["id"], "result": {"data": [turn("second", "Done \u{1b}[31mtwice"), turn("first", "Done once")]}}),
        ]
    });
    let screen = door(&session_in(home.path(), "t-1")).unwrap().screen().unwrap();
    let lines: Vec<&str> = screen.lines().skip(1).filter(|line| !line.is_empty()).collect();
    assert_eq!(lines, ["› first", "$ ls", "• Done once", "› second", "$ ls", "• Done twice"]);
    assert!(screen.starts_with("(Codex CLI's daemon serves this session"), "{screen}");
}
