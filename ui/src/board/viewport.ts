// The board's viewport moves: fit the layout, reveal a session, follow the window's shape, and
// whether the user has taken the view over by hand (then the board stops following).
import { useCallback, useEffect, useRef, type RefObject } from "react";
import { useReactFlow, useStore, useStoreApi } from "@xyflow/react";
import { type RegionNodeType } from "./RegionNode";
import { useSwitchboard } from "../state/store";
import { type Region } from "./layout";
import { type SessionNodeType } from "../state/data";
import { boundsOfBoxes, farTextSizes, sizeOf, windowPane, type Box } from "./geometry";
import { fitFloor, fitViewport, type Viewport } from "./fit";

export type CanvasNode = SessionNodeType | RegionNodeType;
export const MIN_ZOOM = 0.1;
const FIT_GLIDE_MS = 250;

/**
 * Bring a node into view. "center": pan (and zoom to a readable size) so it sits in the middle,
 * for focus requests on a node out of view; "nudge": the smallest pan that uncovers it, for a
 * click whose details panel now hides it, or a focused node that is partly in view. Nothing
 * moves when the node is already in view: calm over clever.
 */
export function useReveal(followRef: RefObject<Following>) {
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
        if (visible || follows(followRef.current, { x, y, zoom })) return;
        const dx = left < margin ? margin - left : right > paneWidth - margin ? paneWidth - margin - right : 0;
        const dy = top < margin ? margin - top : bottom > paneHeight - margin ? paneHeight - margin - bottom : 0;
        void flow.setViewport({ x: x + dx, y: y + dy, zoom }, { duration: 250 });
        return;
      }
      if (visible && zoom >= 0.6) return;
      followRef.current.on = false;
      const nextZoom = Math.min(Math.max(zoom, 0.9), 1.25);
      const cx = node.position.x + width / 2;
      const cy = node.position.y + height / 2;
      void flow.setViewport(
        { x: paneWidth / 2 - cx * nextZoom, y: paneHeight / 2 - cy * nextZoom, zoom: nextZoom },
        { duration: 350 },
      );
    },
    [flow, flowStore, followRef],
  );
}

/**
 * Whether the board follows its content: fitted when sessions arrive, when the window or the
 * pane changes size (the details panel opening) and when part of it leaves the view — until the
 * user pans or zooms by hand or asks for one node or the filter's matches; `f` starts it again.
 */
export type Following = {
  /** Fitting on its own still (the user has not taken the view over). */
  on: boolean;
  /** Where the last fit put the view, and how many fits are still gliding there. */
  fitted: Viewport | null;
  /** The pane size the last fit was made for: a window first shown at another size (it is
   * created hidden, and a hidden page has no size of its own) is fitted again once measured. */
  fittedFor?: { width: number; height: number };
  moving: number;
};

/**
 * Whether the board still follows: a view that is not where the last fit left it (nothing
 * gliding) was moved by something else — the user, a reveal — and is left alone from then on.
 */
export function follows(following: Following, viewport: Viewport): boolean {
  if (!following.on || following.moving > 0 || !following.fitted) return following.on;
  const { x, y, zoom } = following.fitted;
  if (Math.abs(viewport.x - x) > 0.5 || Math.abs(viewport.y - y) > 0.5 || Math.abs(viewport.zoom - zoom) > 1e-3) {
    following.on = false;
  }
  return following.on;
}

/** The pane's size: the DOM knows it right after the details panel opened, React Flow's store soon after. */
export function paneOf(state: { domNode: HTMLDivElement | null; width: number; height: number }) {
  const { domNode, width, height } = state;
  return {
    width: domNode?.clientWidth || width || window.innerWidth,
    height: domNode?.clientHeight || height || window.innerHeight,
  };
}

/** The canvas box of these sessions' nodes (tiles included). */
export function boundsOfSessions(ids: ReadonlySet<string>) {
  const { nodes } = useSwitchboard.getState();
  return boundsOfBoxes(nodes.filter((n) => ids.has(n.id)).map((n) => ({ ...n.position, ...sizeOf(n.data.size) })));
}

/**
 * Fit the view when sessions arrive on an empty canvas (at start-up or after it emptied), and
 * only then: refitting on every change would fight the user's panning.
 */
export function useFitWhenFilled(filled: boolean, fit: () => void): void {
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

export function useZoomedOutSizes(): void {
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
export function useWindowPane(): void {
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const onResize = () => {
      clearTimeout(timer);
      timer = setTimeout(() => useSwitchboard.getState().setPane(windowPane()), 200);
    };
    // The window is created hidden and shown once the first board is drawn: the layout made
    // before then had no window size to go by, so it takes the real one as the window shows.
    const onShown = () => {
      if (!document.hidden) useSwitchboard.getState().setPane(windowPane());
    };
    window.addEventListener("resize", onResize);
    document.addEventListener("visibilitychange", onShown);
    return () => {
      clearTimeout(timer);
      window.removeEventListener("resize", onResize);
      document.removeEventListener("visibilitychange", onShown);
    };
  }, []);
}

/** The canvas box of everything laid out: the regions and the nodes (dragged ones included). */
export function boundsOfLayout(nodes: readonly SessionNodeType[], regions: readonly Region[]): Box | null {
  return boundsOfBoxes([...regions, ...nodes.map((n) => ({ ...n.position, ...sizeOf(n.data.size) }))]);
}

function layoutBounds(): Box | null {
  const { nodes, regions } = useSwitchboard.getState();
  return boundsOfLayout(nodes, regions);
}

/**
 * Fit the whole board in the pane. The layout knows its box, so this needs no measuring: on
 * arrival the first frame that shows the sessions is already the fitted one.
 */
export function useFit(followRef: RefObject<Following>): (animate: boolean) => void {
  const flow = useReactFlow<CanvasNode>();
  const flowStore = useStoreApi<CanvasNode>();
  return useCallback(
    (animate: boolean) => {
      const bounds = layoutBounds();
      if (!bounds) return;
      // Never below what keeps the lane's cards readable: the board scrolls instead.
      const { regions, pane } = useSwitchboard.getState();
      const floor = fitFloor(regions, pane, MIN_ZOOM);
      const into = paneOf(flowStore.getState());
      const viewport = fitViewport(bounds, into, floor);
      followRef.current.on = true;
      followRef.current.fitted = viewport;
      followRef.current.fittedFor = into;
      if (!animate) {
        void flow.setViewport(viewport);
        return;
      }
      // Gliding there: the view is between places until the glide is over.
      followRef.current.moving += 1;
      setTimeout(() => (followRef.current.moving -= 1), FIT_GLIDE_MS + 100);
      void flow.setViewport(viewport, { duration: FIT_GLIDE_MS });
    },
    [flow, flowStore, followRef],
  );
}

