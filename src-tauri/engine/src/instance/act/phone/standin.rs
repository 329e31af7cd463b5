//! A stand-in ntfy server and a stand-in phone, written to ntfy's published API (docs/publish.md
//! and docs/subscribe/api.md; the `Actions` header parser follows ntfy's own simple-format
//! rules): publish by POST or PUT to `/<topic>` with `Title`, `Tags`, `Priority` and `Actions`
//! headers (RFC 2047 encoded words decoded), or as JSON to `/`; `GET /<topic>/json` streams
//! `open`, `message` and `keepalive` events, one JSON object a line, resuming after `since=<id>`
//! or a Unix time, or everything cached with `poll=1`; a topic can require a bearer token (401
//! wrong, 403 none); the next requests can be answered 429. Subscriptions can be cut and refused
//! meanwhile, as a dropped link or a sleeping laptop would see it.

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Write};

use self::actions::decode_word;
pub use self::actions::parse_actions;

mod actions;
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

/// How long a test waits for a condition before it fails.
pub const PATIENCE: Duration = Duration::from_secs(20);

#[derive(Default)]
struct Inner {
    /// Every topic's messages, in order.
    messages: Vec<Value>,
    next: u64,
    /// Topics that take only this bearer token.
    tokens: HashMap<String, String>,
    /// The next this many requests are answered 429.
    limited: u32,
    refuse_subscriptions: bool,
    /// Bumped to cut every open subscription.
    cuts: u64,
    /// Subscriptions whose subscriber went away.
    left: usize,
    /// Each subscription's request target, and whether it was let in (not the phone's polls).
    subscriptions: Vec<(String, bool)>,
}

pub struct Ntfy {
    pub addr: SocketAddr,
    shared: Arc<(Mutex<Inner>, Condvar)>,
}

fn id(n: u64) -> String {
    format!("m{n:011}")
}

impl Ntfy {
    pub fn start() -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        let shared: Arc<(Mutex<Inner>, Condvar)> = Arc::default();
        let serving = Arc::clone(&shared);
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let shared = Arc::clone(&serving);
                std::thread::spawn(move || serve(stream, &shared));
            }
        });
        Self { addr, shared }
    }

    pub fn url(&self, topic: &str) -> String {
        format!("http://{}/{topic}", self.addr)
    }

    fn lock(&self) -> MutexGuard<'_, Inner> {
        self.shared.0.lock().unwrap()
    }

    pub fn protect(&self, topic: &str, token: &str) {
        self.lock().tokens.insert(topic.into(), token.into());
    }

    pub fn limit_next(&self, requests: u32) {
        self.lock().limited = requests;
    }

    /// Cuts every open subscription and (with `refuse`) turns new ones away until allowed.
    pub fn cut(&self, refuse: bool) {
        let mut inner = self.lock();
        inner.cuts += 1;
        inner.refuse_subscriptions = refuse;
        self.shared.1.notify_all();
    }

    pub fn allow_subscriptions(&self) {
        self.lock().refuse_subscriptions = false;
        self.shared.1.notify_all();
    }

    /// Waits until `n` subscribers went away (noticed at the next keepalive).
    pub fn wait_left(&self, n: usize) {
        self.wait(&format!("{n} subscribers gone"), |inner| (inner.left >= n).then_some(()));
    }

    pub fn subscriptions(&self) -> Vec<(String, bool)> {
        self.lock().subscriptions.clone()
    }

    /// Waits until `ready` holds of the server's state; what it returns.
    fn wait<T>(&self, what: &str, ready: impl Fn(&Inner) -> Option<T>) -> T {
        let deadline = Instant::now() + PATIENCE;
        let mut inner = self.lock();
        loop {
            if let Some(found) = ready(&inner) {
                return found;
            }
            let left = deadline.saturating_duration_since(Instant::now());
            assert!(!left.is_zero(), "waited in vain for {what}: {:#?}", inner.messages);
            inner = self.shared.1.wait_timeout(inner, left).unwrap().0;
        }
    }

    /// Waits for the `n`th message (from 1) on `topic` that `matches`.
    pub fn nth(&self, topic: &str, n: usize, matches: impl Fn(&Value) -> bool) -> Value {
        self.wait(&format!("message {n} on {topic}"), |inner| {
            inner.messages.iter().filter(|m| m["topic"] == topic && matches(m)).nth(n - 1).cloned()
        })
    }

    pub fn messages(&self, topic: &str) -> Vec<Value> {
        self.lock().messages.iter().filter(|m| m["topic"] == topic).cloned().collect()
    }

    /// Waits until `n` subscriptions were asked for, let in or not.
    pub fn wait_subscriptions(&self, n: usize) -> Vec<(String, bool)> {
        self.wait(&format!("{n} subscriptions"), |inner| {
            (inner.subscriptions.len() >= n).then(|| inner.subscriptions.clone())
        })
    }
}

struct Asked {
    method: String,
    target: String,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

impl Asked {
    fn header(&self, name: &str) -> Option<String> {
        let value = self.headers.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())?;
        Some(decode_word(value))
    }
}

fn read_request(reader: &mut impl BufRead) -> Option<Asked> {
    let mut line = String::new();
    reader.read_line(&mut line).ok().filter(|n| *n > 0)?;
    let mut words = line.split_whitespace();
    let (method, target) = (words.next()?.to_owned(), words.next()?.to_owned());
    let mut headers = Vec::new();
    loop {
        let mut header = String::new();
        reader.read_line(&mut header).ok().filter(|n| *n > 0)?;
        let header = header.trim_end();
        if header.is_empty() {
            break;
        }
        let (name, value) = header.split_once(':')?;
        headers.push((name.trim().to_owned(), value.trim().to_owned()));
    }
    let length = headers
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case("content-length"))
        .map_or(0, |(_, v)| v.parse().unwrap_or(0usize));
    let mut body = vec![0; length];
    reader.read_exact(&mut body).ok()?;
    Some(Asked { method, target, headers, body })
}

fn answer(stream: &mut TcpStream, status: u16, body: &Value) {
    let body = body.to_string();
    let head =
        format!("HTTP/1.1 {status} X\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n", body.len());
    let _ = stream.write_all(format!("{head}{body}").as_bytes());
}

fn serve(stream: TcpStream, shared: &Arc<(Mutex<Inner>, Condvar)>) {
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut stream = stream;
    while let Some(asked) = read_request(&mut reader) {
        let (path, query) = asked.target.split_once('?').unwrap_or((&asked.target, ""));
        let param = |name: &str| {
            query
                .split('&')
                .find_map(|pair| pair.strip_prefix(name).and_then(|v| v.strip_prefix('=')))
                .map(str::to_owned)
        };
        let mut inner = shared.0.lock().unwrap();
        if inner.limited > 0 {
            inner.limited -= 1;
            if path.ends_with("/json") {
                inner.subscriptions.push((asked.target.clone(), false));
                shared.1.notify_all();
            }
            drop(inner);
            answer(&mut stream, 429, &json!({"code": 42901, "http": 429, "error": "limit reached: too many requests"}));
            continue;
        }
        let topic = path.trim_start_matches('/').split('/').next().unwrap_or_default().to_owned();
        let publishing = matches!(asked.method.as_str(), "POST" | "PUT");
        let json_publish = publishing && topic.is_empty();
        let body: Value =
            if json_publish { serde_json::from_slice(&asked.body).unwrap_or(Value::Null) } else { Value::Null };
        let topic = if json_publish { body["topic"].as_str().unwrap_or_default().to_owned() } else { topic };
        if let Some(token) = inner.tokens.get(&topic) {
            match asked.header("Authorization") {
                None => {
                    drop(inner);
                    answer(&mut stream, 403, &json!({"code": 40301, "http": 403, "error": "forbidden"}));
                    continue;
                }
                Some(given) if given != format!("Bearer {token}") => {
                    drop(inner);
                    answer(&mut stream, 401, &json!({"code": 40101, "http": 401, "error": "unauthorized"}));
                    continue;
                }
                Some(_) => {}
            }
        }
        if publishing {
            let actions = if json_publish {
                Ok(body.get("actions").cloned().unwrap_or(json!([])))
            } else {
                asked.header("Actions").or(asked.header("X-Actions")).map_or(Ok(json!([])), |h| parse_actions(&h))
            };
            let actions = match actions {
                Ok(actions) => actions,
                Err(why) => {
                    drop(inner);
                    answer(&mut stream, 400, &json!({"code": 40018, "http": 400, "error": why}));
                    continue;
                }
            };
            inner.next += 1;
            let text = |field: &str, header: &str| {
                body.get(field).and_then(Value::as_str).map(str::to_owned).or(asked.header(header)).unwrap_or_default()
            };
            let message = if json_publish {
                body["message"].as_str().unwrap_or_default().to_owned()
            } else {
                String::from_utf8_lossy(&asked.body).into_owned()
            };
            let stored = json!({
                "id": id(inner.next), "time": crate::clock::now_secs(), "event": "message", "topic": topic,
                "title": text("title", "Title"), "tags": text("tags", "Tags"), "priority": text("priority", "Priority"),
                "message": message, "actions": actions,
            });
            inner.messages.push(stored.clone());
            shared.1.notify_all();
            drop(inner);
            answer(&mut stream, 200, &stored);
            continue;
        }
        if asked.method == "GET" && path.ends_with("/json") {
            let let_in = !inner.refuse_subscriptions;
            if param("poll").is_none() {
                inner.subscriptions.push((asked.target.clone(), let_in));
            }
            shared.1.notify_all();
            if !let_in {
                drop(inner);
                answer(&mut stream, 429, &json!({"code": 42903, "http": 429, "error": "limit reached"}));
                continue;
            }
            let since = param("since");
            let poll = param("poll").is_some();
            let start = match since.as_deref() {
                None if poll => 0,
                None | Some("none") => inner.messages.len(),
                Some("all") => 0,
                Some(since) => match inner.messages.iter().position(|m| m["id"] == since) {
                    Some(at) => at + 1,
                    None => match since.parse::<u64>() {
                        Ok(time) => inner
                            .messages
                            .iter()
                            .position(|m| m["time"].as_u64() >= Some(time))
                            .unwrap_or(inner.messages.len()),
                        Err(_) => inner.messages.len(),
                    },
                },
            };
            drop(inner);
            stream_topic(&mut stream, shared, &topic, start, poll);
            if !poll {
                shared.0.lock().unwrap().left += 1;
                shared.1.notify_all();
            }
            return;
        }
        drop(inner);
        answer(&mut stream, 404, &json!({"code": 40401, "http": 404, "error": "page not found"}));
    }
}

/// The `/json` stream, chunked: `open`, then the topic's messages from `start` on, as they come;
/// `keepalive` while none do; until the subscription is cut (or, polling, at once).
fn stream_topic(stream: &mut TcpStream, shared: &Arc<(Mutex<Inner>, Condvar)>, topic: &str, start: usize, poll: bool) {
    let head =
        "HTTP/1.1 200 OK\r\ncontent-type: application/x-ndjson; charset=utf-8\r\ntransfer-encoding: chunked\r\n\r\n";
    let chunk = |line: &Value| {
        let line = format!("{line}\n");
        format!("{:x}\r\n{line}\r\n", line.len())
    };
    let open = json!({"id": "open0000000", "time": crate::clock::now_secs(), "event": "open", "topic": topic});
    if stream.write_all(format!("{head}{}", chunk(&open)).as_bytes()).is_err() {
        return;
    }
    let mut at = start;
    let mut inner = shared.0.lock().unwrap();
    let cuts = inner.cuts;
    loop {
        let mut out = String::new();
        while at < inner.messages.len() {
            if inner.messages[at]["topic"] == topic {
                out.push_str(&chunk(&inner.messages[at]));
            }
            at += 1;
        }
        if poll {
            out.push_str("0\r\n\r\n");
        }
        if !out.is_empty() {
            drop(inner);
            if stream.write_all(out.as_bytes()).is_err() || poll {
                return;
            }
            inner = shared.0.lock().unwrap();
            continue;
        }
        if inner.cuts != cuts {
            // A dropped link: no end chunk, the connection just goes.
            let _ = stream.shutdown(std::net::Shutdown::Both);
            return;
        }
        let (next, waited) = shared.1.wait_timeout(inner, Duration::from_millis(500)).unwrap();
        inner = next;
        if waited.timed_out() && inner.messages.len() == at && inner.cuts == cuts {
            let keepalive =
                json!({"id": "keep0000000", "time": crate::clock::now_secs(), "event": "keepalive", "topic": topic});
            drop(inner);
            if stream.write_all(chunk(&keepalive).as_bytes()).is_err() {
                return;
            }
            inner = shared.0.lock().unwrap();
        }
    }
}

/// The stand-in phone: it reads a topic as ntfy's apps do (`/json?poll=1`, the message's `actions`
/// array) and, when a button is tapped, sends that button's request — method, URL, headers, body.
pub struct PhoneApp {
    pub topic_url: String,
}

impl PhoneApp {
    /// The message `id` as the app received it.
    pub fn received(&self, id: &str) -> Value {
        let mut answer = ureq::get(&format!("{}/json?poll=1&since=all", self.topic_url)).call().unwrap();
        let text = answer.body_mut().read_to_string().unwrap();
        let found = text.lines().filter_map(|line| serde_json::from_str::<Value>(line).ok()).find(|m| m["id"] == id);
        found.unwrap_or_else(|| panic!("the phone did not receive {id}: {text}"))
    }

    /// Taps the button labelled `label` on message `message`: the HTTP status the request got.
    pub fn tap(&self, message: &Value, label: &str) -> u16 {
        let actions = message["actions"].as_array().cloned().unwrap_or_default();
        let action = actions.iter().find(|a| a["label"] == label).unwrap_or_else(|| panic!("no {label} in {message}"));
        assert_eq!(action["action"], "http", "{action}");
        perform(action)
    }
}

/// Sends an `http` action's request as the app does.
pub fn perform(action: &Value) -> u16 {
    let agent: ureq::Agent = ureq::Agent::config_builder().http_status_as_error(false).build().into();
    let url = action["url"].as_str().unwrap();
    let body = action["body"].as_str().unwrap_or_default().to_owned();
    let mut request = match action["method"].as_str().unwrap_or("POST") {
        "PUT" => agent.put(url),
        _ => agent.post(url),
    };
    for (name, value) in action["headers"].as_object().cloned().unwrap_or_default() {
        request = request.header(name.as_str(), value.as_str().unwrap_or_default());
    }
    request.send(body.as_bytes()).map(|answer| answer.status().as_u16()).unwrap_or(0)
}
