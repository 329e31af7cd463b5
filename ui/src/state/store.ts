// The web view's state: sessions as the Rust side reports them, kept apart from the canvas
// nodes (position, selection). Components read it through small selectors. (Over 450 lines, one
// of the three: the sessions, their nodes and the selection change together in each action.)
import { create } from "zustand";
import { applyNodeChanges, type Node, type NodeChange } from "@xyflow/react";
import type { Session } from "../bindings/Session";
import type { SessionsChanged } from "../bindings/SessionsChanged";
import type { Category } from "../shared/status";
import {
  DEFAULT_PANE,
  layoutCanvas,
  CROWDED_ABOVE,
  type LayoutHint,
  neighbourOf,
  projectsOf,
  rankOf,
  sizeOf,
  toCoordinate,
  type Box,
  type Direction,
  type NodeSize,
  type Pane,
  type Region,
  type XY,
} from "../board/layout";
import { filterMatches, isFiltering, NO_FILTER, type Filter } from "../shared/filter";
import * as ipc from "../shared/ipc";
import { DOCTOR_SESSION_PREFIX } from "../bindings/doctor";
import { distinctTags, ownId, titleOf } from "../shared/sessionLabels";
import { sortPlaces, type SortBy } from "../shared/usage";

/**
 * A canvas node carries no session data, only the size of its cell: the node component reads
 * the session from the store by id.
 */
/**
 * `size`: the cell the layout gave the node. `region`: the region whose grid it sits in, `null`
 * when the user placed it (dragged) — on a crowded canvas the region draws its grid itself.
 */
export type SessionNodeType = Node<{ size: NodeSize; region: string | null }, "session">;

export type Focus = { id: string; seq: number };

type Data = {
  /** Every session Rust reported, archived ones included. */
  sessions: Record<string, Session>;
  /** The sessions on the canvas (not archived), in arrival order (firstEventAt, then id). */
  order: string[];
  /** Archived sessions (the "Older" list), the most recently heard from first. */
  older: string[];
  /**
   * Sessions on the canvas whose title another one there shares, each with the short part of its
   * id that tells it from the others (see `distinctTags`): shown after the title.
   */
  twins: ReadonlyMap<string, string>;
  nodes: SessionNodeType[];
  /** True once the first snapshot (or its absence outside the app) is in. */
  loaded: boolean;
  /** The window's canvas area the layout is shaped for (not the pane: the details panel must
   * not reflow the canvas). */
  pane: Pane;
  /** The labelled regions behind the nodes: the "Needs you" lane and one per project (per machine). */
  regions: Region[];
  /** Each canvas session's project folder (see `projectsOf`). */
  projects: Record<string, string | null>;
  /** Where the user dropped nodes this run, until Rust's echo of `position` catches up. */
  dragged: Record<string, XY>;
  /** What the layout was last made from: skip the work when a change does not move anything. */
  layoutKey: string;
  /** What the last layout chose, and for which pane: the next one of that pane moves little. */
  layoutHint: { pane: string; hint: LayoutHint } | null;
  /**
   * Sessions just answered from the board, with the place (rank) they had: they stay where the
   * user clicked until the pointer leaves them (or a short while passes), so the board does not
   * rearrange under the pointer.
   */
  heldPlaces: Record<string, number>;
  filter: Filter;
  /** What orders the nodes inside each region (the filter bar's sort); "default": what needs you first. */
  sort: SortBy;
  /** Sessions the filter lets through; `null` when nothing is filtered. */
  matches: ReadonlySet<string> | null;
  filterOpen: boolean;
  /** Bumped when the user asks to see the filter's matches (chip click, Enter in the filter). */
  showMatches: number;
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
  /** The window was resized: reshape the layout when its shape changed noticeably. */
  setPane(pane: Pane): void;
  /** Keep the session's node where it is (see `heldPlaces`); `releasePlace` lets it go. */
  holdPlace(id: string): void;
  releasePlace(id: string): void;
  setFilterText(text: string): void;
  /** The filter bar's branch field: only sessions whose git branch contains it stay lit. */
  setFilterBranch(branch: string): void;
  /** Order the nodes inside each region by a usage figure (or back to the default order). */
  setSort(sort: SortBy): void;
  /** A header chip: show only that state; the same chip again shows everything. */
  toggleCategory(category: Category): void;
  setFilterOpen(open: boolean): void;
  /** Empty the filter and close it. */
  clearFilter(): void;
  /** Ask the canvas to bring the matches into view; selects the first. */
  showFilterMatches(): void;
  /** Arrow keys: select the nearest lit node that way (the first one if none is selected). */
  moveSelection(direction: Direction): string | null;
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
    twins: new Map(),
    nodes: [],
    loaded: false,
    pane: windowPane(),
    regions: [],
    projects: {},
    dragged: {},
    layoutKey: "",
    layoutHint: null,
    heldPlaces: {},
    filter: NO_FILTER,
    sort: "default",
    matches: null,
    filterOpen: false,
    showMatches: 0,
    focus: null,
    pendingFocus: null,
    pickedOlder: null,
    olderOpen: false,
  };
}

/** `switchboard doctor`'s test events are sessions too; they never reach the canvas. */
function shown(session: Session): boolean {
  return !session.sessionId.startsWith(DOCTOR_SESSION_PREFIX);
}

/** The canvas area of the window: all of it but the header. */
export function windowPane(): Pane {
  if (typeof window === "undefined" || !window.innerWidth) return DEFAULT_PANE;
  return { width: window.innerWidth, height: Math.max(200, window.innerHeight - 44) };
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
function partition(sessions: Record<string, Session>, previous: Pick<Data, "order" | "older" | "twins">) {
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

type LayoutInput = Pick<
  Data,
  | "sessions"
  | "order"
  | "nodes"
  | "pane"
  | "dragged"
  | "layoutKey"
  | "layoutHint"
  | "regions"
  | "heldPlaces"
  | "sort"
>;

/**
 * Lay the canvas out again: the node objects whose place and size did not change are kept (so
 * React Flow leaves them alone), and the list itself when no node moved.
 */
function relayout(state: LayoutInput): Partial<Data> {
  const { sessions, order, nodes, pane, dragged } = state;
  const projects = projectsOf(order.map((id) => sessions[id]!));
  const places = sortPlaces(sessions, order, state.sort);
  const items = order.map((id) => ({
    id,
    project: projects[id] ?? null,
    rank: state.heldPlaces[id] ?? rankOf(sessions[id]!),
    host: sessions[id]!.host,
    ...(places ? { place: places[id]! } : {}),
  }));
  const existing = new Map(nodes.map((n) => [n.id, n]));
  const pinned: Record<string, XY> = {};
  for (const id of order) {
    const node = existing.get(id);
    const position = sessions[id]!.position;
    // Mid-drag, the pointer holds the node; then this run's drop, then what Rust remembers.
    if (node?.dragging) pinned[id] = node.position;
    else if (dragged[id]) pinned[id] = dragged[id];
    else if (position) pinned[id] = { x: position.x, y: position.y };
  }
  const key = JSON.stringify([items, pinned, Math.round(pane.width), Math.round(pane.height)]);
  if (key === state.layoutKey && sameIds(nodes, order)) return { projects };
  // A crowded board keeps each project's order, and every board the shape it had for this
  // pane while that still fits (see `LayoutHint`): a change moves one tile, not a region.
  const paneKey = `${Math.round(pane.width)}x${Math.round(pane.height)}`;
  const hint = state.layoutHint?.pane === paneKey ? state.layoutHint.hint : null;
  const layout = layoutCanvas(items, pinned, pane, { hint, stableOrder: order.length > CROWDED_ABOVE });
  let moved = nodes.length !== order.length;
  const next = order.map((id, i): SessionNodeType => {
    const previous = existing.get(id);
    const position = layout.positions[id]!;
    const size = layout.sizes[id]!;
    const region = layout.regionOf[id] ?? null;
    const sameData = previous && previous.data.size === size && previous.data.region === region;
    const same = previous && sameData && previous.position.x === position.x && previous.position.y === position.y;
    if (same && nodes[i] === previous) return previous;
    moved = true;
    if (same) return previous;
    return previous
      ? { ...previous, position, data: sameData ? previous.data : { size, region } }
      : { id, type: "session", position, data: { size, region } };
  });
  return {
    nodes: moved ? next : nodes,
    regions: sameRegions(layout.regions, state.regions),
    projects,
    layoutKey: key,
    layoutHint: { pane: paneKey, hint: layout.hint },
  };
}

/** The new regions, each one that did not change kept as the same object (so is its node). */
function sameRegions(next: Region[], previous: Region[]): Region[] {
  const before = new Map(previous.map((r) => [r.id, r]));
  let changed = next.length !== previous.length;
  const out = next.map((region, i) => {
    const old = before.get(region.id);
    const same = old != null && (Object.keys(region) as (keyof Region)[]).every((k) => region[k] === old[k]);
    if (!same || previous[i] !== old) changed = true;
    return same ? old : region;
  });
  return changed ? out : previous;
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
  if (isFiltering(state.filter)) out.matches = filterMatches(state.sessions, state.order, state.projects, state.filter);
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

/** Top to bottom, then left to right: where the eye starts. */
function readingOrder(nodes: readonly SessionNodeType[]): string[] {
  return [...nodes].sort((a, b) => a.position.y - b.position.y || a.position.x - b.position.x).map((n) => n.id);
}

function withFilter(state: Data, filter: Filter): Partial<Data> {
  return { filter, matches: filterMatches(state.sessions, state.order, state.projects, filter) };
}

/** Drops are kept until the session is gone or Rust reports the same position back. */
function keepDragged(dragged: Record<string, XY>, sessions: Record<string, Session>): Record<string, XY> {
  let out: Record<string, XY> | null = null;
  for (const id in dragged) {
    const session = sessions[id];
    const echoed = session?.position && session.position.x === toCoordinate(dragged[id]!.x) && session.position.y === toCoordinate(dragged[id]!.y);
    if (!session || echoed) {
      out ??= { ...dragged };
      delete out[id];
    }
  }
  return out ?? dragged;
}

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
