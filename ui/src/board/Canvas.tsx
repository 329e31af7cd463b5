// The board: React Flow with the session nodes, regions and lane, fit and reveal, the minimap,
// keyboard navigation. Over 450 lines, one of the three: the viewport's moves (fit, reveal,
// follow a resize) share one set of refs and timers; the node forms are in SessionNode/RegionNode.
import { memo, useCallback, useEffect, useMemo, useRef } from "react";
import {
  Background,
  BackgroundVariant,
  ControlButton,
  Controls,
  MiniMap,
  Panel,
  ReactFlow,
  useReactFlow,
  useStore,
  useStoreApi,
  type Edge,
  type MiniMapNodeProps,
  type NodeChange,
  type NodeMouseHandler,
  type NodeTypes,
  type OnMove,
} from "@xyflow/react";
import { SessionNode } from "../card/SessionNode";
import { RegionNode, type RegionData, type RegionNodeType } from "./RegionNode";
import { FilterBar } from "./FilterBar";
import { useSwitchboard, selectDetailsId, selectSelectedId } from "../state/store";
import type { Session } from "../bindings/Session";
import {
  CROWDED_ABOVE,
  boundsOfBoxes,
  farTextSizes,
  boxInView,
  fitFloor,
  fitViewport,
  FIT_PADDING,
  screenOrder,
  sizeOf,
  type Box,
  type Region,
  type Viewport,
} from "./layout";
import { isTypingTarget, optionOf, shortcutFor } from "../shared/shortcuts";
import { answer, canDecide, commandSeen, notHeldHint, noteNotHeld, revealCommandEnd } from "../panel/Decide";
import { asking, cannotPick, MAX_KEYED_OPTION, pickOption } from "../panel/Answer";

import { useKnownSettings } from "../state/settings";
import { titleOf } from "../shared/sessionLabels";
import { jump } from "../shared/jump";
import { keyHint } from "../state/keyHint";
import { useConnections } from "../state/connections";
import { useShortcutSheet } from "../state/shortcutSheet";
import { windowPane } from "../state/placing";
import { type SessionNodeType } from "../state/data";

type CanvasNode = SessionNodeType | RegionNodeType;

// Module scope: a new object per render would remount every node.
const nodeTypes: NodeTypes = { session: SessionNode, region: RegionNode };
const noEdges: Edge[] = [];
const noTiles: readonly SessionNodeType[] = [];
const MIN_ZOOM = 0.1;
const FIT_GLIDE_MS = 250;
export { CROWDED_ABOVE } from "./layout";
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
 * Bring a node into view. "center": pan (and zoom to a readable size) so it sits in the middle,
 * for focus requests on a node out of view; "nudge": the smallest pan that uncovers it, for a
 * click whose details panel now hides it, or a focused node that is partly in view. Nothing
 * moves when the node is already in view: calm over clever.
 */
function useReveal(following: Following) {
  const flow = useReactFlow<CanvasNode>();
  const flowStore = useStoreApi<CanvasNode>();
  return useCallback(
    (id: string, mode: "center" | "nudge") => {
      // The store knows every session's place, tiles (drawn by their region) included.
      const node = useSwitchboard.getState().nodes.find((n) => n.id === id);
      if (!node) return;
      const { width: paneWidth, height: paneHeight } = paneOf(flowStore.getState());
      const { width, height } = sizeOf(node.data.size);
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
        // A board that follows its content keeps all of it in view itself (the pane just shrank).
        if (visible || follows(following, { x, y, zoom })) return;
        const dx = left < margin ? margin - left : right > paneWidth - margin ? paneWidth - margin - right : 0;
        const dy = top < margin ? margin - top : bottom > paneHeight - margin ? paneHeight - margin - bottom : 0;
        void flow.setViewport({ x: x + dx, y: y + dy, zoom }, { duration: 250 });
        return;
      }
      if (visible && zoom >= 0.6) return;
      following.current = false;
      const nextZoom = Math.min(Math.max(zoom, 0.9), 1.25);
      const cx = node.position.x + width / 2;
      const cy = node.position.y + height / 2;
      void flow.setViewport(
        { x: paneWidth / 2 - cx * nextZoom, y: paneHeight / 2 - cy * nextZoom, zoom: nextZoom },
        { duration: 350 },
      );
    },
    [flow, flowStore, following],
  );
}

/**
 * Whether the board follows its content: fitted when sessions arrive, when the window or the
 * pane changes size (the details panel opening) and when part of it leaves the view — until the
 * user pans or zooms by hand or asks for one node or the filter's matches; `f` starts it again.
 */
type Following = {
  current: boolean;
  /** Where the last fit put the view, and how many fits are still gliding there. */
  fitted: Viewport | null;
  moving: number;
};

/**
 * Whether the board still follows: a view that is not where the last fit left it (nothing
 * gliding) was moved by something else — the user, a reveal — and is left alone from then on.
 */
function follows(following: Following, viewport: Viewport): boolean {
  if (!following.current || following.moving > 0 || !following.fitted) return following.current;
  const { x, y, zoom } = following.fitted;
  if (Math.abs(viewport.x - x) > 0.5 || Math.abs(viewport.y - y) > 0.5 || Math.abs(viewport.zoom - zoom) > 1e-3) {
    following.current = false;
  }
  return following.current;
}

/** The pane's size: the DOM knows it right after the details panel opened, React Flow's store soon after. */
function paneOf(state: { domNode: HTMLDivElement | null; width: number; height: number }) {
  const { domNode, width, height } = state;
  return {
    width: domNode?.clientWidth || width || window.innerWidth,
    height: domNode?.clientHeight || height || window.innerHeight,
  };
}

/** The canvas box of these sessions' nodes (tiles included). */
function boundsOfSessions(ids: ReadonlySet<string>) {
  const { nodes } = useSwitchboard.getState();
  return boundsOfBoxes(nodes.filter((n) => ids.has(n.id)).map((n) => ({ ...n.position, ...sizeOf(n.data.size) })));
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

/** The zoomed-out forms' text sizes ({@link farTextSizes}) as the CSS variables the elements read. */
function zoomedOutSizes(zoom: number): Record<string, string> {
  const { farTitle, farWord, stripTitle, regionLabel } = farTextSizes(zoom);
  return {
    "--far-title": `${farTitle}px`,
    "--far-word": `${farWord}px`,
    "--strip-title": `${stripTitle}px`,
    "--region-label": `${regionLabel}px`,
  };
}

function useZoomedOutSizes(): void {
  const flowStore = useStoreApi<CanvasNode>();
  const sizes = useStore((s) => JSON.stringify(zoomedOutSizes(s.transform[2])));
  useEffect(() => {
    const root = flowStore.getState().domNode;
    if (!root) return;
    for (const [name, value] of Object.entries(JSON.parse(sizes) as Record<string, string>)) {
      root.style.setProperty(name, value);
    }
  }, [sizes, flowStore]);
}

/** The layout follows the window's shape (not the pane's: the details panel must not reflow it). */
function useWindowPane(): void {
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const onResize = () => {
      clearTimeout(timer);
      timer = setTimeout(() => useSwitchboard.getState().setPane(windowPane()), 200);
    };
    window.addEventListener("resize", onResize);
    return () => {
      clearTimeout(timer);
      window.removeEventListener("resize", onResize);
    };
  }, []);
}

/** The canvas box of everything laid out: the regions and the nodes (dragged ones included). */
function boundsOfLayout(nodes: readonly SessionNodeType[], regions: readonly Region[]): Box | null {
  return boundsOfBoxes([...regions, ...nodes.map((n) => ({ ...n.position, ...sizeOf(n.data.size) }))]);
}

function layoutBounds(): Box | null {
  const { nodes, regions } = useSwitchboard.getState();
  return boundsOfLayout(nodes, regions);
}

/** The session whose tile an event happened in, if any. */
function tileOf(target: EventTarget | null): string | null {
  return (target as Element | null)?.closest?.(".session-tile")?.getAttribute("data-id") ?? null;
}

/** The session node the key was pressed on (reached with Tab), if any. */
function focusedNode(event: KeyboardEvent): string | null {
  return (event.target as Element | null)?.closest?.(CARD_SELECTOR)?.getAttribute("data-id") ?? null;
}

/** A session's focusable frame: its React Flow node, or its tile in a crowded region. */
const CARD_SELECTOR = ".react-flow__node-session, .session-tile";

/**
 * What a key acts on: the card the details panel shows — the ring is on it, and focus follows it
 * — else the card focus is on (reached with Tab, its panel closed with Esc).
 */
function targetOf(event: KeyboardEvent): string | null {
  return selectDetailsId(useSwitchboard.getState()) ?? focusedNode(event);
}

const NOTHING_SELECTED = "No card is selected: press n for the next one that needs you, or Tab / the arrows to pick one.";

/** Why a digit key cannot pick this option of the session, or `null` when it can. */
export function optionRefused(session: Session, option: number): string | null {
  if (!asking(session)) return `“${titleOf(session)}” is not asking a question.`;
  const why = cannotPick(session);
  if (why) return why;
  const count = Math.min(session.questions[0]?.options.length ?? 0, MAX_KEYED_OPTION);
  if (option > count) return count === 1 ? "This question has one option: press 1." : `This question has options 1–${count}.`;
  return null;
}

function cardElement(id: string): HTMLElement | null {
  const escaped = CSS.escape(id);
  return document.querySelector<HTMLElement>(
    `.react-flow__node-session[data-id="${escaped}"], .session-tile[data-id="${escaped}"]`,
  );
}

/**
 * Focus and selection are one card (issue 44.1): a card reached with Tab is selected (its panel
 * opens), and a selection moved by `n`, the arrows or a click takes focus along — unless focus is
 * in a field or the panel, where it stays. A selected card not drawn yet (out of view on a
 * crowded board) takes focus once the view has come to it; a stale focus is let go meanwhile.
 */
function useFocusFollowsSelection(reveal: (id: string, mode: "center" | "nudge") => void): void {
  useEffect(() => {
    let lastInput: "key" | "pointer" = "pointer";
    const onKey = () => (lastInput = "key");
    const onPointer = () => (lastInput = "pointer");
    const onFocusIn = (event: FocusEvent) => {
      // A press of the mouse focuses the node too; only a click selects (a drag must not).
      if (lastInput !== "key") return;
      const id = (event.target as Element | null)?.closest?.(CARD_SELECTOR)?.getAttribute("data-id");
      const store = useSwitchboard.getState();
      if (!id || selectDetailsId(store) === id || !store.sessions[id]) return;
      store.select(id);
      // Its panel opened beside it: keep the card in view, as a click does.
      requestAnimationFrame(() => reveal(id, "nudge"));
    };
    let frame = 0;
    const follow = (id: string, tries: number) => {
      cancelAnimationFrame(frame);
      const active = document.activeElement as HTMLElement | null;
      const onCard = active?.closest?.(CARD_SELECTOR) ?? null;
      // Focus in a field, a drawer or the panel stays there; the keys act on the selection anyway.
      if (active && active !== document.body && !onCard) return;
      if (onCard?.getAttribute("data-id") === id) return;
      const el = cardElement(id);
      if (el) {
        el.focus({ preventScroll: true });
        return;
      }
      if (onCard) active!.blur();
      if (tries > 0) frame = requestAnimationFrame(() => follow(id, tries - 1));
    };
    const unsubscribe = useSwitchboard.subscribe((state, previous) => {
      if (state.nodes === previous.nodes) return;
      const id = selectSelectedId(state);
      if (id != null && id !== selectSelectedId(previous)) follow(id, 30);
    });
    window.addEventListener("keydown", onKey, true);
    window.addEventListener("pointerdown", onPointer, true);
    document.addEventListener("focusin", onFocusIn);
    return () => {
      cancelAnimationFrame(frame);
      unsubscribe();
      window.removeEventListener("keydown", onKey, true);
      window.removeEventListener("pointerdown", onPointer, true);
      document.removeEventListener("focusin", onFocusIn);
    };
  }, [reveal]);
}

/**
 * Fit the whole board in the pane. The layout knows its box, so this needs no measuring: on
 * arrival the first frame that shows the sessions is already the fitted one.
 */
function useFit(following: Following): (animate: boolean) => void {
  const flow = useReactFlow<CanvasNode>();
  const flowStore = useStoreApi<CanvasNode>();
  return useCallback(
    (animate: boolean) => {
      const bounds = layoutBounds();
      if (!bounds) return;
      // Never below what keeps the lane's cards readable: the board scrolls instead.
      const { regions, pane } = useSwitchboard.getState();
      const floor = fitFloor(regions, pane, MIN_ZOOM);
      const viewport = fitViewport(bounds, paneOf(flowStore.getState()), floor);
      following.current = true;
      following.fitted = viewport;
      if (!animate) {
        void flow.setViewport(viewport);
        return;
      }
      // Gliding there: the view is between places until the glide is over.
      following.moving += 1;
      setTimeout(() => (following.moving -= 1), FIT_GLIDE_MS + 100);
      void flow.setViewport(viewport, { duration: FIT_GLIDE_MS });
    },
    [flow, flowStore, following],
  );
}

/** Focus requests (chips, `n`, notifications), fitting and keyboard shortcuts; inside React Flow. */
function CanvasEffects({ following }: { following: Following }) {
  const flow = useReactFlow<CanvasNode>();
  const flowStore = useStoreApi<CanvasNode>();
  const reveal = useReveal(following);
  const focus = useSwitchboard((s) => s.focus);
  const filled = useSwitchboard((s) => s.order.length > 0);
  const showMatches = useSwitchboard((s) => s.showMatches);
  const nodes = useSwitchboard((s) => s.nodes);
  const regions = useSwitchboard((s) => s.regions);
  const paneWidth = useStore((s) => s.width);
  const paneHeight = useStore((s) => s.height);
  useZoomedOutSizes();
  useWindowPane();
  useFocusFollowsSelection(reveal);

  const fit = useFit(following);
  const arrive = useCallback(() => fit(false), [fit]);
  useFitWhenFilled(filled, arrive);

  // Sessions came, went or moved: bring the board back into view if part of it left — or fit it
  // again when it got smaller than the view it was fitted to (a relayout for a new window shape,
  // sessions gone), which would leave an empty band beside it (issue 44.3).
  useEffect(() => {
    const viewport = flow.getViewport();
    if (!follows(following, viewport)) return;
    const bounds = boundsOfLayout(nodes, regions);
    if (!bounds) return;
    const pane = paneOf(flowStore.getState());
    if (!boxInView(bounds, viewport, pane)) {
      fit(true);
      return;
    }
    const { pane: window } = useSwitchboard.getState();
    const wanted = fitViewport(bounds, pane, fitFloor(regions, window, MIN_ZOOM));
    if (wanted.zoom > viewport.zoom * 1.05 || Math.abs(wanted.x - viewport.x) > 24) fit(true);
  }, [nodes, regions, flow, flowStore, fit, following]);

  // The window or the pane (the details panel opened or closed) changed size: fit it again.
  // (Not when it is first measured: the arrival's fit read the DOM's size.)
  const measured = useRef(false);
  useEffect(() => {
    const first = !measured.current;
    measured.current = paneWidth > 0 && paneHeight > 0;
    if (first || !measured.current) return;
    const timer = setTimeout(() => {
      if (follows(following, flow.getViewport())) fit(true);
    }, 60);
    return () => clearTimeout(timer);
  }, [paneWidth, paneHeight, fit, following, flow]);

  useEffect(() => {
    if (focus) reveal(focus.id, "center");
    // The pane size is read at the moment of the request; resizing must not re-pan.
  }, [focus, reveal]);

  // A chip turned on, or Enter in the filter: bring the matches into view.
  useEffect(() => {
    if (showMatches === 0) return;
    const { matches } = useSwitchboard.getState();
    if (!matches || matches.size === 0) return;
    const bounds = boundsOfSessions(matches);
    if (!bounds) return;
    // After the details panel (opened by the selection) has taken its share of the pane.
    following.current = false;
    const timer = setTimeout(() => void flow.fitBounds(bounds, { padding: FIT_PADDING, duration: 300 }), 80);
    return () => clearTimeout(timer);
  }, [showMatches, flow, following]);

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
          // The card the panel shows, else the one focus is on (the ring is on it either way).
          const id = targetOf(event);
          if (!id) {
            keyHint(NOTHING_SELECTED);
            break;
          }
          // Enter opens; Enter on the node whose details are open goes to its terminal.
          const open = selectDetailsId(store) === id;
          if (!open) store.select(id);
          store.openSession(id);
          if (open && !store.sessions[id]?.ended) void jump(id);
          break;
        }
        case "allow":
        case "deny": {
          const id = targetOf(event);
          const session = id ? store.sessions[id] : undefined;
          if (!session) {
            keyHint(NOTHING_SELECTED);
            break;
          }
          if (!canDecide(session)) {
            if (session.status === "blocked" && !session.ended) {
              noteNotHeld(session);
              keyHint(notHeldHint(session, useKnownSettings.getState().settings?.decide ?? null));
            } else keyHint(`“${titleOf(session)}” is not asking for permission.`);
            break;
          }
          if (shortcut === "allow" && !commandSeen(session)) {
            // Never Allow what has not been on screen whole: show its end, then `a` answers.
            if (selectDetailsId(store) !== id) store.select(id);
            requestAnimationFrame(() => revealCommandEnd(id!));
            keyHint("Read the command to its end first — it is now in view; press a again to allow it.");
            break;
          }
          void answer(session, shortcut);
          break;
        }
        case "option": {
          // The question of the card the panel shows (else the focused one).
          const id = targetOf(event);
          const session = id ? store.sessions[id] : undefined;
          const option = optionOf(event);
          if (option == null) return;
          if (!session) {
            keyHint(NOTHING_SELECTED);
            break;
          }
          const why = optionRefused(session, option);
          if (why) {
            keyHint(why);
            break;
          }
          void pickOption(session, option);
          break;
        }
        case "left":
        case "right":
        case "up":
        case "down": {
          const id = store.moveSelection(shortcut);
          if (!id) return;
          reveal(id, "nudge");
          break;
        }
        case "filter":
          store.setFilterOpen(true);
          // The filter field may already be open: focus it again.
          requestAnimationFrame(() => document.querySelector<HTMLInputElement>("[data-testid='filter-input']")?.focus());
          break;
        case "fit":
          fit(true);
          break;
        case "help":
          useShortcutSheet.getState().setOpen(true);
          break;
        case "close":
          // What opened last closes first: the drawer lies over the board and its panel.
          if (useConnections.getState().open) useConnections.getState().setOpen(false);
          else if (selectDetailsId(store) != null) store.closeDetails();
          else if (store.olderOpen) store.setOlderOpen(false);
          else if (store.filterOpen || store.matches) store.clearFilter();
          else return;
          break;
      }
      event.preventDefault();
    };
    window.addEventListener("keydown", onKeyDown);
    return () => window.removeEventListener("keydown", onKeyDown);
  }, [reveal, fit, following]);

  return null;
}

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
  const lastTiles = useRef<ReadonlyMap<string, readonly SessionNodeType[]>>(new Map());
  const tiles = useMemo(() => {
    const grouped = crowded ? groupTiles(sessionNodes, lastTiles.current) : new Map<string, readonly SessionNodeType[]>();
    lastTiles.current = grouped;
    return grouped;
  }, [crowded, sessionNodes]);
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
  const following = useRef<Following>({ current: true, fitted: null, moving: 0 }).current;
  const reveal = useReveal(following);
  // A pan or zoom by hand (wheel, drag, pinch, the minimap): the user chose where to look.
  const onMove = useCallback<OnMove>(
    (event) => {
      if (event) following.current = false;
    },
    [following],
  );
  const byHand = useCallback(() => {
    following.current = false;
  }, [following]);
  const fit = useFit(following);
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
      <CanvasEffects following={following} />
    </ReactFlow>
  );
}
