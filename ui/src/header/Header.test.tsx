import { beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { act, fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { ReactFlowProvider } from "@xyflow/react";
import { Header } from "./Header";
import { Canvas } from "../board/Canvas";
import { OlderDrawer } from "../board/OlderDrawer";
import { DetailsPanel } from "../panel/DetailsPanel";
import { selectDetailsId, useSwitchboard } from "../state/store";
import { useClock } from "../state/clock";
import { installFlowStubs } from "../test/flow";
import { makeSession, NOW } from "../test/sessions";
import * as ipc from "../shared/ipc";
import { initialData } from "../state/data";

vi.mock("../shared/ipc", () => ({
  clearUnread: vi.fn(() => Promise.resolve()),
  removeSession: vi.fn(() => Promise.resolve()),
  setPosition: vi.fn(() => Promise.resolve()),
  removeEnded: vi.fn(() => Promise.resolve(0)),
  sessionHistory: vi.fn(() => Promise.resolve([])),
}));

beforeAll(installFlowStubs);

const DAY = 24 * 60 * 60_000;
const sessions = [
  makeSession({ sessionId: "live-ask", status: "waiting", question: "Which DB?", firstEventAt: NOW - 50_000 }),
  makeSession({ sessionId: "live-work", status: "working", firstEventAt: NOW - 40_000 }),
  makeSession({ sessionId: "live-ended", status: "done", ended: true, firstEventAt: NOW - 30_000 }),
  makeSession({
    sessionId: "old-ask",
    title: "Choose a chart library",
    agent: "codex",
    cwd: "/home/maya/src/dashboard",
    status: "waiting",
    question: "Recharts or visx?",
    archived: true,
    firstEventAt: NOW - 3 * DAY,
    lastEventAt: NOW - 2 * DAY,
  }),
  makeSession({
    sessionId: "old-done",
    title: "Spike: websocket transport",
    status: "done",
    archived: true,
    firstEventAt: NOW - 4 * DAY,
    lastEventAt: NOW - 30 * 60 * 60_000,
  }),
  makeSession({
    sessionId: "old-ended",
    status: "done",
    ended: true,
    archived: true,
    firstEventAt: NOW - 9 * DAY,
    lastEventAt: NOW - 8 * DAY,
  }),
];

function renderApp() {
  useSwitchboard.getState().applySnapshot(sessions);
  return render(
    <>
      <Header />
      <ReactFlowProvider>
        <div style={{ width: 1200, height: 800 }}>
          <Canvas />
        </div>
      </ReactFlowProvider>
      <OlderDrawer />
      <DetailsPanel />
    </>,
  );
}

beforeEach(() => {
  useSwitchboard.setState(initialData());
  useClock.setState({ now: NOW });
  vi.mocked(ipc.removeEnded).mockClear();
  vi.mocked(ipc.sessionHistory).mockClear();
  vi.mocked(ipc.clearUnread).mockClear();
});

describe("archived sessions", () => {
  it("are not nodes on the canvas", async () => {
    renderApp();
    const nodes = await screen.findAllByTestId("session-node");
    expect(nodes.map((n) => n.dataset.sessionId)).toEqual(["live-ask", "live-work", "live-ended"]);
  });

  it("count in no header chip", () => {
    renderApp();
    expect(screen.getByTestId("count-needs")).toHaveAttribute("data-count", "1");
    expect(screen.getByTestId("count-working")).toHaveAttribute("data-count", "1");
    expect(screen.getByTestId("count-done")).toHaveAttribute("data-count", "0");
  });

  it("are listed under Older (N), with title, agent, folder, last status and age", () => {
    renderApp();
    const toggle = screen.getByTestId("older-toggle");
    expect(toggle).toHaveTextContent("Older (3)");
    expect(screen.queryByTestId("older-list")).toBeNull();
    fireEvent.click(toggle);
    expect(toggle).toHaveAttribute("aria-pressed", "true");
    const items = within(screen.getByTestId("older-list")).getAllByTestId("older-item");
    // The most recently heard from first.
    expect(items.map((i) => i.dataset.sessionId)).toEqual(["old-done", "old-ask", "old-ended"]);
    const ask = items[1]!;
    expect(ask).toHaveTextContent("Choose a chart library");
    expect(ask).toHaveTextContent("Codex");
    expect(ask).toHaveTextContent("~/src/dashboard");
    expect(within(ask).getByTestId("older-status")).toHaveTextContent("Has a question");
    expect(ask).toHaveTextContent("2 d ago");
    expect(items[2]).toHaveTextContent("ended");
  });

  it("clicking one shows its history, read-only: no node selected, nothing sent but the fetch", async () => {
    renderApp();
    fireEvent.click(screen.getByTestId("older-toggle"));
    const item = within(screen.getByTestId("older-list"))
      .getAllByTestId("older-item")
      .find((i) => i.dataset.sessionId === "old-ask")!;
    fireEvent.click(item);
    expect(selectDetailsId(useSwitchboard.getState())).toBe("old-ask");
    const panel = await screen.findByTestId("details-panel");
    expect(panel).toHaveAttribute("data-session-id", "old-ask");
    expect(panel).toHaveTextContent("In Older");
    await waitFor(() => expect(ipc.sessionHistory).toHaveBeenCalledWith("old-ask"));
    expect(item).toHaveAttribute("aria-current", "true");
    expect(ipc.clearUnread).not.toHaveBeenCalled();
  });

  it("Older disappears when nothing is archived", () => {
    useSwitchboard.getState().applySnapshot([makeSession({ sessionId: "a" })]);
    render(<Header />);
    expect(screen.queryByTestId("older-toggle")).toBeNull();
  });
});

describe("Clear ended", () => {
  it("shows how many ended sessions there are, archived ones included, and calls remove_ended", async () => {
    renderApp();
    const button = screen.getByTestId("clear-ended");
    expect(button).toHaveTextContent("Clear ended (2)");
    expect(button).toHaveAttribute("data-count", "2");
    expect(button).toHaveAttribute("title", expect.stringContaining("1 of them in Older"));
    fireEvent.click(button);
    expect(ipc.removeEnded).toHaveBeenCalledTimes(1);
    // Rust removes them; its sessions-changed takes the button away.
    await act(async () => {
      useSwitchboard.getState().applyChanges({ changed: [], removed: ["live-ended", "old-ended"] });
    });
    expect(screen.queryByTestId("clear-ended")).toBeNull();
  });

  it("is not there when nothing has ended", () => {
    useSwitchboard.getState().applySnapshot([makeSession({ sessionId: "a", status: "done" })]);
    render(<Header />);
    expect(screen.queryByTestId("clear-ended")).toBeNull();
  });

  it("follows the count as sessions end", () => {
    useSwitchboard.getState().applySnapshot([makeSession({ sessionId: "a" }), makeSession({ sessionId: "b" })]);
    render(<Header />);
    act(() =>
      useSwitchboard.getState().applyChanges({
        changed: [makeSession({ sessionId: "a", ended: true }), makeSession({ sessionId: "b", ended: true })],
        removed: [],
      }),
    );
    expect(screen.getByTestId("clear-ended")).toHaveTextContent("Clear ended (2)");
  });
});
