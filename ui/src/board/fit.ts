// Fitting the board into the pane: the viewport that shows it all, and whether a box is in view.
// Pure.
import { type Box, type Pane, ZOOM_COMPACT } from "./geometry";
import { type Region } from "./layout";

// ── Fitting the board ────────────────────────────────────────────────────────────────────────

/**
 * Room the fitted board leaves free, in screen pixels: above, for the filter bar's first row;
 * at the left, for the zoom controls in the bottom corner. (The minimap shows only while part
 * of the board is out of view, so a fitted board needs no room for it.)
 */
export const FIT_INSETS = { top: 32, right: 24, bottom: 24, left: 60 } as const;

export type Viewport = { x: number; y: number; zoom: number };

/**
 * The view that shows the whole box inside the pane's insets: at zoom 1 when it fits (never
 * blown up past full size), zoomed out as far as `minZoom` when not; centred across, from the
 * top down.
 */
export function fitViewport(bounds: Box, pane: Pane, minZoom = 0.1): Viewport {
  const width = Math.max(1, pane.width - FIT_INSETS.left - FIT_INSETS.right);
  const height = Math.max(1, pane.height - FIT_INSETS.top - FIT_INSETS.bottom);
  const zoom = Math.max(minZoom, Math.min(1, width / Math.max(1, bounds.width), height / Math.max(1, bounds.height)));
  // Wider than the pane (held at `minZoom`): from the left edge, where the lane's first cards are.
  const spare = width - bounds.width * zoom;
  const x = FIT_INSETS.left + Math.max(0, spare) / 2 - bounds.x * zoom;
  const y = FIT_INSETS.top - bounds.y * zoom;
  return { x: Math.round(x), y: Math.round(y), zoom };
}

/**
 * The smallest zoom fitting the board may go to. While sessions need the user: the zoom at which
 * their cards still show what they ask ({@link ZOOM_COMPACT}), as long as the whole lane fits the
 * window at it — a board that does not fit then scrolls (the lane on top, in view) rather than
 * shrink its cards; a lane too big for that is fitted whole (every card that needs the user in
 * view, in its compact form). `window` is the window's canvas area, not the pane: the details
 * panel opening beside the board must not shrink the cards (issue 37). Otherwise `minZoom`.
 */
export function fitFloor(regions: readonly Region[], window: Pane, minZoom: number): number {
  const lane = regions.find((region) => region.kind === "needs-you");
  if (!lane) return minZoom;
  const width = Math.max(1, window.width - FIT_INSETS.left - FIT_INSETS.right);
  const height = Math.max(1, window.height - FIT_INSETS.top - FIT_INSETS.bottom);
  const laneFits = Math.min(width / Math.max(1, lane.width), height / Math.max(1, lane.height));
  return Math.max(minZoom, Math.min(ZOOM_COMPACT, laneFits));
}

/** Whether the whole box is on screen inside the fitted insets but the top's (`slack` px of grace). */
export function boxInView(bounds: Box, viewport: Viewport, pane: Pane, slack = 4): boolean {
  const left = bounds.x * viewport.zoom + viewport.x;
  const top = bounds.y * viewport.zoom + viewport.y;
  const right = left + bounds.width * viewport.zoom;
  const bottom = top + bounds.height * viewport.zoom;
  return (
    left >= FIT_INSETS.left - slack &&
    top >= -slack &&
    right <= pane.width - FIT_INSETS.right + slack &&
    bottom <= pane.height - FIT_INSETS.bottom + slack
  );
}
