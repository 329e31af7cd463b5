// The board follows its content: fitted when sessions arrive on an empty canvas and whenever part
// of it leaves the view, until the user moves the view by hand; `f` starts it again.
import { beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { act, fireEvent, render, screen } from "@testing-library/react";
import { useMemo } from "react";
import { ReactFlowProvider, useStoreApi } from "@xyflow/react";
import { Canvas } from "./Canvas";
import { useSwitchboard } from "../state/store";
import { installFlowStubs } from "../test/flow";
import { makeSession, NOW } from "../test/sessions";

import { initialData } from "../state/data";
import { fitViewport, FIT_INSETS } from "./fit";

const fits = vi.hoisted(() => ({ fitView: vi.fn(), fitBounds: vi.fn(), setViewport: vi.fn() }));

// The real React Flow, with its viewport moves recorded on the way through.
vi.mock("@xyflow/react", async (importOriginal) => {
  const actual = await importOriginal<typeof import("@xyflow/react")>();
  return {
    ...actual,
    useReactFlow: () => {
      const flow = actual.useReactFlow();
      return useMemo(
        () => ({
          ...flow,
          fitView: (options?: Parameters<typeof flow.fitView>[0]) => {
            fits.fitView(options);
            return flow.fitView(options);
          },
          fitBounds: (...args: Parameters<typeof flow.fitBounds>) => {
            fits.fitBounds(...args);
            return flow.fitBounds(...args);
          },
          setViewport: (...args: Parameters<typeof flow.setViewport>) => {
            fits.setViewport(...args);
            return flow.setViewport(...args);
          },
        }),
        [flow],
      );
    },
  };
});

vi.mock("../shared/ipc", () => ({
  clearUnread: vi.fn(() => Promise.resolve()),
  removeSession: vi.fn(() => Promise.resolve()),
  setPosition: vi.fn(() => Promise.resolve()),
}));

beforeAll(() => {
  installFlowStubs();
  // A 1200 × 800 pane: room for a few nodes at full size, not for forty. A hidden window (the
  // app's is, until its first board is drawn) has no size at all.
  Object.defineProperties(HTMLElement.prototype, {
    clientWidth: { configurable: true, get: () => (hidden ? 0 : 1200) },
    clientHeight: { configurable: true, get: () => (hidden ? 0 : 800) },
  });
});

let hidden = false;

beforeEach(() => {
  hidden = false;
  useSwitchboard.setState(initialData());
  fits.fitView.mockClear();
  fits.fitBounds.mockClear();
  fits.setViewport.mockClear();
});

const fitCount = () =>
  fits.fitView.mock.calls.length + fits.fitBounds.mock.calls.length + fits.setViewport.mock.calls.length;
const store = () => useSwitchboard.getState();
const arrive = (...ids: string[]) =>
  act(() =>
    store().applyChanges({
      changed: ids.map((id, i) => makeSession({ sessionId: id, firstEventAt: NOW + i })),
      removed: [],
    }),
  );

function renderCanvas() {
  return render(
    <ReactFlowProvider>
      <div style={{ width: 1200, height: 800 }}>
        <Canvas />
      </div>
    </ReactFlowProvider>,
  );
}

/** The canvas, and React Flow's store: to set the pane size it measured. */
function renderCanvasWithFlowStore() {
  let flowApi: ReturnType<typeof useStoreApi> | null = null;
  function Grab() {
    flowApi = useStoreApi();
    return null;
  }
  render(
    <ReactFlowProvider>
      <div style={{ width: 1200, height: 800 }}>
        <Canvas />
        <Grab />
      </div>
    </ReactFlowProvider>,
  );
  return flowApi!;
}

describe("a window that shows itself after its first board", () => {
  it("fits that board again for the size it shows at, once, without a glide", async () => {
    hidden = true;
    store().applySnapshot([makeSession({ sessionId: "a" }), makeSession({ sessionId: "b", firstEventAt: NOW })]);
    const flowApi = renderCanvasWithFlowStore();
    await screen.findAllByTestId("session-node");
    // Fitted while hidden, for no real size; nothing measured yet.
    act(() => flowApi.setState({ width: 0, height: 0 }));
    const before = fitCount();
    // The window shows: the pane is measured for the first time.
    hidden = false;
    act(() => flowApi.setState({ width: 1200, height: 800 }));
    expect(fitCount()).toBe(before + 1);
    const [viewport, options] = fits.setViewport.mock.calls.at(-1)!;
    expect(options).toBeUndefined();
    expect(viewport).toEqual(expect.objectContaining({ zoom: expect.any(Number) }));
  });

  it("leaves a board fitted for the size it shows at as it is", async () => {
    store().applySnapshot([makeSession({ sessionId: "a" })]);
    const flowApi = renderCanvasWithFlowStore();
    await screen.findAllByTestId("session-node");
    act(() => flowApi.setState({ width: 0, height: 0 }));
    const before = fitCount();
    act(() => flowApi.setState({ width: 1200, height: 800 }));
    expect(fitCount()).toBe(before);
  });
});

describe("fitting the view", () => {
  it("does nothing while the canvas is empty", () => {
    store().applySnapshot([]);
    renderCanvas();
    expect(fitCount()).toBe(0);
  });

  it("fits when the first sessions arrive, and not again while they all stay in view", async () => {
    store().applySnapshot([]);
    renderCanvas();
    arrive("a");
    await screen.findAllByTestId("session-node");
    expect(fitCount()).toBe(1);
    // One node at full size: shown from the top at zoom 1, not blown up to fill the pane.
    expect(fits.setViewport).toHaveBeenCalledWith(expect.objectContaining({ zoom: 1, y: FIT_INSETS.top }));

    arrive("b", "c");
    act(() => store().applyChanges({ changed: [makeSession({ sessionId: "a", status: "done" })], removed: [] }));
    act(() => store().select("b"));
    expect(fitCount()).toBe(1);
  });

  it("zooms out again when arrivals no longer fit, until the user turns the wheel; f follows again", async () => {
    store().applySnapshot([]);
    renderCanvas();
    arrive("a");
    await screen.findAllByTestId("session-node");
    arrive(...Array.from({ length: 40 }, (_, i) => `s${i}`));
    const last = fits.setViewport.mock.calls.at(-1)![0] as { zoom: number };
    expect(last.zoom).toBeLessThan(1);
    const before = fitCount();

    fireEvent.wheel(document.querySelector(".react-flow__pane")!, { deltaY: -200 });
    arrive(...Array.from({ length: 15 }, (_, i) => `t${i}`));
    expect(fitCount()).toBe(before);

    act(() => void fireEvent.keyDown(window, { key: "f" }));
    expect(fitCount()).toBe(before + 1);
  });

  it("fits again when the board got smaller than the view it was fitted to: no empty band (issue 44)", async () => {
    store().applySnapshot([]);
    renderCanvas();
    arrive(...Array.from({ length: 40 }, (_, i) => `s${i}`));
    await screen.findAllByTestId("session-node");
    const zoomed = (fits.setViewport.mock.calls.at(-1)![0] as { zoom: number }).zoom;
    expect(zoomed).toBeLessThan(1);
    const before = fitCount();
    act(() => store().applyChanges({ changed: [], removed: Array.from({ length: 36 }, (_, i) => `s${i}`) }));
    expect(fitCount()).toBe(before + 1);
    expect((fits.setViewport.mock.calls.at(-1)![0] as { zoom: number }).zoom).toBeGreaterThan(zoomed);
  });

  it("fits at mount when the snapshot already has sessions", async () => {
    store().applySnapshot([makeSession({ sessionId: "a" }), makeSession({ sessionId: "b", firstEventAt: NOW })]);
    renderCanvas();
    await screen.findAllByTestId("session-node");
    expect(fitCount()).toBe(1);
    arrive("c");
    expect(fitCount()).toBe(1);
  });

  it("fits again after the canvas emptied and sessions came back", async () => {
    store().applySnapshot([makeSession({ sessionId: "a" })]);
    renderCanvas();
    expect(fitCount()).toBe(1);
    act(() => store().applyChanges({ changed: [], removed: ["a"] }));
    expect(fitCount()).toBe(1);
    arrive("b");
    expect(fitCount()).toBe(2);
  });

  it("zooms out to fit when the arrivals do not fit at full size", async () => {
    store().applySnapshot([]);
    renderCanvas();
    arrive(...Array.from({ length: 60 }, (_, i) => `s${i}`));
    // To the layout's box, known without measuring anything: the first frame is the fitted one.
    expect(fits.setViewport).toHaveBeenCalledTimes(1);
    const { regions } = store();
    const right = Math.max(...regions.map((r) => r.x + r.width));
    const bottom = Math.max(...regions.map((r) => r.y + r.height));
    expect(fits.setViewport.mock.calls[0]![0]).toEqual(
      fitViewport({ x: 0, y: 0, width: right, height: bottom }, { width: 1200, height: 800 }),
    );
    expect(fits.fitBounds).not.toHaveBeenCalled();
  });

});
