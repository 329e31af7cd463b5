import { beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { act, fireEvent, render, screen, within } from "@testing-library/react";
import { useEffect } from "react";
import { ReactFlowProvider, useStoreApi } from "@xyflow/react";
import { Canvas } from "./Canvas";
import { Header } from "../header/Header";
import { selectSelectedId, useSwitchboard } from "../state/store";
import { makeSession, NOW } from "../test/sessions";
import { installFlowStubs } from "../test/flow";
import * as ipc from "../shared/ipc";

import { DetailsPanel } from "../panel/DetailsPanel";
import { resetDecide } from "../state/decide";
import { resetJump } from "../state/jumpNotes";
import { resetAnswers } from "../state/answers";
import { resetKeyHint, useKeyHint } from "../state/keyHint";
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
  answerQuestion: vi.fn(() => Promise.resolve({ pane: "%3", typed: "2", throughHook: false, throughDaemon: false })),
}));

beforeAll(installFlowStubs);

const sessions = [
  makeSession({ sessionId: "w1", status: "working", firstEventAt: NOW - 50_000 }),
  makeSession({ sessionId: "b1", status: "blocked", tool: "Bash", unread: true, firstEventAt: NOW - 40_000 }),
  makeSession({ sessionId: "q1", status: "waiting", question: "Which DB?", firstEventAt: NOW - 30_000 }),
  makeSession({ sessionId: "d1", status: "done", unread: true, firstEventAt: NOW - 20_000 }),
  makeSession({ sessionId: "d2", status: "done", firstEventAt: NOW - 10_000 }),
  makeSession({ sessionId: "e1", status: "done", ended: true, firstEventAt: NOW - 5_000 }),
];

let flowStore: ReturnType<typeof useStoreApi> | null = null;

function GrabStore() {
  const store = useStoreApi();
  useEffect(() => {
    flowStore = store;
  }, [store]);
  return null;
}

function renderCanvas({ details = false } = {}) {
  useSwitchboard.getState().applySnapshot(sessions);
  return render(
    <>
      <Header />
      <ReactFlowProvider>
        <div style={{ width: 1200, height: 800 }}>
          <Canvas />
        </div>
        <GrabStore />
      </ReactFlowProvider>
      {details && <DetailsPanel />}
    </>,
  );
}

/** Tab reaching a node: a key press, then the browser moves the focus. */
function tabTo(id: string) {
  fireEvent.keyDown(window, { key: "Tab" });
  act(() => flowNode(id).focus());
}

/** The React Flow wrapper of a session node: what Tab focuses. */
function flowNode(id: string): HTMLElement {
  const el = document.querySelector<HTMLElement>(`.react-flow__node-session[data-id="${id}"]`);
  if (!el) throw new Error(`no node ${id}`);
  return el;
}

beforeEach(() => {
  useSwitchboard.setState(initialData());
  vi.mocked(ipc.clearUnread).mockClear();
  vi.mocked(ipc.decide).mockClear();
  resetDecide();
  vi.mocked(ipc.jumpToTerminal).mockReset();
  vi.mocked(ipc.jumpToTerminal).mockResolvedValue({ how: "tmux", pane: "%3" });
  resetJump();
  vi.mocked(ipc.answerQuestion).mockClear();
  resetAnswers();
  resetKeyHint();
});

describe("the canvas", () => {
  it("renders one node per session and the header counts", async () => {
    renderCanvas();
    const nodes = await screen.findAllByTestId("session-node");
    // In screen order (what Tab walks): the lane's first, then the project's as they read.
    expect(nodes.map((n) => n.dataset.sessionId)).toEqual(["b1", "q1", "d1", "w1", "d2", "e1"]);
    expect(screen.getByTestId("count-needs")).toHaveTextContent("2 need you");
    expect(screen.getByTestId("count-working")).toHaveTextContent("1 working");
    expect(screen.getByTestId("count-done")).toHaveTextContent("2 done");
  });

  it("n selects (opens) the next session that needs you and Enter marks it read and goes to its terminal", async () => {
    renderCanvas({ details: true });
    await screen.findAllByTestId("session-node");
    fireEvent.keyDown(window, { key: "n" });
    expect(selectSelectedId(useSwitchboard.getState())).toBe("b1");
    expect(screen.getByTestId("details-panel")).toHaveAttribute("data-session-id", "b1");
    await act(async () => fireEvent.keyDown(window, { key: "Enter" }));
    expect(ipc.clearUnread).toHaveBeenCalledWith("b1");
    expect(ipc.jumpToTerminal).toHaveBeenCalledWith("b1");
    await act(async () => fireEvent.keyDown(window, { key: "N", shiftKey: true }));
    expect(selectSelectedId(useSwitchboard.getState())).toBe("d1");
    expect(ipc.jumpToTerminal).toHaveBeenCalledTimes(1);
  });

  it("ignores shortcuts typed into a field", async () => {
    renderCanvas();
    await screen.findAllByTestId("session-node");
    const input = document.createElement("input");
    document.body.appendChild(input);
    fireEvent.keyDown(input, { key: "n" });
    expect(selectSelectedId(useSwitchboard.getState())).toBeNull();
    input.remove();
  });

  it("clicking a chip shows only its sessions; clicking it again shows all", async () => {
    renderCanvas();
    await screen.findAllByTestId("session-node");
    const dimmed = () =>
      screen
        .getAllByTestId("session-node")
        .filter((n) => n.dataset.dimmed === "true")
        .map((n) => n.dataset.sessionId)
        .sort();
    fireEvent.click(screen.getByTestId("count-needs"));
    expect(screen.getByTestId("count-needs")).toHaveAttribute("aria-pressed", "true");
    expect(dimmed()).toEqual(["d1", "d2", "e1", "w1"]);
    fireEvent.click(screen.getByTestId("count-done"));
    expect(dimmed()).toEqual(["b1", "e1", "q1", "w1"]);
    fireEvent.click(screen.getByTestId("count-done"));
    expect(dimmed()).toEqual([]);
    expect(screen.getByTestId("count-done")).toHaveAttribute("aria-pressed", "false");
  });

  it("Ctrl+K and / open the quick filter; typing dims what does not match, Escape clears it", async () => {
    renderCanvas();
    await screen.findAllByTestId("session-node");
    fireEvent.keyDown(window, { key: "k", ctrlKey: true });
    const input = await screen.findByTestId("filter-input");
    fireEvent.change(input, { target: { value: "question" } });
    const lit = () =>
      screen
        .getAllByTestId("session-node")
        .filter((n) => n.dataset.dimmed === "false")
        .map((n) => n.dataset.sessionId);
    expect(lit()).toEqual(["q1"]);
    expect(screen.getByTestId("filter-count")).toHaveTextContent("1 of 6");
    fireEvent.keyDown(input, { key: "Escape" });
    expect(screen.queryByTestId("filter-input")).toBeNull();
    expect(lit()).toHaveLength(6);
    fireEvent.keyDown(window, { key: "/" });
    expect(await screen.findByTestId("filter-input")).toBeInTheDocument();
  });

  it("Enter in the filter selects the first match", async () => {
    renderCanvas();
    await screen.findAllByTestId("session-node");
    fireEvent.keyDown(window, { key: "/" });
    const input = await screen.findByTestId("filter-input");
    fireEvent.change(input, { target: { value: "question" } });
    fireEvent.keyDown(input, { key: "Enter" });
    expect(selectSelectedId(useSwitchboard.getState())).toBe("q1");
  });

  it("arrow keys move the selection across nodes and Enter opens it", async () => {
    renderCanvas();
    await screen.findAllByTestId("session-node");
    // Nothing selected: the first arrow picks the top-left node, the first in "Needs you".
    fireEvent.keyDown(window, { key: "ArrowRight" });
    expect(selectSelectedId(useSwitchboard.getState())).toBe("b1");
    fireEvent.keyDown(window, { key: "ArrowRight" });
    expect(selectSelectedId(useSwitchboard.getState())).toBe("q1");
    fireEvent.keyDown(window, { key: "ArrowDown" });
    const below = selectSelectedId(useSwitchboard.getState());
    expect(below).not.toBe("q1");
    expect(["d1", "w1", "d2", "e1"]).toContain(below);
    fireEvent.keyDown(window, { key: "ArrowUp" });
    expect(["b1", "q1"]).toContain(selectSelectedId(useSwitchboard.getState()));
    act(() => useSwitchboard.getState().select("d1"));
    await act(async () => fireEvent.keyDown(window, { key: "Enter" }));
    expect(ipc.clearUnread).toHaveBeenCalledWith("d1");
  });

  it("a status change re-renders the node in place", async () => {
    renderCanvas();
    const node = (await screen.findAllByTestId("session-node")).find((n) => n.dataset.sessionId === "w1")!;
    act(() =>
      useSwitchboard.getState().applyChanges({
        changed: [makeSession({ sessionId: "w1", status: "waiting", question: "Ship it?", firstEventAt: NOW - 50_000 })],
        removed: [],
      }),
    );
    const updated = screen.getAllByTestId("session-node").find((n) => n.dataset.sessionId === "w1")!;
    expect(updated).toBe(node);
    expect(updated).toHaveAttribute("data-status", "waiting");
    // Zoomed out (jsdom's fit), the card shows its compact form: status word and title.
    expect(within(updated).getByTestId("status-badge")).toHaveTextContent("Has a question");
    expect(updated).toHaveAttribute("data-needs-you", "true");
    expect(screen.getByTestId("count-needs")).toHaveTextContent("3 need you");
  });

  it("Escape closes the details (deselects), then the Older drawer", async () => {
    renderCanvas();
    await screen.findAllByTestId("session-node");
    act(() => useSwitchboard.getState().setOlderOpen(true));
    fireEvent.keyDown(window, { key: "n" });
    expect(selectSelectedId(useSwitchboard.getState())).toBe("b1");
    fireEvent.keyDown(window, { key: "Escape" });
    expect(selectSelectedId(useSwitchboard.getState())).toBeNull();
    expect(useSwitchboard.getState().olderOpen).toBe(true);
    fireEvent.keyDown(window, { key: "Escape" });
    expect(useSwitchboard.getState().olderOpen).toBe(false);
  });

  it("a and d answer the selected node's held permission, and nothing else", async () => {
    renderCanvas();
    await screen.findAllByTestId("session-node");
    // b1 is blocked but nothing holds its prompt: no answer to give.
    fireEvent.keyDown(window, { key: "n" });
    expect(selectSelectedId(useSwitchboard.getState())).toBe("b1");
    fireEvent.keyDown(window, { key: "a" });
    expect(ipc.decide).not.toHaveBeenCalled();
    act(() =>
      useSwitchboard.getState().applyChanges({
        changed: [makeSession({ sessionId: "b1", status: "blocked", tool: "Bash", decision: 3, firstEventAt: NOW - 40_000 })],
        removed: [],
      }),
    );
    fireEvent.keyDown(window, { key: "d" });
    expect(ipc.decide).toHaveBeenCalledWith("b1", 3, "deny");
    // Sent once: a second key for the same hold is not another answer.
    fireEvent.keyDown(window, { key: "a" });
    expect(ipc.decide).toHaveBeenCalledTimes(1);
    // Another node selected: its keys are its own.
    act(() => useSwitchboard.getState().select("w1"));
    fireEvent.keyDown(window, { key: "a" });
    expect(ipc.decide).toHaveBeenCalledTimes(1);
  });

  it("1–9 pick an option of the selected or focused node's question, and nothing else", async () => {
    renderCanvas();
    await screen.findAllByTestId("session-node");
    const options = [
      { label: "SQLite", description: null },
      { label: "Postgres", description: null },
    ];
    act(() =>
      useSwitchboard.getState().applyChanges({
        changed: [
          makeSession({
            sessionId: "q1",
            status: "waiting",
            awaitingInput: true,
            question: "Which DB?",
            questions: [{ header: null, question: "Which DB?", multiSelect: false, options }],
            firstEventAt: NOW - 30_000,
          }),
        ],
        removed: [],
      }),
    );
    // No question on the selected node: a digit is nothing, and says why.
    act(() => useSwitchboard.getState().select("w1"));
    fireEvent.keyDown(window, { key: "2" });
    expect(ipc.answerQuestion).not.toHaveBeenCalled();
    expect(useKeyHint.getState().text).toContain("is not asking a question");
    // Pressed on another node than the selected one (a stale focus): the panel's card decides.
    fireEvent.keyDown(flowNode("q1"), { key: "2" });
    expect(ipc.answerQuestion).not.toHaveBeenCalled();
    // Reached with Tab, the node is selected: its digit answers.
    tabTo("q1");
    expect(selectSelectedId(useSwitchboard.getState())).toBe("q1");
    await act(async () => fireEvent.keyDown(flowNode("q1"), { key: "2" }));
    expect(ipc.answerQuestion).toHaveBeenCalledWith("q1", 2);
    // An option the question does not have says so.
    act(() => resetAnswers());
    fireEvent.keyDown(window, { key: "7" });
    expect(useKeyHint.getState().text).toBe("This question has options 1–2.");
    act(() => resetAnswers());
    act(() => useSwitchboard.getState().select("q1"));
    // Typed into the filter, a digit is text.
    fireEvent.keyDown(window, { key: "/" });
    fireEvent.keyDown(await screen.findByTestId("filter-input"), { key: "1" });
    expect(ipc.answerQuestion).toHaveBeenCalledTimes(1);
    await act(async () => fireEvent.keyDown(window, { key: "1" }));
    expect(ipc.answerQuestion).toHaveBeenLastCalledWith("q1", 1);
  });

  it("Tab selects the node it reaches (its details open); Enter there goes to its terminal", async () => {
    renderCanvas({ details: true });
    await screen.findAllByTestId("session-node");
    expect(screen.queryByTestId("details-panel")).toBeNull();
    tabTo("d1");
    expect(selectSelectedId(useSwitchboard.getState())).toBe("d1");
    expect(screen.getByTestId("details-panel")).toHaveAttribute("data-session-id", "d1");
    expect(ipc.jumpToTerminal).not.toHaveBeenCalled();
    await act(async () => fireEvent.keyDown(flowNode("d1"), { key: "Enter" }));
    expect(ipc.clearUnread).toHaveBeenCalledWith("d1");
    expect(ipc.jumpToTerminal).toHaveBeenCalledTimes(1);
    expect(ipc.jumpToTerminal).toHaveBeenCalledWith("d1");
    expect(await screen.findByTestId("jump-result")).toHaveTextContent("Switched tmux to pane %3.");
  });

  it("one target: the selection moved by n or the arrows takes the focus along (issue 44.1)", async () => {
    renderCanvas({ details: true });
    await screen.findAllByTestId("session-node");
    tabTo("d2");
    expect(document.activeElement).toBe(flowNode("d2"));
    fireEvent.keyDown(flowNode("d2"), { key: "n" });
    expect(selectSelectedId(useSwitchboard.getState())).toBe("b1");
    expect(screen.getByTestId("details-panel")).toHaveAttribute("data-session-id", "b1");
    // Focus is where the selection (and the panel) is: one ring, one target.
    expect(document.activeElement).toBe(flowNode("b1"));
    act(() => useSwitchboard.getState().select("q1"));
    expect(document.activeElement).toBe(flowNode("q1"));
  });

  it("a key with nothing to act on says why", async () => {
    renderCanvas();
    await screen.findAllByTestId("session-node");
    fireEvent.keyDown(window, { key: "a" });
    expect(useKeyHint.getState().text).toContain("No card is selected");
    act(() => useSwitchboard.getState().select("w1"));
    fireEvent.keyDown(window, { key: "d" });
    expect(useKeyHint.getState().text).toContain("is not asking for permission");
    // Blocked, but its prompt is not held here: where to answer it.
    act(() => useSwitchboard.getState().select("b1"));
    fireEvent.keyDown(window, { key: "a" });
    expect(useKeyHint.getState().text).toContain("answer in its terminal");
  });

  it("Enter with the details open jumps once, and the panel says where it went", async () => {
    renderCanvas({ details: true });
    await screen.findAllByTestId("session-node");
    act(() => useSwitchboard.getState().select("w1"));
    await act(async () => fireEvent.keyDown(window, { key: "Enter" }));
    expect(ipc.jumpToTerminal).toHaveBeenCalledTimes(1);
    expect(ipc.jumpToTerminal).toHaveBeenCalledWith("w1");
    expect(screen.getByTestId("jump-result")).toHaveTextContent("Switched tmux to pane %3.");
    // Held down, Enter does not jump again and again.
    await act(async () => fireEvent.keyDown(window, { key: "Enter", repeat: true }));
    expect(ipc.jumpToTerminal).toHaveBeenCalledTimes(1);
  });

  it("Enter does not jump for an ended session, nor when pressed on a button", async () => {
    renderCanvas();
    await screen.findAllByTestId("session-node");
    act(() => useSwitchboard.getState().select("e1"));
    await act(async () => fireEvent.keyDown(window, { key: "Enter" }));
    expect(ipc.jumpToTerminal).not.toHaveBeenCalled();
    act(() => useSwitchboard.getState().select("w1"));
    await act(async () => fireEvent.keyDown(screen.getByTestId("count-done"), { key: "Enter" }));
    expect(ipc.jumpToTerminal).not.toHaveBeenCalled();
  });

  it("zoomed out, the nodes have no jump button", async () => {
    renderCanvas();
    await screen.findAllByTestId("session-node");
    // The user turned the wheel, far out.
    fireEvent.wheel(document.querySelector(".react-flow__pane")!, { deltaY: 400 });
    await act(async () => flowStore!.setState({ transform: [0, 0, 0.3] }));
    const nodes = screen.getAllByTestId("session-node");
    expect(nodes.every((n) => n.dataset.form === "far-card")).toBe(true);
    expect(screen.queryByTestId("node-jump")).toBeNull();
  });
});
