//! What each agent spends and holds (issue 25): its tokens and their estimated cost, read from
//! what its CLI writes; the memory and CPU of its process tree; the git state of its folder.
//! Pure: the engine's meter reads the files and `/proc` and hands the records here.
//!
//! Where the tokens come from, per CLI (each checked against the real CLI and its fake model
//! server in the real-CLI harness):
//! - **Claude Code**: the transcript's `assistant` records, `message.usage` (`input_tokens`,
//!   `cache_creation_input_tokens`, `cache_read_input_tokens`, `output_tokens`) and
//!   `message.model`. One model response is written as one record per content block, all with
//!   the same `message.id` and usage: counted once.
//! - **Codex**: the rollout's `event_msg` records of type `token_count`:
//!   `info.total_token_usage` (the session's running total; `input_tokens` includes
//!   `cached_input_tokens`), `info.last_token_usage` (the last request: the context in use) and
//!   `info.model_context_window`; the model from `turn_context` records.
//! - **Gemini CLI**: the chat file's `gemini` messages, `tokens` (`input` — the whole prompt,
//!   `cached` included —, `output`, `thoughts`, `cached`) and `model`. A message is written again
//!   whenever it grows (tokens, then tool calls): counted once, by its `id`.
//! - **OpenCode**: no transcript: its SQLite database (`opencode.db`), the `message` table's
//!   assistant messages, `tokens` (`input` — the prompt less the cache —, `output`, `reasoning`,
//!   `cache.read`, `cache.write`), `cost` (its own reckoning, in dollars) and `modelID`; its
//!   subagents' sessions count too, not as the context.

use std::collections::VecDeque;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::status::Millis;

/// The tokens a session has used, and what they cost.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct Usage {
    /// The model of its last request, as the CLI names it.
    pub model: Option<String>,
    /// Input tokens not read from a cache.
    #[cfg_attr(test, ts(type = "number"))]
    pub input_tokens: u64,
    #[cfg_attr(test, ts(type = "number"))]
    pub output_tokens: u64,
    /// Input tokens read from the provider's prompt cache.
    #[cfg_attr(test, ts(type = "number"))]
    pub cache_read_tokens: u64,
    /// Input tokens written to the prompt cache (Claude).
    #[cfg_attr(test, ts(type = "number"))]
    pub cache_write_tokens: u64,
    /// The context in use: the last request's input and output.
    #[cfg_attr(test, ts(type = "number"))]
    pub context_tokens: u64,
    /// The model's context window, when known (from the CLI, else the pricing table).
    #[cfg_attr(test, ts(type = "number | null"))]
    pub context_window: Option<u64>,
    /// Estimated cost in millionths of a US dollar; `null` when the model has no price.
    #[cfg_attr(test, ts(type = "number | null"))]
    pub cost_micros: Option<u64>,
    /// Model responses counted.
    pub requests: u32,
}

impl Usage {
    /// The context in use as a whole percentage of the window (at most 100), when the window is known.
    pub fn context_percent(&self) -> Option<u8> {
        let window = self.context_window.filter(|w| *w > 0)?;
        Some((self.context_tokens.saturating_mul(100) / window).min(100) as u8)
    }
}

/// The agent's process tree, sampled from `/proc`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct Footprint {
    /// CPU use since the previous sample, in tenths of a percent of one core (125 = 12.5 %).
    pub cpu_tenths: u32,
    /// Resident memory of the agent and every process under it.
    #[cfg_attr(test, ts(type = "number"))]
    pub rss_bytes: u64,
    pub processes: u32,
    /// When the agent's process started (Unix ms).
    #[cfg_attr(test, ts(type = "number"))]
    pub started_at: Millis,
}

/// The git state of the session's folder, refreshed when a turn ends.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct GitInfo {
    /// The branch checked out; `null` when detached.
    pub branch: Option<String>,
    /// The top of the working tree when it is a linked worktree (`git worktree add`), else `null`.
    pub worktree: Option<String>,
    /// It has uncommitted changes (untracked files included).
    pub dirty: bool,
}

/// How long a done or waiting agent is silent before its memory counts as held for nothing.
pub const IDLE_HOLDING_AFTER_MS: u64 = 2 * 60 * 60 * 1000;
/// The memory (its whole tree) from which an idle agent is worth ending.
pub const IDLE_HOLDING_BYTES: u64 = 200 * 1024 * 1024;

/// What the meter read about a session: one of the three kinds, each replacing the last.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Reading {
    Usage(Usage),
    /// `None`: the agent's process is gone.
    Footprint(Option<Footprint>),
    /// `None`: its folder is not in a git repository.
    Git(Option<GitInfo>),
    /// It runs in the background (its CLI says so): the command that opens it in a terminal.
    Background(Option<String>),
}

/// One model's price, per million tokens in US dollars, and its context window.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Price {
    /// Applies to the models whose name starts with this (the longest match wins).
    #[serde(rename = "match")]
    pub prefix: String,
    pub input: f64,
    pub output: f64,
    pub cache_read: f64,
    pub cache_write: f64,
    pub context_window: Option<u64>,
}

/// The pricing table (`pricing.json`, which the user may edit).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Prices {
    pub models: Vec<Price>,
}

/// The table shipped with Switchboard: list prices when it was written, to be corrected by the user.
pub const DEFAULT_PRICES: &str = include_str!("pricing.json");

impl Prices {
    pub fn builtin() -> Self {
        serde_json::from_str(DEFAULT_PRICES).expect("the built-in pricing table parses")
    }

    /// The price of `model`: the entry with the longest prefix of its name.
    pub fn of(&self, model: &str) -> Option<&Price> {
        self.models
            .iter()
            .filter(|price| !price.prefix.is_empty() && model.starts_with(&price.prefix))
            .max_by_key(|price| price.prefix.len())
    }
}

/// What one model response counted (kept for the last few, so a response written again is
/// counted once).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Counted {
    pub(crate) input: u64,
    pub(crate) output: u64,
    pub(crate) cache_read: u64,
    pub(crate) cache_write: u64,
    /// What the response cost by the CLI's own reckoning (OpenCode's), in millionths of a US
    /// dollar; 0 when it says nothing, and the pricing table estimates it.
    pub(crate) cost_micros: u64,
}

/// Responses remembered to recognise one written again.
const REMEMBERED: usize = 16;

/// Sums a session's tokens from its transcript's records, in order.
#[derive(Clone, Debug, Default)]
pub struct Meter {
    agent: String,
    /// How its CLI counts a record (`agent::meter` gives it): `None` counts nothing.
    reader: Option<fn(&mut Meter, &Value) -> bool>,
    pub(crate) model: Option<String>,
    pub(crate) totals: Counted,
    pub(crate) context_tokens: u64,
    pub(crate) context_window: Option<u64>,
    pub(crate) requests: u32,
    recent: VecDeque<(String, Counted)>,
}

pub(crate) fn number(value: &Value, key: &str) -> u64 {
    value.get(key).and_then(Value::as_u64).unwrap_or(0)
}

impl Meter {
    /// A meter for `agent`'s records, counted by `reader` (its CLI's; `agent::meter` picks it).
    pub fn new(agent: &str, reader: Option<fn(&mut Meter, &Value) -> bool>) -> Self {
        Self { agent: agent.to_owned(), reader, ..Self::default() }
    }

    /// The CLI whose records it reads.
    pub fn agent(&self) -> &str {
        &self.agent
    }

    /// Counts one transcript record; `true` when the usage changed.
    pub fn record(&mut self, record: &Value) -> bool {
        // Each CLI counts its own records (its row's `transcript.usage`).
        match self.reader {
            Some(reader) => reader(self, record),
            None => false,
        }
    }

    /// Adds a response's tokens, replacing what the same response counted before.
    pub(crate) fn count(&mut self, id: &str, counted: Counted) -> bool {
        let before = match self.recent.iter_mut().find(|(seen, _)| seen == id) {
            Some((_, previous)) => std::mem::replace(previous, counted),
            None => {
                if self.recent.len() >= REMEMBERED {
                    self.recent.pop_front();
                }
                self.recent.push_back((id.to_owned(), counted));
                self.requests += 1;
                Counted::default()
            }
        };
        let totals = &mut self.totals;
        totals.input = totals.input - before.input + counted.input;
        totals.output = totals.output - before.output + counted.output;
        totals.cache_read = totals.cache_read - before.cache_read + counted.cache_read;
        totals.cache_write = totals.cache_write - before.cache_write + counted.cache_write;
        totals.cost_micros = totals.cost_micros - before.cost_micros + counted.cost_micros;
        before != counted
    }

    /// The usage so far, priced with `prices`.
    pub fn usage(&self, prices: &Prices) -> Usage {
        let price = self.model.as_deref().and_then(|model| prices.of(model));
        let totals = self.totals;
        let reckoned = (totals.cost_micros > 0).then_some(totals.cost_micros);
        let cost_micros = reckoned.or_else(|| {
            price.map(|price| {
                // Tokens × dollars per million tokens = millionths of a dollar.
                (totals.input as f64 * price.input
                    + totals.output as f64 * price.output
                    + totals.cache_read as f64 * price.cache_read
                    + totals.cache_write as f64 * price.cache_write)
                    .round() as u64
            })
        });
        Usage {
            model: self.model.clone(),
            input_tokens: totals.input,
            output_tokens: totals.output,
            cache_read_tokens: totals.cache_read,
            cache_write_tokens: totals.cache_write,
            context_tokens: self.context_tokens,
            context_window: self.context_window.or_else(|| price.and_then(|price| price.context_window)),
            cost_micros,
            requests: self.requests,
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn claude_record(id: &str, input: u64, output: u64, cache_read: u64) -> Value {
        json!({"type": "assistant", "message": {"id": id, "model": "claude-opus-4-5-20251101",
            "usage": {"input_tokens": input, "cache_creation_input_tokens": 0, "cache_read_input_tokens": cache_read,
                      "output_tokens": output}}})
    }

    #[test]
    fn a_claude_response_written_as_several_records_is_counted_once() {
        let mut meter = crate::agent::meter("claude");
        assert!(meter.record(&claude_record("msg_1", 100, 5, 0)));
        // The same response's next content block, its usage final now.
        assert!(meter.record(&claude_record("msg_1", 100, 20, 0)));
        assert!(!meter.record(&claude_record("msg_1", 100, 20, 0)));
        assert!(meter.record(&claude_record("msg_2", 10, 30, 120)));
        let usage = meter.usage(&Prices::builtin());
        assert_eq!((usage.input_tokens, usage.output_tokens, usage.cache_read_tokens), (110, 50, 120));
        assert_eq!(usage.requests, 2);
        assert_eq!(usage.context_tokens, 10 + 120 + 30);
        assert_eq!(usage.model.as_deref(), Some("claude-opus-4-5-20251101"));
        assert!(usage.context_window.is_some(), "Claude's window comes from the pricing table");
    }

    #[test]
    fn claude_notes_and_other_records_count_nothing() {
        let mut meter = crate::agent::meter("claude");
        let synthetic = json!({"type": "assistant", "message": {"id": "x", "model": "<synthetic>",
            "usage": {"input_tokens": 0, "output_tokens": 0}}});
        assert!(!meter.record(&synthetic));
        assert!(!meter.record(&json!({"type": "user", "message": {"content": "hi"}})));
        assert!(!meter.record(&json!("not an object")));
        assert_eq!(meter.usage(&Prices::default()), Usage::default());
    }

    #[test]
    fn a_subagents_tokens_count_but_not_as_the_context() {
        let mut meter = crate::agent::meter("claude");
        meter.record(&claude_record("main", 1000, 10, 0));
        let mut side = claude_record("side", 50, 5, 0);
        side["isSidechain"] = json!(true);
        meter.record(&side);
        let usage = meter.usage(&Prices::default());
        assert_eq!(usage.input_tokens, 1050);
        assert_eq!(usage.context_tokens, 1010);
    }

    #[test]
    fn codex_totals_are_its_running_total_and_the_window_its_own() {
        let mut meter = crate::agent::meter("codex");
        assert!(meter.record(&json!({"type": "turn_context", "payload": {"model": "gpt-5.4"}})));
        let count = |input: u64, cached: u64, output: u64, last_input: u64| {
            json!({"type": "event_msg", "payload": {"type": "token_count", "info": {
                "total_token_usage": {"input_tokens": input, "cached_input_tokens": cached, "output_tokens": output,
                                      "reasoning_output_tokens": 0, "total_tokens": input + output},
                "last_token_usage": {"input_tokens": last_input, "cached_input_tokens": 0, "output_tokens": 20},
                "model_context_window": 258400}}})
        };
        assert!(meter.record(&count(100, 0, 20, 100)));
        assert!(meter.record(&count(300, 80, 40, 200)));
        // A token_count with no info (a rate-limit update) changes nothing.
        assert!(!meter.record(&json!({"type": "event_msg", "payload": {"type": "token_count", "info": null}})));
        let usage = meter.usage(&Prices::builtin());
        assert_eq!((usage.input_tokens, usage.cache_read_tokens, usage.output_tokens), (220, 80, 40));
        assert_eq!(usage.context_tokens, 220);
        assert_eq!(usage.context_window, Some(258400));
        assert_eq!(usage.context_percent(), Some(0));
        assert_eq!(usage.requests, 2);
    }

    #[test]
    fn a_gemini_message_written_again_is_counted_once() {
        let mut meter = crate::agent::meter("gemini");
        let message = |id: &str, input: u64| {
            json!({"id": id, "type": "gemini", "model": "gemini-2.5-flash",
                   "tokens": {"input": input, "output": 10, "cached": 0, "thoughts": 0, "tool": 0, "total": input + 10}})
        };
        assert!(!meter.record(&json!({"id": "u", "type": "user", "content": "hi"})));
        assert!(meter.record(&message("a", 100)));
        let mut with_tools = message("a", 100);
        with_tools["toolCalls"] = json!([{"name": "read_file"}]);
        assert!(!meter.record(&with_tools));
        assert!(meter.record(&message("b", 150)));
        assert!(!meter.record(&json!({"$set": {"lastUpdated": "now"}})));
        let usage = meter.usage(&Prices::builtin());
        assert_eq!((usage.input_tokens, usage.output_tokens, usage.requests), (250, 20, 2));
        assert_eq!(usage.context_tokens, 160);
        assert_eq!(usage.model.as_deref(), Some("gemini-2.5-flash"));
    }

    #[test]
    fn cost_is_tokens_times_the_price_of_the_longest_matching_prefix() {
        let prices = Prices {
            models: vec![
                Price { prefix: "claude".into(), input: 1.0, output: 1.0, ..Price::default() },
                Price {
                    prefix: "claude-opus".into(),
                    input: 5.0,
                    output: 25.0,
                    cache_read: 0.5,
                    context_window: Some(200_000),
                    ..Price::default()
                },
            ],
        };
        let mut meter = crate::agent::meter("claude");
        meter.record(&claude_record("m", 1_000_000, 100_000, 2_000_000));
        let usage = meter.usage(&prices);
        // $5 + $2.50 + $1 = $8.50
        assert_eq!(usage.cost_micros, Some(8_500_000));
        assert_eq!(usage.context_percent(), Some(100));
        let unknown = crate::agent::meter("claude").usage(&prices);
        assert_eq!(unknown.cost_micros, None, "no model, no price");
    }

    #[test]
    fn the_built_in_table_prices_each_clis_usual_models() {
        let prices = Prices::builtin();
        for model in [
            "claude-opus-4-5-20251101",
            "claude-sonnet-4-5",
            "claude-haiku-4-5",
            "gpt-5.4",
            "gpt-5-codex",
            "gemini-2.5-pro",
            "gemini-2.5-flash",
        ] {
            let price = prices.of(model).unwrap_or_else(|| panic!("{model} has no price"));
            assert!(price.input > 0.0 && price.output > price.input, "{model}");
            assert!(price.context_window.is_some(), "{model}");
        }
    }
}
