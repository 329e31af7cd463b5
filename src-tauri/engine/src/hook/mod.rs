//! `switchboard hook <agent>`: the command the CLIs run on every hook event. It forwards stdin
//! to the running instance and always exits 0 quickly, also when no instance runs: it must never
//! block or fail the agent.
//!
//! One deadline covers the whole command, whatever stdin, the network or the filesystem do: stdin
//! is read on its own thread, the endpoint file is opened without blocking, and the request gives
//! up when the deadline passes. A payload over the server's cap is not dropped: its long string
//! fields (file contents, diffs) are trimmed until it fits.

use std::io::{self, Read, Write};
use std::path::Path;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::client;
use crate::endpoint::Endpoint;
use crate::protocol::Verdict;
use crate::protocol::{self, HoldAnswer, BODY_LIMIT, EVENT_ID_HEADER, PROCESS_HEADER};
use crate::spool::{self, Spooled};
use switchboard_core::agent::DecisionReply;
use switchboard_core::AgentProcess;

/// From start to exit, at most this long (every CLI's hook timeout is far longer).
pub const DEADLINE: Duration = Duration::from_millis(1_500);
/// The most stdin that is read to be trimmed; beyond it the payload is drained and dropped.
const READ_LIMIT: usize = 32 * 1024 * 1024;
/// Longest string kept per field when a payload must shrink, from gentle to severe.
const TRIM_STEPS: [usize; 4] = [16 * 1024, 2 * 1024, 256, 32];

/// The board's answer to a held permission or question, with the tool input it was asked about
/// (a question's answers go back inside it, as the CLI's `updatedInput`).
#[derive(Clone, Debug, PartialEq)]
pub struct BoardAnswer {
    pub answer: HoldAnswer,
    pub tool_input: Option<Value>,
}

impl From<Verdict> for BoardAnswer {
    fn from(verdict: Verdict) -> Self {
        Self { answer: verdict.into(), tool_input: None }
    }
}

/// What became of one hook event.
#[derive(Clone, Debug, PartialEq)]
pub enum Forwarded {
    /// Sent (or dropped: no instance, bad input) with nothing to answer.
    Sent,
    /// A permission held for the board (the user opted this CLI in), and its answer.
    Answered(BoardAnswer),
    /// A permission held for the board that nobody answered in time.
    Unanswered,
}

impl Forwarded {
    pub fn answer(&self) -> Option<&BoardAnswer> {
        match self {
            Forwarded::Answered(answer) => Some(answer),
            _ => None,
        }
    }
}

/// Forwards one hook event. Every failure is swallowed: the command always succeeds. An event
/// the instance did not take by the deadline (too busy to answer, or gone with its endpoint
/// file left behind) goes to the spool, for the instance to take when it can (issue 45).
pub fn forward(
    agent: &str,
    stdin: impl Read + Send + 'static,
    state_dir: Option<&Path>,
    deadline: Instant,
) -> Forwarded {
    let at = crate::clock::now_millis();
    let Some(body) = read_until(stdin, deadline) else { return Forwarded::Sent };
    let Some(body) = fit(name_event(agent, body, |name| std::env::var(name).ok())) else { return Forwarded::Sent };
    let Some(state_dir) = state_dir else { return Forwarded::Sent };
    let Some(endpoint) = Endpoint::read(state_dir) else { return Forwarded::Sent };
    let event = Event { agent, id: spool::new_id(), at, body: &body };
    let held = endpoint.hold_ms > 0 && endpoint.decide.iter().any(|cli| cli == agent);
    let asks_only_when_held = switchboard_core::agent(agent).is_some_and(|row| row.asks_only_when_held);
    // The payload is parsed for this only where it can matter: not for every event of every CLI.
    let permission = (held || asks_only_when_held) && is_permission(agent, &body);
    if held && permission {
        match hold(&event, &endpoint) {
            // An instance without `/hold` (an older one still running): send it the plain way.
            Held::Unknown => {}
            Held::Lost => {
                event.spool(state_dir, agent_process());
                return Forwarded::Unanswered;
            }
            Held::Answered(None) => return Forwarded::Unanswered,
            Held::Answered(Some(answer)) => {
                let tool_input = || serde_json::from_slice::<Value>(&body).ok()?.get("tool_input").cloned();
                let tool_input = answer.answers.as_ref().and_then(|_| tool_input());
                return Forwarded::Answered(BoardAnswer { answer, tool_input });
            }
        }
    }
    // A CLI that never asks on its own (pi): its tool call is no permission unless held.
    if permission && asks_only_when_held {
        return Forwarded::Sent;
    }
    let path = protocol::hook_path(agent, &endpoint.key);
    // A hook run under a supervisor of the CLI's would report that short-lived process.
    let process = if runs_detached(agent, &body) { None } else { agent_process() };
    let headers = event.headers(process.as_ref());
    if !post_until(&endpoint, &path, &headers, &body, deadline) {
        event.spool(state_dir, process);
    }
    Forwarded::Sent
}

/// One event on its way: its id goes with every copy of it (the request, the spool).
struct Event<'a> {
    agent: &'a str,
    id: String,
    at: u64,
    body: &'a [u8],
}

impl Event<'_> {
    fn headers(&self, process: Option<&AgentProcess>) -> String {
        format!("{EVENT_ID_HEADER}: {}\r\n{}", self.id, process.map(process_header).unwrap_or_default())
    }

    /// Keeps the event for the instance; a body that is not JSON would have been dropped there.
    fn spool(&self, state_dir: &Path, process: Option<AgentProcess>) {
        let Ok(body) = serde_json::from_slice::<Value>(self.body) else { return };
        let spooled = Spooled {
            v: spool::VERSION,
            id: self.id.clone(),
            agent: self.agent.to_owned(),
            at: self.at,
            process,
            body,
        };
        let _ = spool::append(state_dir, &spooled);
    }
}

/// The payload with what a CLI leaves out and its row says how to find (Copilot CLI): its event's
/// name, from the variable its hook entry sets, as `hook_event_name`; its transcript, in its
/// folder, as `transcript_path`. Any other payload as it came.
fn name_event(agent: &str, body: Vec<u8>, var: impl Fn(&str) -> Option<String>) -> Vec<u8> {
    let setup = switchboard_core::agent(agent).and_then(|agent| agent.setup.as_ref());
    let Some(setup) = setup.filter(|setup| setup.event_env.is_some() || setup.transcript_in.is_some()) else {
        return body;
    };
    let Ok(Value::Object(mut raw)) = serde_json::from_slice::<Value>(&body) else { return body };
    let mut changed = false;
    if let Some(event) = setup.event_env.and_then(&var).filter(|_| !raw.contains_key("hook_event_name")) {
        raw.insert("hook_event_name".into(), event.into());
        changed = true;
    }
    let has_transcript = ["transcript_path", "transcriptPath"].iter().any(|key| raw.contains_key(*key));
    if let (Some(template), false) = (setup.transcript_in, has_transcript) {
        let session = ["parentAgentId", "sessionId", "session_id"].iter().find_map(|key| raw.get(*key)?.as_str());
        // Only an id that is a plain name may become part of a path.
        let session = session
            .filter(|id| !id.is_empty() && id.len() <= 128)
            .filter(|id| id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_'));
        let cli = switchboard_core::hook_config::Cli::from_agent(agent);
        let dirs = switchboard_core::hook_config::ConfigDirs::from_vars(|name| var(name).map(Into::into));
        if let (Some(session), Some(cli), Some(dirs)) = (session, cli, dirs) {
            let path = dirs.dir(cli).join(template.replace("{id}", session));
            raw.insert("transcript_path".into(), path.to_string_lossy().into_owned().into());
            changed = true;
        }
    }
    if !changed {
        return body;
    }
    serde_json::to_vec(&raw).unwrap_or(body)
}

/// Posts the event; again, after a short pause, while the server sheds the connection unanswered
/// (a flood of idle connections filled its table), until the deadline. Whether the instance
/// answered: a server that is not there (connection refused: a stale endpoint file) is not
/// tried again.
fn post_until(endpoint: &Endpoint, path: &str, headers: &str, body: &[u8], deadline: Instant) -> bool {
    let mut pause = Duration::from_millis(2);
    loop {
        match client::request_until(endpoint.addr(), "POST", path, headers, body, deadline) {
            Err(error) if client::was_shed(&error) && Instant::now() + pause < deadline => {
                std::thread::sleep(pause);
                pause = (pause * 2).min(Duration::from_millis(40));
            }
            Err(_) => return false,
            Ok(_) => return true,
        }
    }
}

/// Whether the CLI ran this event's hook under a supervisor rather than itself (Qwen Code's
/// StopFailure); the payload is parsed only for a CLI whose row has such events.
fn runs_detached(agent: &str, body: &[u8]) -> bool {
    let Some(row) = switchboard_core::agent(agent).filter(|row| !row.detached_events.is_empty()) else {
        return false;
    };
    let Ok(raw) = serde_json::from_slice::<Value>(body) else { return false };
    raw.get("hook_event_name").and_then(Value::as_str).is_some_and(|event| row.detached_events.contains(&event))
}

/// The event whose hook the CLI lets decide its permission prompt (issue 14).
fn is_permission(agent: &str, body: &[u8]) -> bool {
    let Ok(raw) = serde_json::from_slice::<Value>(body) else { return false };
    let Some(event) = raw.get("hook_event_name").and_then(Value::as_str) else { return false };
    switchboard_core::agent(agent).is_some_and(|agent| agent.decides_with(event))
}

/// Sends a permission and waits for the board's answer: at most the hold the user set, plus the
/// usual deadline for the exchange itself. No answer (timed out, answered at the terminal) is
/// `None`: the CLI then asks in its terminal as if Switchboard were not there. An instance that
/// never answered at all has not seen the event: [`Held::Lost`].
fn hold(event: &Event, endpoint: &Endpoint) -> Held {
    let hold = Duration::from_millis(endpoint.hold_ms).min(crate::protocol::MAX_HOLD);
    let deadline = Instant::now() + hold + DEADLINE;
    let path = protocol::hold_path(event.agent, &endpoint.key, hold);
    let headers = event.headers(agent_process().as_ref());
    let Ok(response) = client::request_until(endpoint.addr(), "POST", &path, &headers, event.body, deadline) else {
        return Held::Lost;
    };
    match response.status {
        404 | 405 => Held::Unknown,
        200 => Held::Answered(verdict_of(&response.body)),
        _ => Held::Answered(None),
    }
}

/// How a hold went: answered (or not) by the instance, not understood by it, or never answered.
enum Held {
    Answered(Option<HoldAnswer>),
    Unknown,
    Lost,
}

fn verdict_of(body: &[u8]) -> Option<HoldAnswer> {
    serde_json::from_slice::<HoldAnswer>(body).ok()
}

/// The agent's process, when it can be told.
fn agent_process() -> Option<AgentProcess> {
    crate::process::identify_agent(|name| std::env::var(name).ok())
}

/// The [`PROCESS_HEADER`] line for `process`; left out when not plain ASCII.
fn process_header(process: &AgentProcess) -> String {
    match serde_json::to_string(process) {
        Ok(json) if json.bytes().all(|b| (0x20..0x7f).contains(&b)) => format!("{PROCESS_HEADER}: {json}\r\n"),
        _ => String::new(),
    }
}

/// What the CLI expects on stdout: its silent reply (nothing; Gemini wants a JSON object) — or
/// the board's answer to a held permission, in the words of its decision hook.
pub fn reply(agent: &str, answer: Option<&BoardAnswer>, stdout: &mut impl Write) {
    let Some(agent) = switchboard_core::agent(agent) else { return };
    let text = match (agent.decision_event, answer) {
        (Some(event), Some(BoardAnswer { answer, tool_input })) => {
            let decision = match (answer.verdict, &answer.answers) {
                // A question answered from the board: allowed, its answers inside its input
                // (Claude Code reads `updatedInput.answers`, keyed by question text).
                (Verdict::Allow, Some(answers)) => {
                    let mut input = tool_input.clone().filter(Value::is_object).unwrap_or_else(|| json!({}));
                    input["answers"] = json!(answers);
                    json!({"behavior": "allow", "updatedInput": input})
                }
                (Verdict::Allow, None) => json!({"behavior": "allow"}),
                (Verdict::Deny, _) => json!({"behavior": "deny", "message": DENIED}),
            };
            match agent.decision_reply {
                DecisionReply::Nested => {
                    json!({"hookSpecificOutput": {"hookEventName": event, "decision": decision}}).to_string()
                }
                DecisionReply::Flat => decision.to_string(),
            }
        }
        _ => match agent.silent_reply {
            Some(text) => text.to_owned(),
            None => return,
        },
    };
    let _ = writeln!(stdout, "{text}");
    let _ = stdout.flush();
}

/// What the agent (and the model) is told when the user denies from the board.
pub const DENIED: &str = "The user denied this from Switchboard.";

/// Reads stdin to its end on a helper thread; `None` when it does not end before the deadline
/// (a CLI that keeps the pipe open) or is larger than [`READ_LIMIT`] (then drained meanwhile).
fn read_until(stdin: impl Read + Send + 'static, deadline: Instant) -> Option<Vec<u8>> {
    let (sender, receiver) = mpsc::sync_channel(1);
    std::thread::Builder::new()
        .name("stdin".into())
        .spawn(move || {
            let _ = sender.send(read_bounded(stdin));
        })
        .ok()?;
    receiver.recv_timeout(deadline.saturating_duration_since(Instant::now())).ok().flatten()
}

fn read_bounded(mut stdin: impl Read) -> Option<Vec<u8>> {
    let mut body = Vec::with_capacity(8 * 1024);
    stdin.by_ref().take(READ_LIMIT as u64 + 1).read_to_end(&mut body).ok()?;
    if body.len() <= READ_LIMIT {
        return Some(body);
    }
    // Drain the rest so the CLI never sees a broken pipe; the deadline ends this thread.
    let _ = io::copy(&mut stdin, &mut io::sink());
    None
}

/// The body as it will be sent: unchanged when it fits the server's cap, else with its long
/// strings trimmed (marked with how much was cut). `None` when even that cannot make it fit.
pub fn fit(body: Vec<u8>) -> Option<Vec<u8>> {
    if body.len() <= BODY_LIMIT {
        return Some(body);
    }
    let mut value: Value = serde_json::from_slice(&body).ok()?;
    for max in TRIM_STEPS {
        trim_strings(&mut value, max);
        let trimmed = serde_json::to_vec(&value).ok()?;
        if trimmed.len() <= BODY_LIMIT {
            return Some(trimmed);
        }
    }
    None
}

fn trim_strings(value: &mut Value, max: usize) {
    match value {
        Value::String(text) if text.len() > max => {
            let cut = floor_char_boundary(text, max);
            let dropped = text.len() - cut;
            text.truncate(cut);
            text.push_str(&format!("… [{dropped} bytes trimmed by switchboard]"));
        }
        Value::Array(items) => items.iter_mut().for_each(|item| trim_strings(item, max)),
        Value::Object(fields) => fields.values_mut().for_each(|field| trim_strings(field, max)),
        _ => {}
    }
}

fn floor_char_boundary(text: &str, at: usize) -> usize {
    (0..=at.min(text.len())).rev().find(|&i| text.is_char_boundary(i)).unwrap_or(0)
}

/// The whole `switchboard hook <agent>` command.
pub fn run(agent: &str) {
    let deadline = Instant::now() + DEADLINE;
    let state_dir = crate::state_dir::state_dir();
    let forwarded = forward(agent, io::stdin(), state_dir.as_deref(), deadline);
    let mut stdout = io::stdout().lock();
    match switchboard_core::agent(agent).and_then(|row| row.unanswered_reply) {
        Some(text) if forwarded == Forwarded::Unanswered => {
            let _ = writeln!(stdout, "{text}");
            let _ = stdout.flush();
        }
        _ => reply(agent, forwarded.answer(), &mut stdout),
    }
}

#[cfg(test)]
mod tests;
