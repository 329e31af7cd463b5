//! A CLI's daemon, spoken to in its own protocol (issue 48). In its default mode every Codex
//! window runs its session inside one `codex app-server` daemon, so no tmux pane is proven to
//! show one session and nothing may be typed. The daemon is a door of its own: JSON-RPC (without
//! the `"jsonrpc"` member), one message per WebSocket text frame, on the Unix socket in the CLI's
//! home that its own windows use. Through it the board
//!
//! - replies: `turn/start` on the session's thread — the window showing that thread draws the
//!   prompt, and its hooks fire as for a typed one (the caller still waits for that event);
//! - answers a question: `thread/resume` hands this client the pending
//!   `item/tool/requestUserInput`, answered by the question's id; sent once the daemon says the
//!   request is resolved (`serverRequest/resolved`), and the window's dialog closes;
//! - reads the screen: the thread's last turns (`thread/turns/list`), as the window shows them.
//!
//! A session counts as the daemon's only when it lists the thread among those it has loaded
//! (`thread/loaded/list`): a `--no-daemon` window holds its own thread, and is typed into.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use switchboard_core::Session;
use tungstenite::{Message, WebSocket};

use crate::platform::local::{self, LocalStream};

/// The longest the daemon is waited on, for one whole exchange.
const WAIT: Duration = Duration::from_secs(5);
/// Turns the screen shows.
const SCREEN_TURNS: usize = 3;
/// Requests of the daemon's own kept while waiting for another message (notifications are not kept).
const MOST_KEPT: usize = 64;
/// Threads listed at most when looking for the session's (pages of the daemon's list).
const MOST_PAGES: usize = 20;

/// The daemon that serves one session's thread.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Door {
    socket: PathBuf,
    thread: String,
    cli: &'static str,
}

/// Why the daemon did not take it.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum DoorError {
    #[error("{0}'s daemon cannot be reached ({1}): nothing was sent")]
    Unreachable(&'static str, String),
    #[error("{0}'s daemon refused it: {1}")]
    Refused(&'static str, String),
    #[error("{0}'s daemon did not answer within {1} s")]
    Silent(&'static str, u64),
    #[error("{0}'s daemon holds no question of this session now (answered in its window already, or the turn moved on): nothing was sent")]
    NoQuestion(&'static str),
}

/// The door of the daemon that serves `session` on this machine, when its CLI has one, the
/// daemon listens, and it has the session's thread loaded; else `None` (type into its pane).
pub fn door(session: &Session) -> Option<Door> {
    if !session.is_local() {
        return None;
    }
    let row = switchboard_core::agent(&session.agent)?;
    let server = row.app_server?;
    let socket = home_of(Path::new(session.transcript_path.as_deref()?), server.sessions)?.join(server.socket);
    // Codex links the socket to a short path in the temp folder: a Unix socket's path has at
    // most ~107 bytes, which a home deep in the file system passes. Connect to where it leads.
    let socket = std::fs::canonicalize(socket).ok()?;
    let door = Door { socket, thread: session.session_id.clone(), cli: row.name };
    door.serves().then_some(door)
}

/// The CLI's home: the folder above its transcripts' folder, which the transcript lies under.
fn home_of<'a>(transcript: &'a Path, sessions: &str) -> Option<&'a Path> {
    transcript.ancestors().skip(1).find(|dir| dir.file_name().is_some_and(|name| name == sessions))?.parent()
}

impl Door {
    /// Whether the daemon has the thread loaded (it runs it for a window).
    fn serves(&self) -> bool {
        let Ok(mut client) = Client::open(self) else { return false };
        let mut cursor = Value::Null;
        for _ in 0..MOST_PAGES {
            let Ok(page) = client.call("thread/loaded/list", json!({ "cursor": cursor })) else { return false };
            if page["data"].as_array().is_some_and(|ids| ids.iter().any(|id| *id == self.thread.as_str())) {
                return true;
            }
            cursor = page["nextCursor"].clone();
            if cursor.is_null() {
                return false;
            }
        }
        false
    }

    /// Starts a turn on the session's thread with `text` as its prompt; `Ok` once the daemon
    /// says the turn started.
    pub fn reply(&self, text: &str) -> Result<(), DoorError> {
        let mut client = Client::open(self)?;
        let input = json!([{ "type": "text", "text": text, "text_elements": [] }]);
        let started = client.call("turn/start", json!({ "threadId": self.thread, "input": input }))?;
        match started["turn"]["id"].as_str() {
            Some(_) => Ok(()),
            None => Err(DoorError::Refused(self.cli, "it started no turn".into())),
        }
    }

    /// Answers the session's pending question `question` with the option `label`; `Ok` once
    /// the daemon says the question is resolved.
    pub fn answer(&self, question: &str, label: &str) -> Result<(), DoorError> {
        let mut client = Client::open(self)?;
        let thread = self.thread.as_str();
        client.call("thread/resume", json!({ "threadId": thread, "excludeTurns": true }))?;
        let asked = |message: &Value| {
            message["method"] == "item/tool/requestUserInput" && message["params"]["threadId"] == thread
        };
        // The pending request comes to a client once it resumes the thread: it may have come
        // with the resume's answer, or comes just after.
        let request = match client.seen.iter().position(asked) {
            Some(at) => client.seen.remove(at),
            None => client.wait_for(asked).map_err(|error| match error {
                DoorError::Silent(..) => DoorError::NoQuestion(self.cli),
                other => other,
            })?,
        };
        // Only the question the board showed, and only one of its own options: a question asked
        // since, or one the board never saw, is not answered blind.
        let offered = |q: &&Value| {
            q["question"] == question
                && q["options"].as_array().is_some_and(|options| options.iter().any(|o| o["label"] == label))
        };
        let questions = request["params"]["questions"].as_array().cloned().unwrap_or_default();
        let id = questions.iter().find(offered).and_then(|q| q["id"].as_str().map(str::to_owned));
        let Some(id) = id else { return Err(DoorError::NoQuestion(self.cli)) };
        let request_id = request["id"].clone();
        client.send(json!({ "id": request_id, "result": { "answers": { id.as_str(): { "answers": [label] } } } }))?;
        client.wait_for(|message| {
            message["method"] == "serverRequest/resolved" && message["params"]["requestId"] == request_id
        })?;
        Ok(())
    }

    /// The thread's last turns as its window shows them: `› ` its prompts, `• ` what it said,
    /// `$ ` the commands it ran; with the thread's state first.
    pub fn screen(&self) -> Result<String, DoorError> {
        let mut client = Client::open(self)?;
        let listed = client.call("thread/turns/list", json!({ "threadId": self.thread, "limit": SCREEN_TURNS }))?;
        let mut turns: Vec<&Value> = listed["data"].as_array().map(|turns| turns.iter().collect()).unwrap_or_default();
        turns.reverse(); // newest first, as listed
        let mut lines =
            vec![format!("({}'s daemon serves this session: its last turns, as the daemon has them)", self.cli)];
        for turn in turns {
            lines.push(String::new());
            lines.extend(turn["items"].as_array().into_iter().flatten().filter_map(item_line));
        }
        Ok(lines.join("\n"))
    }
}

/// One item of a turn as a line of the screen, or `None` for what a window does not show.
fn item_line(item: &Value) -> Option<String> {
    let line = match item["type"].as_str()? {
        "userMessage" => {
            let texts: Vec<&str> =
                item["content"].as_array()?.iter().filter_map(|part| part["text"].as_str()).collect();
            format!("› {}", texts.join(" "))
        }
        "agentMessage" => format!("• {}", item["text"].as_str()?),
        "commandExecution" => format!("$ {}", item["command"].as_str()?),
        _ => return None,
    };
    Some(crate::text::printable_line(&line))
}

/// One connection to the daemon, initialized; the requests it made meanwhile are kept in `seen`.
struct Client {
    ws: WebSocket<Box<dyn LocalStream>>,
    cli: &'static str,
    next: u64,
    until: Instant,
    seen: Vec<Value>,
}

impl Client {
    fn open(door: &Door) -> Result<Self, DoorError> {
        let cli = door.cli;
        let unreachable = |why: String| DoorError::Unreachable(cli, why);
        let stream = local::connect_unix(&door.socket).map_err(|error| unreachable(error.to_string()))?;
        stream.set_read_timeout(Some(WAIT)).map_err(|error| unreachable(error.to_string()))?;
        let (ws, _) = tungstenite::client::client("ws://localhost/", stream)
            .map_err(|error| unreachable(format!("its socket is not a WebSocket: {error}")))?;
        let mut client = Self { ws, cli, next: 1, until: Instant::now() + WAIT, seen: Vec::new() };
        let me = json!({ "name": "switchboard", "title": "Switchboard", "version": env!("CARGO_PKG_VERSION") });
        client.call("initialize", json!({ "clientInfo": me }))?;
        client.send(json!({ "method": "initialized" }))?;
        Ok(client)
    }

    fn send(&mut self, message: Value) -> Result<(), DoorError> {
        self.ws
            .send(Message::text(message.to_string()))
            .map_err(|error| DoorError::Unreachable(self.cli, error.to_string()))
    }

    /// Calls `method`; its result, or the daemon's error as a refusal.
    fn call(&mut self, method: &str, params: Value) -> Result<Value, DoorError> {
        let id = self.next;
        self.next += 1;
        self.send(json!({ "id": id, "method": method, "params": params }))?;
        let mut answer = self.wait_for(|message| message.get("method").is_none() && message["id"] == id)?;
        match answer.get("error") {
            Some(error) => {
                let said = error["message"].as_str().map_or_else(|| error.to_string(), str::to_owned);
                Err(DoorError::Refused(self.cli, crate::text::printable_line(&said)))
            }
            None => Ok(answer["result"].take()),
        }
    }

    /// Reads until a message `wanted` comes (keeping the others in `seen`), within the deadline.
    fn wait_for(&mut self, wanted: impl Fn(&Value) -> bool) -> Result<Value, DoorError> {
        loop {
            if Instant::now() >= self.until {
                return Err(DoorError::Silent(self.cli, WAIT.as_secs()));
            }
            let message = match self.ws.read() {
                Ok(Message::Text(text)) => serde_json::from_str::<Value>(&text).unwrap_or(Value::Null),
                Ok(_) => continue,
                Err(tungstenite::Error::Io(error))
                    if matches!(error.kind(), std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut) =>
                {
                    return Err(DoorError::Silent(self.cli, WAIT.as_secs()))
                }
                Err(error) => return Err(DoorError::Unreachable(self.cli, error.to_string())),
            };
            if wanted(&message) {
                return Ok(message);
            }
            if message.get("method").is_some() && message.get("id").is_some() && self.seen.len() < MOST_KEPT {
                self.seen.push(message);
            }
        }
    }
}

#[cfg(all(test, unix))]
#[path = "app_server_tests.rs"]
mod tests;
