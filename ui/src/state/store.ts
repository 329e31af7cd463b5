// The board's store: one zustand store whose actions change the sessions, their nodes and the
// selection together. What it holds is data.ts; which session goes where is sessionLists.ts;
// laying the canvas out is placing.ts. Components read it through small selectors.
import { create } from "zustand";
import { applyNodeChanges } from "@xyflow/react";
import type { Session } from "../bindings/Session";
import { NO_FILTER } from "../shared/filter";
import * as ipc from "../shared/ipc";
import { initialData, type Data, type SwitchboardState } from "./data";
import { idsInCategory, needsYouQueue, partition, shown } from "./sessionLists";
import { keepDragged, onCanvas, readingOrder, relayout, selectedId, settle, step, withFilter, withSelection } from "./placing";
import { neighbourOf } from "../board/neighbours";
import { rankOf } from "../board/projects";
import { sizeOf, toCoordinate, type Box, type XY } from "../board/geometry";

export const useSwitchboard = create<SwitchboardState>()((set, get) => ({
  ...initialData(),

  applySnapshot(list) {
    const sessions: Record<string, Session> = {};
    for (const s of list) if (shown(s)) sessions[s.sessionId] = s;
    set((state) => {
      const previousSelected = selectedId(state.nodes);
      const { order, older, twins } = partition(sessions, state);
      const dragged = keepDragged(state.dragged, sessions);
      const base = { ...state, sessions, order, older, twins, dragged, loaded: true };
      const next = { ...base, ...relayout(base) };
      return { ...next, ...settle(next, previousSelected) };
    });
  },

  applyChanges({ changed, removed }) {
    if (changed.length === 0 && removed.length === 0) return;
    set((state) => {
      const sessions = { ...state.sessions };
      for (const id of removed) delete sessions[id];
      for (const s of changed) if (shown(s)) sessions[s.sessionId] = s;
      // Arrivals, removals and sessions aging off (or back onto) the canvas all land here.
      const { order, older, twins } = partition(sessions, state);
      const dragged = keepDragged(state.dragged, sessions);
      const base = { ...state, sessions, order, older, twins, dragged };
      const next = { ...base, ...relayout(base) };
      return { ...next, ...settle(next, selectedId(state.nodes)) };
    });
  },

  onNodesChange(changes) {
    // Nodes are only ever removed because their session is: ignore React Flow's own removals.
    const relevant = changes.filter((c) => c.type !== "remove" && c.type !== "add" && c.type !== "replace");
    if (relevant.length === 0) return;
    const nodes = applyNodeChanges(relevant, get().nodes);
    const selecting = relevant.some((c) => c.type === "select" && c.selected);
    // A finished drag (or a keyboard move) is a position the user chose: Rust keeps it. Never
    // during a drag: that would be a write per pointer move.
    const finished = new Map<string, XY>();
    for (const change of relevant) {
      if (change.type !== "position" || change.dragging === true) continue;
      const position = change.position ?? nodes.find((n) => n.id === change.id)?.position;
      if (position) finished.set(change.id, position);
    }
    if (finished.size === 0) {
      set(selecting ? { nodes, pickedOlder: null } : { nodes });
      return;
    }
    // A drop pins the node there; the others flow around it.
    set((state) => {
      const dragged = { ...state.dragged };
      for (const [id, position] of finished) dragged[id] = position;
      const base = { ...state, nodes, dragged, ...(selecting ? { pickedOlder: null } : {}) };
      return { ...base, ...relayout(base) };
    });
    for (const [id, position] of finished) {
      ipc
        .setPosition(id, toCoordinate(position.x), toCoordinate(position.y))
        .catch((err: unknown) => console.warn("set_position failed", err));
    }
  },

  setPane(pane) {
    set((state) => {
      const { width, height } = state.pane;
      const change = Math.max(Math.abs(pane.width - width) / width, Math.abs(pane.height - height) / height);
      if (!(pane.width > 0 && pane.height > 0) || change < 0.08) return {};
      const base = { ...state, pane };
      return { ...base, ...relayout(base) };
    });
  },

  holdPlace(id) {
    set((state) => {
      const session = state.sessions[id];
      if (!session || state.heldPlaces[id] != null) return {};
      return { heldPlaces: { ...state.heldPlaces, [id]: rankOf(session) } };
    });
  },

  releasePlace(id) {
    set((state) => {
      if (state.heldPlaces[id] == null) return {};
      const heldPlaces = { ...state.heldPlaces };
      delete heldPlaces[id];
      const base = { ...state, heldPlaces };
      return { ...base, ...relayout(base) };
    });
  },

  setFilterText(text) {
    set((state) => withFilter(state, { ...state.filter, text }));
  },

  setFilterBranch(branch) {
    set((state) => withFilter(state, { ...state.filter, branch }));
  },

  setSort(sort) {
    set((state) => {
      if (state.sort === sort) return {};
      const base = { ...state, sort };
      return { ...base, ...relayout(base) };
    });
  },

  toggleCategory(category) {
    set((state) => {
      const next = withFilter(state, { ...state.filter, category: state.filter.category === category ? null : category });
      // Turning a chip on shows its sessions; turning it off leaves the view where it is.
      return state.filter.category === category ? next : { ...next, showMatches: state.showMatches + 1 };
    });
  },

  setFilterOpen(open) {
    set({ filterOpen: open });
  },

  clearFilter() {
    set((state) => ({ ...withFilter(state, NO_FILTER), filterOpen: false }));
  },

  showFilterMatches() {
    set((state) => {
      const first = state.matches ? readingOrder(state.nodes).find((id) => state.matches!.has(id)) : undefined;
      const out: Partial<Data> = { showMatches: state.showMatches + 1 };
      if (first) out.nodes = withSelection(state.nodes, first);
      return out;
    });
  },

  moveSelection(direction) {
    const { nodes, matches } = get();
    const lit = nodes.filter((n) => !matches || matches.has(n.id));
    if (lit.length === 0) return null;
    const current = selectedId(nodes);
    let target: string | null;
    if (current == null || !lit.some((n) => n.id === current)) {
      target = readingOrder(lit)[0] ?? null;
    } else {
      const boxes: Record<string, Box> = {};
      for (const n of lit) boxes[n.id] = { ...n.position, ...sizeOf(n.data.size) };
      target = neighbourOf(current, boxes, direction);
    }
    if (target) get().select(target);
    return target;
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
    const { sessions, order, nodes, regions } = get();
    const target = step(needsYouQueue(sessions, order, nodes, regions), selectedId(nodes), direction);
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

