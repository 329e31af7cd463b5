import { memo } from "react";
import { useStore, type Node, type NodeProps, type ReactFlowState } from "@xyflow/react";
import { type Region } from "./layout";
import { SessionTile } from "./SessionTile";
import { TileCanvas } from "./TileCanvas";
import { useSwitchboard } from "../state/store";
import { type SessionNodeType } from "../state/data";
import { sizeOf, ZOOM_COMPACT, type Box, type XY } from "./geometry";

export type RegionData = Pick<Region, "kind" | "label" | "path" | "count" | "needsYou"> & {
  /** On a crowded canvas: the sessions it draws in its own grid (empty otherwise). */
  tiles: readonly SessionNodeType[];
  /**
   * Its top-left corner, from the same layout as the tiles' places (React Flow's own position
   * props can lag a render behind them: every tile would seem to move, twice).
   */
  origin: XY;
};
export type RegionNodeType = Node<RegionData, "region">;

/**
 * Zoomed out, a project region draws its tiles on one canvas; the "Needs you" lane only above
 * this many (below, its cards stay elements: what needs the user reads like any other card).
 */
export const LANE_ELEMENTS_MAX = 60;

/** Zoomed in, tiles are drawn only in the view and this far (canvas px) around it, in steps of it. */
const VIEW_MARGIN = 400;

/**
 * Zoomed out: `null`, every tile is drawn (in its light form). Zoomed in: the part of the canvas
 * in view, widened and snapped to {@link VIEW_MARGIN} so that panning redraws only now and then.
 */
function viewOf(s: ReactFlowState): string | null {
  const [tx, ty, zoom] = s.transform;
  if (zoom < ZOOM_COMPACT) return null;
  const snap = (v: number) => Math.floor(v / VIEW_MARGIN) * VIEW_MARGIN;
  const left = snap(-tx / zoom - VIEW_MARGIN);
  const top = snap(-ty / zoom - VIEW_MARGIN);
  const right = snap((s.width - tx) / zoom + 2 * VIEW_MARGIN);
  const bottom = snap((s.height - ty) / zoom + 2 * VIEW_MARGIN);
  return `${left} ${top} ${right} ${bottom}`;
}

function inView(node: SessionNodeType, view: Box): boolean {
  const { width, height } = sizeOf(node.data.size);
  const { x, y } = node.position;
  return x < view.x + view.width && x + width > view.x && y < view.y + view.height && y + height > view.y;
}

/** A labelled area behind a group of nodes: the "Needs you" lane, or one project. */
export const RegionNode = memo(function RegionNode({ data, width = 0, height = 0 }: NodeProps<RegionNodeType>) {
  const { kind, label, path, count, needsYou, tiles } = data;
  // The same object while the region stays put: its tiles do not draw again for a new list.
  const { origin } = data;
  // One subscription per region, not per tile.
  const view = useStore((s) => (tiles.length > 0 ? viewOf(s) : null));
  const compact = view == null;
  const painted = compact && tiles.length > 0 && (kind === "project" || tiles.length > LANE_ELEMENTS_MAX);
  const matches = useSwitchboard((s) => (tiles.length > 0 ? s.matches : null));
  // A changed session is a new object: only its tile draws again.
  const sessions = useSwitchboard((s) => (tiles.length > 0 ? s.sessions : null));
  let box: Box | null = null;
  if (view) {
    const [left, top, right, bottom] = view.split(" ").map(Number) as [number, number, number, number];
    box = { x: left, y: top, width: right - left, height: bottom - top };
  }
  return (
    <div className={`canvas-region region-${kind}`} data-testid="region" data-kind={kind}>
      {painted && (
        <TileCanvas
          label={label}
          tiles={tiles}
          sessions={sessions}
          matches={matches}
          origin={origin}
          width={width}
          height={height}
        />
      )}
      <div className="region-label" title={path ?? undefined}>
        <span className="region-name">{label}</span>
        <span className="region-count">{count}</span>
        {path && path !== label && <span className="region-path">{path}</span>}
        {needsYou > 0 && <span className="region-needs">+{needsYou} in Needs you</span>}
      </div>
      {tiles.map(
        (node) =>
          // Painted on the canvas, but the selected or dragged one: that is an element above it.
          (painted ? node.selected || node.dragging : box == null || inView(node, box) || node.selected) && (
            <SessionTile
              key={node.id}
              node={node}
              session={sessions?.[node.id]}
              origin={origin}
              compact={compact}
              dimmed={matches != null && !matches.has(node.id)}
            />
          ),
      )}
    </div>
  );
});
