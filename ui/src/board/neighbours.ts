// Keyboard navigation on the board: the card beside the selected one, and the order Tab takes.
// Pure.
import { type XY, type Box } from "./geometry";
import { type Region } from "./layout";

// ── Keyboard navigation ──────────────────────────────────────────────────────────────────────

export type Direction = "left" | "right" | "up" | "down";

/**
 * The node an arrow key moves the selection to: the nearest whose centre lies in that
 * direction, straight lines preferred over diagonals. `null` when there is none.
 */
export function neighbourOf(
  from: string,
  boxes: Readonly<Record<string, Box>>,
  direction: Direction,
): string | null {
  const origin = boxes[from];
  if (!origin) return null;
  const cx = origin.x + origin.width / 2;
  const cy = origin.y + origin.height / 2;
  let best: string | null = null;
  let bestScore = Infinity;
  for (const id in boxes) {
    if (id === from) continue;
    const b = boxes[id]!;
    const dx = b.x + b.width / 2 - cx;
    const dy = b.y + b.height / 2 - cy;
    const along = direction === "left" ? -dx : direction === "right" ? dx : direction === "up" ? -dy : dy;
    const across = direction === "left" || direction === "right" ? Math.abs(dy) : Math.abs(dx);
    if (along <= 1) continue;
    // Off to the side counts three times: the row (or column) you are in comes first.
    const score = along + 3 * across;
    if (score < bestScore) {
      bestScore = score;
      best = id;
    }
  }
  return best;
}

/** What {@link screenOrder} needs of a node: where it is, and the region it was laid out in. */
type Placed = { id: string; position: XY; data: { region: string | null } };

/**
 * The order Tab walks the board in: as it reads on screen (issue 44.3) — the "Needs you" lane
 * first, then the regions top to bottom, left to right along each shelf, and inside each its
 * nodes top to bottom, left to right; nodes dragged out of every region last, as they read.
 * Stable for equal places. The nodes are returned as they are (the same objects).
 */
export function screenOrder<T extends Placed>(nodes: readonly T[], regions: readonly Region[]): T[] {
  const rank = new Map<string, number>();
  const ordered = [...regions].sort(
    (a, b) => Number(b.kind === "needs-you") - Number(a.kind === "needs-you") || a.y - b.y || a.x - b.x,
  );
  ordered.forEach((region, i) => rank.set(region.id, i));
  const last = ordered.length;
  const rankOf = (node: T) => (node.data.region == null ? last : (rank.get(node.data.region) ?? last));
  return [...nodes].sort(
    (a, b) => rankOf(a) - rankOf(b) || a.position.y - b.position.y || a.position.x - b.position.x,
  );
}
