// The web view's state: sessions as the Rust side reports them, kept apart from the canvas
// nodes (position, selection). Components read it through small selectors.
import { create } from "zustand";
import { applyNodeChanges, type Node, type NodeChange } from "@xyflow/react";
import type { Session } from "./bindings/Session";
import type { SessionsChanged } from "./bindings/SessionsChanged";
import { categoryOf, type Category } from "./status";
import { columnsFor, placeNodes, toCoordinate, type XY } from "./layout";
import * as ipc from "./ipc";

/** A canvas node carries no session data: the node component reads it from the store by id. */
export type SessionNodeType = Node<Record<string, never>, "session">;

export type Focus = { id: string; seq: number };

type Data = {
  /** Every session Rust reported, archived ones included. */
  sessions: Record<string, Session>;
  /** The sessions on the canvas (not archived), in arrival order (firstEventAt, then id). */
  order: string[];
  /** Archived sessions (the "Older" list), the most recently heard from first. */
  older: string[];
  nodes: SessionNodeType[];
  /** True once the first snapshot (or its absence outside the app) is in. */
  loaded: boolean;
  columns: number;
  /** The latest request to bring a node into view; `seq` makes repeats distinct. */
  focus: Focus | null;
  /** A focus request for a session not seen yet (a notification can beat the event). */
  pendingFocus: string | null;
  /** An archived session picked in the Older list: it has no node, so no node selection. */
  pickedOlder: string | null;
  /** Whether the Older drawer is open. */
  olderOpen: boolean;
};

type Actions = {
  applySnapshot(sessions: readonly Session[]): void;
  applyChanges(change: SessionsChanged): void;
  onNodesChange(changes: NodeChange<SessionNodeType>[]): void;
  select(id: string | null): void;
  /** Select a node and ask the canvas to bring it into view. */
  focusSession(id: string): void;
  /** The user opened a node (click, Enter): ask Rust to clear its unread dot. */
  openSession(id: string): void;
  /** Step through the sessions of one header chip. */
  cycle(category: Category): void;
  /** `n` / `Shift+n`: the next or previous session that needs the user. */
  jumpToNeedsYou(direction: 1 | -1): void;
  /** Show an archived session's details (read-only: nothing is sent to Rust). */
  pickOlder(id: string): void;
  /** Open or close the Older drawer (toggle without an argument). */
  setOlderOpen(open?: boolean): void;
  /** Close the details panel: no node selected, no Older session picked. */
  closeDetails(): void;
};

export type SwitchboardState = Data & Actions;

export function initialData(): Data {
  return {
    sessions: {},
    order: [],
    older: [],
    nodes: [],
    loaded: false,
    columns: columnsFor(typeof window === "undefined" ? 1280 : window.innerWidth),
    focus: null,
    pendingFocus: null,
    pickedOlder: null,
    olderOpen: false,
  };
}

function byArrival(sessions: Record<string, Session>) {
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
function partition(sessions: Record<string, Session>, previous: Pick<Data, "order" | "older">) {
  const ids = Object.keys(sessions);
  const order = ids.filter((id) => !sessions[id]!.archived).sort(byArrival(sessions));
  const older = ids.filter((id) => sessions[id]!.archived).sort(byLatestFirst(sessions));
  return {
    order: sameList(order, previous.order) ? previous.order : order,
    older: sameList(older, previous.older) ? previous.older : older,
  };
}

/** Ids ordered for the `n` key: blocked or waiting first (longest waiting first), then unread. */
export function needsYouQueue(sessions: Record<string, Session>, order: readonly string[]): string[] {
  const since = (id: string) => {
    const s = sessions[id]!;
    return s.statusChangedAt ?? s.lastEventAt;
  };
  const rank = (a: string, b: string) => since(a) - since(b) || order.indexOf(a) - order.indexOf(b);
  const asking = order.filter((id) => categoryOf(sessions[id]!) === "needs").sort(rank);
  const askingSet = new Set(asking);
  const unread = order.filter((id) => sessions[id]!.unread && !askingSet.has(id)).sort(rank);
  return [...asking, ...unread];
}

export function idsInCategory(
  sessions: Record<string, Session>,
  order: readonly string[],
  category: Category,
): string[] {
  return order.filter((id) => categoryOf(sessions[id]!) === category);
}

export function countInCategory(sessions: Record<string, Session>, category: Category): number {
  let count = 0;
  for (const id in sessions) if (categoryOf(sessions[id]!) === category) count++;
  return count;
}

function selectedId(nodes: readonly SessionNodeType[]): string | null {
  return nodes.find((n) => n.selected)?.id ?? null;
}

/** The next id in `list` after the selected one, wrapping; the first (or last) if none is. */
function step(list: readonly string[], current: string | null, direction: 1 | -1): string | null {
  if (list.length === 0) return null;
  const at = current == null ? -1 : list.indexOf(current);
  if (at === -1) return direction === 1 ? list[0]! : list[list.length - 1]!;
  return list[(at + direction + list.length) % list.length]!;
}

function withSelection(nodes: SessionNodeType[], id: string | null): SessionNodeType[] {
  return nodes.map((n) => {
    const selected = n.id === id;
    return n.selected === selected ? n : { ...n, selected };
  });
}

/**
 * Rebuild the node list for `order`, keeping existing nodes (and their identity) untouched.
 * New nodes go where the user last dragged them (Rust's `position`), else on the grid.
 */
function nodesFor(
  order: readonly string[],
  nodes: readonly SessionNodeType[],
  sessions: Record<string, Session>,
  columns: number,
) {
  const existing = new Map(nodes.map((n) => [n.id, n]));
  const current: Record<string, XY> = {};
  for (const n of nodes) current[n.id] = n.position;
  const remembered: Record<string, XY> = {};
  for (const id of order) {
    const position = sessions[id]?.position;
    if (position) remembered[id] = { x: position.x, y: position.y };
  }
  const positions = placeNodes(order, current, remembered, columns);
  return order.map(
    (id): SessionNodeType =>
      existing.get(id) ?? { id, type: "session", position: positions[id]!, data: {} },
  );
}

function sameIds(a: readonly SessionNodeType[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((n, i) => n.id === b[i]);
}

function onCanvas(state: Pick<Data, "sessions">, id: string): boolean {
  const session = state.sessions[id];
  return session != null && !session.archived;
}

/**
 * After sessions changed: carry out a focus request that was waiting for its session, and keep
 * the details panel on its session when that session moves between the canvas and Older.
 */
function settle(state: Data, previousSelected: string | null): Partial<Data> {
  const out: Partial<Data> = {};
  let nodes = state.nodes;
  let picked = state.pickedOlder;
  // Picked in Older and reporting again: it is back on the canvas, so select its node.
  if (picked != null && !state.sessions[picked]) picked = null;
  if (picked != null && onCanvas(state, picked)) {
    nodes = withSelection(nodes, picked);
    picked = null;
  }
  // The selected node aged off the canvas: keep showing it, now as an Older pick.
  if (previousSelected != null && selectedId(nodes) == null && state.sessions[previousSelected]?.archived) {
    picked = previousSelected;
  }
  const id = state.pendingFocus;
  if (id != null && onCanvas(state, id)) {
    out.pendingFocus = null;
    nodes = withSelection(nodes, id);
    picked = null;
    out.focus = { id, seq: (state.focus?.seq ?? 0) + 1 };
  }
  if (nodes !== state.nodes) out.nodes = nodes;
  if (picked !== state.pickedOlder) out.pickedOlder = picked;
  // Nothing left to list: the drawer closes itself.
  if (state.olderOpen && state.older.length === 0) out.olderOpen = false;
  return out;
}

export const useSwitchboard = create<SwitchboardState>()((set, get) => ({
  ...initialData(),

  applySnapshot(list) {
    const sessions: Record<string, Session> = {};
    for (const s of list) sessions[s.sessionId] = s;
    set((state) => {
      const previousSelected = selectedId(state.nodes);
      const { order, older } = partition(sessions, state);
      const next = { ...state, sessions, order, older, loaded: true };
      next.nodes = nodesFor(order, state.nodes, sessions, state.columns);
      return { ...next, ...settle(next, previousSelected) };
    });
  },

  applyChanges({ changed, removed }) {
    if (changed.length === 0 && removed.length === 0) return;
    set((state) => {
      const sessions = { ...state.sessions };
      for (const id of removed) delete sessions[id];
      for (const s of changed) sessions[s.sessionId] = s;
      // Arrivals, removals and sessions aging off (or back onto) the canvas all land here.
      const { order, older } = partition(sessions, state);
      const nodes = sameIds(state.nodes, order) ? state.nodes : nodesFor(order, state.nodes, sessions, state.columns);
      const next = { ...state, sessions, order, older, nodes };
      return { ...next, ...settle(next, selectedId(state.nodes)) };
    });
  },

  onNodesChange(changes) {
    // Nodes are only ever removed because their session is: ignore React Flow's own removals.
    const relevant = changes.filter((c) => c.type !== "remove" && c.type !== "add" && c.type !== "replace");
    if (relevant.length === 0) return;
    const nodes = applyNodeChanges(relevant, get().nodes);
    const selecting = relevant.some((c) => c.type === "select" && c.selected);
    set(selecting ? { nodes, pickedOlder: null } : { nodes });
    // A finished drag (or a keyboard move) is a position the user chose: Rust keeps it. Never
    // during a drag: that would be a write per pointer move.
    const finished = new Map<string, XY>();
    for (const change of relevant) {
      if (change.type !== "position" || change.dragging === true) continue;
      const position = change.position ?? nodes.find((n) => n.id === change.id)?.position;
      if (position) finished.set(change.id, position);
    }
    for (const [id, position] of finished) {
      ipc
        .setPosition(id, toCoordinate(position.x), toCoordinate(position.y))
        .catch((err: unknown) => console.warn("set_position failed", err));
    }
  },

  select(id) {
    set((state) => ({
      nodes: withSelection(state.nodes, id),
      pickedOlder: id == null ? state.pickedOlder : null,
    }));
  },

  focusSession(id) {
    set((state) => {
      // Unknown yet, or in the Older list: it comes onto the canvas when it reports, then focus.
      if (!onCanvas(state, id)) return { pendingFocus: id };
      return {
        pendingFocus: null,
        pickedOlder: null,
        nodes: withSelection(state.nodes, id),
        focus: { id, seq: (state.focus?.seq ?? 0) + 1 },
      };
    });
  },

  pickOlder(id) {
    set((state) => {
      if (!state.sessions[id]) return {};
      if (onCanvas(state, id)) return { pickedOlder: null, nodes: withSelection(state.nodes, id) };
      return { pickedOlder: id, nodes: withSelection(state.nodes, null) };
    });
  },

  setOlderOpen(open) {
    set((state) => ({ olderOpen: open ?? !state.olderOpen }));
  },

  closeDetails() {
    set((state) => ({ pickedOlder: null, nodes: withSelection(state.nodes, null) }));
  },

  openSession(id) {
    const session = get().sessions[id];
    // Rust owns `unread`: the dot goes away when its sessions-changed echo arrives.
    if (session?.unread) {
      ipc.clearUnread(id).catch((err: unknown) => console.warn("clear_unread failed", err));
    }
  },

  cycle(category) {
    const { sessions, order, nodes } = get();
    const target = step(idsInCategory(sessions, order, category), selectedId(nodes), 1);
    if (target) get().focusSession(target);
  },

  jumpToNeedsYou(direction) {
    const { sessions, order, nodes } = get();
    const target = step(needsYouQueue(sessions, order), selectedId(nodes), direction);
    if (target) get().focusSession(target);
  },
}));

export function selectSelectedId(state: SwitchboardState): string | null {
  return selectedId(state.nodes);
}

/** The session the details panel shows: the selected node, else the picked Older session. */
export function selectDetailsId(state: SwitchboardState): string | null {
  return selectedId(state.nodes) ?? state.pickedOlder;
}

/** Ended sessions, archived ones included: what `remove_ended` removes. */
export function countEnded(sessions: Record<string, Session>): number {
  let count = 0;
  for (const id in sessions) if (sessions[id]!.ended) count++;
  return count;
}
