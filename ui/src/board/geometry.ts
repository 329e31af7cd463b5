// The canvas's units: a node's sizes and gaps, boxes and the arithmetic on them. Pure.

export type XY = { x: number; y: number };
export type Box = { x: number; y: number; width: number; height: number };
export type Pane = { width: number; height: number };

/** A full card; a strip is the compact form the non-urgent sessions take when there are many. */
export type NodeSize = "full" | "strip";

export const NODE_WIDTH = 272;
export const NODE_HEIGHT = 118;
export const STRIP_HEIGHT = 46;
export const GAP_X = 24;
export const GAP_Y = 24;
export const STRIP_GAP_Y = 10;
export const CELL_WIDTH = NODE_WIDTH + GAP_X;
export const CELL_HEIGHT = NODE_HEIGHT + GAP_Y;

/** Inside a region: room for its label above the nodes, and a margin around them. */
export const REGION_LABEL = 34;
export const REGION_PAD = 14;
/** Between regions. */
export const REGION_GAP = 36;

/**
 * Below this zoom a full card is too small to read: nodes switch to their compact form (status,
 * agent, title, unread dot) with text that grows as the view zooms out. The canvas also stays
 * "roomy" (every session a full card) only while fit-view of it stays above this zoom.
 */
export const ZOOM_COMPACT = 0.8;

/**
 * Sessions on the canvas above which it is "crowded": the sessions the layout places are drawn by
 * their regions (tiles, painted on a canvas when zoomed out), not as React Flow nodes, only the
 * visible ones rendered, and each project keeps its order.
 */
export const CROWDED_ABOVE = 60;

/**
 * Text sizes of the zoomed-out forms, in canvas pixels: they grow as the view zooms out so that
 * titles stay about 12.5 px on screen (11 for strips), within what a node has room for. The
 * elements take them as CSS variables (Canvas.tsx), the painted tiles as they are (TileCanvas.tsx).
 */
export function farTextSizes(zoom: number): { farTitle: number; farWord: number; stripTitle: number; regionLabel: number } {
  const px = (screen: number, min: number, max: number) => Math.round(Math.min(max, Math.max(min, screen / zoom)));
  return { farTitle: px(12.5, 16, 32), farWord: px(9.5, 12, 20), stripTitle: px(10.5, 13, 28), regionLabel: px(12, 12, 26) };
}

/** Fit-view's margin around the layout (a fraction of its size, as React Flow takes it). */
export const FIT_PADDING = 0.05;

/** The pane a layout is made for before the canvas has measured one. */
export const DEFAULT_PANE: Pane = { width: 1280, height: 756 };

/** The board's pane at the window's size (the header apart), before React Flow measures it. */
export function windowPane(): Pane {
  if (typeof window === "undefined" || !window.innerWidth) return DEFAULT_PANE;
  return { width: window.innerWidth, height: Math.max(200, window.innerHeight - 44) };
}

export function sizeOf(size: NodeSize): { width: number; height: number } {
  return { width: NODE_WIDTH, height: size === "full" ? NODE_HEIGHT : STRIP_HEIGHT };
}

/** The largest coordinate Rust's `i32` position holds. */
const I32_MAX = 2 ** 31 - 1;

/** A whole number the Rust side accepts as a position coordinate (`i32`). */
export function toCoordinate(value: number): number {
  if (!Number.isFinite(value)) return 0;
  return Math.min(I32_MAX, Math.max(-I32_MAX, Math.round(value)));
}

/** True when two full-size node boxes touch or come closer than `gap`. */
export function overlaps(a: XY, b: XY, gap = 0): boolean {
  return boxesOverlap({ ...a, width: NODE_WIDTH, height: NODE_HEIGHT }, { ...b, width: NODE_WIDTH, height: NODE_HEIGHT }, gap);
}

export function boxesOverlap(a: Box, b: Box, gap = 0): boolean {
  return a.x < b.x + b.width + gap && b.x < a.x + a.width + gap && a.y < b.y + b.height + gap && b.y < a.y + a.height + gap;
}

/** The box around boxes. */
export function boundsOfBoxes(boxes: readonly Box[]): Box | null {
  if (boxes.length === 0) return null;
  let left = Infinity;
  let top = Infinity;
  let right = -Infinity;
  let bottom = -Infinity;
  for (const b of boxes) {
    left = Math.min(left, b.x);
    top = Math.min(top, b.y);
    right = Math.max(right, b.x + b.width);
    bottom = Math.max(bottom, b.y + b.height);
  }
  return { x: left, y: top, width: right - left, height: bottom - top };
}

/** The box around full-size nodes at these positions. */
export function boundsOf(positions: readonly XY[]): Box | null {
  return boundsOfBoxes(positions.map((p) => ({ ...p, width: NODE_WIDTH, height: NODE_HEIGHT })));
}
