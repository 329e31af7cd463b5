//! OpenCode's own database, where it keeps its sessions (it writes no transcript): the board's
//! usage of an OpenCode session is read there (issue 48). As OpenCode 1.18.33 finds it: the file
//! `$OPENCODE_DB` (absolute, or relative to its data folder), else `opencode.db` in its data
//! folder, `$XDG_DATA_HOME/opencode` or `~/.local/share/opencode` (a build from another release
//! channel than `latest`/`beta`/`prod` names it `opencode-<channel>.db`). SQLite in WAL mode.
//!
//! Each assistant message is a row of the `message` table (`id`, `session_id`, `time_created`,
//! `time_updated`, `data`); `data` is its JSON without the id: `role`, `modelID`, `cost` (dollars,
//! by OpenCode's own prices; 0 for a model it has none for), `tokens` `{total, input, output,
//! reasoning, cache: {read, write}}` — `input` is the prompt less what the cache read or wrote —,
//! and `finish`. The title request is not stored. A subagent's messages are in its own session,
//! whose `session.parent_id` is the parent's id.

use serde_json::Value;

use crate::agent::row::Database;
use crate::usage::{number, Counted, Meter};

/// One row per assistant message of session `?1` and of its subagents' sessions, oldest first, as
/// `{"id", "child", "info"}`: the message's id, whether it is a subagent's, and its `data`.
const USAGE_QUERY: &str = "\
SELECT json_object('id', m.id, \
                   'child', json(CASE WHEN m.session_id = ?1 THEN 'false' ELSE 'true' END), \
                   'info', json(m.data)) \
FROM message AS m \
WHERE m.session_id IN (SELECT ?1 UNION ALL SELECT id FROM session WHERE parent_id = ?1) \
  AND CASE WHEN json_valid(m.data) THEN json_extract(m.data, '$.role') = 'assistant' ELSE 0 END \
ORDER BY m.time_created, m.id";

pub const DATABASE: Database = Database {
    file_var: Some("OPENCODE_DB"),
    base_var: Some(("XDG_DATA_HOME", "opencode")),
    dir: ".local/share/opencode",
    file: "opencode.db",
    usage_query: USAGE_QUERY,
};

/// Counts one assistant message (a row of [`DATABASE`]'s query) into `meter`; `true` when its usage
/// changed. The context is the session's own last answer's: a subagent's runs apart.
pub(crate) fn usage(meter: &mut Meter, record: &Value) -> bool {
    let info = record.get("info").filter(|info| info.get("role").and_then(Value::as_str) == Some("assistant"));
    let (Some(info), Some(id)) = (info, record.get("id").and_then(Value::as_str)) else { return false };
    let Some(tokens) = info.get("tokens") else { return false };
    let cache = tokens.get("cache").unwrap_or(&Value::Null);
    let cost = info.get("cost").and_then(Value::as_f64).filter(|cost| cost.is_finite() && *cost > 0.0);
    let counted = Counted {
        input: number(tokens, "input"),
        // Reasoning is billed as output.
        output: number(tokens, "output").saturating_add(number(tokens, "reasoning")),
        cache_read: number(cache, "read"),
        cache_write: number(cache, "write"),
        // Dollars to millionths; a value past u64 saturates.
        cost_micros: cost.map(|cost| (cost * 1e6).round() as u64).unwrap_or(0),
    };
    if counted.input + counted.output + counted.cache_read + counted.cache_write == 0 {
        // An aborted or failed answer, or one still streaming: no usage yet.
        return false;
    }
    let changed = meter.count(id, counted);
    if record.get("child").and_then(Value::as_bool) != Some(true) {
        if let Some(model) = info.get("modelID").and_then(Value::as_str) {
            meter.model = Some(model.to_owned());
        }
        meter.context_tokens = counted.input + counted.cache_read + counted.cache_write + counted.output;
    }
    changed
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::usage::Prices;
    use serde_json::json;

    fn answer(id: &str, child: bool, tokens: Value, cost: f64) -> Value {
        json!({"id": id, "child": child, "info": {"role": "assistant", "modelID": if child { "small" } else { "fake-model" },
            "providerID": "fake", "cost": cost, "tokens": tokens, "finish": "stop"}})
    }

    fn tokens(input: u64, output: u64, reasoning: u64, read: u64, write: u64) -> Value {
        json!({"total": input + output + reasoning + read + write, "input": input, "output": output,
               "reasoning": reasoning, "cache": {"read": read, "write": write}})
    }

    #[test]
    fn answers_sum_and_the_last_own_answer_is_the_context() {
        let mut meter = crate::agent::meter("opencode");
        assert!(meter.record(&answer("msg_1", false, tokens(600, 10, 0, 400, 0), 0.0)));
        assert!(meter.record(&answer("msg_2", false, tokens(700, 20, 5, 300, 50), 0.0)));
        // A subagent's answer counts, but is not this session's context or model.
        assert!(meter.record(&answer("msg_3", true, tokens(90, 9, 0, 0, 0), 0.0)));
        let usage = meter.usage(&Prices::default());
        assert_eq!(
            (usage.input_tokens, usage.output_tokens, usage.cache_read_tokens, usage.cache_write_tokens),
            (1390, 44, 700, 50)
        );
        assert_eq!((usage.requests, usage.context_tokens), (3, 700 + 300 + 50 + 25));
        assert_eq!(usage.model.as_deref(), Some("fake-model"));
        assert_eq!(usage.cost_micros, None, "OpenCode said 0 and the table has no price for it");
    }

    #[test]
    fn opencodes_own_cost_wins_over_the_table() {
        let mut meter = crate::agent::meter("opencode");
        meter.record(&answer("msg_1", false, tokens(1000, 100, 0, 0, 0), 0.0125));
        meter.record(&answer("msg_2", false, tokens(1000, 100, 0, 0, 0), 0.0025));
        assert_eq!(meter.usage(&Prices::builtin()).cost_micros, Some(15_000));
    }

    #[test]
    fn unanswered_and_malformed_rows_count_nothing() {
        let mut meter = crate::agent::meter("opencode");
        assert!(!meter.record(&answer("msg_aborted", false, tokens(0, 0, 0, 0, 0), 0.0)));
        assert!(!meter.record(&json!({"id": "msg_u", "child": false, "info": {"role": "user"}})));
        assert!(!meter.record(&json!({"id": "msg_x", "info": {"role": "assistant"}})));
        assert!(!meter.record(&json!({"info": {"role": "assistant", "tokens": {"input": 5}}})));
        assert!(!meter.record(&json!("not an object")));
        let odd = json!({"id": "msg_odd", "child": false, "info": {"role": "assistant", "cost": "free",
            "tokens": {"input": -4, "output": 1.5, "cache": "none"}}});
        assert!(!meter.record(&odd), "nothing it can count");
        assert_eq!(meter.usage(&Prices::default()).requests, 0);
    }
}
