// The quick filter (Ctrl+K or `/`) and the header's status chips: which sessions stay lit.
// Pure: the store keeps the result so each node only reads a boolean.
import type { Session } from "../bindings/Session";
import type { Category } from "./status";
import { agentName, isRemote, lastFolder, shortenHome, titleOf } from "./sessionLabels";

/** `branch`: the filter bar's branch field, matched against each session's git branch. */
export type Filter = { text: string; category: Category | null; branch?: string };

export const NO_FILTER: Filter = { text: "", category: null, branch: "" };

export function isFiltering(filter: Filter): boolean {
  return filter.category != null || filter.text.trim() !== "" || (filter.branch ?? "").trim() !== "";
}

/** Its git branch contains every term of the branch field (a detached or unknown one matches none). */
function onBranch(session: Session, field: string | undefined): boolean {
  const terms = (field ?? "").toLowerCase().split(/\s+/).filter(Boolean);
  if (terms.length === 0) return true;
  const branch = session.git?.branch?.toLowerCase();
  return branch != null && terms.every((term) => branch.includes(term));
}

/** Words a session answers to: its title, project, agent and status (in the UI's words too), the
 * machine it runs on when that is a remote, and what its card shows — the question, the command,
 * the tool, the last message (issue 21.5), a question's options (issue 24). */
function wordsOf(session: Session, project: string | null): string {
  const words = [titleOf(session), agentName(session.agent), session.agent, session.badge.word];
  if (isRemote(session)) words.push(session.host);
  if (session.unreachableSince != null) words.push("unreachable");
  for (const text of [session.question, session.command, session.tool, session.message]) {
    if (text) words.push(text);
  }
  // A question tool's questions and options, as the card and the panel show them.
  for (const q of session.questions) {
    words.push(q.header ?? "", q.question, ...q.options.map((o) => o.label));
  }
  if (session.status) words.push(session.status);
  // The branch the card shows.
  if (session.git?.branch) words.push(session.git.branch);
  const category = session.category;
  if (category === "needs") words.push("needs you");
  if (session.unread) words.push("unread");
  if (session.ended) words.push("ended");
  if (session.stale) words.push("stale");
  for (const path of [project, session.cwd]) {
    if (!path) continue;
    words.push(shortenHome(path), lastFolder(path) ?? "");
  }
  return words.join("\n").toLowerCase();
}

/** Every whitespace-separated term must appear somewhere (see `wordsOf`). */
export function matchesFilter(session: Session, project: string | null, filter: Filter): boolean {
  if (filter.category != null && session.category !== filter.category) return false;
  if (!onBranch(session, filter.branch)) return false;
  const terms = filter.text.toLowerCase().split(/\s+/).filter(Boolean);
  if (terms.length === 0) return true;
  const words = wordsOf(session, project);
  return terms.every((term) => words.includes(term));
}

/** The ids that match, or `null` when nothing is filtered (everything is lit). */
export function filterMatches(
  sessions: Readonly<Record<string, Session>>,
  order: readonly string[],
  projects: Readonly<Record<string, string | null>>,
  filter: Filter,
): ReadonlySet<string> | null {
  if (!isFiltering(filter)) return null;
  return new Set(order.filter((id) => matchesFilter(sessions[id]!, projects[id] ?? null, filter)));
}
