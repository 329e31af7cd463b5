// Generated from the Rust types by ts-rs (src-tauri/core/src/bindings.rs). Do not edit.
import type { AgentStatus } from "./AgentStatus";
import type { Badge } from "./Badge";
import type { Tone } from "./Tone";

/** Cards ranked at or below this go to the "Needs you" lane (`boardRank`). */
export const RANK_NEEDS_YOU = 1;
/** An ended session's rank, the last. */
export const RANK_ENDED = 6;
/** How much of a reason a card shows. */
export const REASON_CHARS = 240;

/** Each reported status's badge, for lists that name a status (a tone per status). */
export const STATUS_BADGES: Record<AgentStatus, Badge> = {
  working: {"tone":"working","word":"Working"},
  waiting: {"tone":"waiting","word":"Has a question"},
  blocked: {"tone":"blocked","word":"Needs permission"},
  done: {"tone":"done","word":"Done"},
};

/** Each tone, the word beside it and what it means: the `?` sheet's legend. */
export const LEGEND: readonly { tone: Tone; word: string; what: string }[] = [
  { tone: "blocked", word: "Needs permission", what: "waits for Allow / Deny — here or in its terminal" },
  { tone: "waiting", word: "Has a question", what: "asked you something" },
  { tone: "working", word: "Working", what: "busy; nothing for you yet" },
  { tone: "done", word: "Done", what: "finished its turn" },
  { tone: "interrupted", word: "Interrupted", what: "stopped (Esc, a refusal)" },
  { tone: "error", word: "Error", what: "its request failed" },
  { tone: "idle", word: "Idle / Starting", what: "no status yet, or ended" },
];
