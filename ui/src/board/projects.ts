// What needs the user first, and which project (and machine) each session's folder belongs to:
// the groups the board is laid out in. Pure.
import { RANK_NEEDS_YOU } from "../bindings/view";
import type { Session } from "../bindings/Session";
import { LOCAL_HOST, shortenHome } from "../shared/sessionLabels";

// ── What needs the user first ────────────────────────────────────────────────────────────────

/**
 * 0 blocked, 1 waiting or failed (the "Needs you" lane), 2 unread done, 3 working, 4 not started / idle,
 * 5 done and read, 6 ended. Lower comes first.
 */
export function rankOf(session: Session): number {
  // Stamped by Rust (`view::board_rank`): the rule lives there once.
  return session.boardRank;
}

export const NEEDS_YOU_RANK = RANK_NEEDS_YOU;

// ── Projects ─────────────────────────────────────────────────────────────────────────────────

function normalizePath(cwd: string): string {
  const trimmed = cwd.replace(/[\\/]+$/, "");
  return trimmed === "" ? cwd.slice(0, 1) : trimmed;
}

function isInside(path: string, root: string): boolean {
  if (path === root) return true;
  return path.startsWith(root) && (path[root.length] === "/" || path[root.length] === "\\");
}

/** A home folder or a top-level one is where people start agents by accident, not a project. */
function tooBroadForAProject(path: string): boolean {
  if (shortenHome(path) === "~") return true;
  return path.split(/[\\/]+/).filter(Boolean).length < 2;
}

/** Each folder's project among `paths` (the folders of one machine's sessions). */
function rootsOf(paths: string[]): Map<string, string> {
  paths.sort((a, b) => a.length - b.length || (a < b ? -1 : a > b ? 1 : 0));
  const roots: string[] = [];
  const rootOf = new Map<string, string>();
  for (const path of paths) {
    const root = roots.find((r) => isInside(path, r));
    if (root) rootOf.set(path, root);
    else {
      rootOf.set(path, path);
      if (!tooBroadForAProject(path)) roots.push(path);
    }
  }
  return rootOf;
}

/**
 * The project of each session: its cwd, or the cwd of another session on the same machine that
 * contains it (the outermost one), since the UI does not know git roots. A home or top-level
 * folder does not swallow the projects below it; a folder on one machine never swallows one on
 * another (the layout keeps the same path on two machines apart too, by host). `null`: the
 * session has no cwd.
 */
export function projectsOf(sessions: readonly Session[]): Record<string, string | null> {
  const pathsByHost = new Map<string, Set<string>>();
  for (const s of sessions) {
    if (!s.cwd) continue;
    const paths = pathsByHost.get(s.host) ?? new Set<string>();
    paths.add(normalizePath(s.cwd));
    pathsByHost.set(s.host, paths);
  }
  const rootsByHost = new Map([...pathsByHost].map(([host, paths]) => [host, rootsOf([...paths])]));
  const out: Record<string, string | null> = {};
  for (const s of sessions) out[s.sessionId] = s.cwd ? rootsByHost.get(s.host)!.get(normalizePath(s.cwd))! : null;
  return out;
}

/** This machine first, then the remotes by name: the order their regions come in. */
export function compareHosts(a: string, b: string): number {
  if (a === b) return 0;
  if (a === LOCAL_HOST) return -1;
  if (b === LOCAL_HOST) return 1;
  return a < b ? -1 : 1;
}
