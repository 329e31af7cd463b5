// A session as a light tile on a crowded board (zoomed out): drawn plainly, dragged by hand
// (`startTileDrag`, shared with the painted canvases). The full card is `SessionNode.tsx`.
import { memo, useRef, type HTMLAttributes, type MouseEvent, type PointerEvent } from "react";
import { useClockText } from "../state/clock";
import { useStoreApi } from "@xyflow/react";
import type { Session } from "../bindings/Session";
import { useSwitchboard } from "../state/store";
import { titleOf } from "../shared/sessionLabels";
import { agentLetter } from "../shared/icons";
import { faceOf, SessionCard, tileTooltip } from "../card/SessionNode";
import { type SessionNodeType } from "../state/data";
import { sizeOf, type NodeSize, type XY } from "./geometry";

/** What a tile's frame gives the card drawn in it (placement, focus, pointer handlers). */
type Frame = Omit<HTMLAttributes<HTMLDivElement>, "className"> & { className: string; "data-id": string };

/**
 * The compact forms again, for a crowded canvas zoomed out: the same look in a third of the
 * elements, no SVG (the status glyph and agent letter are CSS and text), no subscription of its
 * own (the region hands it the session), and the tile's frame is its own root element.
 * A thousand of these is what a zoomed-out board of a thousand sessions holds.
 */
function TileCard({ session, selected, size, dimmed, frame }: {
  session: Session;
  selected: boolean;
  size: NodeSize;
  dimmed: boolean;
  frame: Frame;
}) {
  const id = session.sessionId;
  const badge = session.badge;
  const title = titleOf(session);
  const strip = size === "strip";
  // Its tooltip's "unreachable since 14:02" changes once a day: no tile is drawn per tick.
  const tooltip = useClockText((now) => tileTooltip(session, now));
  const { classes, data } = faceOf(session, badge, selected, dimmed);
  classes.unshift(frame.className);
  classes.push("is-far", "is-light", strip ? "is-strip" : "is-far-card");
  return (
    <div
      {...frame}
      className={classes.join(" ")}
      {...data}
      data-form={strip ? "strip" : "far-card"}
      title={tooltip}
      onClick={() => useSwitchboard.getState().openSession(id)}
    >
      <div className="compact-line">
        <span className="status-dot light-glyph" />
        <span className="agent-letter">{agentLetter(session.agent)}</span>
        <span className={strip ? "visually-hidden" : "status-word"} data-testid="status-badge">
          {badge.word}
        </span>
        {strip && (
          <span className="node-title" data-testid="node-title">
            {title}
          </span>
        )}
      </div>
      {!strip && (
        <div className="node-title" data-testid="node-title">
          {title}
        </div>
      )}
      {session.unread && <span className="unread-dot" data-testid="unread-dot" role="img" aria-label="Unread" />}
    </div>
  );
}

/** A press that moves less than this (screen pixels) is a click, not a drag. */
const DRAG_THRESHOLD = 4;

/**
 * A press on a tile (a DOM tile or one drawn on its region's canvas): past
 * {@link DRAG_THRESHOLD} it drags the session, and the drop pins it there, like a dragged React
 * Flow node. `dragged` says afterwards whether it was a drag (the click that follows is not one).
 */
export function startTileDrag(
  event: { clientX: number; clientY: number },
  id: string,
  position: XY,
  zoom: number,
  dragged: { current: boolean },
): void {
  const start = { x: event.clientX, y: event.clientY };
  const from = { ...position };
  dragged.current = false;
  const at = (e: globalThis.PointerEvent) => ({
    x: from.x + (e.clientX - start.x) / zoom,
    y: from.y + (e.clientY - start.y) / zoom,
  });
  const onMove = (e: globalThis.PointerEvent) => {
    if (!dragged.current && Math.hypot(e.clientX - start.x, e.clientY - start.y) < DRAG_THRESHOLD) return;
    dragged.current = true;
    useSwitchboard.getState().onNodesChange([{ type: "position", id, position: at(e), dragging: true }]);
  };
  const onUp = (e: globalThis.PointerEvent) => {
    window.removeEventListener("pointermove", onMove);
    window.removeEventListener("pointerup", onUp);
    window.removeEventListener("pointercancel", onUp);
    if (!dragged.current) return;
    useSwitchboard.getState().onNodesChange([{ type: "position", id, position: at(e), dragging: false }]);
  };
  window.addEventListener("pointermove", onMove);
  window.addEventListener("pointerup", onUp);
  window.addEventListener("pointercancel", onUp);
}

type TileProps = {
  node: SessionNodeType;
  /** Its session, handed down by the region (one subscription per region, not per tile). */
  session: Session | undefined;
  /** The region's top-left corner on the canvas: the tile is placed relative to it. */
  origin: XY;
  /** Zoomed out: the light compact form; else the full card (only tiles in view are drawn). */
  compact: boolean;
  dimmed: boolean;
};

/**
 * A session drawn inside its region's grid instead of as a React Flow node: what a crowded
 * canvas uses for the sessions the layout places (a React Flow node per session costs about
 * 0.2 MiB of web-process memory and a walk per change). Behaves like a node: click selects and
 * opens it, Tab reaches it, a drag moves it (the drop pins it, and it becomes a node there).
 */
export const SessionTile = memo(function SessionTile({ node, session, origin, compact, dimmed }: TileProps) {
  const { id, position, selected = false, dragging = false, data } = node;
  const flowStore = useStoreApi();
  const dragged = useRef(false);
  const { width, height } = sizeOf(data.size);

  const onPointerDown = (event: PointerEvent) => {
    if (event.button !== 0 || (event.target as Element).closest("button")) return;
    startTileDrag(event, id, position, flowStore.getState().transform[2] || 1, dragged);
  };

  const onClick = (event: MouseEvent) => {
    // The end of a drag is not a click.
    if (dragged.current) {
      dragged.current = false;
      event.stopPropagation();
      return;
    }
    useSwitchboard.getState().select(id);
  };

  if (!session) return null;
  const classes = ["session-tile", "nopan"];
  if (selected) classes.push("selected");
  if (dragging) classes.push("dragging");
  const frame: Frame = {
    className: classes.join(" "),
    "data-id": id,
    tabIndex: 0,
    style: { width, height, transform: `translate(${position.x - origin.x}px, ${position.y - origin.y}px)` },
    onPointerDown,
    onClickCapture: onClick,
  };
  if (compact) return <TileCard session={session} selected={selected} size={data.size} dimmed={dimmed} frame={frame} />;
  return (
    <div {...frame}>
      <SessionCard id={id} selected={selected} size={data.size} region={data.region} />
    </div>
  );
});
