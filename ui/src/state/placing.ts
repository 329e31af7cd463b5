// The canvas side of the board's store: laying the nodes out again when sessions change, the
// selection and what follows it, drops kept until Rust echoes them.
import type { Session } from "../bindings/Session";
import { layoutCanvas, type Region } from "../board/layout";
import { filterMatches, isFiltering, type Filter } from "../shared/filter";
import { sortPlaces } from "../shared/usage";
import type { Data, SessionNodeType } from "./data";
import { CROWDED_ABOVE, toCoordinate, type XY } from "../board/geometry";
import { projectsOf, rankOf } from "../board/projects";

/** The canvas area of the window: all of it but the header. */
export function selectedId(nodes: readonly SessionNodeType[]): string | null {
  return nodes.find((n) => n.selected)?.id ?? null;
}

/** The next id in `list` after the selected one, wrapping; the first (or last) if none is. */
export function step(list: readonly string[], current: string | null, direction: 1 | -1): string | null {
  if (list.length === 0) return null;
  const at = current == null ? -1 : list.indexOf(current);
  if (at === -1) return direction === 1 ? list[0]! : list[list.length - 1]!;
  return list[(at + direction + list.length) % list.length]!;
}

export function withSelection(nodes: SessionNodeType[], id: string | null): SessionNodeType[] {
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
export function relayout(state: LayoutInput): Partial<Data> {
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

export function onCanvas(state: Pick<Data, "sessions">, id: string): boolean {
  const session = state.sessions[id];
  return session != null && !session.archived;
}

/**
 * After sessions changed: carry out a focus request that was waiting for its session, and keep
 * the details panel on its session when that session moves between the canvas and Older.
 */
export function settle(state: Data, previousSelected: string | null): Partial<Data> {
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

/** Top to bottom, then left to right: where the eye starts. */
export function readingOrder(nodes: readonly SessionNodeType[]): string[] {
  return [...nodes].sort((a, b) => a.position.y - b.position.y || a.position.x - b.position.x).map((n) => n.id);
}

export function withFilter(state: Data, filter: Filter): Partial<Data> {
  return { filter, matches: filterMatches(state.sessions, state.order, state.projects, filter) };
}

/** Drops are kept until the session is gone or Rust reports the same position back. */
export function keepDragged(dragged: Record<string, XY>, sessions: Record<string, Session>): Record<string, XY> {
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

