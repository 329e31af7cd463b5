// What a session spends and holds (issue 25), in the board's words: tokens, cost, context,
// CPU, memory, uptime; the rule that marks an idle agent holding memory; the orders the filter
// bar sorts by; and today's cost for the header. Pure: the figures come from Rust (`usage`,
// `footprint`, `git` on each session), time is a parameter.
import type { Session } from "../bindings/Session";
import type { Usage } from "../bindings/Usage";
import { isRemote, lastFolder } from "./sessionLabels";

// ── Formatting ───────────────────────────────────────────────────────────────────────────────

/** One decimal below 100 of the unit, none above; never "1.0k". */
function scaled(value: number, unit: string): string {
  const text = value < 100 ? value.toFixed(1) : Math.round(value).toString();
  return `${text.replace(/\.0$/, "")}${unit}`;
}

/** Tokens as people say them: 950, 12.3k, 200k, 1.2M. */
export function formatTokens(tokens: number): string {
  const n = Math.max(0, Math.round(tokens));
  if (n < 1000) return n.toString();
  // 999 950 would read "1000k": that is a million.
  if (n < 999_500) return scaled(n / 1000, "k");
  return scaled(n / 1_000_000, "M");
}

/** An estimated cost in US dollars: "$0.42", "<$0.01", "$1,234"; `null` when it has no price. */
export function formatCost(micros: number | null | undefined): string | null {
  if (micros == null) return null;
  if (micros <= 0) return "$0.00";
  if (micros < 10_000) return "<$0.01";
  const dollars = micros / 1_000_000;
  if (dollars >= 1000) return `$${Math.round(dollars).toLocaleString("en-US")}`;
  return `$${dollars.toFixed(2)}`;
}

const MIB = 1024 * 1024;
const GIB = 1024 * MIB;

/** Resident memory: "840 KiB", "4.2 MiB", "512 MiB", "1.2 GiB". */
export function formatBytes(bytes: number): string {
  if (bytes < MIB) return `${Math.max(0, Math.round(bytes / 1024))} KiB`;
  if (bytes < GIB) {
    const mib = bytes / MIB;
    // 1023.7 MiB would read "1024 MiB": that is a GiB.
    if (mib < 1023.5) return `${mib < 10 ? mib.toFixed(1).replace(/\.0$/, "") : Math.round(mib)} MiB`;
  }
  return `${(bytes / GIB).toFixed(1).replace(/\.0$/, "")} GiB`;
}

/** CPU in percent of one core, from tenths: "0.4 %", "12 %", "153 %" (more than one core). */
export function formatCpu(cpuTenths: number): string {
  const percent = Math.max(0, cpuTenths) / 10;
  return `${percent < 10 ? percent.toFixed(1).replace(/\.0$/, "") : Math.round(percent)} %`;
}

/** A stretch of time, coarse: "45 s", "12 min", "2 h 5 min", "3 d 4 h". */
export function formatSpan(ms: number): string {
  const minutes = Math.floor(Math.max(0, ms) / 60_000);
  if (minutes < 1) return `${Math.floor(Math.max(0, ms) / 1000)} s`;
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return minutes % 60 === 0 ? `${hours} h` : `${hours} h ${minutes % 60} min`;
  const days = Math.floor(hours / 24);
  return hours % 24 === 0 ? `${days} d` : `${days} d ${hours % 24} h`;
}

/** "up 2 h 5 min": how long the agent's process has run. */
export function formatUptime(startedAt: number, now: number): string {
  return `up ${formatSpan(now - startedAt)}`;
}

// ── Context ──────────────────────────────────────────────────────────────────────────────────

/**
 * The share of the model's context window in use, 0–100 (whole percent, rounded down as
 * `status --json` has it); `null` when the window is not known.
 */
export function contextPercent(usage: Usage | null | undefined): number | null {
  if (!usage || !usage.contextWindow || usage.contextWindow <= 0) return null;
  return Math.min(100, Math.max(0, Math.floor((usage.contextTokens * 100) / usage.contextWindow)));
}

/** From here on the context bar warns: the agent will soon compact or stop. */
export const CONTEXT_WARN_PERCENT = 80;

export function contextWarns(percent: number | null): boolean {
  return percent != null && percent >= CONTEXT_WARN_PERCENT;
}

/** "23 % of 200k" (or "46k tokens" when the window is not known). */
export function contextLine(usage: Usage): string {
  const percent = contextPercent(usage);
  if (percent == null || usage.contextWindow == null) return `${formatTokens(usage.contextTokens)} tokens`;
  return `${percent} % of ${formatTokens(usage.contextWindow)}`;
}

// ── An idle agent holding memory ─────────────────────────────────────────────────────────────

export type Holding = { idleMs: number; rssBytes: number };

/**
 * How long an idle agent holding memory has been idle, and what it holds — for a session Rust
 * marked so (`idleHolding`: done or waiting, silent for 2 hours, its tree holding 200 MiB or
 * more; the rule is core's `usage::idle_holding`). `null` for every other session.
 */
export function idleHolding(session: Session, now: number): Holding | null {
  if (!holdsIdle(session)) return null;
  return { idleMs: Math.max(0, now - session.lastEventAt), rssBytes: session.footprint.rssBytes };
}

/** Whether it is an idle agent holding memory (what {@link idleHolding} says of it at any time). */
export function holdsIdle(session: Session): session is Session & { footprint: NonNullable<Session["footprint"]> } {
  return session.idleHolding && session.footprint != null;
}

/** "idle 3 h · holds 1.2 GiB" for an idle agent holding memory, "" for any other session. */
export function holdingText(session: Session, now: number): string {
  const holding = idleHolding(session, now);
  return holding ? holdingLine(holding) : "";
}

/** "idle 3 h · holds 1.2 GiB". */
export function holdingLine(holding: Holding): string {
  const hours = Math.floor(holding.idleMs / 3_600_000);
  const idle = hours < 48 ? `${hours} h` : `${Math.floor(hours / 24)} d`;
  return `idle ${idle} · holds ${formatBytes(holding.rssBytes)}`;
}

// ── Sorting ──────────────────────────────────────────────────────────────────────────────────

export type SortBy = "default" | "cost" | "context" | "memory";

export const SORTS: ReadonlyArray<{ by: SortBy; label: string }> = [
  { by: "default", label: "Needs you first" },
  { by: "cost", label: "Cost" },
  { by: "context", label: "Context used" },
  { by: "memory", label: "Memory" },
];

/** What a session is sorted by; `null` when it has no such figure (it goes last). */
function figureOf(session: Session, by: Exclude<SortBy, "default">): number | null {
  switch (by) {
    case "cost":
      return session.usage?.costMicros ?? null;
    case "context": {
      const u = session.usage;
      return u && u.contextWindow ? u.contextTokens / u.contextWindow : null;
    }
    case "memory":
      return session.footprint?.rssBytes ?? null;
  }
}

/**
 * Each id's place when sorted by `by`, largest first, sessions without the figure last, ties
 * in the order given (arrival): the layout's key inside a region. Places, not the figures
 * themselves, so the board is laid out again only when the order changes, not whenever a
 * working agent's cost grows. `null` for the default order.
 */
export function sortPlaces(
  sessions: Readonly<Record<string, Session>>,
  ids: readonly string[],
  by: SortBy,
): Record<string, number> | null {
  if (by === "default") return null;
  const figures = ids.map((id, arrival) => ({ id, arrival, figure: figureOf(sessions[id]!, by) }));
  figures.sort((a, b) => {
    if (a.figure == null || b.figure == null) return Number(a.figure == null) - Number(b.figure == null) || a.arrival - b.arrival;
    return b.figure - a.figure || a.arrival - b.arrival;
  });
  const places: Record<string, number> = {};
  figures.forEach(({ id }, place) => (places[id] = place));
  return places;
}

// ── Today's cost ─────────────────────────────────────────────────────────────────────────────

/** The start of the local day that `now` falls in. */
export function localMidnight(now: number): number {
  const day = new Date(now);
  day.setHours(0, 0, 0, 0);
  return day.getTime();
}

export type ProjectCost = { label: string; micros: number; sessions: number };

export type DayCost = {
  /** The estimated cost of every session active today that has a price. */
  micros: number;
  /** Sessions active today with a cost. */
  priced: number;
  /** Sessions active today with usage but no price (their model is not in pricing.json). */
  unpriced: number;
  /** Per project (region), the most expensive first. */
  projects: ProjectCost[];
};

/**
 * What the sessions active since local midnight cost (estimated; each session's whole cost
 * counts, as its transcript has it), in total and per project. `projects`: each session's
 * project folder (the canvas's regions); a session without one falls back to its own folder.
 */
export function dayCost(
  sessions: Readonly<Record<string, Session>>,
  projects: Readonly<Record<string, string | null>>,
  now: number,
): DayCost {
  const since = localMidnight(now);
  const byProject = new Map<string, ProjectCost>();
  const out: DayCost = { micros: 0, priced: 0, unpriced: 0, projects: [] };
  for (const id in sessions) {
    const session = sessions[id]!;
    if (session.lastEventAt < since || !session.usage) continue;
    const micros = session.usage.costMicros;
    if (micros == null) {
      out.unpriced++;
      continue;
    }
    out.micros += micros;
    out.priced++;
    const folder = projects[id] ?? session.cwd;
    const name = lastFolder(folder) ?? "No folder";
    const label = isRemote(session) ? `${session.host} · ${name}` : name;
    const key = `${session.host}\u0000${folder ?? ""}`;
    const project = byProject.get(key) ?? { label, micros: 0, sessions: 0 };
    project.micros += micros;
    project.sessions++;
    byProject.set(key, project);
  }
  out.projects = [...byProject.values()].sort((a, b) => b.micros - a.micros || (a.label < b.label ? -1 : 1));
  return out;
}
