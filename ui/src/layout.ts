// Where nodes go on the canvas: a grid in arrival order, new nodes in the first free cell,
// dragged nodes where the user left them (the Rust side keeps those). Pure: no store, no IO.

export type XY = { x: number; y: number };

export const NODE_WIDTH = 272;
export const NODE_HEIGHT = 118;
export const GAP_X = 24;
export const GAP_Y = 24;
export const CELL_WIDTH = NODE_WIDTH + GAP_X;
export const CELL_HEIGHT = NODE_HEIGHT + GAP_Y;

/** The largest coordinate Rust's `i32` position holds. */
const I32_MAX = 2 ** 31 - 1;

/** A whole number the Rust side accepts as a position coordinate (`i32`). */
export function toCoordinate(value: number): number {
  if (!Number.isFinite(value)) return 0;
  return Math.min(I32_MAX, Math.max(-I32_MAX, Math.round(value)));
}

/** Columns that fit a window of this width, within reason. */
export function columnsFor(viewportWidth: number): number {
  const fit = Math.floor((viewportWidth - 2 * GAP_X) / CELL_WIDTH);
  return Math.min(6, Math.max(2, fit));
}

export function cellPosition(index: number, columns: number): XY {
  return { x: (index % columns) * CELL_WIDTH, y: Math.floor(index / columns) * CELL_HEIGHT };
}

/** True when two nodes' boxes touch or come closer than `gap`. */
export function overlaps(a: XY, b: XY, gap = 0): boolean {
  return (
    a.x < b.x + NODE_WIDTH + gap &&
    b.x < a.x + NODE_WIDTH + gap &&
    a.y < b.y + NODE_HEIGHT + gap &&
    b.y < a.y + NODE_HEIGHT + gap
  );
}

/** Breathing room a new node keeps from a dragged one that sits off the grid. */
const PLACEMENT_MARGIN = 8;

/** The first grid cell (row by row) whose node box overlaps none of `occupied`. */
export function firstFreeCell(occupied: readonly XY[], columns: number): XY {
  for (let index = 0; ; index++) {
    const cell = cellPosition(index, columns);
    if (!occupied.some((taken) => overlaps(cell, taken, PLACEMENT_MARGIN))) return cell;
  }
}

/**
 * Positions for `ids` (in arrival order). Nodes already on the canvas keep theirs, then
 * remembered (dragged) positions apply, then the rest take free cells in order. A remembered
 * position that a node already on the canvas now covers (a session back from the Older list
 * whose spot was taken meanwhile) is given up for a free cell: nothing lands on top of a node.
 */
export function placeNodes(
  ids: readonly string[],
  current: Readonly<Record<string, XY>>,
  remembered: Readonly<Record<string, XY>>,
  columns: number,
): Record<string, XY> {
  const placed: Record<string, XY> = {};
  const onCanvas: XY[] = [];
  for (const id of ids) {
    const here = current[id];
    if (here) {
      placed[id] = here;
      onCanvas.push(here);
    }
  }
  const taken = [...onCanvas];
  const pending: string[] = [];
  for (const id of ids) {
    if (placed[id]) continue;
    const spot = remembered[id];
    if (spot && !onCanvas.some((other) => overlaps(spot, other))) {
      placed[id] = spot;
      taken.push(spot);
    } else {
      pending.push(id);
    }
  }
  for (const id of pending) {
    const cell = firstFreeCell(taken, columns);
    placed[id] = cell;
    taken.push(cell);
  }
  return placed;
}

export type Box = { x: number; y: number; width: number; height: number };

/** The box around nodes at these positions. */
export function boundsOf(positions: readonly XY[]): Box | null {
  if (positions.length === 0) return null;
  const left = Math.min(...positions.map((p) => p.x));
  const top = Math.min(...positions.map((p) => p.y));
  const right = Math.max(...positions.map((p) => p.x + NODE_WIDTH));
  const bottom = Math.max(...positions.map((p) => p.y + NODE_HEIGHT));
  return { x: left, y: top, width: right - left, height: bottom - top };
}

const ARRIVAL_SIDE = 24;
const ARRIVAL_TOP = 32;

/**
 * Where to look when sessions arrive on an empty canvas. If they fit at full size, show them
 * at zoom 1 from the top, the grid's full width centred: later arrivals fill the row to the
 * right and the rows below, in view, with no empty band above. `null` when they do not fit:
 * then fit the view to them (zoomed out).
 */
export function arrivalViewport(
  bounds: Box,
  pane: { width: number; height: number },
  columns: number,
): { x: number; y: number; zoom: number } | null {
  const fitsAcross = bounds.width + 2 * ARRIVAL_SIDE <= pane.width;
  const fitsDown = bounds.height + ARRIVAL_TOP + ARRIVAL_SIDE <= pane.height;
  if (!fitsAcross || !fitsDown) return null;
  const gridWidth = columns * CELL_WIDTH - GAP_X;
  const span = Math.max(bounds.width, gridWidth);
  const left = span + 2 * ARRIVAL_SIDE <= pane.width ? (pane.width - span) / 2 : ARRIVAL_SIDE;
  return { x: Math.round(left - bounds.x), y: ARRIVAL_TOP - bounds.y, zoom: 1 };
}
