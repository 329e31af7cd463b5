//! Fuzzing the pure core (issue "hardening"): every normalizer, the transcript reader and the
//! reducer, fed inputs grown from the recorded fixtures (`tests/fixtures`, `real/` and
//! `real-transcripts/` included) by random edits, as a structure-aware fuzzer would.
//!
//! `cargo test` runs a short smoke pass; `PROPTEST_CASES=<n>` raises every property to `n` cases
//! (a long run: `PROPTEST_CASES=20000 cargo test -p switchboard-core --release fuzz_tests`). A failure is shrunk by proptest and
//! saved under `proptest-regressions/`, so it is replayed first on every later run.

use std::path::Path;
use std::sync::OnceLock;

use proptest::prelude::*;
use proptest::sample::{select, Index};
use serde_json::{json, Value};

use crate::agent::normalize;
use crate::agent::AGENTS;
use crate::normalize::observed::{process_exited, tool_started, transcript_record};
use crate::normalize::{fixtures, MAX_ID_LEN};
use crate::reducer::{Ages, Reducer, Session, MAX_SESSIONS, MAX_SUBAGENTS, MAX_TEXT};
use crate::status::{AgentProcess, AgentStatus, Cue, Lifecycle, SessionKind, StatusEvent};

/// Cases per property when `PROPTEST_CASES` is unset: enough for a smoke run under a few seconds.
const SMOKE_CASES: u32 = 64;

fn config(smoke: u32) -> ProptestConfig {
    scaled_config(smoke, 1)
}

/// `PROPTEST_CASES / divisor` cases when it is set: for a property whose case is that much
/// larger than one event.
fn scaled_config(smoke: u32, divisor: u32) -> ProptestConfig {
    let cases = std::env::var("PROPTEST_CASES").ok().and_then(|cases| cases.parse::<u32>().ok());
    let cases = cases.map_or(smoke, |cases| (cases / divisor).max(smoke));
    ProptestConfig { cases, max_shrink_iters: 2_000, ..ProptestConfig::default() }
}

/// What the fuzzer starts from: the recorded payloads per agent, the transcript records, and a
/// dictionary of every key and string they hold (an AFL-style dictionary, so random edits speak
/// the CLIs' own words).
struct Corpus {
    hooks: Vec<(&'static str, Value)>,
    records: Vec<(&'static str, Value)>,
    keys: Vec<String>,
    strings: Vec<String>,
}

fn corpus() -> &'static Corpus {
    static CORPUS: OnceLock<Corpus> = OnceLock::new();
    CORPUS.get_or_init(|| {
        let dir = fixtures::dir();
        let mut corpus = Corpus { hooks: Vec::new(), records: Vec::new(), keys: Vec::new(), strings: Vec::new() };
        for (agent, folder) in [("claude", "claude"), ("codex", "codex"), ("gemini", "gemini")] {
            for value in json_files(&dir.join(folder)) {
                corpus.hooks.push((agent, value));
            }
        }
        for entry in read_dir(&dir.join("real")) {
            let name = entry.file_name().unwrap().to_string_lossy().into_owned();
            let Some(agent) = registry().find(|agent| name.starts_with(agent)) else {
                continue;
            };
            corpus.hooks.extend(json_files(&entry.join("events")).map(|value| (agent, value)));
            for record in read_dir(&entry.join("sequences")).iter().flat_map(|path| json_lines(path)) {
                corpus.hooks.push((agent, record["payload"].clone()));
            }
        }
        for agent in registry() {
            for path in read_dir(&dir.join("real-transcripts").join(agent)) {
                corpus.records.extend(json_lines(&path).into_iter().map(|record| (agent, record)));
            }
        }
        for path in read_dir(&dir.join("transcripts")) {
            corpus.records.extend(json_lines(&path).into_iter().map(|record| ("claude", record)));
        }
        corpus.hooks.extend(
            [
                json!({"sessionId": "s", "status": "working", "tool": "build", "cwd": "/w"}),
                json!({"sessionId": "s", "status": "done", "message": "ok", "interrupted": false}),
                json!({"sessionId": "s", "question": "Deploy?", "kind": "subagent"}),
                json!({"sessionId": "s", "lifecycle": "end", "agent": "script", "errored": true}),
            ]
            .map(|value| ("custom", value)),
        );
        let mut keys = std::collections::BTreeSet::new();
        let mut strings = std::collections::BTreeSet::new();
        for (_, value) in corpus.hooks.iter().chain(&corpus.records) {
            collect_words(value, &mut keys, &mut strings);
        }
        // Words the tables read that a recording may lack.
        strings.extend(
            ["working", "waiting", "blocked", "done", "start", "end", "session", "subagent", "recurring", "", "*"]
                .map(str::to_owned),
        );
        strings.insert("x".repeat(MAX_TEXT + 7));
        strings.insert("é".repeat(MAX_TEXT - 3));
        strings.insert("s".repeat(MAX_ID_LEN + 1));
        corpus.keys = keys.into_iter().collect();
        corpus.strings = strings.into_iter().filter(|text| text.len() < 64 * 1024).collect();
        assert!(corpus.hooks.len() > 100 && corpus.records.len() > 50, "the fixtures moved: {}", dir.display());
        corpus
    })
}

fn read_dir(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut paths: Vec<_> = std::fs::read_dir(dir).into_iter().flatten().flatten().map(|entry| entry.path()).collect();
    paths.sort();
    paths
}

fn json_files(dir: &Path) -> impl Iterator<Item = Value> {
    read_dir(dir)
        .into_iter()
        .filter(|path| path.extension().is_some_and(|ext| ext == "json"))
        .filter_map(|path| serde_json::from_slice(&std::fs::read(path).ok()?).ok())
}

fn json_lines(path: &Path) -> Vec<Value> {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    text.lines().filter_map(|line| serde_json::from_str(line).ok()).collect()
}

fn collect_words(
    value: &Value,
    keys: &mut std::collections::BTreeSet<String>,
    strings: &mut std::collections::BTreeSet<String>,
) {
    match value {
        Value::String(text) => {
            strings.insert(text.clone());
        }
        Value::Array(items) => items.iter().for_each(|item| collect_words(item, keys, strings)),
        Value::Object(fields) => {
            for (key, field) in fields {
                keys.insert(key.clone());
                collect_words(field, keys, strings);
            }
        }
        _ => {}
    }
}

// ---- strategies -------------------------------------------------------------------------------

fn word() -> impl Strategy<Value = String> {
    prop_oneof![4 => select(corpus().strings.clone()), 1 => any::<String>()]
}

fn key() -> impl Strategy<Value = String> {
    prop_oneof![6 => select(corpus().keys.clone()), 1 => any::<String>()]
}

fn scalar() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        any::<f64>().prop_map(|number| serde_json::Number::from_f64(number).map_or(Value::Null, Value::Number)),
        word().prop_map(Value::String),
    ]
}

/// Any JSON value, keys and strings mostly from the dictionary.
fn arbitrary_json() -> impl Strategy<Value = Value> {
    scalar().prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::vec((key(), inner), 0..8).prop_map(|fields| Value::Object(fields.into_iter().collect())),
        ]
    })
}

/// One random edit of a JSON value, applied at a node picked by `at`.
#[derive(Clone, Debug)]
enum Edit {
    Set(Index, String, Value),
    Remove(Index),
    Replace(Index, Value),
    Retype(Index),
}

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        4 => (any::<Index>(), key(), arbitrary_json()).prop_map(|(at, key, value)| Edit::Set(at, key, value)),
        2 => any::<Index>().prop_map(Edit::Remove),
        3 => (any::<Index>(), arbitrary_json()).prop_map(|(at, value)| Edit::Replace(at, value)),
        2 => any::<Index>().prop_map(Edit::Retype),
    ]
}

/// The JSON pointers of every node in `value`, the root first.
fn pointers(value: &Value) -> Vec<String> {
    fn walk(value: &Value, at: String, out: &mut Vec<String>) {
        match value {
            Value::Array(items) => {
                out.push(at.clone());
                for (i, item) in items.iter().enumerate() {
                    walk(item, format!("{at}/{i}"), out);
                }
            }
            Value::Object(fields) => {
                out.push(at.clone());
                for (key, field) in fields {
                    walk(field, format!("{at}/{}", key.replace('~', "~0").replace('/', "~1")), out);
                }
            }
            _ => out.push(at),
        }
    }
    let mut out = Vec::new();
    walk(value, String::new(), &mut out);
    out
}

fn apply_edit(value: &mut Value, edit: &Edit) {
    let targets = pointers(value);
    let pick = |at: &Index| targets[at.index(targets.len())].clone();
    match edit {
        Edit::Set(at, key, field) => {
            let pointer = pick(at);
            match value.pointer_mut(&pointer) {
                Some(Value::Object(fields)) => {
                    fields.insert(key.clone(), field.clone());
                }
                Some(Value::Array(items)) => items.push(field.clone()),
                Some(other) => *other = field.clone(),
                None => {}
            }
        }
        Edit::Remove(at) => {
            let pointer = pick(at);
            let Some((parent, last)) = pointer.rsplit_once('/') else { return };
            let last = last.replace("~1", "/").replace("~0", "~");
            match value.pointer_mut(parent) {
                Some(Value::Object(fields)) => {
                    fields.remove(&last);
                }
                Some(Value::Array(items)) => {
                    if let Ok(i) = last.parse::<usize>() {
                        if i < items.len() {
                            items.remove(i);
                        }
                    }
                }
                _ => {}
            }
        }
        Edit::Replace(at, field) => {
            if let Some(node) = value.pointer_mut(&pick(at)) {
                *node = field.clone();
            }
        }
        Edit::Retype(at) => {
            if let Some(node) = value.pointer_mut(&pick(at)) {
                *node = match node.take() {
                    Value::String(text) => {
                        text.parse::<f64>().ok().map_or(Value::Array(vec![text.into()]), Value::from)
                    }
                    Value::Number(number) => Value::String(number.to_string()),
                    Value::Bool(flag) => Value::String(flag.to_string()),
                    Value::Null => Value::Bool(false),
                    Value::Array(mut items) => items.pop().unwrap_or(Value::Null),
                    Value::Object(fields) => Value::Array(fields.into_iter().map(|(_, field)| field).collect()),
                };
            }
        }
    }
}

/// A recorded hook payload (with its agent), after a few random edits; now and then a payload
/// from nothing.
fn hook_payload() -> impl Strategy<Value = (&'static str, Value)> {
    let seeded = (select(corpus().hooks.clone()), prop::collection::vec(edit(), 0..4)).prop_map(
        |((agent, mut payload), edits)| {
            edits.iter().for_each(|edit| apply_edit(&mut payload, edit));
            (agent, payload)
        },
    );
    let agents: Vec<&'static str> = AGENTS.iter().map(|agent| agent.id).chain(["nope"]).collect();
    prop_oneof![8 => seeded, 1 => (select(agents), arbitrary_json())]
}

/// A recorded payload's bytes with random byte edits: what the server hands to `serde_json`.
fn hook_bytes() -> impl Strategy<Value = (&'static str, Vec<u8>)> {
    let edits = prop::collection::vec((any::<Index>(), any::<u8>(), 0..4u8), 0..6);
    (select(corpus().hooks.clone()), edits).prop_map(|((agent, payload), edits)| {
        let mut bytes = serde_json::to_vec(&payload).unwrap();
        for (at, byte, kind) in edits {
            let i = at.index(bytes.len() + 1);
            match kind {
                0 if i < bytes.len() => bytes[i] = byte,
                1 => bytes.insert(i, byte),
                2 if i < bytes.len() => {
                    bytes.remove(i);
                }
                _ => bytes.truncate(i),
            }
        }
        (agent, bytes)
    })
}

fn record() -> impl Strategy<Value = (&'static str, Value)> {
    let seeded = (select(corpus().records.clone()), prop::collection::vec(edit(), 0..3)).prop_map(
        |((agent, mut record), edits)| {
            edits.iter().for_each(|edit| apply_edit(&mut record, edit));
            (agent, record)
        },
    );
    prop_oneof![6 => seeded, 1 => (select(vec!["claude", "codex", "gemini", "custom", ""]), arbitrary_json())]
}

// ---- normalizers ------------------------------------------------------------------------------

/// What every normalized event must be, whatever came in.
fn check_event(event: &StatusEvent, now: u64) {
    assert_eq!(event.ts, now, "stamped by the injected clock, never by the payload");
    assert!(!event.session_id.is_empty() && event.session_id.len() <= MAX_ID_LEN, "{:?}", event.session_id);
}

proptest! {
    #![proptest_config(config(SMOKE_CASES * 4))]

    #[test]
    fn normalizers_never_panic_on_edited_payloads((agent, payload) in hook_payload(), now in any::<u64>()) {
        for normalizer_agent in AGENTS.iter().map(|agent| agent.id).chain(["nope"]) {
            // Every normalizer sees every payload: a CLI can be pointed at the wrong URL.
            let event = normalize(normalizer_agent, &payload, now);
            if let Some(event) = &event {
                check_event(event, now);
            }
            prop_assert_eq!(event, normalize(normalizer_agent, &payload, now), "deterministic");
        }
        let _ = agent;
    }

    #[test]
    fn normalizers_never_panic_on_damaged_bytes((agent, bytes) in hook_bytes(), now in any::<u64>()) {
        // Read as the server reads a body (borrowed), and as serde_json reads it: the same bytes
        // are refused, and what both read the same normalizes the same.
        let borrowed = crate::json::Value::parse(&bytes);
        let whole = serde_json::from_slice::<Value>(&bytes);
        prop_assert_eq!(borrowed.is_ok(), whole.is_ok());
        if let (Ok(borrowed), Ok(whole)) = (borrowed, whole) {
            // A key given twice (a byte edit can make one) is kept twice here and once by serde_json.
            let same = borrowed == crate::json::Value::from(&whole);
            for agent in AGENTS {
                let event = (agent.normalize)(&borrowed, now);
                if let Some(event) = &event {
                    check_event(event, now);
                }
                if same {
                    prop_assert_eq!(event, normalize(agent.id, &whole, now));
                }
            }
        }
        let _ = agent;
    }

    #[test]
    fn transcript_records_settle_only_as_an_interrupted_done(
        (agent, record) in record(),
        session_id in prop_oneof![Just("s".to_owned()), any::<String>()],
        now in any::<u64>(),
    ) {
        if let Some(event) = transcript_record(agent, &session_id, &record, now) {
            prop_assert_eq!(event.status, Some(AgentStatus::Done));
            prop_assert!(event.interrupted);
            prop_assert_eq!(event.cue, Cue::Settle);
            prop_assert_eq!(event.ts, now);
            prop_assert_eq!(&event.session_id, &session_id);
        }
    }
}

// ---- the reducer ------------------------------------------------------------------------------

/// The sessions a sequence talks about: few, so events pile onto the same ones.
const IDS: [&str; 4] = ["s-1", "s-2", "s-3", "s-4"];

#[derive(Clone, Debug)]
enum Step {
    /// A hook payload, normalized as the server would, re-addressed to one of [`IDS`].
    Hook {
        agent: &'static str,
        payload: Value,
        session: usize,
    },
    /// An event as any input could build it, every field free.
    Event(Box<StatusEvent>),
    Record {
        agent: &'static str,
        record: Value,
        session: usize,
    },
    ToolStarted(usize),
    Exited(usize),
    ClearUnread(usize),
    Title(usize, Option<String>),
    Remove(usize),
    Silence(u64),
}

fn text() -> impl Strategy<Value = Option<String>> {
    prop::option::weighted(0.4, word())
}

fn status() -> impl Strategy<Value = Option<AgentStatus>> {
    prop::option::weighted(
        0.8,
        select(vec![AgentStatus::Working, AgentStatus::Waiting, AgentStatus::Blocked, AgentStatus::Done]),
    )
}

fn free_event() -> impl Strategy<Value = StatusEvent> {
    let cues = vec![
        Cue::Plain,
        Cue::NewTurn,
        Cue::IdleRescue,
        Cue::IdleReminder,
        Cue::PermissionNotice,
        Cue::ModelCall,
        Cue::Settle,
        Cue::Approved,
        Cue::Exited,
    ];
    let kinds = vec![SessionKind::Session, SessionKind::Subagent, SessionKind::Recurring];
    let lifecycles = vec![Lifecycle::Start, Lifecycle::End, Lifecycle::Compact];
    (
        (select(vec!["claude", "codex", "gemini", "custom", ""]), 0..IDS.len(), status(), select(kinds)),
        (text(), text(), text(), text(), text(), text()),
        (any::<[bool; 3]>(), prop::option::of(select(lifecycles)), prop::option::of(select(vec!["a", "b", ""]))),
        (select(cues), any::<bool>(), prop::option::of(0u64..3)),
    )
        .prop_map(
            |(
                (agent, session, status, kind),
                (tool, transcript_path, cwd, title, question, message),
                ([awaiting_input, interrupted, errored], lifecycle, subagent_id),
                (cue, process, decision),
            )| StatusEvent {
                command: title.as_ref().map(|title| format!("{title}\n  && more")),
                edit: title.as_ref().map(|title| crate::normalize::edit::EditSummary {
                    file: title.clone(),
                    added: 2,
                    removed: 1,
                    files: 1,
                }),
                prompt: message.clone(),
                agent: agent.to_owned(),
                session_id: IDS[session].to_owned(),
                status,
                kind,
                tool,
                transcript_path,
                cwd,
                title,
                awaiting_input,
                questions: question
                    .iter()
                    .map(|q| crate::session::Question { question: q.clone(), ..Default::default() })
                    .collect(),
                question,
                message,
                interrupted,
                errored,
                lifecycle,
                subagent_id: subagent_id.map(str::to_owned),
                cue,
                process: process.then(|| AgentProcess { pid: 7, start: 1, ..AgentProcess::default() }),
                decision_until: decision.map(|_| 30_000),
                decision,
                ts: 0,
            },
        )
}

fn step() -> impl Strategy<Value = Step> {
    let session = 0..IDS.len();
    prop_oneof![
        10 => (hook_payload(), session.clone()).prop_map(|((agent, payload), session)| Step::Hook { agent, payload, session }),
        4 => free_event().prop_map(|event| Step::Event(Box::new(event))),
        2 => (record(), session.clone()).prop_map(|((agent, record), session)| Step::Record { agent, record, session }),
        1 => session.clone().prop_map(Step::ToolStarted),
        1 => session.clone().prop_map(Step::Exited),
        1 => session.clone().prop_map(Step::ClearUnread),
        1 => (session.clone(), text()).prop_map(|(session, title)| Step::Title(session, title)),
        1 => session.prop_map(Step::Remove),
        1 => (0..100_000_000u64).prop_map(Step::Silence),
    ]
}

/// A payload addressed to `session`, in the field its agent reads.
fn addressed(agent: &str, mut payload: Value, session: usize) -> Value {
    if let Value::Object(fields) = &mut payload {
        let field = if agent == "custom" { "sessionId" } else { "session_id" };
        fields.insert(field.into(), IDS[session].into());
    }
    payload
}

/// The step as the event the reducer gets, if it is one.
fn event_of(step: &Step, now: u64) -> Option<StatusEvent> {
    match step {
        Step::Hook { agent, payload, session } => normalize(agent, &addressed(agent, payload.clone(), *session), now),
        Step::Event(event) => Some(StatusEvent { ts: now, ..(**event).clone() }),
        Step::Record { agent, record, session } => transcript_record(agent, IDS[*session], record, now),
        Step::ToolStarted(session) => Some(tool_started("claude", IDS[*session], now)),
        Step::Exited(session) => Some(process_exited("codex", IDS[*session], now)),
        _ => None,
    }
}

fn chars(text: &Option<String>) -> usize {
    text.as_deref().map_or(0, |text| text.chars().count())
}

/// The rules of docs/model.md §2 that hold for any event, checked on one applied event.
fn check_change(
    event: &StatusEvent,
    before: Option<&Session>,
    after: &Session,
    notify: bool,
    previous: Option<AgentStatus>,
    focused: bool,
) {
    assert_eq!(previous, before.and_then(|session| session.status), "`previous` is the status before");
    let (old, new) = (previous, after.status);
    if notify {
        assert!(new.is_some_and(AgentStatus::is_terminal), "notify only into a terminal status: {new:?}");
        assert_ne!(old, new, "notify only on a change");
        assert!(!focused, "a focused window never notifies");
        assert!(after.unread, "a notification leaves the session unread");
    }
    if after.unread && !before.is_some_and(|session| session.unread) {
        assert!(notify, "unread is only ever set by a notification");
    }
    if old != new {
        let Some(sent) = event.status else { panic!("{old:?} -> {new:?} by an event without a status: {event:?}") };
        let new = new.expect("a status is never taken away");
        if event.is_subagent() {
            assert_ne!(sent, AgentStatus::Done, "a subagent's done never sets the node's status");
            if new == AgentStatus::Working {
                assert_eq!(old, Some(AgentStatus::Blocked), "a subagent's working only lifts a blocked");
            }
        } else {
            let held = sent == AgentStatus::Done && new == AgentStatus::Waiting;
            assert!(new == sent || held, "{old:?} -> {new:?} for {sent:?}");
        }
        match event.cue {
            Cue::Approved => assert_eq!(old, Some(AgentStatus::Blocked), "approved only lifts a blocked"),
            Cue::Settle => assert!(
                matches!(old, Some(AgentStatus::Working | AgentStatus::Blocked | AgentStatus::Waiting)),
                "{old:?}"
            ),
            Cue::IdleRescue => assert_eq!(old, Some(AgentStatus::Working)),
            Cue::IdleReminder => assert_ne!(old, Some(AgentStatus::Done)),
            _ => {}
        }
    }
    if after.decision.is_some() {
        let question = after.status == Some(AgentStatus::Waiting)
            && after.awaiting_input
            && !after.questions.is_empty()
            && crate::agent(&after.agent).is_some_and(|agent| agent.answers_in_hook);
        assert!(
            after.status == Some(AgentStatus::Blocked) || question,
            "Allow / Deny only on a blocked session, an answer only on a held question"
        );
        let kept = before.is_some_and(|session| session.decision == after.decision);
        assert!(kept || event.decision == after.decision, "an offer comes from a held event");
    }
    assert!(after.subagents as usize <= MAX_SUBAGENTS);
    assert!(after.first_event_at <= after.last_event_at);
    for field in [&after.tool, &after.question, &after.message, &after.cwd, &after.transcript_path] {
        assert!(chars(field) <= MAX_TEXT, "texts are clipped at ingest");
    }
}

fn run_steps(steps: &[(Step, u64, bool)]) {
    use std::sync::atomic::{AtomicU64, Ordering};
    static SEQUENCES: AtomicU64 = AtomicU64::new(0);
    static STEPS: AtomicU64 = AtomicU64::new(0);
    let total = STEPS.fetch_add(steps.len() as u64, Ordering::Relaxed) + steps.len() as u64;
    if (SEQUENCES.fetch_add(1, Ordering::Relaxed) + 1).is_multiple_of(10_000) {
        eprintln!("fuzz_tests: {} reducer sequences, {total} steps", SEQUENCES.load(Ordering::Relaxed));
    }
    let mut reducer = Reducer::new();
    let mut now = 1_700_000_000_000u64;
    for (step, delta, focused) in steps {
        now += delta;
        if let Some(event) = event_of(step, now) {
            let before = reducer.get(&event.session_id).cloned();
            match reducer.apply(&event, *focused) {
                Some(change) => {
                    assert_eq!(reducer.get(&event.session_id), Some(&change.session));
                    check_change(&event, before.as_ref(), &change.session, change.notify, change.previous, *focused);
                }
                None => assert_eq!(reducer.get(&event.session_id), before.as_ref(), "an ignored event changes nothing"),
            }
        } else {
            match step {
                Step::ClearUnread(session) => {
                    if let Some(session) = reducer.clear_unread(IDS[*session]) {
                        assert!(!session.unread);
                    }
                }
                Step::Title(session, title) => {
                    let _ = reducer.set_agent_title(IDS[*session], title.clone());
                }
                Step::Remove(session) => {
                    let _ = reducer.remove(IDS[*session]);
                    assert!(reducer.get(IDS[*session]).is_none());
                }
                Step::Silence(after) => {
                    let before = reducer.snapshot();
                    for session in reducer.mark_silence(now + after, Ages::default()) {
                        let old = before.sessions.iter().find(|old| old.session_id == session.session_id).unwrap();
                        assert_eq!((old.status, old.unread), (session.status, session.unread), "silence only flags");
                    }
                }
                _ => {}
            }
        }
        assert!(reducer.len() <= MAX_SESSIONS);
        assert_eq!(reducer.snapshot().sessions.len(), reducer.len());
    }
}

proptest! {
    #![proptest_config(config(SMOKE_CASES))]

    #[test]
    fn the_reducer_keeps_its_rules_over_any_sequence(
        steps in prop::collection::vec((step(), prop_oneof![0..50u64, 0..4_000u64, 0..100_000_000u64], any::<bool>()), 1..60),
    ) {
        run_steps(&steps);
    }
}

proptest! {
    // Thousands of sessions per case: a few cases say it all.
    #![proptest_config(scaled_config(2, 1_000))]

    #[test]
    fn a_flood_of_sessions_stays_bounded(
        extra in 1..800usize,
        statuses in prop::collection::vec(status(), 16),
        ended in any::<[bool; 16]>(),
    ) {
        let mut reducer = Reducer::new();
        let cases = std::env::var("PROPTEST_CASES").is_ok();
        let total = if cases { MAX_SESSIONS + extra } else { MAX_SESSIONS + extra.min(50) };
        let mut gone = Vec::new();
        for i in 0..total {
            let lifecycle = ended[i % 16].then_some(Lifecycle::End);
            let event = StatusEvent {
                agent: "custom".into(),
                session_id: format!("flood-{i}"),
                status: statuses[i % 16],
                lifecycle,
                ts: i as u64,
                ..StatusEvent::default()
            };
            prop_assert!(reducer.apply(&event, false).is_some());
            prop_assert!(reducer.len() <= MAX_SESSIONS);
            gone.extend(reducer.take_evicted());
        }
        prop_assert_eq!(reducer.len() + gone.len(), total);
        for id in &gone {
            prop_assert!(reducer.get(id).is_none());
        }
    }
}

#[test]
fn the_corpus_holds_every_recording() {
    let corpus = corpus();
    for agent in ["claude", "codex", "gemini", "custom"] {
        assert!(corpus.hooks.iter().any(|(of, _)| *of == agent), "{agent}");
    }
    // Every seed, unedited, passes the checks too.
    for (agent, payload) in &corpus.hooks {
        if let Some(event) = normalize(agent, payload, 42) {
            check_event(&event, 42);
        }
    }
}

/// A box's session with every text as long as a frame allows and times anywhere (issue 34).
fn hostile_session() -> impl Strategy<Value = Session> {
    let long = || prop_oneof![Just(String::new()), "[a-z\u{1b}\u{7}]{0,16}", Just("z".repeat(20_000))];
    (
        "[a-z:]{1,12}",
        (long(), long(), long(), long()),
        (long(), long(), long()),
        (any::<u64>(), any::<u64>(), any::<Option<u64>>()),
        0usize..12,
    )
        .prop_map(
            |(id, (title, cwd, message, command), (model, branch, label), (first, last, changed), questions)| {
                let event = StatusEvent {
                    agent: "claude".into(),
                    session_id: id,
                    status: Some(AgentStatus::Waiting),
                    ts: 1,
                    ..StatusEvent::default()
                };
                let mut session = Reducer::new().apply(&event, false).unwrap().session;
                session.title = Some(title);
                session.cwd = Some(cwd);
                session.message = Some(message);
                session.command = Some(command);
                session.usage = Some(crate::usage::Usage { model: Some(model), ..Default::default() });
                session.git = Some(crate::usage::GitInfo { branch: Some(branch), ..Default::default() });
                session.questions = vec![
                    crate::session::Question {
                        question: label.clone(),
                        options: vec![
                            crate::session::QuestionOption { label: label.clone(), description: Some(label) };
                            40
                        ],
                        ..Default::default()
                    };
                    questions
                ];
                (session.first_event_at, session.last_event_at, session.status_changed_at) = (first, last, changed);
                session
            },
        )
}

proptest! {
    #![proptest_config(config(SMOKE_CASES / 4))]

    /// Whatever a box sends: no panic, each of its sessions weighs a bounded few KiB here, its
    /// times never run ahead of this clock, it holds no more than its own bound, and this
    /// machine's sessions are never touched.
    #[test]
    fn a_hostile_box_is_bounded_and_never_touches_local_sessions(
        sessions in prop::collection::vec((hostile_session(), select(vec!["evil", "other"])), 1..16)
    ) {
        let mut board = Reducer::new();
        let mine = StatusEvent { agent: "claude".into(), session_id: "evil:mine".into(), status: Some(AgentStatus::Blocked), ts: 5, ..StatusEvent::default() };
        board.apply(&mine, false).unwrap();
        let now = 1_000_000;
        for (session, host) in sessions {
            if let Some(change) = board.mirror(host, session, false, now) {
                let kept = change.session;
                prop_assert!(serde_json::to_vec(&kept).unwrap().len() < 64 * 1024);
                prop_assert!(kept.last_event_at <= now && kept.first_event_at <= now);
                prop_assert!(kept.status_changed_at.is_none_or(|at| at <= now));
                prop_assert_eq!(kept.host.as_str(), host);
            }
            prop_assert!(board.count(host) <= crate::reducer::MAX_HOST_SESSIONS);
        }
        let local = board.get("evil:mine").unwrap();
        prop_assert_eq!((local.host.as_str(), local.status), ("local", Some(AgentStatus::Blocked)));
    }
}

/// Every CLI in the table, by id: fixtures are found for whichever has them (never a hand list).
fn registry() -> impl Iterator<Item = &'static str> {
    crate::AGENTS.iter().map(|agent| agent.id)
}
