// Which sessions go where: the canvas and Older, twins that share a title, the needs-you queue
// and the counts the header shows. Plain functions over the sessions Rust reported.
import type { Session } from "../bindings/Session";
import type { Category } from "../shared/status";
import { DOCTOR_SESSION_PREFIX } from "../bindings/doctor";
import { distinctTags, ownId, titleOf } from "../shared/sessionLabels";
import type { Region } from "../board/layout";
import type { Data, SessionNodeType } from "./data";

/** `switchboard doctor`'s test events are sessions too; they never reach the canvas. */
export function shown(session: Session): boolean {
  return !session.sessionId.startsWith(DOCTOR_SESSION_PREFIX);
}


export function byArrival(sessions: Record<string, Session>) {
  return (a: string, b: string): number => {
    const sa = sessions[a]!;
    const sb = sessions[b]!;
    return sa.firstEventAt - sb.firstEventAt || (a < b ? -1 : a > b ? 1 : 0);
  };
}

function byLatestFirst(sessions: Record<string, Session>) {
  return (a: string, b: string): number => {
    const sa = sessions[a]!;
    const sb = sessions[b]!;
    return sb.lastEventAt - sa.lastEventAt || (a < b ? -1 : a > b ? 1 : 0);
  };
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((id, i) => id === b[i]);
}

/** Canvas ids and Older ids; the previous arrays are kept when nothing moved (stable selectors). */
export function partition(sessions: Record<string, Session>, previous: Pick<Data, "order" | "older" | "twins">) {
  const ids = Object.keys(sessions);
  const order = ids.filter((id) => !sessions[id]!.archived).sort(byArrival(sessions));
  const older = ids.filter((id) => sessions[id]!.archived).sort(byLatestFirst(sessions));
  const twins = twinsOf(sessions, order);
  const sameTwins = twins.size === previous.twins.size && [...twins].every(([id, tag]) => previous.twins.get(id) === tag);
  return {
    order: sameList(order, previous.order) ? previous.order : order,
    older: sameList(older, previous.older) ? previous.older : older,
    twins: sameTwins ? previous.twins : twins,
  };
}

/** The sessions whose title another session on the canvas has too (two agents in one folder), with their tags. */
function twinsOf(sessions: Record<string, Session>, order: readonly string[]): Map<string, string> {
  const byTitle = new Map<string, string[]>();
  for (const id of order) {
    const key = titleOf(sessions[id]!).trim().toLowerCase();
    byTitle.set(key, [...(byTitle.get(key) ?? []), id]);
  }
  const twins = new Map<string, string>();
  for (const ids of byTitle.values()) {
    if (ids.length < 2) continue;
    const tags = distinctTags(ids.map((id) => ownId(sessions[id]!)));
    ids.forEach((id, i) => twins.set(id, tags[i]!));
  }
  return twins;
}

/**
 * Ids ordered for the `n` key: the sessions Rust marks as needing the user (`attention`: asking
 * first, then unread), in the order the board shows them — the "Needs you" lane's order (its
 * cells row by row), then each region's in the layout's order; a session placed by hand by where
 * it sits. Without nodes (nothing laid out yet): longest waiting first, then arrival.
 */
export function needsYouQueue(
  sessions: Record<string, Session>,
  order: readonly string[],
  nodes: readonly SessionNodeType[] = [],
  regions: readonly Pick<Region, "id">[] = [],
): string[] {
  const at = (id: string) => sessions[id]!.attention!;
  const arrival = new Map(order.map((id, n) => [id, n]));
  const nodeOf = new Map(nodes.map((n) => [n.id, n]));
  const regionIndex = new Map(regions.map((r, i) => [r.id, i]));
  // Where it is seen: its region's place (a node placed by hand after every region), then its row and column.
  const seen = (id: string): [number, number, number] | null => {
    const node = nodeOf.get(id);
    if (!node) return null;
    const region = node.data.region == null ? regions.length : (regionIndex.get(node.data.region) ?? regions.length);
    return [region, node.position.y, node.position.x];
  };
  const bySight = (a: string, b: string): number => {
    const sa = seen(a);
    const sb = seen(b);
    if (!sa || !sb) return 0;
    return sa[0] - sb[0] || sa[1] - sb[1] || sa[2] - sb[2];
  };
  return order
    .filter((id) => sessions[id]!.attention != null)
    .sort((a, b) => at(a).rank - at(b).rank || bySight(a, b) || at(a).since - at(b).since || arrival.get(a)! - arrival.get(b)!);
}

export function idsInCategory(
  sessions: Record<string, Session>,
  order: readonly string[],
  category: Category,
): string[] {
  return order.filter((id) => sessions[id]!.category === category);
}

export function countInCategory(sessions: Record<string, Session>, category: Category): number {
  let count = 0;
  for (const id in sessions) if (sessions[id]!.category === category) count++;
  return count;
}

/** Ended sessions, archived ones included: what `remove_ended` removes. */
export function countEnded(sessions: Record<string, Session>): number {
  let count = 0;
  for (const id in sessions) if (sessions[id]!.ended) count++;
  return count;
}
