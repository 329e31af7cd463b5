// A session its CLI runs in the background, with no terminal of its own (issue 48: `claude --bg`):
// the card says so, and the panel says how to open it in a terminal.
import { beforeEach, describe, expect, it, vi } from "vitest";
import { act, cleanup, render, screen, within } from "@testing-library/react";
import { SessionCard } from "./SessionNode";
import { DetailsPanel } from "../panel/DetailsPanel";
import { useSwitchboard } from "../state/store";
import { useClock } from "../state/clock";
import type { Session } from "../bindings/Session";
import { makeSession, NOW } from "../test/sessions";
import { initialData } from "../state/data";

vi.mock("../shared/ipc", async (importOriginal) => ({
  toIpcError: (await importOriginal<typeof import("../shared/ipc")>()).toIpcError,
  clearUnread: vi.fn(() => Promise.resolve()),
  sessionHistory: vi.fn(() => Promise.resolve([])),
  setPosition: vi.fn(() => Promise.resolve()),
}));

const process = { pid: 4242, start: 1, tty: null, tmuxPane: null, tmuxSocket: null, windowId: null, termProgram: null };

function show(fields: Partial<Session>) {
  useSwitchboard.getState().applySnapshot([makeSession({ sessionId: "s1", process, ...fields })]);
}

beforeEach(() => {
  cleanup();
  useSwitchboard.setState(initialData());
  useClock.setState({ now: NOW });
});

describe("a background session", () => {
  it("is marked on its card, with the command that opens it", () => {
    show({ background: "claude attach 8215c735" });
    render(<SessionCard id="s1" />);
    const word = within(screen.getByTestId("session-node")).getByTestId("node-background");
    expect(word).toHaveTextContent("background");
    expect(word).toHaveAttribute("title", "In the background: claude attach 8215c735");
  });

  it("says in the panel that it has no terminal, and how to open one", async () => {
    show({ background: "claude attach 8215c735" });
    act(() => useSwitchboard.getState().select("s1"));
    render(<DetailsPanel />);
    await screen.findByText("No history yet.");
    expect(screen.getByTestId("details-where")).toHaveTextContent(
      "Runs in the background, with no terminal of its own: `claude attach 8215c735` opens it in one.",
    );
  });

  it("a terminal session has no such mark", () => {
    show({ background: null });
    render(<SessionCard id="s1" />);
    expect(screen.queryByTestId("node-background")).toBeNull();
  });
});
