// A crowded canvas (over CROWDED_ABOVE sessions): the regions draw the sessions the layout places
// as tiles — light ones zoomed out — and the tiles behave like nodes: select, open, drag, filter.
import { beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { act, fireEvent, render, screen } from "@testing-library/react";
import { ReactFlowProvider, useStoreApi } from "@xyflow/react";
import { Canvas, CROWDED_ABOVE } from "./Canvas";
import { initialData, selectSelectedId, useSwitchboard } from "./store";
import { makeSession, NOW } from "./test/sessions";
import { installFlowStubs } from "./test/flow";
import * as ipc from "./ipc";

vi.mock("./ipc", async (importOriginal) => ({
  toIpcError: (await importOriginal<typeof import("./ipc")>()).toIpcError,
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
  flowStore = useStoreApi();
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

describe("a crowded canvas", () => {
  it("draws every session as a tile in its region, light when zoomed out, not as React Flow nodes", async () => {
    await renderCrowd(0.1);
    const nodes = screen.getAllByTestId("session-node");
    expect(nodes).toHaveLength(COUNT);
    expect(document.querySelectorAll(".react-flow__node-session")).toHaveLength(0);
    // Each tile sits in the region the layout gave it: the lane holds those that need you.
    const lane = document.querySelector('[data-testid="region"][data-kind="needs-you"]')!;
    const inLane = [...lane.querySelectorAll<HTMLElement>('[data-testid="session-node"]')];
    expect(inLane.length).toBeGreaterThan(0);
    expect(inLane.every((n) => n.dataset.needsYou === "true")).toBe(true);
    expect(inLane.map((n) => n.dataset.sessionId)).toContain("s0");
    // Zoomed out: the light form, with the status word and the title, and no SVG.
    const s0 = tile("s0");
    expect(s0).toHaveAttribute("data-form", "far-card");
    expect(s0.classList.contains("is-light")).toBe(true);
    expect(s0.querySelector("svg")).toBeNull();
    expect(s0.querySelector('[data-testid="status-badge"]')).toHaveTextContent("Needs permission");
    expect(s0.querySelector('[data-testid="node-title"]')).toHaveTextContent("Task 0");
    const s1 = tile("s1");
    expect(s1).toHaveAttribute("data-form", "strip");
    expect(s1.querySelector('[data-testid="status-badge"]')).toHaveTextContent("Working");
    // The tile's place is the layout's, relative to its region.
    const node = useSwitchboard.getState().nodes.find((n) => n.id === "s0")!;
    const region = useSwitchboard.getState().regions.find((r) => r.id === node.data.region)!;
    expect(s0.style.transform).toBe(`translate(${node.position.x - region.x}px, ${node.position.y - region.y}px)`);
    // The unread dot shows on the light form too.
    expect(tile("s2").querySelector('[data-testid="unread-dot"]')).not.toBeNull();
  });

  it("a click on a tile selects the session and clears its unread dot", async () => {
    await renderCrowd(0.3);
    fireEvent.click(tile("s2"));
    expect(selectSelectedId(useSwitchboard.getState())).toBe("s2");
    expect(ipc.clearUnread).toHaveBeenCalledWith("s2");
    expect(tile("s2")).toHaveAttribute("data-id", "s2");
    expect(tile("s2").className).toContain("is-selected");
    // A click on the empty canvas lets go of it, as for a node.
    fireEvent.click(document.querySelector(".react-flow__pane")!);
    expect(selectSelectedId(useSwitchboard.getState())).toBeNull();
    expect(tile("s2").className).not.toContain("is-selected");
  });

  it("a drag moves a tile; the drop pins it there and it becomes a node of its own", async () => {
    await renderCrowd(0.5);
    const before = useSwitchboard.getState().nodes.find((n) => n.id === "s0")!.position;
    fireEvent.pointerDown(tile("s0"), { button: 0, clientX: 100, clientY: 100 });
    fireEvent.pointerMove(window, { clientX: 150, clientY: 120 });
    // Mid-drag the tile follows (screen pixels over the zoom), nothing is saved yet.
    const moving = useSwitchboard.getState().nodes.find((n) => n.id === "s0")!;
    expect(moving.position).toEqual({ x: before.x + 100, y: before.y + 40 });
    expect(moving.dragging).toBe(true);
    expect(ipc.setPosition).not.toHaveBeenCalled();
    fireEvent.pointerUp(window, { clientX: 200, clientY: 100 });
    expect(ipc.setPosition).toHaveBeenCalledWith("s0", before.x + 200, before.y);
    // Pinned: out of its region's grid, a React Flow node at the drop.
    await act(async () => {});
    const pinned = useSwitchboard.getState().nodes.find((n) => n.id === "s0")!;
    expect(pinned.data.region).toBeNull();
    expect(pinned.position).toEqual({ x: before.x + 200, y: before.y });
    expect(document.querySelector('.react-flow__node-session[data-id="s0"]')).not.toBeNull();
    expect(document.querySelector('.session-tile[data-id="s0"]')).toBeNull();
  });

  it("the filter dims the tiles that do not match", async () => {
    await renderCrowd(0.3);
    act(() => useSwitchboard.getState().setFilterText("Task 7"));
    const lit = [...document.querySelectorAll<HTMLElement>('[data-testid="session-node"][data-dimmed="false"]')];
    const ids = lit.map((n) => n.dataset.sessionId!);
    expect(ids).toEqual(expect.arrayContaining(["s7", "s70", "s75", "s79"]));
    expect(ids.length).toBeLessThan(COUNT / 2);
    for (const n of lit) expect(n.querySelector('[data-testid="node-title"]')!.textContent).toMatch(/7/);
    expect(tile("s1")).toHaveAttribute("data-dimmed", "true");
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
