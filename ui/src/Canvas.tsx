import { memo, useEffect } from "react";
import {
  Background,
  BackgroundVariant,
  Controls,
  MiniMap,
  ReactFlow,
  useReactFlow,
  useStore as useFlowStore,
  type Edge,
  type MiniMapNodeProps,
  type NodeTypes,
} from "@xyflow/react";
import { SessionNode } from "./SessionNode";
import { useSwitchboard, selectSelectedId, type SessionNodeType } from "./store";
import { badgeOf } from "./status";
import { NODE_HEIGHT, NODE_WIDTH } from "./layout";
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

/** Focus requests (chips, `n`, notifications) and keyboard shortcuts; lives inside React Flow. */
function CanvasEffects() {
  const flow = useReactFlow<SessionNodeType>();
  const focus = useSwitchboard((s) => s.focus);
  const paneWidth = useFlowStore((s) => s.width);
  const paneHeight = useFlowStore((s) => s.height);

  useEffect(() => {
    if (!focus) return;
    const node = flow.getNode(focus.id);
    if (!node) return;
    const width = node.measured?.width ?? NODE_WIDTH;
    const height = node.measured?.height ?? NODE_HEIGHT;
    const { x, y, zoom } = flow.getViewport();
    const left = node.position.x * zoom + x;
    const top = node.position.y * zoom + y;
    const margin = 24;
    const visible =
      left >= margin &&
      top >= margin &&
      left + width * zoom <= paneWidth - margin &&
      top + height * zoom <= paneHeight - margin;
    // Only move the canvas when the node is off screen (or too small to read): calm over clever.
    if (visible && zoom >= 0.6) return;
    void flow.setCenter(node.position.x + width / 2, node.position.y + height / 2, {
      zoom: Math.min(Math.max(zoom, 0.9), 1.25),
      duration: 350,
    });
    // The pane size is read at the moment of the request; resizing must not re-pan.
  }, [focus, flow]);

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
  return (
    <ReactFlow<SessionNodeType>
      nodes={nodes}
      edges={noEdges}
      nodeTypes={nodeTypes}
      onNodesChange={onNodesChange}
      fitView
      fitViewOptions={fitViewOptions}
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
      <Controls showInteractive={false} />
      <CanvasEffects />
    </ReactFlow>
  );
}
