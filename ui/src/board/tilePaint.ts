// Painting one light tile on a region's canvas (issue 26): the page's colours and fonts read
// once per scheme, and the tile drawn as its light element would be. `TileCanvas.tsx` places the
// sprites and handles the pointer.
import type { Session } from "../bindings/Session";
import { titleOf } from "../shared/sessionLabels";
import { agentLetter } from "../shared/icons";
import { farTextSizes, sizeOf, type NodeSize } from "./geometry";

/** What one tile was painted from: repainted when any of it changes. */
export type Painted = { session: Session; dimmed: boolean; x: number; y: number; size: NodeSize };

export function samePaint(a: Painted, b: Painted): boolean {
  return a.session === b.session && a.dimmed === b.dimmed && a.x === b.x && a.y === b.y && a.size === b.size;
}

/** Colours and fonts for one paint, read from the page's CSS (light or dark). */
export type Look = {
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
const PALETTE = ["surface", "border", "text", "text-3", "accent", "unread", ...TONES.flatMap((t) => [`c-${t}`, `c-${t}-ink`])];
const palettes = new Map<string, { color: (name: string) => string; font: string }>();

/** Forgets the colours read (the page's scheme changed). */
export function forgetPalettes(): void {
  palettes.clear();
}

function paletteOf(element: Element) {
  const key = document.documentElement.dataset.theme === "dark" ? "dark" : "light";
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

export function lookOf(element: Element, zoom: number): Look {
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

/**
 * Text cut to `max` canvas pixels with one ellipsis (a guess from the width, then a step or two),
 * at a word's end when one fits (issue 44.3: never "Migrate the Button co…").
 */
export function fitText(ctx: Pick<CanvasRenderingContext2D, "measureText">, text: string, max: number): string {
  const full = ctx.measureText(text).width;
  if (full <= max) return text;
  // An ellipsis the title already had is not doubled.
  const bare = text.replace(/(…|\.\.\.)$/, "");
  let chars = Math.max(0, Math.floor((bare.length * max) / full) - 1);
  let out = `${bare.slice(0, chars).trimEnd()}…`;
  while (chars > 0 && ctx.measureText(out).width > max) {
    chars--;
    out = `${bare.slice(0, chars).trimEnd()}…`;
  }
  // Back to the last whole word, if the cut fell inside one.
  if (chars > 0 && chars < bare.length && bare[chars] !== " ") {
    const space = bare.lastIndexOf(" ", chars);
    if (space > 0) out = `${bare.slice(0, space).trimEnd()}…`;
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
export function paintTile(ctx: CanvasRenderingContext2D, tile: Painted, look: Look): void {
  const { session, x, y } = tile;
  const { width: w, height: h } = sizeOf(tile.size);
  const badge = session.badge;
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
    ctx.fillStyle = look.color("unread");
    ctx.fill();
  }
  ctx.restore();
}

