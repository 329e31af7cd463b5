// The board: React Flow with the session nodes, regions and lane, and the minimap. The viewport's
// moves are viewport.ts; what the board does on keys and focus requests is CanvasEffects.tsx.
import "./Canvas.css";
import { memo, useCallback, useMemo, useRef, useState } from "react";
import { Background, BackgroundVariant, ControlButton, Controls, MiniMap, Panel, ReactFlow, useStore, type Edge, type MiniMapNodeProps, type NodeChange, type NodeMouseHandler, type NodeTypes, type OnMove } from "@xyflow/react";
import { SessionNode } from "../card/SessionNode";
import { RegionNode, type RegionData, type RegionNodeType } from "./RegionNode";
import { FilterBar } from "./FilterBar";
import { useSwitchboard, selectSelectedId } from "../state/store";
import type { Session } from "../bindings/Session";
import { type Region } from "./layout";
import { type SessionNodeType } from "../state/data";
import { boundsOfLayout, MIN_ZOOM, useFit, useReveal, type CanvasNode, type Following } from "./viewport";
import { CanvasEffects, tileOf } from "./CanvasEffects";
import { CROWDED_ABOVE, sizeOf } from "./geometry";
import { boxInView } from "./fit";
import { screenOrder } from "./neighbours";

// Module scope: a new object per render would remount every node.
const nodeTypes: NodeTypes = { session: SessionNode, region: RegionNode };
const noEdges: Edge[] = [];
const noTiles: readonly SessionNodeType[] = [];
export { CROWDED_ABOVE } from "./geometry";
const proOptions = { hideAttribution: true };
const minimapStyle = { width: 176, height: 120 };

/** The fit button's corners, drawn like the zoom buttons' glyphs. */
function FitIcon() {
  return (
    <svg viewBox="0 0 16 16" aria-hidden="true">
      <path d="M2 6V2h4M10 2h4v4M14 10v4h-4M6 14H2v-4" fill="none" stroke="currentColor" strokeWidth="1.8" />
    </svg>
  );
}

function miniClasses(session: Session | undefined, selected: boolean): string {
  const classes = ["minimap-node", `tone-${session ? session.badge.tone : "idle"}`];
  if (session?.ended) classes.push("is-ended");
  if (selected) classes.push("is-selected");
  return classes.join(" ");
}

/**
 * A region on the minimap, with the tiles it draws (a crowded canvas): one path per look (tone,
 * ended, selected) rather than a rectangle per session — a thousand SVG elements cost more than
 * the minimap is worth.
 */
const MiniMapRegion = memo(function MiniMapRegion({ id, x, y, width, height }: MiniMapNodeProps) {
  const tiles = useStore((s) => (s.nodeLookup.get(id)?.data as RegionData | undefined)?.tiles ?? noTiles);
  const sessions = useSwitchboard((s) => (tiles.length > 0 ? s.sessions : null));
  const paths = useMemo(() => {
    const byLook = new Map<string, string[]>();
    if (!sessions) return byLook;
    for (const t of tiles) {
      const { width: w, height: h } = sizeOf(t.data.size);
      const look = miniClasses(sessions[t.id], t.selected ?? false);
      const list = byLook.get(look) ?? [];
      list.push(`M${t.position.x} ${t.position.y}h${w}v${h}h${-w}z`);
      byLook.set(look, list);
    }
    return byLook;
  }, [tiles, sessions]);
  return (
    <>
      <rect className="minimap-region" x={x} y={y} width={width} height={height} rx={18} ry={18} />
      {[...paths].map(([look, boxes]) => (
        <path key={look} className={look} d={boxes.join("")} data-count={boxes.length} />
      ))}
    </>
  );
});

const MiniMapSessionNode = memo(function MiniMapSessionNode(props: MiniMapNodeProps) {
  const { id, x, y, width, height, selected } = props;
  const isRegion = id.startsWith("region:");
  const session = useSwitchboard((s) => s.sessions[id]);
  if (isRegion) return <MiniMapRegion {...props} />;
  return <rect className={miniClasses(session, selected)} x={x} y={y} width={width} height={height} rx={14} ry={14} />;
});

/**
 * Region nodes by region and tiles: the store keeps unchanged regions (and node objects), so a
 * region whose sessions did not move keeps its node, and React Flow leaves it alone.
 */
const regionNodeCache = new WeakMap<Region, RegionNodeType>();

function regionNode(region: Region, tiles: readonly SessionNodeType[]): RegionNodeType {
  const known = regionNodeCache.get(region);
  if (known && known.data.tiles === tiles) return known;
  const node = makeRegionNode(region, tiles);
  regionNodeCache.set(region, node);
  return node;
}

/** The sessions each region draws, by region id; a region's list is kept while its nodes are. */
function groupTiles(
  nodes: readonly SessionNodeType[],
  previous: ReadonlyMap<string, readonly SessionNodeType[]>,
): Map<string, readonly SessionNodeType[]> {
  const groups = new Map<string, SessionNodeType[]>();
  for (const node of nodes) {
    const region = node.data.region;
    if (region == null) continue;
    const list = groups.get(region);
    if (list) list.push(node);
    else groups.set(region, [node]);
  }
  const out = new Map<string, readonly SessionNodeType[]>();
  for (const [region, list] of groups) {
    const old = previous.get(region);
    const same = old != null && old.length === list.length && old.every((n, i) => n === list[i]);
    out.set(region, same ? old : list);
  }
  return out;
}

/**
 * One canvas's tile grouping: remembers its last answer, so a region whose nodes did not change
 * keeps the same list (and its memo'd node). `null`: not crowded, no tiles.
 */
function tileGrouping() {
  let last: ReadonlyMap<string, readonly SessionNodeType[]> = new Map();
  return (nodes: readonly SessionNodeType[] | null): ReadonlyMap<string, readonly SessionNodeType[]> => {
    last = nodes ? groupTiles(nodes, last) : new Map();
    return last;
  };
}

function makeRegionNode(region: Region, tiles: readonly SessionNodeType[]): RegionNodeType {
  const { id, kind, label, path, count, needsYou, x, y, width, height } = region;
  return {
    id: `region:${id}`,
    type: "region",
    position: { x, y },
    width,
    height,
    data: { kind, label, path, count, needsYou, tiles, origin: { x, y } },
    selectable: false,
    draggable: false,
    focusable: false,
    zIndex: -1,
  };
}

export function Canvas() {
  const storeNodes = useSwitchboard((s) => s.nodes);
  const regions = useSwitchboard((s) => s.regions);
  // In the DOM as on screen, so Tab walks the board as it reads (not in arrival order).
  const sessionNodes = useMemo(() => screenOrder(storeNodes, regions), [storeNodes, regions]);
  const crowded = sessionNodes.length > CROWDED_ABOVE;
  const [tilesOf] = useState(tileGrouping);
  const tiles = useMemo(() => tilesOf(crowded ? sessionNodes : null), [tilesOf, crowded, sessionNodes]);
  const regionNodes = useMemo(
    () => screenOrder(regions.map((r) => ({ r, id: r.id, position: r, data: { region: r.id } })), regions).map(({ r }) =>
      regionNode(r, tiles.get(r.id) ?? noTiles),
    ),
    [regions, tiles],
  );
  const nodes = useMemo<CanvasNode[]>(
    () => [...regionNodes, ...(crowded ? sessionNodes.filter((n) => n.data.region == null) : sessionNodes)],
    [regionNodes, sessionNodes, crowded],
  );
  const storeNodesChange = useSwitchboard((s) => s.onNodesChange);
  // Regions are drawn from the layout; only the sessions' changes go to the store.
  const onNodesChange = useCallback(
    (changes: NodeChange<CanvasNode>[]) =>
      storeNodesChange(
        changes.filter((c) => !("id" in c) || !c.id.startsWith("region:")) as NodeChange<SessionNodeType>[],
      ),
    [storeNodesChange],
  );
  const followRef = useRef<Following>({ on: true, fitted: null, moving: 0 });
  const reveal = useReveal(followRef);
  // A pan or zoom by hand (wheel, drag, pinch, the minimap): the user chose where to look.
  const onMove = useCallback<OnMove>(
    (event) => {
      if (event) followRef.current.on = false;
    },
    [followRef],
  );
  const byHand = useCallback(() => {
    followRef.current.on = false;
  }, [followRef]);
  const fit = useFit(followRef);
  const fitByHand = useCallback(() => fit(true), [fit]);
  const bounds = useMemo(() => boundsOfLayout(sessionNodes, regions), [sessionNodes, regions]);
  // The minimap only while part of the board is out of view: over a fitted board it would only
  // hide nodes.
  const partlyHidden = useStore(
    useCallback(
      (s) =>
        bounds != null &&
        !boxInView(bounds, { x: s.transform[0], y: s.transform[1], zoom: s.transform[2] }, { width: s.width, height: s.height }, 8),
      [bounds],
    ),
  );
  // The click opened the details panel, which may now cover the node: uncover it once laid out.
  const onNodeClick = useCallback<NodeMouseHandler<CanvasNode>>(
    (event, node) => {
      // A click on a tile reaches its region's node.
      const id = node.type === "session" ? node.id : tileOf(event.target);
      if (id) requestAnimationFrame(() => reveal(id, "nudge"));
    },
    [reveal],
  );
  // A click on the empty canvas lets go of the selection: React Flow does that for its own nodes,
  // this does it for a tile (the selected session may be one).
  const onPaneClick = useCallback(() => {
    const store = useSwitchboard.getState();
    if (selectSelectedId(store) != null) store.select(null);
  }, []);
  return (
    <ReactFlow<CanvasNode>
      nodes={nodes}
      onPaneClick={onPaneClick}
      edges={noEdges}
      nodeTypes={nodeTypes}
      onNodesChange={onNodesChange}
      onNodeClick={onNodeClick}
      onMove={onMove}
      // A drag moves a node; only a click selects it (and opens its details panel).
      selectNodesOnDrag={false}
      // Hundreds of sessions: only what is on screen is in the DOM. A few dozen are cheaper
      // to keep mounted than to mount and unmount while panning.
      onlyRenderVisibleElements={crowded}
      // The arrow keys move the selection (ours), not the selected node.
      disableKeyboardA11y
      minZoom={MIN_ZOOM}
      maxZoom={2}
      colorMode="system"
      nodesConnectable={false}
      deleteKeyCode={null}
      selectionKeyCode={null}
      multiSelectionKeyCode={null}
      proOptions={proOptions}
    >
      <Background variant={BackgroundVariant.Dots} gap={22} size={1.2} />
      {partlyHidden && (
        <MiniMap
          nodeComponent={MiniMapSessionNode}
          style={minimapStyle}
          pannable
          zoomable
          ariaLabel="Overview of all sessions"
        />
      )}
      <Controls showInteractive={false} showFitView={false} onZoomIn={byHand} onZoomOut={byHand}>
        <ControlButton onClick={fitByHand} title="Fit the board (f)" aria-label="Fit the board">
          <FitIcon />
        </ControlButton>
      </Controls>
      <Panel position="top-center">
        <FilterBar />
      </Panel>
      <CanvasEffects followRef={followRef} />
    </ReactFlow>
  );
}

