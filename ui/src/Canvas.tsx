import { memo, useCallback, useEffect, useRef } from "react";
import {
  Background,
  BackgroundVariant,
  Controls,
  MiniMap,
  ReactFlow,
  useReactFlow,
  useStoreApi,
  type Edge,
  type MiniMapNodeProps,
  type NodeMouseHandler,
  type NodeTypes,
} from "@xyflow/react";
import { SessionNode } from "./SessionNode";
import { useSwitchboard, selectDetailsId, selectSelectedId, type SessionNodeType } from "./store";
import { badgeOf } from "./status";
import { arrivalViewport, boundsOf, NODE_HEIGHT, NODE_WIDTH } from "./layout";
import { isTypingTarget, shortcutFor } from "./shortcuts";

// Module scope: a new object per render would remount every node.
const nodeTypes: NodeTypes = { session: SessionNode };
const noEdges: Edge[] = [];
const fitViewOptions = { padding: 0.12, maxZoom: 1 };
const proOptions = { hideAttribution: true };
const minimapStyle = { width: 176, height: 120 };

const MiniMapSessionNode = memo(function MiniMapSessionNode({ id, x, y, width, height, selected }: MiniMapNodeProps) {
  const tone = useSwitchboard((s) => {
    const session = s.sessions[id];
    return session ? badgeOf(session, 0).tone : "idle";
  });
  const ended = useSwitchboard((s) => s.sessions[id]?.ended ?? false);
  const classes = ["minimap-node", `tone-${tone}`];
  if (ended) classes.push("is-ended");
  if (selected) classes.push("is-selected");
  return <rect className={classes.join(" ")} x={x} y={y} width={width} height={height} rx={14} ry={14} />;
});

/**
 * Bring a node into view. "center": pan (and zoom to a readable size) so it sits in the middle,
 * for focus requests on a node out of view; "nudge": the smallest pan that uncovers it, for a
 * click whose details panel now hides it, or a focused node that is partly in view. Nothing
 * moves when the node is already in view: calm over clever.
 */
function useReveal() {
  const flow = useReactFlow<SessionNodeType>();
  const flowStore = useStoreApi<SessionNodeType>();
  return useCallback(
    (id: string, mode: "center" | "nudge") => {
      const node = flow.getNode(id);
      if (!node) return;
      // The DOM, not React Flow's store, knows the pane size right after the panel opened.
      const { domNode, width: storeWidth, height: storeHeight } = flowStore.getState();
      const paneWidth = domNode?.clientWidth || storeWidth;
      const paneHeight = domNode?.clientHeight || storeHeight;
      const width = node.measured?.width ?? NODE_WIDTH;
      const height = node.measured?.height ?? NODE_HEIGHT;
      const { x, y, zoom } = flow.getViewport();
      const left = node.position.x * zoom + x;
      const top = node.position.y * zoom + y;
      const right = left + width * zoom;
      const bottom = top + height * zoom;
      const margin = 24;
      const visible = left >= margin && top >= margin && right <= paneWidth - margin && bottom <= paneHeight - margin;
      // Partly in view (say, under the details panel that just opened): the smallest pan will do.
      const partly = right > 0 && bottom > 0 && left < paneWidth && top < paneHeight && zoom >= 0.6;
      if (mode === "nudge" || partly) {
        if (visible) return;
        const dx = left < margin ? margin - left : right > paneWidth - margin ? paneWidth - margin - right : 0;
        const dy = top < margin ? margin - top : bottom > paneHeight - margin ? paneHeight - margin - bottom : 0;
        void flow.setViewport({ x: x + dx, y: y + dy, zoom }, { duration: 250 });
        return;
      }
      if (visible && zoom >= 0.6) return;
      const nextZoom = Math.min(Math.max(zoom, 0.9), 1.25);
      const cx = node.position.x + width / 2;
      const cy = node.position.y + height / 2;
      void flow.setViewport(
        { x: paneWidth / 2 - cx * nextZoom, y: paneHeight / 2 - cy * nextZoom, zoom: nextZoom },
        { duration: 350 },
      );
    },
    [flow, flowStore],
  );
}

/**
 * Fit the view when sessions arrive on an empty canvas (at start-up or after it emptied), and
 * only then: refitting on every change would fight the user's panning.
 */
function useFitWhenFilled(filled: boolean, fit: () => void): void {
  const wasFilled = useRef(false);
  useEffect(() => {
    if (filled && !wasFilled.current) fit();
    wasFilled.current = filled;
  }, [filled, fit]);
}

/** Focus requests (chips, `n`, notifications), fitting and keyboard shortcuts; inside React Flow. */
function CanvasEffects() {
  const flow = useReactFlow<SessionNodeType>();
  const flowStore = useStoreApi<SessionNodeType>();
  const reveal = useReveal();
  const focus = useSwitchboard((s) => s.focus);
  const filled = useSwitchboard((s) => s.order.length > 0);

  const fit = useCallback(() => {
    const { nodes, columns } = useSwitchboard.getState();
    const bounds = boundsOf(nodes.map((n) => n.position));
    if (!bounds) return;
    const { domNode, width, height } = flowStore.getState();
    const pane = {
      width: domNode?.clientWidth || width || window.innerWidth,
      height: domNode?.clientHeight || height || window.innerHeight,
    };
    const viewport = arrivalViewport(bounds, pane, columns);
    // Too many to show at full size: zoom out to all of them (held until they are measured).
    if (viewport) void flow.setViewport(viewport);
    else void flow.fitView(fitViewOptions);
  }, [flow, flowStore]);
  useFitWhenFilled(filled, fit);

  useEffect(() => {
    if (focus) reveal(focus.id, "center");
    // The pane size is read at the moment of the request; resizing must not re-pan.
  }, [focus, reveal]);

  useEffect(() => {
    const onKeyDown = (event: KeyboardEvent) => {
      if (isTypingTarget(event.target)) return;
      const shortcut = shortcutFor(event);
      if (!shortcut) return;
      const store = useSwitchboard.getState();
      switch (shortcut) {
        case "next":
          store.jumpToNeedsYou(1);
          break;
        case "previous":
          store.jumpToNeedsYou(-1);
          break;
        case "open": {
          const id = selectSelectedId(store);
          if (!id) return;
          store.openSession(id);
          break;
        }
        case "fit":
          void flow.fitView({ ...fitViewOptions, duration: 300 });
          break;
        case "close":
          if (selectDetailsId(store) != null) store.closeDetails();
          else if (store.olderOpen) store.setOlderOpen(false);
          else return;
          break;
      }
      event.preventDefault();
    };
    window.addEventListener("keydown", onKeyDown);
    return () => window.removeEventListener("keydown", onKeyDown);
  }, [flow]);

  return null;
}

export function Canvas() {
  const nodes = useSwitchboard((s) => s.nodes);
  const onNodesChange = useSwitchboard((s) => s.onNodesChange);
  const reveal = useReveal();
  // The click opened the details panel, which may now cover the node: uncover it once laid out.
  const onNodeClick = useCallback<NodeMouseHandler<SessionNodeType>>(
    (_event, node) => void requestAnimationFrame(() => reveal(node.id, "nudge")),
    [reveal],
  );
  return (
    <ReactFlow<SessionNodeType>
      nodes={nodes}
      edges={noEdges}
      nodeTypes={nodeTypes}
      onNodesChange={onNodesChange}
      onNodeClick={onNodeClick}
      // A drag moves a node; only a click selects it (and opens its details panel).
      selectNodesOnDrag={false}
      minZoom={0.15}
      maxZoom={2}
      colorMode="system"
      nodesConnectable={false}
      deleteKeyCode={null}
      selectionKeyCode={null}
      multiSelectionKeyCode={null}
      proOptions={proOptions}
    >
      <Background variant={BackgroundVariant.Dots} gap={22} size={1.2} />
      <MiniMap
        nodeComponent={MiniMapSessionNode}
        style={minimapStyle}
        pannable
        zoomable
        ariaLabel="Overview of all sessions"
      />
      <Controls showInteractive={false} fitViewOptions={fitViewOptions} />
      <CanvasEffects />
    </ReactFlow>
  );
}
