// The status language: one word, one tone and one icon per state, used by nodes, chips and the
// minimap alike. Colour is never the only signal: every tone has its word and icon.
import type { AgentStatus } from "./bindings/AgentStatus";
import type { HistoryEntry } from "./bindings/HistoryEntry";
import type { Session } from "./bindings/Session";

export type Tone = "working" | "waiting" | "blocked" | "done" | "error" | "interrupted" | "idle";

export type Badge = { tone: Tone; word: string };

/** A session younger than this with no status yet is "Starting", older ones "Idle". */
export const STARTING_GRACE_MS = 60_000;

/** `working` with no news for a long while: the Rust side sets the flag, the node shows a clock. */
export function isStale(session: Session): boolean {
  return session.stale;
}

/** The badge of a reported status; nodes, the history timeline and the Older list share it. */
export function statusBadge(fields: { status: AgentStatus; errored: boolean; interrupted: boolean }): Badge {
  switch (fields.status) {
    case "working":
      return { tone: "working", word: "Working" };
    case "waiting":
      return { tone: "waiting", word: "Has a question" };
    case "blocked":
      return { tone: "blocked", word: "Needs permission" };
    case "done":
      if (fields.errored) return { tone: "error", word: "Error" };
      if (fields.interrupted) return { tone: "interrupted", word: "Interrupted" };
      return { tone: "done", word: "Done" };
  }
}

export function badgeOf(session: Session, now: number): Badge {
  switch (session.status) {
    case "working":
    case "waiting":
    case "blocked":
    case "done":
      return statusBadge({ status: session.status, errored: session.errored, interrupted: session.interrupted });
    default:
      // `errored` / `interrupted` describe the current done; without a status trust them still.
      if (session.errored) return { tone: "error", word: "Error" };
      if (session.interrupted) return { tone: "interrupted", word: "Interrupted" };
      if (!session.ended && now - session.firstEventAt < STARTING_GRACE_MS) {
        return { tone: "idle", word: "Starting" };
      }
      return { tone: "idle", word: "Idle" };
  }
}

/** How much of a reason is put in the DOM; the tooltip keeps the whole text. */
export const REASON_DISPLAY_CHARS = 240;

export type Reason = {
  /** A short heading shown before the text, e.g. "Needs permission: Bash". */
  lead?: string;
  /** Whitespace-collapsed and clipped: what the node shows. */
  text: string;
  /** The whole text, for the tooltip. */
  full: string;
  /** attention: a box tinted with the status colour; box: a neutral box; quiet: plain text. */
  look: "attention" | "box" | "quiet";
};

export function collapseWhitespace(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

/** At most `max` characters (code points, as Rust counts them: an emoji is one, never cut in half). */
export function clip(text: string, max: number): string {
  const chars = Array.from(text);
  if (chars.length <= max) return text;
  return chars.slice(0, max - 1).join("").trimEnd() + "…";
}

function nonEmpty(text: string | null | undefined): string | null {
  return text != null && text.trim() !== "" ? text : null;
}

function reason(full: string, look: Reason["look"]): Reason {
  return { text: clip(collapseWhitespace(full), REASON_DISPLAY_CHARS), full, look };
}

/** Why the user is needed (or what is going on), in one or two lines. */
export function reasonOf(session: Session): Reason | null {
  const message = nonEmpty(session.message);
  const tool = nonEmpty(session.tool);
  switch (session.status) {
    case "waiting":
      return reason(nonEmpty(session.question) ?? message ?? "Waiting for your answer", "attention");
    case "blocked": {
      // A hold that ended with no answer from the board: the prompt is the terminal's again.
      if (session.decision == null && session.decisionUntil != null && !session.ended) {
        const lead = "Expired — answer in your terminal";
        return { ...reason(message ?? lead, "attention"), lead, full: `${lead}  ${message ?? ""}`.trim() };
      }
      const lead = tool ? `Needs permission: ${tool}` : "Needs permission";
      if (!message) return { lead, text: "", full: lead, look: "attention" };
      return { ...reason(message, "attention"), lead, full: `${lead}  ${message}` };
    }
    case "working":
      // Just answered from the board: say what was answered ("Allowed from Switchboard: …",
      // "Answered from Switchboard: Blue").
      if (message && /^(Allowed|Denied|Answered) from Switchboard/.test(message)) return reason(message, "box");
      return tool ? reason(`Using ${tool}`, "quiet") : null;
    case "done":
    case null:
      if (session.errored) return reason(message ?? "The turn ended with an error", "attention");
      if (session.interrupted) return message ? reason(message, "quiet") : null;
      return message ? reason(message, session.status === "done" ? "box" : "quiet") : null;
    default:
      return message ? reason(message, "quiet") : null;
  }
}

/**
 * What a history entry was about, for the timeline: the question, the tool and its command, or
 * the message. The status word stands beside it, so unlike {@link reasonOf} there is no
 * "Needs permission:" lead; `lead` is the tool.
 */
export function historyReason(entry: HistoryEntry): Reason | null {
  const message = nonEmpty(entry.message);
  const tool = nonEmpty(entry.tool);
  const question = nonEmpty(entry.question);
  switch (entry.status) {
    case "waiting": {
      const text = question ?? message;
      return text ? reason(text, "attention") : null;
    }
    case "blocked": {
      if (!tool) return message ? reason(message, "attention") : null;
      if (!message) return { lead: tool, text: "", full: tool, look: "attention" };
      return { ...reason(message, "attention"), lead: tool, full: `${tool}  ${message}` };
    }
    case "working":
      if (tool) return reason(`Using ${tool}`, "quiet");
      return message ? reason(message, "quiet") : null;
    case "done":
      if (entry.errored) return reason(message ?? "The turn ended with an error", "attention");
      return message ? reason(message, entry.interrupted ? "quiet" : "box") : null;
  }
}

/** The header chip a session counts towards; ended and archived sessions count towards none. */
export type Category = "needs" | "working" | "done";

export function categoryOf(session: Session): Category | null {
  if (session.ended || session.archived) return null;
  switch (session.status) {
    case "waiting":
    case "blocked":
      return "needs";
    case "working":
      return "working";
    case "done":
      // A failed turn needs the user (a retry, a look), not the green chip.
      return session.errored ? "needs" : "done";
    default:
      return null;
  }
}
