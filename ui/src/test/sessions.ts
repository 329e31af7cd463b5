// Test sessions carry the display facts Rust stamps, never a TypeScript copy of the rules:
// `stamped.json` is written by core/src/view/fixtures.rs from the same code the reducer runs,
// for every combination of the fields those facts depend on.
import type { Badge } from "../bindings/Badge";
import type { Category } from "../bindings/Category";
import type { HistoryEntry } from "../bindings/HistoryEntry";
import type { HistoryView } from "../bindings/HistoryView";
import type { Reason } from "../bindings/Reason";
import type { Session } from "../bindings/Session";
import stamped from "./stamped.json";

export const NOW = Date.UTC(2025, 5, 1, 12, 0, 0);

type Facts = { badge: Badge; category: Category | null; boardRank: number; attentionRank: number | null };
const BADGES = stamped.badges as Record<string, Facts>;
const REASONS = stamped.reasons as Record<string, Reason | null>;
const HISTORY = stamped.history as Record<string, { badge: Badge; reason: Reason | null }>;

const bits = (...flags: unknown[]) => flags.map((flag) => (flag ? "1" : "0")).join("");

/** Rust's reason with the placeholders filled by this session's texts. */
function filled(reason: Reason | null, texts: Record<string, string | null>): Reason | null {
  if (reason == null) return null;
  const fill = (text: string | null) =>
    text == null ? null : text.replace(/\{(message|tool|question)\}/g, (_, name: string) => texts[name] ?? "");
  return { ...reason, lead: fill(reason.lead), text: fill(reason.text)!, full: fill(reason.full) };
}

const present = (text: string | null) => text != null && text.trim() !== "";

/** The facts Rust stamps on a session with these fields (core/src/view.rs `stamp`). */
export function stamp(s: Session): Session {
  const facts = BADGES[`${s.status}|${bits(s.errored, s.interrupted, s.ended, s.unread, s.archived, s.starting)}`]!;
  const reasonKey = `${s.status}|${bits(
    s.errored,
    s.interrupted,
    s.ended,
    present(s.message),
    present(s.tool),
    present(s.question),
    s.decision == null && s.decisionUntil != null,
  )}`;
  return {
    ...s,
    badge: facts.badge,
    category: facts.category,
    boardRank: facts.boardRank,
    attention: facts.attentionRank == null ? null : { rank: facts.attentionRank, since: s.statusChangedAt ?? s.lastEventAt },
    reason: filled(REASONS[reasonKey]!, { message: s.message, tool: s.tool, question: s.question }),
  };
}

/** A session as the Rust side would send it; override what the test is about. */
export function makeSession(overrides: Partial<Session> & { sessionId: string }): Session {
  const session: Session = {
    agent: "claude",
    status: "working",
    kind: "session",
    tool: null,
    title: null,
    cwd: "/home/maya/src/webapp",
    awaitingInput: false,
    question: null,
    message: null,
    interrupted: false,
    errored: false,
    ended: false,
    unread: false,
    subagents: 0,
    firstEventAt: NOW - 60 * 60_000,
    lastEventAt: NOW - 2 * 60_000,
    statusChangedAt: NOW - 2 * 60_000,
    transcriptPath: null,
    stale: false,
    restored: false,
    archived: false,
    position: null,
    process: null,
    exited: false,
    decision: null,
    decisionUntil: null,
    command: null,
    edit: null,
    attention: null,
    host: "local",
    unreachableSince: null,
    questions: [],
    usage: null,
    footprint: null,
    git: null,
    background: null,
    idleHolding: false,
    turnStartedAt: null,
    boardRank: 3,
    starting: false,
    badge: { tone: "working", word: "Working" },
    category: null,
    reason: null,
    ...overrides,
  };
  // What the reducer stamps, unless the test says otherwise.
  const stamped = stamp(session);
  for (const key of ["attention", "boardRank", "badge", "category", "reason"] as const) {
    if (!(key in overrides)) Object.assign(session, { [key]: stamped[key] });
  }
  return session;
}

/** A history entry as `session_history` sends it, with Rust's badge and reason. */
export function makeHistory(entry: HistoryEntry): HistoryView {
  const key = `${entry.status}|${bits(entry.errored, entry.interrupted, present(entry.message), present(entry.tool), present(entry.question))}`;
  const facts = HISTORY[key]!;
  return { ...entry, badge: facts.badge, reason: filled(facts.reason, { message: entry.message, tool: entry.tool, question: entry.question }) };
}
