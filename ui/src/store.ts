// The web view's state: sessions as the Rust side reports them, kept apart from the canvas
// nodes (position, selection). Components read it through small selectors.
import { create } from "zustand";
import { applyNodeChanges, type Node, type NodeChange } from "@xyflow/react";
import type { Session } from "./bindings/Session";
import type { SessionsChanged } from "./bindings/SessionsChanged";
import { categoryOf, type Category } from "./status";
import { columnsFor, placeNodes, type XY } from "./layout";
import { forgetPositions, keepOnlyPositions, loadPositions, rememberPosition } from "./positions";
import * as ipc from "./ipc";

/** A canvas node carries no session data: the node component reads it from the store by id. */
export type SessionNodeType = Node<Record<string, never>, "session">;

export type Focus = { id: string; seq: number };

type Data = {
  sessions: Record<string, Session>;
  /** Session ids in arrival order (firstEventAt, then id). */
  order: string[];
  nodes: SessionNodeType[];
  /** True once the first snapshot (or its absence outside the app) is in. */
  loaded: boolean;
  columns: number;
  /** The latest request to bring a node into view; `seq` makes repeats distinct. */
  focus: Focus | null;
  /** A focus request for a session not seen yet (a notification can beat the event). */
  pendingFocus: string | null;
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
};

export type SwitchboardState = Data & Actions;

export function initialData(): Data {
  return {
    sessions: {},
    order: [],
    nodes: [],
    loaded: false,
    columns: columnsFor(typeof window === "undefined" ? 1280 : window.innerWidth),
    focus: null,
    pendingFocus: null,
  };
}

function byArrival(sessions: Record<string, Session>) {
  return (a: string, b: string): number => {
    const sa = sessions[a]!;
    const sb = sessions[b]!;
    return sa.firstEventAt - sb.firstEventAt || (a < b ? -1 : a > b ? 1 : 0);
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

/** Rebuild the node list for `order`, keeping existing nodes (and their identity) untouched. */
function nodesFor(order: readonly string[], nodes: readonly SessionNodeType[], columns: number) {
  const existing = new Map(nodes.map((n) => [n.id, n]));
  const current: Record<string, XY> = {};
  for (const n of nodes) current[n.id] = n.position;
  const positions = placeNodes(order, current, loadPositions(), columns);
  return order.map(
    (id): SessionNodeType =>
      existing.get(id) ?? { id, type: "session", position: positions[id]!, data: {} },
  );
}

function sameIds(a: readonly SessionNodeType[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((n, i) => n.id === b[i]);
}

/** After sessions changed, carry out a focus request that was waiting for its session. */
function settlePendingFocus(state: Data): Partial<Data> {
  const id = state.pendingFocus;
  if (id == null || !state.sessions[id]) return {};
  return {
    pendingFocus: null,
    nodes: withSelection(state.nodes, id),
    focus: { id, seq: (state.focus?.seq ?? 0) + 1 },
  };
}

export const useSwitchboard = create<SwitchboardState>()((set, get) => ({
  ...initialData(),

  applySnapshot(list) {
    const sessions: Record<string, Session> = {};
    for (const s of list) sessions[s.sessionId] = s;
    const order = Object.keys(sessions).sort(byArrival(sessions));
    keepOnlyPositions(new Set(order));
    set((state) => {
      const next = { ...state, sessions, order, loaded: true };
      next.nodes = nodesFor(order, state.nodes, state.columns);
      return { ...next, ...settlePendingFocus(next) };
    });
  },

  applyChanges({ changed, removed }) {
    if (changed.length === 0 && removed.length === 0) return;
    if (removed.length > 0) forgetPositions(removed);
    set((state) => {
      const sessions = { ...state.sessions };
      let membershipChanged = false;
      for (const id of removed) {
        if (id in sessions) {
          delete sessions[id];
          membershipChanged = true;
        }
      }
      for (const s of changed) {
        if (!(s.sessionId in sessions)) membershipChanged = true;
        sessions[s.sessionId] = s;
      }
      let { order, nodes } = state;
      if (membershipChanged) {
        order = Object.keys(sessions).sort(byArrival(sessions));
        if (!sameIds(nodes, order)) nodes = nodesFor(order, nodes, state.columns);
      } else if (changed.length > 0) {
        // firstEventAt does not change in practice, but the order must follow it if it did.
        const resorted = [...order].sort(byArrival(sessions));
        if (resorted.some((id, i) => id !== order[i])) order = resorted;
      }
      const next = { ...state, sessions, order, nodes };
      return { ...next, ...settlePendingFocus(next) };
    });
  },

  onNodesChange(changes) {
    // Nodes are only ever removed because their session is: ignore React Flow's own removals.
    const relevant = changes.filter((c) => c.type !== "remove" && c.type !== "add" && c.type !== "replace");
    if (relevant.length === 0) return;
    const nodes = applyNodeChanges(relevant, get().nodes);
    set({ nodes });
    for (const change of relevant) {
      // A finished drag (or a keyboard move) is a position the user chose: remember it.
      if (change.type === "position" && change.dragging !== true) {
        const node = nodes.find((n) => n.id === change.id);
        if (node) rememberPosition(node.id, change.position ?? node.position);
      }
    }
  },

  select(id) {
    set((state) => ({ nodes: withSelection(state.nodes, id) }));
  },

  focusSession(id) {
    set((state) => {
      if (!state.sessions[id]) return { pendingFocus: id };
      return {
        pendingFocus: null,
        nodes: withSelection(state.nodes, id),
        focus: { id, seq: (state.focus?.seq ?? 0) + 1 },
      };
    });
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
