// How a session is named on screen: title, agent, folder, age.
import { AGENTS } from "../bindings/agents";
import type { Session } from "../bindings/Session";

/** The agent's short name, from its row in Rust's table ("Claude"); unknown: its id. */
export function agentName(agent: string): string {
  return AGENTS.find((row) => row.id === agent)?.short ?? agent;
}

export function lastFolder(cwd: string | null | undefined): string | null {
  if (!cwd) return null;
  const parts = cwd.split(/[\\/]+/).filter(Boolean);
  return parts.length > 0 ? parts[parts.length - 1]! : null;
}

export function shortId(sessionId: string): string {
  return sessionId.length > 8 ? sessionId.slice(0, 8) : sessionId;
}

/** The host of a session that runs on this machine. */
export const LOCAL_HOST = "local";

/** It runs on another machine (a remote followed over SSH). */
export function isRemote(session: Pick<Session, "host">): boolean {
  return session.host !== LOCAL_HOST;
}

/** The session's id on the machine it runs on: a remote's is `<host>:<id there>` on this board. */
export function ownId(session: Pick<Session, "host" | "sessionId">): string {
  const prefix = `${session.host}:`;
  return isRemote(session) && session.sessionId.startsWith(prefix) ? session.sessionId.slice(prefix.length) : session.sessionId;
}

/** The short id that tells a session apart from its neighbours (its id there, for a remote one). */
export function shortIdOf(session: Pick<Session, "host" | "sessionId">): string {
  return shortId(ownId(session));
}

/**
 * A project's region on the canvas: `project:<path>` on this machine, `project:<host>:<path>` on
 * a remote (the same path on two machines is two projects).
 */
export function projectRegionId(host: string, project: string | null): string {
  return host === LOCAL_HOST ? `project:${project ?? ""}` : `project:${host}:${project ?? ""}`;
}

/** How long a tag that tells sessions apart is, when their ids allow. */
const TAG_CHARS = 8;

/**
 * For ids that share a title: the shortest part of each that tells it from the others — their
 * first 8 characters when those differ (a UUID's), else their last 8 (`c-hello-1`, `c-hello-2`),
 * else the whole id. A tag the others share would make two cards read the same.
 */
export function distinctTags(ids: readonly string[]): string[] {
  const unique = (tags: string[]) => new Set(tags).size === tags.length;
  const heads = ids.map((id) => shortId(id));
  if (unique(heads)) return heads;
  // A short id is shown whole; a long one by its end.
  const tails = ids.map((id) => (id.length > TAG_CHARS + 4 ? `…${id.slice(-TAG_CHARS)}` : id));
  if (unique(tails)) return tails;
  return [...ids];
}

/**
 * A title cut in two for a cut in the middle: the head gives way (at a word, then an ellipsis)
 * while the tail, the part that tells it from its neighbours, stays. `tail` when the caller knows
 * it (" · 1a2b3c4d"), else the title's last words (up to 12 characters, from a space; a longer
 * last word whole, up to 20) once the title is long enough to be cut. The tail starts with its
 * space, so the cut never glues two words. A title already cut by its agent ("…") keeps its one
 * ellipsis: no tail, so no second one (issue 44.3).
 */
export function middleCut(title: string, tail?: string): { head: string; tail: string } {
  if (tail != null && tail !== "" && title.endsWith(tail)) return { head: title.slice(0, title.length - tail.length), tail };
  const chars = Array.from(title);
  if (chars.length <= 20 || title.includes("…") || title.includes("...")) return { head: title, tail: "" };
  const end = chars.slice(-12).join("");
  const space = end.indexOf(" ");
  let kept = "";
  if (space >= 0 && space < end.length - 1) kept = end.slice(space);
  else {
    const last = title.lastIndexOf(" ");
    if (last > 0 && title.length - last <= 21 && last < title.length - 1) kept = title.slice(last);
  }
  return { head: title.slice(0, title.length - kept.length).trimEnd(), tail: kept };
}

/** The session's name, as Rust stamps it (core/src/view.rs `title`). */
export function titleOf(session: Session): string {
  return session.title ?? "";
}

/**
 * The title and folder a card shows inside its region. In a project's region the project is
 * already named above the cards, so it is not said again on each: the folder becomes the part
 * below the project ("" when it is the project itself), and a session with no title of its own
 * (named after that same folder) is named by its agent and short id.
 */
export function labelsInRegion(
  session: Session,
  region: string | null | undefined,
  /** What tells it from another card of the same title (see `distinctTags`); its short id if none. */
  tag?: string,
): { title: string; folder: string | null } {
  const title = titleOf(session);
  const folder = session.cwd ? shortenHome(session.cwd) : null;
  const prefix = projectRegionId(session.host, null);
  const project = region?.startsWith(prefix) ? region.slice(prefix.length) : null;
  if (!project || !session.cwd) return { title, folder };
  const below = session.cwd === project ? "" : session.cwd.startsWith(`${project}/`) ? session.cwd.slice(project.length + 1) : null;
  if (below == null) return { title, folder };
  // Named after the project's own folder, the card would only repeat the region's name.
  const untitled = title === lastFolder(session.cwd) && below === "";
  return {
    title: untitled ? `${agentName(session.agent)} · ${tag ?? shortIdOf(session)}` : title,
    folder: below === "" ? null : `./${below}`,
  };
}

// The web view has no $HOME, so infer it from the usual home roots.
const HOME_PREFIXES = [/^\/(?:home|Users)\/[^/]+(?=\/|$)/, /^\/root(?=\/|$)/, /^[A-Za-z]:\\Users\\[^\\]+(?=\\|$)/];

export function shortenHome(cwd: string): string {
  for (const prefix of HOME_PREFIXES) {
    if (prefix.test(cwd)) return cwd.replace(prefix, "~");
  }
  return cwd;
}

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** "7 Dec": one formatter for every call (the clock asks a text what it reads at many times). */
const SHORT_DATE = new Intl.DateTimeFormat(undefined, { day: "numeric", month: "short" });
const shortDate = (at: number) => (Number.isFinite(at) ? SHORT_DATE.format(at) : "");

/** "just now", "2 min ago", "3 h ago", "4 d ago", then a date. */
export function relativeAge(at: number, now: number): string {
  if (!Number.isFinite(at)) return "";
  const diff = now - at;
  if (diff < 45_000) return "just now";
  if (diff < HOUR) return `${Math.max(1, Math.floor(diff / MINUTE))} min ago`;
  if (diff < DAY) return `${Math.floor(diff / HOUR)} h ago`;
  if (diff < 7 * DAY) return `${Math.floor(diff / DAY)} d ago`;
  return shortDate(at);
}

/** "no news for 12 min", for the stale mark. */
export function silenceFor(at: number, now: number): string {
  const diff = Math.max(0, now - at);
  if (diff < HOUR) return `no news for ${Math.max(1, Math.floor(diff / MINUTE))} min`;
  if (diff < DAY) return `no news for ${Math.floor(diff / HOUR)} h`;
  return `no news for ${Math.floor(diff / DAY)} d`;
}

/**
 * "devbox unreachable since 14:02" (a date once it is a day old): a remote's session whose link
 * is down shows what was last known, and says since when.
 */
export function unreachableLine(host: string, since: number, now: number): string {
  return `${host} unreachable since ${sinceWhen(since, now)}`;
}

/** When something began, for "since …": the time of day ("14:02"), or the date once it is a day old. */
export function sinceWhen(at: number, now: number): string {
  if (now - at < DAY) return clockTime(at);
  return shortDate(at);
}

/** "09:05": the local wall-clock time, 24-hour. */
export function clockTime(at: number): string {
  if (!Number.isFinite(at)) return "";
  const d = new Date(at);
  return `${String(d.getHours()).padStart(2, "0")}:${String(d.getMinutes()).padStart(2, "0")}`;
}

export function absoluteTime(at: number): string {
  return Number.isFinite(at) ? new Date(at).toLocaleString() : "";
}
