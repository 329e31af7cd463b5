import { describe, expect, it } from "vitest";
import {
  arrivalViewport,
  boundsOf,
  CELL_HEIGHT,
  CELL_WIDTH,
  firstFreeCell,
  GAP_X,
  NODE_HEIGHT,
  NODE_WIDTH,
  overlaps,
  placeNodes,
  toCoordinate,
  type XY,
} from "./layout";

function assertNoOverlap(positions: Record<string, XY>, except: ReadonlySet<string> = new Set()) {
  const ids = Object.keys(positions);
  for (let i = 0; i < ids.length; i++) {
    for (let j = i + 1; j < ids.length; j++) {
      const a = ids[i]!;
      const b = ids[j]!;
      // Two remembered positions may overlap: the user put them there.
      if (except.has(a) && except.has(b)) continue;
      expect(overlaps(positions[a]!, positions[b]!), `${a} overlaps ${b}`).toBe(false);
    }
  }
}

describe("placeNodes", () => {
  it("fills a grid row by row in arrival order", () => {
    const placed = placeNodes(["a", "b", "c", "d", "e"], {}, {}, 3);
    expect(placed).toEqual({
      a: { x: 0, y: 0 },
      b: { x: CELL_WIDTH, y: 0 },
      c: { x: 2 * CELL_WIDTH, y: 0 },
      d: { x: 0, y: CELL_HEIGHT },
      e: { x: CELL_WIDTH, y: CELL_HEIGHT },
    });
  });

  it("keeps remembered positions and puts the others in free cells around them", () => {
    const remembered = { b: { x: 10, y: 5 } }; // dragged onto a's cell
    const placed = placeNodes(["a", "b", "c"], {}, remembered, 3);
    expect(placed.b).toEqual({ x: 10, y: 5 });
    expect(placed.a).toEqual({ x: CELL_WIDTH, y: 0 }); // b sits 14 px left of this cell
    assertNoOverlap(placed);
  });

  it("never moves a node that is already on the canvas", () => {
    const current = { a: { x: 500, y: 500 } };
    const placed = placeNodes(["a", "b"], current, { a: { x: 0, y: 0 } }, 3);
    expect(placed.a).toEqual({ x: 500, y: 500 });
    expect(placed.b).toEqual({ x: 0, y: 0 });
  });

  it("gives up a remembered spot that a node on the canvas now covers", () => {
    const placed = placeNodes(["a", "b"], { a: { x: 0, y: 0 } }, { b: { x: 30, y: 20 } }, 3);
    expect(placed.a).toEqual({ x: 0, y: 0 });
    expect(placed.b).toEqual({ x: CELL_WIDTH, y: 0 });
  });

  it("toCoordinate makes whole numbers Rust's i32 holds", () => {
    expect(toCoordinate(12.5)).toBe(13);
    expect(toCoordinate(-12.5)).toBe(-12);
    expect(toCoordinate(Number.NaN)).toBe(0);
    expect(toCoordinate(1e12)).toBe(2 ** 31 - 1);
  });

  it("never places a new node on top of another, whatever was dragged where", () => {
    let seed = 42;
    const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    for (let round = 0; round < 40; round++) {
      const ids = Array.from({ length: 25 }, (_, i) => `s${i}`);
      const remembered: Record<string, XY> = {};
      for (const id of ids) {
        if (random() < 0.4) remembered[id] = { x: Math.round(random() * 1500), y: Math.round(random() * 900) };
      }
      const placed = placeNodes(ids, {}, remembered, 2 + (round % 4));
      expect(Object.keys(placed)).toHaveLength(ids.length);
      assertNoOverlap(placed, new Set(Object.keys(remembered)));
    }
  });

  it("firstFreeCell skips every occupied cell", () => {
    expect(firstFreeCell([{ x: 0, y: 0 }, { x: CELL_WIDTH, y: 0 }], 2)).toEqual({ x: 0, y: CELL_HEIGHT });
  });
});

describe("arrivalViewport", () => {
  const pane = { width: 1280, height: 756 };

  it("shows a few arrivals at full size from the top, the grid's width centred", () => {
    const bounds = boundsOf([{ x: 0, y: 0 }])!;
    expect(bounds).toEqual({ x: 0, y: 0, width: NODE_WIDTH, height: NODE_HEIGHT });
    const view = arrivalViewport(bounds, pane, 4)!;
    const gridWidth = 4 * CELL_WIDTH - GAP_X;
    expect(view.zoom).toBe(1);
    expect(view.y).toBe(32);
    expect(view.x).toBe(Math.round((pane.width - gridWidth) / 2));
  });

  it("keeps a narrow pane's grid at the left edge", () => {
    const view = arrivalViewport(boundsOf([{ x: 0, y: 0 }])!, { width: 700, height: 700 }, 4)!;
    expect(view.x).toBe(24);
  });

  it("leaves arrivals that do not fit at full size to fitView", () => {
    const many = Array.from({ length: 30 }, (_, i) => ({ x: (i % 4) * CELL_WIDTH, y: Math.floor(i / 4) * CELL_HEIGHT }));
    expect(arrivalViewport(boundsOf(many)!, pane, 4)).toBeNull();
  });

  it("brings dragged positions far from the origin into view", () => {
    const bounds = boundsOf([{ x: 2000, y: 1500 }])!;
    const view = arrivalViewport(bounds, pane, 4)!;
    expect(2000 + view.x).toBeGreaterThanOrEqual(0);
    expect(1500 + view.y).toBe(32);
  });
});
