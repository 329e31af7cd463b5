// A crowded region zoomed out, drawn on one <canvas>: each session painted in the light tile's
// look (tone stripe, status disc, agent letter, title, unread dot), and repainted alone when its
// own session changes. Hit-testing gives the painted tiles a tile's click, hover (tooltip and a
// ring) and drag. What a thousand sessions cost zoomed out: a dozen canvases, not a thousand
// elements to lay out, style and paint.
import { memo, useEffect, useLayoutEffect, useRef, useState, type MouseEvent, type PointerEvent } from "react";
import { useStore, useStoreApi } from "@xyflow/react";
import type { Session } from "./bindings/Session";
import { badgeOf } from "./status";
import { titleOf } from "./sessionLabels";
import { agentLetter } from "./icons";
import { farTextSizes, sizeOf, ZOOM_COMPACT, type NodeSize, type XY } from "./layout";
import { useSwitchboard, type SessionNodeType } from "./store";
import { startTileDrag, tileTooltip } from "./SessionNode";
import { benchTiming } from "./sync";

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

/** What one tile was painted from: repainted when any of it changes. */
type Painted = { session: Session; dimmed: boolean; x: number; y: number; size: NodeSize };

function samePaint(a: Painted, b: Painted): boolean {
  return a.session === b.session && a.dimmed === b.dimmed && a.x === b.x && a.y === b.y && a.size === b.size;
}

/** Colours and fonts for one paint, read from the page's CSS (light or dark). */
type Look = {
  color: (name: string) => string;
  font: string;
  /** Text sizes in canvas pixels, as the elements' (`farTextSizes`). */
  stripTitle: number;
  farWord: number;
  farTitle: number;
};

/**
 * The page's colours and font, read once per colour scheme: reading computed style in the middle
 * of React's commit would make WebKit recompute the page's style, once per canvas, per change.
 */
const TONES = ["working", "waiting", "blocked", "done", "error", "interrupted", "idle"];
const PALETTE = ["surface", "border", "text", "text-3", "accent", ...TONES.flatMap((t) => [`c-${t}`, `c-${t}-ink`])];
const palettes = new Map<string, { color: (name: string) => string; font: string }>();

function paletteOf(element: Element) {
  const dark = typeof window.matchMedia === "function" && window.matchMedia("(prefers-color-scheme: dark)").matches;
  const key = dark ? "dark" : "light";
  let palette = palettes.get(key);
  if (!palette) {
    // All at once: a computed style read later would be live (and recompute the page's style).
    const style = getComputedStyle(element);
    const colors = new Map<string, string>();
    for (const name of PALETTE) colors.set(name, style.getPropertyValue(`--${name}`).trim() || "#888");
    palette = { color: (name: string) => colors.get(name) ?? "#888", font: style.fontFamily || "sans-serif" };
    palettes.set(key, palette);
  }
  return palette;
}

function lookOf(element: Element, zoom: number): Look {
  const { color, font } = paletteOf(element);
  const { stripTitle, farWord, farTitle } = farTextSizes(zoom);
  return { color, font, stripTitle, farWord, farTitle };
}

function roundedRect(ctx: CanvasRenderingContext2D, x: number, y: number, w: number, h: number, r: number): void {
  ctx.beginPath();
  ctx.moveTo(x + r, y);
  ctx.arcTo(x + w, y, x + w, y + h, r);
  ctx.arcTo(x + w, y + h, x, y + h, r);
  ctx.arcTo(x, y + h, x, y, r);
  ctx.arcTo(x, y, x + w, y, r);
  ctx.closePath();
}

/** Text cut to `max` canvas pixels with an ellipsis (a guess from the width, then a step or two). */
function fitText(ctx: CanvasRenderingContext2D, text: string, max: number): string {
  const full = ctx.measureText(text).width;
  if (full <= max) return text;
  let chars = Math.max(0, Math.floor((text.length * max) / full) - 1);
  let out = `${text.slice(0, chars).trimEnd()}…`;
  while (chars > 0 && ctx.measureText(out).width > max) {
    chars--;
    out = `${text.slice(0, chars).trimEnd()}…`;
  }
  return out;
}

/** The first line of `text` that fits `max`, and the rest. */
function firstLine(ctx: CanvasRenderingContext2D, text: string, max: number): [string, string] {
  if (ctx.measureText(text).width <= max) return [text, ""];
  const words = text.split(" ");
  let line = "";
  for (let i = 0; i < words.length; i++) {
    const next = line ? `${line} ${words[i]}` : words[i]!;
    if (ctx.measureText(next).width > max) {
      if (!line) return [fitText(ctx, text, max), ""];
      return [line, words.slice(i).join(" ")];
    }
    line = next;
  }
  return [line, ""];
}

/** The status disc with its glyph, as the light tile's CSS draws it. */
function statusDisc(ctx: CanvasRenderingContext2D, tone: string, cx: number, cy: number, d: number, look: Look): void {
  const r = d / 2;
  const hollow = tone === "idle" || tone === "interrupted";
  ctx.beginPath();
  ctx.arc(cx, cy, r, 0, Math.PI * 2);
  if (hollow) {
    ctx.lineWidth = Math.max(1, d * 0.11);
    ctx.strokeStyle = look.color(`c-${tone}`);
    ctx.stroke();
  } else {
    ctx.fillStyle = look.color(`c-${tone}`);
    ctx.fill();
  }
  const ink = hollow ? look.color(`c-${tone}`) : look.color("surface");
  ctx.fillStyle = ink;
  if (tone === "blocked") {
    // The padlock: a body and a shackle.
    const w = d * 0.42;
    const h = d * 0.32;
    ctx.fillRect(cx - w / 2, cy - h * 0.15, w, h);
    ctx.beginPath();
    ctx.lineWidth = Math.max(1, d * 0.08);
    ctx.strokeStyle = ink;
    ctx.arc(cx, cy - h * 0.15, w * 0.3, Math.PI, 0);
    ctx.stroke();
    return;
  }
  const glyph: Record<string, string> = { working: "▶", waiting: "?", done: "✓", error: "!", idle: "–", interrupted: "‖" };
  const mark = glyph[tone];
  if (!mark) return;
  ctx.font = `700 ${Math.round(d * (tone === "working" ? 0.45 : 0.66))}px ${look.font}`;
  ctx.textAlign = "center";
  ctx.fillText(mark, cx + (tone === "working" ? d * 0.05 : 0), cy + d * 0.03);
  ctx.textAlign = "left";
}

/** The agent's letter in a rounded box; returns its width. */
function agentBox(ctx: CanvasRenderingContext2D, agent: string, x: number, cy: number, em: number, look: Look): number {
  const side = em * 1.3;
  ctx.lineWidth = Math.max(1, em * 0.09);
  ctx.strokeStyle = look.color("text-3");
  roundedRect(ctx, x, cy - side / 2, side, side, em * 0.32);
  ctx.stroke();
  ctx.fillStyle = look.color("text-3");
  ctx.font = `700 ${Math.round(em)}px ${look.font}`;
  ctx.textAlign = "center";
  ctx.fillText(agentLetter(agent), x + side / 2, cy + em * 0.05);
  ctx.textAlign = "left";
  return side;
}

/** One tile, in canvas pixels relative to the region. */
function paintTile(ctx: CanvasRenderingContext2D, tile: Painted, look: Look): void {
  const { session, x, y } = tile;
  const { width: w, height: h } = sizeOf(tile.size);
  const badge = badgeOf(session, 0);
  const tone = badge.tone;
  const strip = tile.size === "strip";
  const unreachable = session.unreachableSince != null;
  ctx.save();
  ctx.globalAlpha = tile.dimmed ? 0.18 : session.ended ? 0.5 : unreachable ? 0.72 : 1;
  ctx.textBaseline = "middle";
  roundedRect(ctx, x + 0.5, y + 0.5, w - 1, h - 1, strip ? 10 : 12);
  ctx.fillStyle = look.color("surface");
  ctx.fill();
  const needsYou = !session.ended && (session.status === "blocked" || session.status === "waiting");
  ctx.lineWidth = needsYou && !strip ? 2 : 1;
  ctx.strokeStyle = needsYou && !strip ? look.color(`c-${tone}`) : look.color(unreachable ? "text-3" : "border");
  if (unreachable) ctx.setLineDash([6, 4]);
  ctx.stroke();
  ctx.setLineDash([]);
  if (strip) {
    // The tone stripe down the left edge, inside the rounded corners.
    ctx.save();
    ctx.clip();
    ctx.fillStyle = look.color(`c-${tone}`);
    ctx.fillRect(x, y, 4, h);
    ctx.restore();
    const size = look.stripTitle;
    const cy = y + h / 2;
    const disc = size * 1.05;
    statusDisc(ctx, tone, x + 12 + disc / 2, cy, disc, look);
    let left = x + 12 + disc + 5;
    left += agentBox(ctx, session.agent, left, cy, size * 0.58, look) + 5;
    ctx.font = `600 ${size}px ${look.font}`;
    ctx.fillStyle = look.color("text");
    const right = x + w - (session.unread ? 22 : 12);
    ctx.fillText(fitText(ctx, titleOf(session), right - left), left, cy + size * 0.04);
  } else {
    const word = look.farWord;
    const cy = y + 10 + word * 0.8;
    const disc = word * 1.3;
    statusDisc(ctx, tone, x + 12 + disc / 2, cy, disc, look);
    let left = x + 12 + disc + 7;
    left += agentBox(ctx, session.agent, left, cy, word * 0.78, look) + 7;
    ctx.font = `650 ${word}px ${look.font}`;
    ctx.fillStyle = look.color(`c-${tone}-ink`);
    const right = x + w - (session.unread ? 24 : 12);
    ctx.fillText(fitText(ctx, badge.word, right - left), left, cy);
    const size = look.farTitle;
    ctx.font = `600 ${size}px ${look.font}`;
    ctx.fillStyle = look.color("text");
    const max = w - 24;
    const [first, rest] = firstLine(ctx, titleOf(session), max);
    const top = cy + word * 0.8 + 4 + size * 0.56;
    ctx.fillText(first, x + 12, top);
    if (rest && top + size * 1.12 < y + h - 6) ctx.fillText(fitText(ctx, rest, max), x + 12, top + size * 1.12);
  }
  if (session.unread) {
    ctx.beginPath();
    ctx.arc(x + w - 11, y + 11, 6, 0, Math.PI * 2);
    ctx.fillStyle = look.color("accent");
    ctx.fill();
  }
  ctx.restore();
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
    const word = badgeOf(session, 0).word;
    counts.set(word, (counts.get(word) ?? 0) + 1);
  }
  return `${label}: ${[...counts].map(([word, n]) => `${n} ${word}`).join(", ")}`;
}

function usePrefersDark(): number {
  const [theme, setTheme] = useState(0);
  useEffect(() => {
    const query = typeof window.matchMedia === "function" ? window.matchMedia("(prefers-color-scheme: dark)") : null;
    if (!query) return;
    const onChange = () => {
      palettes.clear();
      setTheme((n) => n + 1);
    };
    query.addEventListener("change", onChange);
    return () => query.removeEventListener("change", onChange);
  }, []);
  return theme;
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
