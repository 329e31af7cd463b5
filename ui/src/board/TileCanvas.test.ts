// The canvas a crowded region is painted on: drawn for the zoom in steps, never bigger than its
// pixel budget, and the tile under a point found among those painted.
import { describe, expect, it } from "vitest";
import { backingScale, paintedTiles, paintZoom, tileAt } from "./TileCanvas";
import type { SessionNodeType } from "../state/data";
import { fitText } from "./tilePaint";
import { ZOOM_COMPACT } from "./geometry";

function tile(id: string, x: number, y: number, extra: Partial<SessionNodeType> = {}): SessionNodeType {
  return { id, type: "session", position: { x, y }, data: { size: "strip", region: "r" }, ...extra } as SessionNodeType;
}

describe("the painted region", () => {
  it("is painted for the zoom rounded up to a step, at most the compact threshold", () => {
    expect(paintZoom(0.13)).toBeCloseTo(0.2);
    expect(paintZoom(0.2)).toBeCloseTo(0.2);
    expect(paintZoom(0.01)).toBeCloseTo(0.1);
    expect(paintZoom(0.79)).toBeCloseTo(ZOOM_COMPACT);
    expect(paintZoom(5)).toBeCloseTo(ZOOM_COMPACT);
  });

  it("keeps its backing store within the pixel budget: a huge region near the threshold is drawn softer", () => {
    expect(backingScale(0.15, 2000, 1000, 1)).toBeCloseTo(0.2);
    expect(backingScale(0.15, 2000, 1000, 2)).toBeCloseTo(0.4);
    const huge = backingScale(0.75, 8000, 4000, 1);
    expect(huge).toBeLessThan(0.8);
    expect(8000 * 4000 * huge * huge).toBeLessThanOrEqual(3_000_000 + 1);
  });

  it("finds the painted tile under a point; the selected or dragged one is not painted", () => {
    const tiles = [tile("a", 0, 0), tile("b", 296, 0), tile("c", 0, 56, { selected: true }), tile("d", 296, 56, { dragging: true })];
    const painted = paintedTiles(tiles);
    expect(painted.map((t) => t.id)).toEqual(["a", "b"]);
    expect(tileAt(painted, { x: 10, y: 10 })?.id).toBe("a");
    expect(tileAt(painted, { x: 300, y: 45 })?.id).toBe("b");
    // In the gap between two tiles, below a strip, or on an element above the canvas: none.
    expect(tileAt(painted, { x: 280, y: 10 })).toBeNull();
    expect(tileAt(painted, { x: 10, y: 50 })).toBeNull();
    expect(tileAt(painted, { x: 10, y: 60 })).toBeNull();
  });
});

describe("painted titles are cut at a word (issue 44.3)", () => {
  // One canvas pixel per character: what fits is plain to read.
  const ctx = { measureText: (text: string) => ({ width: text.length }) as TextMetrics };

  it("cuts after the last whole word that fits, with one ellipsis", () => {
    expect(fitText(ctx, "Migrate the Button component to tokens", 24)).toBe("Migrate the Button…");
    expect(fitText(ctx, "short", 24)).toBe("short");
    // A title its agent already cut keeps one ellipsis.
    expect(fitText(ctx, "Migrate the Button component…", 24)).toBe("Migrate the Button…");
    // One long word: cut inside it, as it must.
    expect(fitText(ctx, "Internationalizationmiddleware", 10)).toBe("Internati…");
  });
});
