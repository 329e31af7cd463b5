use std::borrow::Cow;

use super::*;
use crate::agent::AGENTS;
use crate::normalize::fixtures;

/// Every recorded hook body, as the bytes the CLI sent.
fn recorded_bodies() -> Vec<(String, Vec<u8>)> {
    fn walk(dir: &std::path::Path, out: &mut Vec<(String, Vec<u8>)>) {
        for entry in std::fs::read_dir(dir).unwrap().map(Result::unwrap) {
            let path = entry.path();
            if path.is_dir() {
                walk(&path, out);
            } else if path.extension().is_some_and(|ext| ext == "json") {
                out.push((path.display().to_string(), std::fs::read(&path).unwrap()));
            }
        }
    }
    let mut bodies = Vec::new();
    walk(&fixtures::dir(), &mut bodies);
    bodies
}

#[test]
fn a_recorded_body_reads_as_serde_json_reads_it_and_normalizes_the_same_for_every_cli() {
    let bodies = recorded_bodies();
    assert!(bodies.len() >= 100, "the fixtures are there: {}", bodies.len());
    let mut events = 0;
    for (name, bytes) in &bodies {
        let whole: serde_json::Value = serde_json::from_slice(bytes).unwrap();
        let borrowed = Value::parse(bytes).unwrap();
        assert_eq!(borrowed, Value::from(&whole), "{name}");
        assert_eq!(borrowed.to_string(), whole.to_string(), "{name}: written back the same");
        for agent in AGENTS {
            let event = (agent.normalize)(&borrowed, 7);
            assert_eq!(event, crate::agent::normalize(agent.id, &whole, 7), "{name} as {}", agent.id);
            events += usize::from(event.is_some());
        }
    }
    assert!(events >= 100, "most bodies mean something to their own CLI: {events}");
}

#[test]
fn a_string_without_escapes_is_borrowed_from_the_body_and_one_with_them_is_decoded() {
    let body = br#"{"plain": "cargo test", "esc\"aped": "line\none \u00e9", "n": [1, -2, 2.5, true, null]}"#;
    let value = Value::parse(body).unwrap();
    let map = value.as_object().unwrap();
    let keys: Vec<&str> = map.iter().map(|(key, _)| key).collect();
    assert_eq!(keys, ["plain", "esc\"aped", "n"], "in the order they came");
    assert!(matches!(map.get("plain"), Some(Value::String(Cow::Borrowed("cargo test")))));
    assert_eq!(map.get("esc\"aped").and_then(Value::as_str), Some("line\none é"));
    assert!(matches!(map.get("esc\"aped"), Some(Value::String(Cow::Owned(_)))));
    let numbers = value.get("n").and_then(Value::as_array).unwrap();
    assert_eq!((numbers[0].as_u64(), numbers[1].as_i64(), numbers[2].as_f64()), (Some(1), Some(-2), Some(2.5)));
    assert_eq!((numbers[3].as_bool(), numbers[4].is_null()), (Some(true), true));
    assert_eq!(value.get("n").and_then(|n| n.get(1)).and_then(Value::as_i64), Some(-2));
    assert_eq!(value.get("missing"), None);
    assert_eq!(value.get(0), None, "an object has no index");
}

#[test]
fn a_key_given_twice_reads_as_its_last_value_as_serde_json_reads_it() {
    let body = br#"{"session_id": "first", "hook_event_name": "Stop", "session_id": "last"}"#;
    let whole: serde_json::Value = serde_json::from_slice(body).unwrap();
    let value = Value::parse(body).unwrap();
    assert_eq!(value.get("session_id").and_then(Value::as_str), whole["session_id"].as_str());
    let event = (crate::agent::agent("claude").unwrap().normalize)(&value, 1).unwrap();
    assert_eq!(event.session_id, "last");
    let mut map = Map::new();
    map.insert("a", Value::Bool(false));
    map.insert("b", Value::Null);
    map.insert(String::from("a"), Value::Bool(true));
    assert_eq!((map.len(), map.get("a")), (2, Some(&Value::Bool(true))), "insert replaces in place");
}

#[test]
fn what_serde_json_refuses_is_refused_and_nesting_stays_bounded() {
    for bad in [&b"{"[..], b"{\"a\":}", b"[1,]", b"\"\\x\"", b"{\"a\":1} trailing", b"", b"\xff"] {
        assert!(Value::parse(bad).is_err(), "{:?}", String::from_utf8_lossy(bad));
        assert!(serde_json::from_slice::<serde_json::Value>(bad).is_err());
    }
    // Deeper than serde_json's limit of 128: an error, not a stack overflow.
    let deep = format!("{}{}", "[".repeat(10_000), "]".repeat(10_000));
    assert!(Value::parse(deep.as_bytes()).is_err());
    let fine = format!("{}{}", "[".repeat(100), "]".repeat(100));
    assert!(Value::parse(fine.as_bytes()).is_ok());
}

#[test]
fn a_pointer_reads_as_rfc_6901_says() {
    let body = br#"{"a": {"b/c": [10, {"d~e": "x"}]}, "": 1}"#;
    let value = Value::parse(body).unwrap();
    assert_eq!(value.pointer(""), Some(&value));
    assert_eq!(value.pointer("/a/b~1c/0").and_then(Value::as_u64), Some(10));
    assert_eq!(value.pointer("/a/b~1c/1/d~0e").and_then(Value::as_str), Some("x"));
    assert_eq!(value.pointer("/").and_then(Value::as_u64), Some(1));
    assert_eq!(value.pointer("/a/b~1c/01"), None, "no leading zero");
    assert_eq!(value.pointer("a"), None, "a pointer starts with a slash");
}
