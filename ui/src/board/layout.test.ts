import { describe, expect, it } from "vitest";
import { HINT_FIT_SLACK, layoutCanvas, slotted, type Layout, type LayoutItem } from "./layout";
import { makeSession } from "../test/sessions";
import { boxInView, fitFloor, fitViewport, FIT_INSETS } from "./fit";
import { boundsOf, boundsOfBoxes, boxesOverlap, NODE_HEIGHT, NODE_WIDTH, sizeOf, toCoordinate, ZOOM_COMPACT, type XY } from "./geometry";
import { neighbourOf, screenOrder } from "./neighbours";
import { projectsOf, rankOf } from "./projects";

const PANE = { width: 1280, height: 756 };

function boxes(layout: Layout) {
  return Object.entries(layout.positions).map(([id, p]) => ({ id, ...p, ...sizeOf(layout.sizes[id]!) }));
}

function assertNoOverlap(layout: Layout, except: ReadonlySet<string> = new Set()) {
  const all = boxes(layout);
  for (let i = 0; i < all.length; i++) {
    for (let j = i + 1; j < all.length; j++) {
      const a = all[i]!;
      const b = all[j]!;
      // Two dragged nodes may overlap: the user put them there.
      if (except.has(a.id) && except.has(b.id)) continue;
      expect(boxesOverlap(a, b), `${a.id} overlaps ${b.id}`).toBe(false);
    }
  }
}

/** These ids in reading order of their places (row by row, left to right); those not laid out left out. */
function reading(layout: Layout, ids: string[]): string[] {
  return ids
    .filter((id) => layout.positions[id])
    .sort((a, b) => layout.positions[a]!.y - layout.positions[b]!.y || layout.positions[a]!.x - layout.positions[b]!.x);
}

/** The region that holds a node. */
function regionOf(layout: Layout, id: string) {
  const p = layout.positions[id]!;
  return layout.regions.find((r) => p.x >= r.x && p.y >= r.y && p.x < r.x + r.width && p.y < r.y + r.height)?.id;
}

/** 100 sessions over 12 projects, about one in four needing the user: the lead's end-to-end target. */
function crowd(): LayoutItem[] {
  return Array.from({ length: 100 }, (_, i) => ({
    id: `s${String(i).padStart(3, "0")}`,
    project: `/home/maya/src/p${i % 12}`,
    rank: i % 7 === 0 ? 0 : i % 7 === 3 ? 1 : [2, 3, 5, 3, 6][i % 5]!,
  }));
}

describe("ordering: what needs the user first", () => {
  it("ranks blocked, waiting, unread done, working, idle, done, ended", () => {
    const ranks = [
      makeSession({ sessionId: "b", status: "blocked" }),
      makeSession({ sessionId: "w", status: "waiting" }),
      makeSession({ sessionId: "u", status: "done", unread: true }),
      makeSession({ sessionId: "k", status: "working" }),
      makeSession({ sessionId: "i", status: null }),
      makeSession({ sessionId: "d", status: "done" }),
      makeSession({ sessionId: "e", status: "blocked", ended: true }),
    ].map(rankOf);
    expect(ranks).toEqual([0, 1, 2, 3, 4, 5, 6]);
  });

  it("puts blocked and waiting sessions in a Needs you lane above every project", () => {
    const items: LayoutItem[] = [
      { id: "work", project: "/p/a", rank: 3 },
      { id: "ask", project: "/p/b", rank: 1 },
      { id: "perm", project: "/p/a", rank: 0 },
    ];
    const layout = layoutCanvas(items, {}, PANE);
    expect(layout.regions[0]).toMatchObject({ id: "needs-you", label: "Needs you", count: 2 });
    expect(regionOf(layout, "perm")).toBe("needs-you");
    expect(regionOf(layout, "ask")).toBe("needs-you");
    // Blocked before waiting, whatever the arrival order.
    expect(layout.positions.perm!.x).toBeLessThan(layout.positions.ask!.x);
    expect(layout.positions.work!.y).toBeGreaterThan(layout.positions.ask!.y + NODE_HEIGHT);
    expect(layout.regions.find((r) => r.id === "project:/p/a")).toMatchObject({ count: 1, needsYou: 1 });
  });

  it("orders a project's sessions unread done, working, done, ended", () => {
    const items: LayoutItem[] = [
      { id: "ended", project: "/p/a", rank: 6 },
      { id: "done", project: "/p/a", rank: 5 },
      { id: "working", project: "/p/a", rank: 3 },
      { id: "unread", project: "/p/a", rank: 2 },
    ];
    const layout = layoutCanvas(items, {}, PANE);
    const reading = Object.keys(layout.positions).sort(
      (a, b) => layout.positions[a]!.y - layout.positions[b]!.y || layout.positions[a]!.x - layout.positions[b]!.x,
    );
    expect(reading).toEqual(["unread", "working", "done", "ended"]);
  });
});

describe("ordering: a sort the user chose (cost, context, memory)", () => {
  it("orders each project's region by its place in the sort, whatever the status", () => {
    const items: LayoutItem[] = [
      { id: "working", project: "/p/a", rank: 3, place: 2 },
      { id: "done", project: "/p/a", rank: 5, place: 0 },
      { id: "unread", project: "/p/a", rank: 2, place: 1 },
    ];
    const layout = layoutCanvas(items, {}, PANE);
    expect(reading(layout, ["working", "done", "unread"])).toEqual(["done", "unread", "working"]);
  });

  it("keeps the lane's blocked before waiting, sorting within each", () => {
    const items: LayoutItem[] = [
      { id: "wait-cheap", project: "/p/a", rank: 1, place: 3 },
      { id: "block-cheap", project: "/p/a", rank: 0, place: 2 },
      { id: "wait-dear", project: "/p/a", rank: 1, place: 0 },
      { id: "block-dear", project: "/p/b", rank: 0, place: 1 },
    ];
    const layout = layoutCanvas(items, {}, PANE);
    expect(layout.regions.map((r) => r.id)).toEqual(["needs-you"]);
    expect(reading(layout, items.map((i) => i.id))).toEqual(["block-dear", "block-cheap", "wait-dear", "wait-cheap"]);
  });

  it("moves nodes inside their regions only: the regions keep their places", () => {
    const items: LayoutItem[] = [
      { id: "a1", project: "/p/a", rank: 3 },
      { id: "b1", project: "/p/b", rank: 3 },
      { id: "a2", project: "/p/a", rank: 3 },
      { id: "b2", project: "/p/b", rank: 5 },
    ];
    const plain = layoutCanvas(items, {}, PANE);
    const places: Record<string, number> = { b2: 0, a2: 1, b1: 2, a1: 3 };
    const sorted = layoutCanvas(items.map((i) => ({ ...i, place: places[i.id]! })), {}, PANE);
    expect(sorted.regions.map(({ id, x, y }) => ({ id, x, y }))).toEqual(plain.regions.map(({ id, x, y }) => ({ id, x, y })));
    expect(reading(plain, ["a1", "a2"])).toEqual(["a1", "a2"]);
    expect(reading(sorted, ["a1", "a2"])).toEqual(["a2", "a1"]);
    expect(reading(sorted, ["b1", "b2"])).toEqual(["b2", "b1"]);
    // The same cells, handed out in another order.
    expect(new Set(Object.values(sorted.positions).map((p) => `${p.x},${p.y}`))).toEqual(
      new Set(Object.values(plain.positions).map((p) => `${p.x},${p.y}`)),
    );
  });

  it("leaves dragged nodes where the user put them", () => {
    const items: LayoutItem[] = [
      { id: "a1", project: "/p/a", rank: 3, place: 1 },
      { id: "a2", project: "/p/a", rank: 3, place: 0 },
    ];
    const layout = layoutCanvas(items, { a1: { x: 900, y: 600 } }, PANE);
    expect(layout.positions.a1).toEqual({ x: 900, y: 600 });
  });
});

describe("grouping by project", () => {
  it("groups by cwd, a cwd inside another session's cwd counting as the same project", () => {
    const projects = projectsOf([
      makeSession({ sessionId: "root", cwd: "/home/maya/src/webapp" }),
      makeSession({ sessionId: "pkg", cwd: "/home/maya/src/webapp/packages/core/" }),
      makeSession({ sessionId: "other", cwd: "/home/maya/src/webapp-legacy" }),
      makeSession({ sessionId: "none", cwd: null }),
    ]);
    expect(projects).toEqual({
      root: "/home/maya/src/webapp",
      pkg: "/home/maya/src/webapp",
      other: "/home/maya/src/webapp-legacy",
      none: null,
    });
  });

  it("does not let a session started in the home folder swallow every project", () => {
    const projects = projectsOf([
      makeSession({ sessionId: "home", cwd: "/home/maya" }),
      makeSession({ sessionId: "a", cwd: "/home/maya/src/a" }),
      makeSession({ sessionId: "tmp", cwd: "/tmp" }),
      makeSession({ sessionId: "b", cwd: "/tmp/b" }),
    ]);
    expect(projects).toEqual({ home: "/home/maya", a: "/home/maya/src/a", tmp: "/tmp", b: "/tmp/b" });
  });

  it("gives each project a labelled region holding all of its sessions", () => {
    const layout = layoutCanvas(crowd(), {}, PANE);
    const projectRegions = layout.regions.filter((r) => r.kind === "project");
    expect(projectRegions).toHaveLength(12);
    expect(projectRegions.find((r) => r.id === "project:/home/maya/src/p0")).toMatchObject({ label: "p0", path: "~/src/p0" });
    for (const item of crowd()) {
      expect(regionOf(layout, item.id)).toBe(item.rank <= 1 ? "needs-you" : `project:${item.project}`);
    }
    assertNoOverlap(layout);
    // Regions do not overlap either.
    for (let i = 0; i < layout.regions.length; i++) {
      for (let j = i + 1; j < layout.regions.length; j++) {
        expect(boxesOverlap(layout.regions[i]!, layout.regions[j]!)).toBe(false);
      }
    }
  });
});

describe("grouping by host, then project", () => {
  it("never makes a folder on one machine the project of a folder on another", () => {
    const projects = projectsOf([
      makeSession({ sessionId: "local-src", cwd: "/home/maya/src" }),
      makeSession({ sessionId: "local-api", cwd: "/home/maya/src/api" }),
      makeSession({ sessionId: "devbox:api", host: "devbox", cwd: "/home/maya/src/api" }),
      makeSession({ sessionId: "devbox:sub", host: "devbox", cwd: "/home/maya/src/api/sub" }),
    ]);
    expect(projects).toEqual({
      "local-src": "/home/maya/src",
      "local-api": "/home/maya/src",
      "devbox:api": "/home/maya/src/api",
      "devbox:sub": "/home/maya/src/api",
    });
  });

  it("gives the same path on two machines two regions, a remote's named by its host first", () => {
    const items: LayoutItem[] = [
      { id: "here", project: "/home/maya/src/api", rank: 3, host: "local" },
      { id: "devbox:1", project: "/home/maya/src/api", rank: 3, host: "devbox" },
      { id: "devbox:2", project: null, rank: 5, host: "devbox" },
    ];
    const layout = layoutCanvas(items, {}, PANE);
    expect(layout.regions.map((r) => [r.id, r.label, r.path])).toEqual([
      ["project:/home/maya/src/api", "api", "~/src/api"],
      ["project:devbox:/home/maya/src/api", "devbox · api", "~/src/api"],
      ["project:devbox:", "devbox · No folder", null],
    ]);
    expect(regionOf(layout, "here")).toBe("project:/home/maya/src/api");
    expect(regionOf(layout, "devbox:1")).toBe("project:devbox:/home/maya/src/api");
    assertNoOverlap(layout);
  });

  it("keeps one machine's regions together: this one first, then the remotes by name", () => {
    // Arrival order mixes the machines; the regions do not.
    const items: LayoutItem[] = [
      { id: "zeta:1", project: "/srv/x", rank: 3, host: "zeta" },
      { id: "a", project: "/home/maya/src/a", rank: 3, host: "local" },
      { id: "devbox:1", project: "/home/maya/src/b", rank: 3, host: "devbox" },
      { id: "b", project: "/home/maya/src/b", rank: 6, host: "local" },
      { id: "devbox:2", project: "/home/maya/src/c", rank: 3, host: "devbox" },
      { id: "c", project: "/home/maya/src/c", rank: 3, host: "local" },
    ];
    const layout = layoutCanvas(items, {}, PANE);
    expect(layout.regions.map((r) => r.id)).toEqual([
      "project:/home/maya/src/a",
      "project:/home/maya/src/c",
      // A project whose sessions all ended goes last among its machine's.
      "project:/home/maya/src/b",
      "project:devbox:/home/maya/src/b",
      "project:devbox:/home/maya/src/c",
      "project:zeta:/srv/x",
    ]);
  });

  it("takes sessions that need the user into one Needs you lane from every machine, counted per machine", () => {
    const items: LayoutItem[] = [
      { id: "ask", project: "/home/maya/src/api", rank: 1, host: "local" },
      { id: "devbox:perm", project: "/home/maya/src/api", rank: 0, host: "devbox" },
      { id: "devbox:work", project: "/home/maya/src/api", rank: 3, host: "devbox" },
      { id: "work", project: "/home/maya/src/api", rank: 3, host: "local" },
    ];
    const layout = layoutCanvas(items, {}, PANE);
    expect(layout.regions[0]).toMatchObject({ id: "needs-you", count: 2 });
    expect(regionOf(layout, "devbox:perm")).toBe("needs-you");
    expect(regionOf(layout, "ask")).toBe("needs-you");
    expect(layout.regions.find((r) => r.id === "project:/home/maya/src/api")).toMatchObject({ count: 1, needsYou: 1 });
    expect(layout.regions.find((r) => r.id === "project:devbox:/home/maya/src/api")).toMatchObject({ count: 1, needsYou: 1 });
  });

  it("changes nothing when every session is local", () => {
    const local = crowd();
    const explicit = local.map((item) => ({ ...item, host: "local" }));
    expect(layoutCanvas(explicit, {}, PANE)).toEqual(layoutCanvas(local, {}, PANE));
  });
});

describe("sizing to the window", () => {
  it("keeps every session a full card while they fit at a readable zoom", () => {
    const items = Array.from({ length: 6 }, (_, i) => ({ id: `s${i}`, project: "/p/a", rank: 3 }));
    const layout = layoutCanvas(items, {}, PANE);
    expect(new Set(Object.values(layout.sizes))).toEqual(new Set(["full"]));
    expect(layout.fitZoom).toBeGreaterThanOrEqual(ZOOM_COMPACT);
  });

  it("with a hundred sessions keeps Needs you full-size and makes the rest strips", () => {
    const layout = layoutCanvas(crowd(), {}, PANE);
    for (const item of crowd()) expect(layout.sizes[item.id]).toBe(item.rank <= 1 ? "full" : "strip");
    // Fit-view of 100 sessions stays big enough for the zoomed-out titles (≥ 11 px on screen
    // at 12.5 / zoom canvas px, capped at 32): comfortably above 12.5 / 32.
    expect(layout.fitZoom).toBeGreaterThan(0.4);
  });

  it("shapes the layout like the window: wide for a wide window, tall for a tall one", () => {
    const wide = boundsOfBoxes(layoutCanvas(crowd(), {}, { width: 1600, height: 700 }).regions)!;
    const tall = boundsOfBoxes(layoutCanvas(crowd(), {}, { width: 700, height: 1200 }).regions)!;
    expect(wide.width / wide.height).toBeGreaterThan(1.4);
    expect(tall.width / tall.height).toBeLessThan(1);
  });
});

describe("dragged positions", () => {
  it("win: a dragged node stays where the user left it, the grid flows around it", () => {
    const items = crowd();
    const pinned: Record<string, XY> = { s001: { x: 0, y: 0 }, s003: { x: 300, y: 40 }, s050: { x: -900, y: 5000 } };
    const layout = layoutCanvas(items, pinned, PANE);
    for (const [id, p] of Object.entries(pinned)) expect(layout.positions[id]).toEqual(p);
    expect(Object.keys(layout.positions)).toHaveLength(100);
    assertNoOverlap(layout, new Set(Object.keys(pinned)));
  });

  it("never puts a laid-out node on top of a dragged one, wherever they were dragged", () => {
    let seed = 42;
    const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    for (let round = 0; round < 20; round++) {
      const items = Array.from({ length: 25 }, (_, i) => ({ id: `s${i}`, project: `/p/${i % 3}`, rank: i % 7 }));
      const pinned: Record<string, XY> = {};
      for (const item of items) {
        if (random() < 0.4) pinned[item.id] = { x: Math.round(random() * 1500), y: Math.round(random() * 900) };
      }
      const layout = layoutCanvas(items, pinned, PANE);
      expect(Object.keys(layout.positions)).toHaveLength(items.length);
      assertNoOverlap(layout, new Set(Object.keys(pinned)));
    }
  });

  it("toCoordinate makes whole numbers Rust's i32 holds", () => {
    expect(toCoordinate(12.5)).toBe(13);
    expect(toCoordinate(-12.5)).toBe(-12);
    expect(toCoordinate(Number.NaN)).toBe(0);
    expect(toCoordinate(1e12)).toBe(2 ** 31 - 1);
  });
});

describe("arrow-key neighbours", () => {
  const box = (x: number, y: number) => ({ x, y, width: NODE_WIDTH, height: NODE_HEIGHT });
  const grid = { a: box(0, 0), b: box(300, 0), c: box(0, 150), d: box(300, 150), far: box(300, 900) };

  it("moves to the nearest node that way, the same row or column first", () => {
    expect(neighbourOf("a", grid, "right")).toBe("b");
    expect(neighbourOf("a", grid, "down")).toBe("c");
    expect(neighbourOf("d", grid, "up")).toBe("b");
    expect(neighbourOf("d", grid, "left")).toBe("c");
    expect(neighbourOf("d", grid, "down")).toBe("far");
    expect(neighbourOf("a", grid, "left")).toBeNull();
  });
});

describe("fitViewport", () => {
  const pane = { width: 1280, height: 756 };
  const onScreen = (box: { x: number; y: number; width: number; height: number }, v: { x: number; y: number; zoom: number }) => ({
    left: box.x * v.zoom + v.x,
    top: box.y * v.zoom + v.y,
    right: (box.x + box.width) * v.zoom + v.x,
    bottom: (box.y + box.height) * v.zoom + v.y,
  });

  it("shows a few sessions at full size from the top, centred between the insets", () => {
    const bounds = boundsOf([{ x: 0, y: 0 }])!;
    expect(bounds).toEqual({ x: 0, y: 0, width: NODE_WIDTH, height: NODE_HEIGHT });
    const view = fitViewport(bounds, pane);
    const inner = pane.width - FIT_INSETS.left - FIT_INSETS.right;
    expect(view).toEqual({ x: Math.round(FIT_INSETS.left + (inner - NODE_WIDTH) / 2), y: FIT_INSETS.top, zoom: 1 });
    expect(boxInView(bounds, view, pane)).toBe(true);
  });

  it("zooms out until a board too big for full size lies inside the insets, clear of the controls", () => {
    const bounds = { x: 0, y: 0, width: 2400, height: 1200 };
    const view = fitViewport(bounds, pane);
    expect(view.zoom).toBeLessThan(1);
    const box = onScreen(bounds, view);
    expect(box.left).toBeGreaterThanOrEqual(FIT_INSETS.left - 0.5);
    expect(box.right).toBeLessThanOrEqual(pane.width - FIT_INSETS.right + 0.5);
    expect(box.bottom).toBeLessThanOrEqual(pane.height - FIT_INSETS.bottom + 0.5);
    expect(boxInView(bounds, view, pane)).toBe(true);
    // The same view in a narrower pane (the details panel opened) leaves part of it out.
    expect(boxInView(bounds, view, { width: 900, height: 756 })).toBe(false);
  });

  it("brings dragged positions far from the origin into view", () => {
    const bounds = boundsOf([{ x: 2000, y: 1500 }])!;
    const view = fitViewport(bounds, pane);
    expect(onScreen(bounds, view).top).toBe(FIT_INSETS.top);
    expect(boxInView(bounds, view, pane)).toBe(true);
    expect(boxInView(bounds, { x: 0, y: 0, zoom: 1 }, pane)).toBe(false);
  });

  it("never zooms past the floor, however big the board", () => {
    expect(fitViewport({ x: 0, y: 0, width: 100000, height: 100000 }, pane, 0.1).zoom).toBe(0.1);
  });

  it("with sessions that need the user, stops at the readable zoom and starts from the lane's corner (issue 37)", () => {
    const windowPane = { width: 900, height: 556 };
    const region = (kind: "needs-you" | "project", width: number, height: number) =>
      ({ id: kind, kind, label: "", path: null, count: 1, needsYou: 0, x: 0, y: 0, width, height }) as const;
    const lane = [region("needs-you", 892, 300), region("project", 400, 400)];
    expect(fitFloor(lane, windowPane, 0.1)).toBe(ZOOM_COMPACT);
    expect(fitFloor([region("project", 400, 400)], windowPane, 0.1)).toBe(0.1);
    // A lane too big for the window at that zoom is fitted whole: every card that needs you in view.
    const big = fitFloor([region("needs-you", 3000, 2000)], windowPane, 0.1);
    expect(big).toBeLessThan(ZOOM_COMPACT);
    expect(3000 * big).toBeLessThanOrEqual(windowPane.width - FIT_INSETS.left - FIT_INSETS.right + 0.5);
    // 900 × 600 with the details panel open: a board that would need zoom 0.4 to fit whole.
    const narrow = { width: 580, height: 556 };
    const bounds = { x: 0, y: 0, width: 900, height: 900 };
    const view = fitViewport(bounds, narrow, fitFloor(lane, windowPane, 0.1));
    expect(view.zoom).toBe(ZOOM_COMPACT);
    // Its top left (the lane's first card) is where the eye starts, not cut off at the left.
    expect(onScreen(bounds, view).left).toBe(FIT_INSETS.left);
    expect(onScreen(bounds, view).top).toBe(FIT_INSETS.top);
  });
});

describe("fewer moves per change (a crowded board)", () => {
  /** `n` strips in one project after a lane of `lane`, all working, in arrival order. */
  const board = (n: number, lane = 0, project = "/p/a"): LayoutItem[] => [
    ...Array.from({ length: lane }, (_, i) => ({ id: `l${i}`, project: "/p/lane", rank: 0 })),
    ...Array.from({ length: n }, (_, i) => ({ id: `${project}-${i}`, project, rank: 3 })),
  ];
  it("keeps a project's arrival order whatever the status, ended last", () => {
    const items: LayoutItem[] = [
      { id: "first", project: "/p/a", rank: 5 },
      { id: "ended", project: "/p/a", rank: 6 },
      { id: "working", project: "/p/a", rank: 3 },
      { id: "unread", project: "/p/a", rank: 2 },
    ];
    const stable = layoutCanvas(items, {}, PANE, { stableOrder: true });
    expect(reading(stable, items.map((i) => i.id))).toEqual(["first", "working", "unread", "ended"]);
    // Without it (a small board), what needs the user first.
    expect(reading(layoutCanvas(items, {}, PANE), items.map((i) => i.id))).toEqual(["unread", "working", "first", "ended"]);
  });

  it("on a crowded board each session keeps its cell: one that leaves leaves a hole, the next to arrive takes it", () => {
    const items: LayoutItem[] = Array.from({ length: 80 }, (_, i) => ({ id: `s${i}`, project: `/p/${i % 4}`, rank: i % 5 === 0 ? 0 : 3 }));
    const first = layoutCanvas(items, {}, PANE, { stableOrder: true });
    // s8 (in /p/0) finishes and s1 (in /p/1) starts needing the user; s0 in the lane is answered.
    const next = items.map((item) =>
      item.id === "s8" ? { ...item, rank: 5 } : item.id === "s1" ? { ...item, rank: 0 } : item.id === "s0" ? { ...item, rank: 3 } : item,
    );
    const second = layoutCanvas(next, {}, PANE, { stableOrder: true, hint: first.hint });
    // Where each session sits in its region (regions themselves may shift as one grows).
    const cell = (layout: Layout, id: string) => {
      const region = layout.regions.find((r) => r.id === layout.regionOf[id])!;
      return `${region.id} ${layout.positions[id]!.x - region.x},${layout.positions[id]!.y - region.y}`;
    };
    const moved = Object.keys(second.positions).filter((id) => cell(first, id) !== cell(second, id));
    // s8 stays put (same region); s1 took the lane's hole s0 left (its cell), s0 went back to /p/0:
    // no other session moved.
    expect(moved.sort()).toEqual(["s0", "s1"]);
    expect(cell(second, "s1")).toEqual(cell(first, "s0"));
    // A hole where s1 was in /p/1: its neighbours did not close up.
    const p1 = Object.entries(second.hint.regions).find(([, r]) => r.slots?.includes(null));
    expect(p1?.[1].slots).toContain(null);
    // Many holes: the region closes up, in order.
    expect(slotted([{ id: "a" }, { id: "b" }], ["a", null, null, null, null, null, "b"])).toEqual([{ id: "a" }, { id: "b" }]);
    expect(slotted([{ id: "a" }, { id: "c" }, { id: "b" }], ["a", null, "b", null])).toEqual([{ id: "a" }, { id: "c" }, { id: "b" }]);
    expect(slotted([{ id: "b" }], ["a", "b"])).toEqual([null, { id: "b" }]);
  });

  it("a region keeps its rows while it needs one fewer (shrinks late), grows at once, and what is below stays put", () => {
    const items = [...board(40, 30), ...board(30, 0, "/p/b")];
    const first = layoutCanvas(items, {}, PANE);
    const lane = () => first.regions.find((r) => r.id === "needs-you")!;
    const columns = first.hint.regions["needs-you"]!.columns;
    expect(first.hint.regions["needs-you"]!.rows).toBe(Math.ceil(30 / columns));
    // One row's worth fewer in the lane: the lane keeps its height, nothing below moves.
    const fewer = items.filter((item) => !/^l\d+$/.test(item.id) || Number(item.id.slice(1)) < 30 - columns);
    const held = layoutCanvas(fewer, {}, PANE, { hint: first.hint });
    expect(held.regions.find((r) => r.id === "needs-you")!.height).toBe(lane().height);
    for (const region of first.regions.filter((r) => r.kind === "project")) {
      expect(held.regions.find((r) => r.id === region.id)).toMatchObject({ x: region.x, y: region.y, height: region.height });
    }
    // Without the hint it would have shrunk (and moved the projects up).
    const fresh = layoutCanvas(fewer, {}, PANE);
    expect(fresh.regions.find((r) => r.id === "needs-you")!.height).toBeLessThan(lane().height);
    // Two rows' worth fewer: now it shrinks.
    const fewest = items.filter((item) => !/^l\d+$/.test(item.id) || Number(item.id.slice(1)) < 30 - 2 * columns);
    const shrunk = layoutCanvas(fewest, {}, PANE, { hint: held.hint });
    expect(shrunk.regions.find((r) => r.id === "needs-you")!.height).toBeLessThan(lane().height);
    // One more than it holds: it grows at once, never overflowing its box.
    const more = [...items, { id: "l-extra", project: "/p/lane", rank: 0 }, ...board(columns, 0, "/p/c").map((i) => ({ ...i, rank: 0 }))];
    const grown = layoutCanvas(more, {}, PANE, { hint: first.hint });
    const grownLane = grown.regions.find((r) => r.id === "needs-you")!;
    expect(grownLane.height).toBeGreaterThan(lane().height);
    assertNoOverlap(grown);
    for (const [id, p] of Object.entries(grown.positions)) {
      const region = grown.regions.find((r) => r.id === grown.regionOf[id])!;
      expect(p.y + sizeOf(grown.sizes[id]!).height).toBeLessThanOrEqual(region.y + region.height);
    }
  });

  it("keeps the board's shape through a stream of changes: far fewer reflows, regions moved less", () => {
    // The scale benchmark's board and load: 300 sessions over 12 projects, each change one
    // session's next status (working → blocked → done → waiting), spread over the board.
    const cycle = [3, 0, 5, 1];
    const items: LayoutItem[] = Array.from({ length: 300 }, (_, i) => ({ id: `s${i}`, project: `/p/${i % 12}`, rank: [0, 1, 3, 3, 5, 5][i % 6]! }));
    const regionMoves = (a: Layout, b: Layout) =>
      b.regions.filter((r) => {
        const o = a.regions.find((x) => x.id === r.id);
        return !o || o.x !== r.x || o.y !== r.y || o.width !== r.width || o.height !== r.height;
      }).length;
    let held = layoutCanvas(items, {}, PANE, { stableOrder: true });
    let plain = layoutCanvas(items, {}, PANE);
    const count = { heldShelves: 0, plainShelves: 0, heldRegions: 0, plainRegions: 0 };
    const state = items.map((item) => cycle.indexOf(item.rank));
    let current = items;
    for (let k = 0; k < 250; k++) {
      const i = (k * 37) % items.length;
      state[i] = (state[i]! + 1) % cycle.length;
      current = current.map((item, j) => (j === i ? { ...item, rank: cycle[state[j]!]! } : item));
      const nextHeld = layoutCanvas(current, {}, PANE, { hint: held.hint, stableOrder: true });
      const nextPlain = layoutCanvas(current, {}, PANE);
      count.heldShelves += Number(nextHeld.hint.columns !== held.hint.columns);
      count.plainShelves += Number(nextPlain.hint.columns !== plain.hint.columns);
      count.heldRegions += regionMoves(held, nextHeld);
      count.plainRegions += regionMoves(plain, nextPlain);
      // Never much smaller on screen than a fresh layout of the same board (the slack, against
      // a fresh layout at most FRESH_USES changes old: a little more against today's).
      const fresh = layoutCanvas(current, {}, PANE, { stableOrder: true });
      expect(nextHeld.fitZoom).toBeGreaterThanOrEqual(fresh.fitZoom * (1 - 1.5 * HINT_FIT_SLACK));
      [held, plain] = [nextHeld, nextPlain];
    }
    assertNoOverlap(held);
    expect(count.heldShelves * 4).toBeLessThanOrEqual(count.plainShelves);
    expect(count.heldRegions).toBeLessThan(count.plainRegions * 0.8);
  });
});

describe("screenOrder: Tab walks the board as it reads (issue 44.3)", () => {
  const region = (id: string, kind: "needs-you" | "project", x: number, y: number) => ({
    id,
    kind,
    label: id,
    path: null,
    count: 0,
    needsYou: 0,
    x,
    y,
    width: 300,
    height: 200,
  });
  const node = (id: string, region: string | null, x: number, y: number) => ({ id, position: { x, y }, data: { region } });

  it("the lane first, then regions by shelf and left to right, each read row by row; free nodes last", () => {
    const regions = [region("project:b", "project", 400, 300), region("project:a", "project", 0, 300), region("needs-you", "needs-you", 0, 0)];
    const nodes = [
      node("b1", "project:b", 410, 340),
      node("a2", "project:a", 10, 480),
      node("a1", "project:a", 10, 340),
      node("free", null, 0, -500),
      node("lane2", "needs-you", 310, 40),
      node("lane1", "needs-you", 10, 40),
    ];
    expect(screenOrder(nodes, regions).map((n) => n.id)).toEqual(["lane1", "lane2", "a1", "a2", "b1", "free"]);
  });
});
