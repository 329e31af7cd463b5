// A crowded region zoomed out, drawn on one <canvas>: each session painted in the light tile's
// look (tone stripe, status disc, agent letter, title, unread dot), and repainted alone when its
// own session changes. Hit-testing gives the painted tiles a tile's click, hover (tooltip and a
// ring) and drag. What a thousand sessions cost zoomed out: a dozen canvases, not a thousand
// elements to lay out, style and paint.
import "./TileCanvas.css";
import { memo, useLayoutEffect, useRef, useState, type MouseEvent, type PointerEvent } from "react";
import { useStore, useStoreApi } from "@xyflow/react";
import type { Session } from "../bindings/Session";
import { useSwitchboard } from "../state/store";
import { tileTooltip } from "../card/SessionNode";
import { startTileDrag } from "./SessionTile";
import { benchTiming } from "../state/sync";
import { useTheme } from "../state/theme";
import { forgetPalettes, lookOf, paintTile, samePaint, type Look, type Painted } from "./tilePaint";
import { type SessionNodeType } from "../state/data";
import { sizeOf, ZOOM_COMPACT, type NodeSize, type XY } from "./geometry";

/** The canvas's backing store is drawn for the zoom in steps of this: a wheel step repaints rarely. */
const ZOOM_STEP = 0.1;
/** At most this many backing pixels per canvas (4 bytes each): a huge region near the compact zoom is drawn softer, not bigger. */
const MAX_PIXELS = 3_000_000;

/** The zoom a canvas is painted for: the view's, rounded up to a {@link ZOOM_STEP}, at most the compact threshold. */
export function paintZoom(zoom: number): number {
  return Math.min(ZOOM_COMPACT, Math.max(ZOOM_STEP, Math.ceil(zoom / ZOOM_STEP - 1e-6) * ZOOM_STEP));
}

/** Backing pixels per canvas pixel for a region of this size. */
export function backingScale(zoom: number, width: number, height: number, dpr: number): number {
  const wanted = paintZoom(zoom) * dpr;
  const area = Math.max(1, width * height);
  return Math.min(wanted, Math.sqrt(MAX_PIXELS / area));
}

/** The tile under a point (canvas coordinates), among those painted. */
export function tileAt(tiles: readonly SessionNodeType[], point: XY): SessionNodeType | null {
  for (const tile of tiles) {
    const { width, height } = sizeOf(tile.data.size);
    const { x, y } = tile.position;
    if (point.x >= x && point.x < x + width && point.y >= y && point.y < y + height) return tile;
  }
  return null;
}

/** Tiles painted on the canvas: not the selected or dragged one (those are DOM tiles above it). */
export function paintedTiles(tiles: readonly SessionNodeType[]): SessionNodeType[] {
  return tiles.filter((tile) => !tile.selected && !tile.dragging);
}

/**
 * A tile drawn once into its own small canvas, at the backing scale, and copied to the region's
 * canvas wherever the tile is: a tile that only moved (the lane or its project reflowed) costs a
 * copy, not its text again.
 */
type Sprite = { session: Session; dimmed: boolean; size: NodeSize; image: HTMLCanvasElement };

function spriteSize(size: NodeSize, scale: number): { width: number; height: number } {
  const { width, height } = sizeOf(size);
  return { width: Math.max(1, Math.ceil(width * scale)), height: Math.max(1, Math.ceil(height * scale)) };
}

/** Sprites of tiles that left their canvas, for the next new tile anywhere (a canvas element is not free). */
const spare: HTMLCanvasElement[] = [];
const SPARE_MAX = 64;

function retire(sprite: Sprite | undefined): void {
  if (sprite && spare.length < SPARE_MAX) spare.push(sprite.image);
}

function spriteOf(id: string, tile: Painted, sprites: Map<string, Sprite>, look: Look, scale: number): HTMLCanvasElement | null {
  const known = sprites.get(id);
  if (known && known.session === tile.session && known.dimmed === tile.dimmed && known.size === tile.size) return known.image;
  const image = known?.image ?? spare.pop() ?? document.createElement("canvas");
  const { width, height } = spriteSize(tile.size, scale);
  // Setting the size clears it.
  image.width = width;
  image.height = height;
  const ctx = image.getContext("2d", { willReadFrequently: true });
  if (!ctx) return null;
  ctx.setTransform(scale, 0, 0, scale, 0, 0);
  paintTile(ctx, { ...tile, x: 0, y: 0 }, look);
  sprites.set(id, { session: tile.session, dimmed: tile.dimmed, size: tile.size, image });
  return image;
}

/** Where a tile's sprite goes on the region's canvas, in whole backing pixels (copied 1:1). */
function spriteBox(tile: Painted, scale: number) {
  return { x: Math.round(tile.x * scale), y: Math.round(tile.y * scale), ...spriteSize(tile.size, scale) };
}

/** Counts by status word, for the canvas's accessible name: "Project: 12 Working, 3 Done". */
function summary(label: string, painted: readonly Painted[]): string {
  const counts = new Map<string, number>();
  for (const { session } of painted) {
    const word = session.badge.word;
    counts.set(word, (counts.get(word) ?? 0) + 1);
  }
  return `${label}: ${[...counts].map(([word, n]) => `${n} ${word}`).join(", ")}`;
}

/** Changes when the theme does (Settings → Appearance, or the system's): the tiles repaint. */
function usePrefersDark(): number {
  const theme = useTheme((s) => s.theme);
  const [seen, setSeen] = useState(theme);
  const [version, setVersion] = useState(0);
  if (seen !== theme) {
    forgetPalettes();
    setSeen(theme);
    setVersion((n) => n + 1);
  }
  return version;
}

type Props = {
  label: string;
  /** The region's sessions, placed on the canvas (absolute positions). */
  tiles: readonly SessionNodeType[];
  sessions: Record<string, Session> | null;
  matches: ReadonlySet<string> | null;
  /** The region's top-left corner and size on the canvas. */
  origin: XY;
  width: number;
  height: number;
};

export const TileCanvas = memo(function TileCanvas({ label, tiles, sessions, matches, origin, width, height }: Props) {
  const canvas = useRef<HTMLCanvasElement>(null);
  const flowStore = useStoreApi();
  // A boolean-like selector: this draws again only when the zoom crosses a step.
  const zoom = useStore((s) => paintZoom(s.transform[2]));
  const theme = usePrefersDark();
  const painted = useRef<{ key: string; tiles: Map<string, Painted> } | null>(null);
  const sprites = useRef<Map<string, Sprite> & { look?: string }>(new Map()).current;
  const [hover, setHover] = useState<SessionNodeType | null>(null);
  const dragged = useRef(false);
  const scale = backingScale(zoom, width, height, window.devicePixelRatio || 1);
  const pixelWidth = Math.max(1, Math.ceil(width * scale));
  const pixelHeight = Math.max(1, Math.ceil(height * scale));
  const onCanvas = paintedTiles(tiles);

  useLayoutEffect(() => {
    const element = canvas.current;
    if (!element || !sessions) return;
    const timing = benchTiming();
    const started = timing?.paint ? performance.now() : 0;
    const wanted = new Map<string, Painted>();
    for (const tile of onCanvas) {
      const session = sessions[tile.id];
      if (!session) continue;
      const dimmed = matches != null && !matches.has(tile.id);
      wanted.set(tile.id, { session, dimmed, x: tile.position.x - origin.x, y: tile.position.y - origin.y, size: tile.data.size });
    }
    // Attributes only when they change: a write is work for the page (and its accessibility tree).
    const name = summary(label, [...wanted.values()]);
    if (element.getAttribute("aria-label") !== name) element.setAttribute("aria-label", name);
    if (element.dataset.count !== String(wanted.size)) element.dataset.count = String(wanted.size);
    // How many are painted lit (the filter fades the rest): what a test can read of the filter.
    let lit = 0;
    for (const tile of wanted.values()) if (!tile.dimmed) lit++;
    if (element.dataset.lit !== String(lit)) element.dataset.lit = String(lit);
    let ctx: CanvasRenderingContext2D | null = null;
    try {
      // A canvas in CPU memory: WebKit otherwise draws it on the GPU (Mesa's software one
      // without a GPU) and reads it all back for every paint of a page without compositing.
      ctx = element.getContext("2d", { willReadFrequently: true });
    } catch {
      ctx = null;
    }
    if (!ctx) return;
    // What every sprite depends on (the scale, the zoom the text is sized for, the theme), and
    // what every pixel does (those and the backing size: a region that grew is drawn again
    // from the sprites it has).
    const look = `${scale}:${zoom}:${theme}`;
    const key = `${pixelWidth}x${pixelHeight}@${look}`;
    const last = painted.current;
    let colors: Look | null = null;
    const cache = sprites;
    if (sprites.look !== look) {
      for (const sprite of cache.values()) retire(sprite);
      cache.clear();
      sprites.look = look;
    }
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    const draw = (id: string, tile: Painted) => {
      colors ??= lookOf(element, zoom);
      const image = spriteOf(id, tile, cache, colors, scale);
      if (!image) return;
      const box = spriteBox(tile, scale);
      ctx.drawImage(image, box.x, box.y);
    };
    if (!last || last.key !== key) {
      ctx.clearRect(0, 0, pixelWidth, pixelHeight);
      for (const [id, tile] of wanted) draw(id, tile);
    } else {
      // Only the tiles whose own session (or place, or filter) changed: first every stale box
      // is cleared, then the new ones drawn (a tile may move into a box another left).
      for (const [id, old] of last.tiles) {
        const now = wanted.get(id);
        if (now && samePaint(old, now)) continue;
        const box = spriteBox(old, scale);
        ctx.clearRect(box.x, box.y, box.width, box.height);
        if (!now) {
          retire(cache.get(id));
          cache.delete(id);
        }
      }
      for (const [id, now] of wanted) {
        const old = last.tiles.get(id);
        if (!old || !samePaint(old, now)) draw(id, now);
      }
    }
    painted.current = { key, tiles: wanted };
    if (element.dataset.painted !== String(wanted.size)) element.dataset.painted = String(wanted.size);
    timing?.paint?.(performance.now() - started);
  });

  /** The painted tile under the pointer. */
  const hit = (event: { clientX: number; clientY: number }): SessionNodeType | null => {
    const box = canvas.current?.getBoundingClientRect();
    if (!box || box.width <= 0 || box.height <= 0) return null;
    const point = {
      x: origin.x + ((event.clientX - box.left) * width) / box.width,
      y: origin.y + ((event.clientY - box.top) * height) / box.height,
    };
    return tileAt(onCanvas, point);
  };

  /** Over a tile the canvas is the tile's (no pan); elsewhere a press pans the board. */
  const point = (event: PointerEvent<HTMLCanvasElement>): SessionNodeType | null => {
    const tile = hit(event);
    const element = event.currentTarget;
    element.classList.toggle("nopan", tile != null);
    element.dataset.hit = tile?.id ?? "";
    const session = tile && sessions?.[tile.id];
    element.title = session ? tileTooltip(session, Date.now()) : "";
    if ((tile?.id ?? null) !== (hover?.id ?? null)) setHover(tile);
    return tile;
  };

  const onPointerDown = (event: PointerEvent<HTMLCanvasElement>) => {
    const tile = point(event);
    if (event.button !== 0 || !tile) return;
    startTileDrag(event, tile.id, tile.position, flowStore.getState().transform[2] || 1, dragged);
  };

  const onClick = (event: MouseEvent<HTMLCanvasElement>) => {
    // The end of a drag is not a click.
    if (dragged.current) {
      dragged.current = false;
      event.stopPropagation();
      return;
    }
    const tile = hit(event);
    if (!tile) return;
    event.currentTarget.dataset.hit = tile.id;
    const store = useSwitchboard.getState();
    store.select(tile.id);
    store.openSession(tile.id);
  };

  const ring = hover && onCanvas.includes(hover) ? hover : null;
  const ringSize = ring ? sizeOf(ring.data.size) : null;
  return (
    <>
      <canvas
        ref={canvas}
        className="tile-canvas"
        data-testid="tile-canvas"
        role="img"
        width={pixelWidth}
        height={pixelHeight}
        style={{ width, height }}
        onPointerDown={onPointerDown}
        onPointerMove={point}
        onPointerLeave={() => setHover(null)}
        onClick={onClick}
      />
      {ring && ringSize && (
        <div
          className="tile-hover"
          style={{
            width: ringSize.width,
            height: ringSize.height,
            transform: `translate(${ring.position.x - origin.x}px, ${ring.position.y - origin.y}px)`,
          }}
        />
      )}
    </>
  );
});
