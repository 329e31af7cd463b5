// A crowded canvas (over CROWDED_ABOVE sessions): the regions draw the sessions the layout places
// as tiles — light ones zoomed out — and the tiles behave like nodes: select, open, drag, filter.
import { beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { act, fireEvent, render, screen } from "@testing-library/react";
import { useEffect } from "react";
import { ReactFlowProvider, useStoreApi } from "@xyflow/react";
import { Canvas, CROWDED_ABOVE } from "./Canvas";
import { selectSelectedId, useSwitchboard } from "../state/store";
import { makeSession, NOW } from "../test/sessions";
import { installFlowStubs } from "../test/flow";
import * as ipc from "../shared/ipc";
import { initialData } from "../state/data";

vi.mock("../shared/ipc", async (importOriginal) => ({
  toIpcError: (await importOriginal<typeof import("../shared/ipc")>()).toIpcError,
  decide: vi.fn(() => Promise.resolve()),
  clearUnread: vi.fn(() => Promise.resolve()),
  removeSession: vi.fn(() => Promise.resolve()),
  setPosition: vi.fn(() => Promise.resolve()),
  removeEnded: vi.fn(() => Promise.resolve(0)),
  jumpToTerminal: vi.fn(),
  sessionHistory: vi.fn(() => Promise.resolve([])),
}));

beforeAll(installFlowStubs);

const COUNT = CROWDED_ABOVE + 20;
const STATUSES = ["blocked", "working", "done", "waiting", "working", "done"] as const;

function crowd() {
  return Array.from({ length: COUNT }, (_, i) =>
    makeSession({
      sessionId: `s${i}`,
      status: STATUSES[i % STATUSES.length],
      title: `Task ${i}`,
      cwd: `/home/maya/src/project-${i % 4}`,
      unread: i === 2,
      firstEventAt: NOW - 100_000 + i,
    }),
  );
}

let flowStore: ReturnType<typeof useStoreApi> | null = null;

function GrabStore() {
  const store = useStoreApi();
  useEffect(() => {
    flowStore = store;
  }, [store]);
  return null;
}

/**
 * The canvas with a crowd, then the view set to `zoom` with the canvas origin top-left in a
 * 1200×800 pane (jsdom measures nothing; set after the canvas's own fit).
 */
async function renderCrowd(zoom: number) {
  useSwitchboard.getState().applySnapshot(crowd());
  render(
    <ReactFlowProvider>
      <div style={{ width: 1200, height: 800 }}>
        <Canvas />
      </div>
      <GrabStore />
    </ReactFlowProvider>,
  );
  await screen.findAllByTestId("session-node");
  // A turn of the wheel: the user's own view, which the board no longer refits.
  fireEvent.wheel(document.querySelector(".react-flow__pane")!, { deltaY: -10 });
  await act(async () => {
    flowStore!.setState({ transform: [0, 0, zoom], width: 1200, height: 800 });
  });
}

function tile(id: string): HTMLElement {
  const el = document.querySelector<HTMLElement>(`.session-tile[data-id="${id}"]`);
  if (!el) throw new Error(`no tile ${id}`);
  return el;
}

beforeEach(() => {
  useSwitchboard.setState(initialData());
  vi.mocked(ipc.clearUnread).mockClear();
  vi.mocked(ipc.setPosition).mockClear();
});

/** What the canvases were told to draw: each title written, with the alpha it was written at. */
type Paint = { text: string; alpha: number; canvas: HTMLCanvasElement };
let paints: Paint[] = [];

/**
 * jsdom has no 2D context: a recording one, enough for TileCanvas (text is 7 px a character,
 * so the titles fit their tiles whole).
 */
function installRecordingCanvas() {
  HTMLCanvasElement.prototype.getContext = function (this: HTMLCanvasElement) {
    return recordingContext(this);
  } as unknown as typeof HTMLCanvasElement.prototype.getContext;
}

function recordingContext(canvas: HTMLCanvasElement): CanvasRenderingContext2D {
  const state: Record<string | symbol, unknown> = { globalAlpha: 1 };
  const stack: number[] = [];
  return new Proxy(state, {
    get(target, key) {
      if (key === "measureText") return (text: string) => ({ width: text.length * 7 });
      if (key === "fillText") return (text: string) => paints.push({ text, alpha: target.globalAlpha as number, canvas });
      if (key === "save") return () => stack.push(target.globalAlpha as number);
      if (key === "restore") return () => (target.globalAlpha = stack.pop() ?? 1);
      if (key in target) return target[key];
      return () => undefined;
    },
    set(target, key, value) {
      target[key] = value;
      return true;
    },
  }) as unknown as CanvasRenderingContext2D;
}

/** The canvas a session is painted on, measured as if the view were at zoom 1 from the page's corner. */
function canvasOf(id: string): { canvas: HTMLCanvasElement; at: { clientX: number; clientY: number } } {
  const node = useSwitchboard.getState().nodes.find((n) => n.id === id)!;
  const region = useSwitchboard.getState().regions.find((r) => r.id === node.data.region)!;
  const label = [...document.querySelectorAll('[data-testid="region"]')].find(
    (r) => r.querySelector(".region-name")?.textContent === region.label,
  )!;
  const canvas = label.querySelector<HTMLCanvasElement>('[data-testid="tile-canvas"]')!;
  canvas.getBoundingClientRect = () =>
    ({ left: 0, top: 0, width: region.width, height: region.height, right: region.width, bottom: region.height }) as DOMRect;
  return { canvas, at: { clientX: node.position.x - region.x + 20, clientY: node.position.y - region.y + 10 } };
}

const titles = () => paints.map((p) => p.text).filter((t) => t.startsWith("Task "));

describe("a crowded canvas", () => {
  beforeAll(installRecordingCanvas);
  beforeEach(() => {
    paints = [];
  });

  it("zoomed out, paints each project's tiles on one canvas; the lane's cards stay elements", async () => {
    await renderCrowd(0.1);
    expect(document.querySelectorAll(".react-flow__node-session")).toHaveLength(0);
    // The lane holds those that need you, as light elements with their status word and title.
    const lane = document.querySelector('[data-testid="region"][data-kind="needs-you"]')!;
    const inLane = [...lane.querySelectorAll<HTMLElement>('[data-testid="session-node"]')];
    expect(inLane.length).toBeGreaterThan(0);
    expect(inLane.every((n) => n.dataset.needsYou === "true")).toBe(true);
    expect(lane.querySelector('[data-testid="tile-canvas"]')).toBeNull();
    const s0 = tile("s0");
    expect(s0).toHaveAttribute("data-form", "far-card");
    expect(s0.classList.contains("is-light")).toBe(true);
    expect(s0.querySelector("svg")).toBeNull();
    expect(s0.querySelector('[data-testid="status-badge"]')).toHaveTextContent("Needs permission");
    const node = useSwitchboard.getState().nodes.find((n) => n.id === "s0")!;
    const region = useSwitchboard.getState().regions.find((r) => r.id === node.data.region)!;
    expect(s0.style.transform).toBe(`translate(${node.position.x - region.x}px, ${node.position.y - region.y}px)`);
    // Every other session is painted, once, on its project's canvas: no element of its own.
    const canvases = [...document.querySelectorAll<HTMLCanvasElement>('[data-testid="tile-canvas"]')];
    expect(canvases).toHaveLength(4);
    const painted = canvases.reduce((n, c) => n + Number(c.dataset.count), 0);
    expect(painted + inLane.length).toBe(COUNT);
    expect(document.querySelector('.session-tile[data-id="s1"]')).toBeNull();
    // (Painted again as a whole when the view's zoom crossed a step: the set of titles is what counts.)
    expect([...new Set(titles())].sort()).toEqual(
      Array.from({ length: COUNT }, (_, i) => `Task ${i}`)
        .filter((t) => !inLane.some((n) => n.querySelector('[data-testid="node-title"]')!.textContent === t))
        .sort(),
    );
    // Its accessible name counts what it shows.
    expect(canvases[0]!.getAttribute("aria-label")).toMatch(/^project-\d: \d+ Working, \d+ Done/);
  });

  it("only the tile whose session changed is painted again", async () => {
    await renderCrowd(0.1);
    paints = [];
    const s1 = useSwitchboard.getState().sessions["s1"]!;
    act(() => useSwitchboard.getState().applyChanges({ changed: [{ ...s1, status: "done", unread: true }], removed: [] }));
    expect(titles()).toEqual(["Task 1"]);
    // A newcomer: only its text is drawn, even where its region grew (the rest is copied).
    paints = [];
    const before = useSwitchboard.getState().regions.find((r) => r.label === "project-0")!;
    const newcomers = Array.from({ length: 4 }, (_, k) =>
      makeSession({ sessionId: `n${k}`, status: "working", title: `Task new ${k}`, cwd: "/home/maya/src/project-0", firstEventAt: NOW + k }),
    );
    act(() => useSwitchboard.getState().applyChanges({ changed: newcomers, removed: [] }));
    const after = useSwitchboard.getState().regions.find((r) => r.label === "project-0")!;
    expect(after.height * after.width).toBeGreaterThan(before.height * before.width);
    expect(titles().sort()).toEqual(["Task new 0", "Task new 1", "Task new 2", "Task new 3"]);
    // A change that moves nothing on the canvas (a lane card's) paints nothing there.
    paints = [];
    const s0 = useSwitchboard.getState().sessions["s0"]!;
    act(() => useSwitchboard.getState().applyChanges({ changed: [{ ...s0, title: "Task 0 renamed" }], removed: [] }));
    expect(titles()).toEqual([]);
  });

  it("a click on a painted tile selects the session, clears its unread dot and lifts it above the canvas", async () => {
    await renderCrowd(0.3);
    const { canvas, at } = canvasOf("s2");
    fireEvent.pointerMove(canvas, at);
    // Hover: the tile's tooltip, and the canvas is the tile's (a press does not pan).
    expect(canvas.title).toMatch(/^Task 2 — Done · Claude · ~\/src\/project-2/);
    expect(canvas.classList.contains("nopan")).toBe(true);
    expect(document.querySelector(".tile-hover")).not.toBeNull();
    fireEvent.click(canvas, at);
    expect(selectSelectedId(useSwitchboard.getState())).toBe("s2");
    expect(ipc.clearUnread).toHaveBeenCalledWith("s2");
    // Selected: an element above the canvas (focusable, outlined), no longer painted.
    expect(tile("s2").className).toContain("is-selected");
    expect(Number(canvas.dataset.count)).toBe(Number(canvas.dataset.painted));
    // Between tiles the canvas is the board's again.
    fireEvent.pointerMove(canvas, { clientX: 1, clientY: 1 });
    expect(canvas.classList.contains("nopan")).toBe(false);
    expect(canvas.title).toBe("");
    // A click on the empty canvas lets go of it, as for a node: painted again.
    paints = [];
    fireEvent.click(document.querySelector(".react-flow__pane")!);
    expect(selectSelectedId(useSwitchboard.getState())).toBeNull();
    expect(document.querySelector('.session-tile[data-id="s2"]')).toBeNull();
    expect(titles()).toEqual(["Task 2"]);
  });

  it("a drag moves a painted tile; the drop pins it there and it becomes a node of its own", async () => {
    await renderCrowd(0.5);
    const before = useSwitchboard.getState().nodes.find((n) => n.id === "s1")!.position;
    const { canvas, at } = canvasOf("s1");
    fireEvent.pointerDown(canvas, { button: 0, ...at });
    fireEvent.pointerMove(window, { clientX: at.clientX + 50, clientY: at.clientY + 20 });
    // Mid-drag the tile follows (screen pixels over the zoom) as an element; nothing is saved yet.
    const moving = useSwitchboard.getState().nodes.find((n) => n.id === "s1")!;
    expect(moving.position).toEqual({ x: before.x + 100, y: before.y + 40 });
    expect(moving.dragging).toBe(true);
    expect(document.querySelector('.session-tile[data-id="s1"]')).not.toBeNull();
    expect(ipc.setPosition).not.toHaveBeenCalled();
    fireEvent.pointerUp(window, { clientX: at.clientX + 100, clientY: at.clientY });
    expect(ipc.setPosition).toHaveBeenCalledWith("s1", before.x + 200, before.y);
    // The click that ends a drag selects nothing.
    fireEvent.click(canvas, at);
    expect(selectSelectedId(useSwitchboard.getState())).toBeNull();
    await act(async () => {});
    const pinned = useSwitchboard.getState().nodes.find((n) => n.id === "s1")!;
    expect(pinned.data.region).toBeNull();
    expect(pinned.position).toEqual({ x: before.x + 200, y: before.y });
    expect(document.querySelector('.react-flow__node-session[data-id="s1"]')).not.toBeNull();
    expect(document.querySelector('.session-tile[data-id="s1"]')).toBeNull();
  });

  it("the filter fades the painted tiles that do not match, and only those are painted again", async () => {
    await renderCrowd(0.3);
    paints = [];
    act(() => useSwitchboard.getState().setFilterText("Task 7"));
    const faded = paints.filter((p) => p.text.startsWith("Task "));
    expect(faded.length).toBeGreaterThan(COUNT / 2);
    expect(faded.every((p) => p.alpha < 0.5 && !/7/.test(p.text))).toBe(true);
    // In the lane, elements: dimmed by their attribute.
    expect(tile("s0")).toHaveAttribute("data-dimmed", "true");
    // Lit: the matches (every word: "task" and "7"), on the canvases or in the lane.
    const canvases = [...document.querySelectorAll<HTMLCanvasElement>('[data-testid="tile-canvas"]')];
    const lit = canvases.reduce((n, c) => n + Number(c.dataset.lit), 0);
    const litInLane = document.querySelectorAll('[data-testid="session-node"][data-dimmed="false"]').length;
    const matching = Array.from({ length: COUNT }, (_, i) => `Task ${i}`).filter((t) => t.includes("7")).length;
    expect(lit + litInLane).toBe(matching);
  });

  it("zoomed in, tiles are full cards and only those near the view are drawn", async () => {
    await renderCrowd(1);
    const drawn = document.querySelectorAll('[data-testid="session-node"]');
    expect(drawn.length).toBeGreaterThan(0);
    expect(drawn.length).toBeLessThan(COUNT);
    // Full cards (with their SVG status glyph), not the light form.
    const first = drawn[0] as HTMLElement;
    expect(first.classList.contains("is-light")).toBe(false);
    expect(first.querySelector("svg")).not.toBeNull();
  });
});
