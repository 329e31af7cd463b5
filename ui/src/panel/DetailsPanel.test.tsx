import { beforeEach, describe, expect, it, vi } from "vitest";
import { act, fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { DetailsPanel } from "./DetailsPanel";
import { selectDetailsId, useSwitchboard } from "../state/store";
import { useClock } from "../state/clock";
import { clockTime } from "../shared/sessionLabels";
import type { HistoryEntry } from "../bindings/HistoryEntry";
import type { HistoryView } from "../bindings/HistoryView";
import { makeHistory, makeSession, NOW } from "../test/sessions";
import * as ipc from "../shared/ipc";

import { SessionCard } from "../card/SessionNode";
import { resetDecide } from "../state/decide";
import { resetJump } from "../state/jumpNotes";
import { initialData } from "../state/data";

vi.mock("../shared/ipc", async (importOriginal) => ({
  toIpcError: (await importOriginal<typeof import("../shared/ipc")>()).toIpcError,
  sessionHistory: vi.fn(),
  jumpToTerminal: vi.fn(),
  decide: vi.fn(),
  endAgent: vi.fn(),
}));

const MIN = 60_000;
const entry = (minutesAgo: number, fields: Partial<HistoryEntry> & Pick<HistoryEntry, "status">): HistoryView =>
  makeHistory({
    at: NOW - minutesAgo * MIN,
    tool: null,
    question: null,
    message: null,
    interrupted: false,
    errored: false,
    ...fields,
  });

const history: HistoryView[] = [
  entry(50, { status: "working", tool: "Read" }),
  entry(40, { status: "blocked", tool: "Bash", message: "rm -rf dist" }),
  entry(30, { status: "done", message: "All 214 tests pass." }),
  entry(20, { status: "done", errored: true, message: "API error 429" }),
  entry(12, { status: "done", interrupted: true }),
  entry(3, { status: "waiting", question: "SQLite or Postgres?", message: "ignored" }),
];

beforeEach(() => {
  useSwitchboard.setState(initialData());
  useClock.setState({ now: NOW });
  vi.mocked(ipc.sessionHistory).mockReset();
  vi.mocked(ipc.sessionHistory).mockResolvedValue(history);
  vi.mocked(ipc.decide).mockReset();
  vi.mocked(ipc.decide).mockResolvedValue(undefined);
  resetDecide();
  vi.mocked(ipc.jumpToTerminal).mockReset();
  resetJump();
  vi.mocked(ipc.endAgent).mockReset();
  vi.mocked(ipc.endAgent).mockResolvedValue(undefined);
});

function open(id = "a") {
  useSwitchboard.getState().applySnapshot([
    makeSession({ sessionId: "a", title: "auth-refactor", status: "waiting", question: "SQLite or Postgres?" }),
    makeSession({ sessionId: "b", firstEventAt: NOW }),
  ]);
  useSwitchboard.getState().select(id);
  return render(<DetailsPanel />);
}

describe("the details panel", () => {
  it("is closed while nothing is selected", () => {
    useSwitchboard.getState().applySnapshot([makeSession({ sessionId: "a" })]);
    render(<DetailsPanel />);
    expect(screen.queryByTestId("details-panel")).toBeNull();
    expect(ipc.sessionHistory).not.toHaveBeenCalled();
  });

  it("opens for the selected node and renders its history in order, newest last, in the status language", async () => {
    open();
    const panel = screen.getByTestId("details-panel");
    expect(panel).toHaveTextContent("auth-refactor");
    expect(ipc.sessionHistory).toHaveBeenCalledWith("a");
    const items = await within(panel).findAllByTestId("history-entry");
    expect(items.map((i) => within(i).getByTestId("history-word").textContent)).toEqual([
      "Working",
      "Needs permission",
      "Done",
      "Error",
      "Interrupted",
      "Has a question",
    ]);
    expect(items.map((i) => i.className.match(/tone-(\w+)/)?.[1])).toEqual([
      "working",
      "blocked",
      "done",
      "error",
      "interrupted",
      "waiting",
    ]);
    const reasons = items.map((i) => within(i).queryByTestId("history-reason")?.textContent ?? null);
    expect(reasons).toEqual([
      "Using Read",
      "Bash rm -rf dist",
      "All 214 tests pass.",
      "API error 429",
      null,
      "SQLite or Postgres?",
    ]);
    const time = within(items[1]!).getByTestId("history-time");
    expect(time).toHaveTextContent(`${clockTime(NOW - 40 * MIN)} · 40 min ago`);
    expect(time.textContent).toMatch(/^\d\d:\d\d · /);
  });

  it("refetches when that session changes, not when another one does", async () => {
    open();
    await screen.findAllByTestId("history-entry");
    expect(ipc.sessionHistory).toHaveBeenCalledTimes(1);
    act(() =>
      useSwitchboard.getState().applyChanges({ changed: [makeSession({ sessionId: "b", firstEventAt: NOW, status: "done" })], removed: [] }),
    );
    expect(ipc.sessionHistory).toHaveBeenCalledTimes(1);
    vi.mocked(ipc.sessionHistory).mockResolvedValue([...history, entry(0, { status: "working", tool: "Edit" })]);
    act(() =>
      useSwitchboard.getState().applyChanges({
        changed: [makeSession({ sessionId: "a", title: "auth-refactor", status: "working", tool: "Edit", lastEventAt: NOW })],
        removed: [],
      }),
    );
    expect(ipc.sessionHistory).toHaveBeenCalledTimes(2);
    await waitFor(() => expect(screen.getAllByTestId("history-entry")).toHaveLength(7));
    expect(screen.getAllByTestId("history-word").at(-1)).toHaveTextContent("Working");
  });

  it("follows the selection to another session", async () => {
    open();
    await screen.findAllByTestId("history-entry");
    vi.mocked(ipc.sessionHistory).mockResolvedValue([]);
    act(() => useSwitchboard.getState().select("b"));
    expect(ipc.sessionHistory).toHaveBeenLastCalledWith("b");
    expect(await screen.findByText("No history yet.")).toBeInTheDocument();
    expect(screen.queryAllByTestId("history-entry")).toHaveLength(0);
  });

  it("says so when the history cannot be loaded", async () => {
    vi.mocked(ipc.sessionHistory).mockRejectedValue({ kind: "io", message: "database is locked" });
    open();
    expect(await screen.findByRole("alert")).toHaveTextContent("database is locked");
  });

  it("closes with its × (the node is deselected)", async () => {
    open();
    await screen.findAllByTestId("history-entry");
    fireEvent.click(screen.getByRole("button", { name: "Close details" }));
    expect(selectDetailsId(useSwitchboard.getState())).toBeNull();
    expect(screen.queryByTestId("details-panel")).toBeNull();
  });

  it("notes a session restored from the last run", async () => {
    useSwitchboard.getState().applySnapshot([makeSession({ sessionId: "a", restored: true, lastEventAt: NOW - 3 * 60 * MIN })]);
    useSwitchboard.getState().select("a");
    render(<DetailsPanel />);
    expect(screen.getByTestId("details-panel")).toHaveTextContent("From the last run — no news for 3 h.");
    await screen.findAllByTestId("history-entry");
  });

  it("says where the agent runs and jumps to its tmux pane", async () => {
    useSwitchboard.getState().applySnapshot([
      makeSession({
        sessionId: "t",
        process: { pid: 4242, start: 1, tty: "/dev/pts/3", tmuxPane: "%7", tmuxSocket: "/tmp/tmux-0/default", windowId: null, termProgram: null },
      }),
    ]);
    useSwitchboard.getState().select("t");
    vi.mocked(ipc.jumpToTerminal).mockResolvedValue({ how: "tmux", pane: "%7" });
    render(<DetailsPanel />);
    expect(screen.getByTestId("details-where")).toHaveTextContent("tmux pane %7 · /dev/pts/3 · pid 4242");
    fireEvent.click(screen.getByTestId("jump-to-terminal"));
    expect(await screen.findByTestId("jump-result")).toHaveTextContent("Switched tmux to pane %7.");
    expect(ipc.jumpToTerminal).toHaveBeenCalledWith("t");
  });

  it("copies the resume command when there is no terminal to show", async () => {
    const writeText = vi.fn(async () => {});
    Object.defineProperty(navigator, "clipboard", { value: { writeText }, configurable: true });
    useSwitchboard.getState().applySnapshot([makeSession({ sessionId: "r", exited: true })]);
    useSwitchboard.getState().select("r");
    vi.mocked(ipc.jumpToTerminal).mockResolvedValue({ how: "resume", command: "cd /w && claude --resume r" });
    render(<DetailsPanel />);
    expect(screen.getByTestId("details-where")).toHaveTextContent("Its process has exited.");
    fireEvent.click(screen.getByTestId("jump-to-terminal"));
    expect(await screen.findByTestId("jump-result")).toHaveTextContent("copied: cd /w && claude --resume r");
    expect(writeText).toHaveBeenCalledWith("cd /w && claude --resume r");
  });

  it("names Enter as the Jump button's shortcut, and has no Jump for an ended session", async () => {
    useSwitchboard.getState().applySnapshot([makeSession({ sessionId: "a" }), makeSession({ sessionId: "e", ended: true })]);
    useSwitchboard.getState().select("a");
    const { unmount } = render(<DetailsPanel />);
    const button = screen.getByTestId("jump-to-terminal");
    expect(button).toHaveAttribute("title", "Jump to terminal (Enter)");
    expect(button).toHaveAttribute("aria-keyshortcuts", "Enter");
    await screen.findAllByTestId("history-entry");
    unmount();
    act(() => useSwitchboard.getState().select("e"));
    render(<DetailsPanel />);
    expect(screen.getByTestId("details-panel")).toHaveAttribute("data-session-id", "e");
    expect(screen.queryByTestId("jump-to-terminal")).toBeNull();
    await screen.findAllByTestId("history-entry");
  });

  it("shows a jump made from the node, and the node shows one made here (one jump, one message)", async () => {
    useSwitchboard.getState().applySnapshot([makeSession({ sessionId: "t", status: "done" })]);
    useSwitchboard.getState().select("t");
    vi.mocked(ipc.jumpToTerminal).mockResolvedValue({ how: "tmux", pane: "%3" });
    render(
      <>
        <SessionCard id="t" />
        <DetailsPanel />
      </>,
    );
    await screen.findAllByTestId("history-entry");
    await act(async () => fireEvent.click(screen.getByTestId("node-jump")));
    expect(screen.getByTestId("jump-result")).toHaveTextContent("Switched tmux to pane %3.");
    expect(screen.getByTestId("node-jump-note")).toHaveTextContent("Switched tmux to pane %3.");
    vi.mocked(ipc.jumpToTerminal).mockRejectedValue({ kind: "error", message: "tmux is not running" });
    await act(async () => fireEvent.click(screen.getByTestId("jump-to-terminal")));
    expect(ipc.jumpToTerminal).toHaveBeenCalledTimes(2);
    expect(screen.getByTestId("jump-result")).toHaveTextContent("Could not jump: tmux is not running");
    expect(screen.getByTestId("jump-result")).toHaveClass("is-error");
    expect(screen.getByTestId("node-jump-note")).toHaveTextContent("Could not jump: tmux is not running");
  });
});

describe("answering from the details panel", () => {
  function openHeld(fields: Partial<Parameters<typeof makeSession>[0]> = {}) {
    useSwitchboard.getState().applySnapshot([
      makeSession({ sessionId: "h", status: "blocked", tool: "Bash", message: "git push --force", decision: 12, ...fields }),
    ]);
    useSwitchboard.getState().select("h");
    return render(<DetailsPanel />);
  }

  it("offers Allow and Deny for a held permission, with what it allows and the hint", async () => {
    openHeld();
    const panel = screen.getByTestId("details-panel");
    expect(within(panel).getByTestId("details-allow")).toHaveTextContent("Allow");
    expect(within(panel).getByTestId("details-deny")).toHaveTextContent("Deny");
    expect(within(panel).getByTestId("details-what")).toHaveTextContent("Needs permission: Bash");
    expect(within(panel).getByTestId("details-command")).toHaveTextContent("git push --force");
    expect(panel).toHaveTextContent("Answer here or in the terminal — whichever comes first.");
    expect(within(panel).queryByText(/always/i)).toBeNull();
    await screen.findAllByTestId("history-entry");
  });

  it.each([
    ["details-allow", "allow"],
    ["details-deny", "deny"],
  ])("%s answers the selected session's hold with %s", async (testId, verdict) => {
    openHeld();
    await act(async () => fireEvent.click(screen.getByTestId(testId)));
    expect(ipc.decide).toHaveBeenCalledWith("h", 12, verdict);
    expect(screen.getByTestId("details-allow")).toBeDisabled();
  });

  it("shows the command whole, one box per word, in no scroll box of its own (issue 44.2)", async () => {
    openHeld({ message: "git push --force-with-lease origin main&&rm -rf ./dist | tee log" });
    const command = screen.getByTestId("details-command");
    const words = [...command.querySelectorAll(".cmd-word")].map((w) => w.textContent);
    // Flags stay whole; && and | are words of their own, spaces or not.
    expect(words).toEqual(["git", "push", "--force-with-lease", "origin", "main", "&&", "rm", "-rf", "./dist", "|", "tee", "log"]);
    expect(command).toHaveTextContent("git push --force-with-lease origin main&&rm -rf ./dist | tee log");
    await screen.findAllByTestId("history-entry");
  });

  it("Allow is not immediate until the command's end has been on screen (issue 44.2)", async () => {
    // A web view that reports what is on screen: nothing has been, until the end is.
    const watched: { callback: IntersectionObserverCallback; target: Element | null }[] = [];
    class Watcher {
      entry: (typeof watched)[number];
      constructor(callback: IntersectionObserverCallback) {
        this.entry = { callback, target: null };
        watched.push(this.entry);
      }
      observe(target: Element) {
        this.entry.target = target;
      }
      disconnect() {}
    }
    vi.stubGlobal("IntersectionObserver", Watcher);
    const scrolled = vi.fn();
    Element.prototype.scrollIntoView = scrolled;
    try {
      openHeld({ message: `${"npm run build -- --mode=production ".repeat(15)}&& rm -rf ./node_modules/.cache` });
      const allow = screen.getByTestId("details-allow");
      expect(allow).toHaveTextContent("Allow…");
      fireEvent.click(allow);
      // It showed the end, and answered nothing.
      expect(ipc.decide).not.toHaveBeenCalled();
      expect(scrolled).toHaveBeenCalled();
      const end = screen.getByTestId("details-command-end");
      const watcher = watched.find((w) => w.target === end)!;
      act(() =>
        watcher.callback([{ isIntersecting: true, intersectionRatio: 1, target: end } as unknown as IntersectionObserverEntry], {} as IntersectionObserver),
      );
      expect(allow).toHaveTextContent(/^Allow$/);
      await act(async () => fireEvent.click(allow));
      expect(ipc.decide).toHaveBeenCalledWith("h", 12, "allow");
    } finally {
      vi.unstubAllGlobals();
      // @ts-expect-error jsdom has none of its own
      delete Element.prototype.scrollIntoView;
    }
  });

  it("a remote's held permission while its host is unreachable: says so, buttons off with the reason", async () => {
    const since = NOW - 4 * MIN;
    openHeld({ sessionId: "devbox:h", host: "devbox", unreachableSince: since });
    useSwitchboard.getState().select("devbox:h");
    const panel = await screen.findByTestId("details-panel");
    expect(within(panel).getByTestId("details-host")).toHaveTextContent("devbox");
    expect(within(panel).getByTestId("details-unreachable")).toHaveTextContent(
      `devbox unreachable since ${clockTime(since)} — it shows what was last known.`,
    );
    expect(within(panel).getByTestId("details-allow")).toBeDisabled();
    expect(within(panel).getByTestId("details-deny")).toBeDisabled();
    expect(within(panel).getByTestId("details-allow")).toHaveAccessibleDescription("devbox is unreachable");
    fireEvent.click(within(panel).getByTestId("details-allow"));
    expect(ipc.decide).not.toHaveBeenCalled();
    await screen.findAllByTestId("history-entry");
  });

  it("has no buttons when nothing is held", async () => {
    openHeld({ decision: null });
    expect(screen.queryByTestId("details-allow")).toBeNull();
    expect(screen.queryByText(/whichever comes first/)).toBeNull();
    await screen.findAllByTestId("history-entry");
  });

  it("says so when the terminal answered first, even once the hold is gone", async () => {
    vi.mocked(ipc.decide).mockRejectedValue({ kind: "notWaiting", message: "no longer waiting" });
    openHeld();
    await act(async () => fireEvent.click(screen.getByTestId("details-allow")));
    act(() =>
      useSwitchboard.getState().applyChanges({
        changed: [makeSession({ sessionId: "h", status: "working", tool: "Bash", decision: null })],
        removed: [],
      }),
    );
    expect(screen.queryByTestId("details-allow")).toBeNull();
    expect(screen.getByTestId("details-decide-note")).toHaveTextContent("Already answered at the terminal, or timed out.");
    await act(async () => {}); // the history refetch the change caused
  });
});

describe("ending an agent from the details panel", () => {
  const process = { pid: 1234, start: 1, tty: "/dev/pts/3", tmuxPane: "%7", tmuxSocket: null, windowId: null, termProgram: null };

  async function openEndable(overrides: Partial<Parameters<typeof makeSession>[0]> = {}) {
    useSwitchboard.getState().applySnapshot([makeSession({ sessionId: "x", process, ...overrides })]);
    useSwitchboard.getState().select("x");
    render(<DetailsPanel />);
    await screen.findAllByTestId("history-entry");
  }

  it("asks first: the first click only asks, End sends SIGTERM once and says to which pid", async () => {
    await openEndable();
    const button = screen.getByTestId("end-agent");
    expect(button).toHaveTextContent("End agent…");
    // After Jump, in the panel's order.
    expect(screen.getByTestId("jump-to-terminal").compareDocumentPosition(button) & Node.DOCUMENT_POSITION_FOLLOWING).toBeTruthy();
    fireEvent.click(button);
    expect(ipc.endAgent).not.toHaveBeenCalled();
    const confirm = screen.getByTestId("end-confirm");
    expect(confirm).toHaveTextContent("End Claude (pid 1234) and the tools it runs?");
    // The safe answer has the focus: a second Enter does not end it.
    expect(screen.getByTestId("end-agent-cancel")).toHaveFocus();
    await act(async () => fireEvent.click(within(confirm).getByTestId("end-agent-confirm")));
    expect(ipc.endAgent).toHaveBeenCalledTimes(1);
    expect(ipc.endAgent).toHaveBeenCalledWith("x");
    expect(screen.getByTestId("end-agent-note")).toHaveTextContent("Sent SIGTERM to pid 1234");
    expect(screen.getByTestId("end-agent-note")).not.toHaveClass("is-error");
    expect(screen.queryByTestId("end-confirm")).toBeNull();
  });

  it("Cancel and Escape take the question back and send nothing; Escape leaves the panel open", async () => {
    await openEndable();
    fireEvent.click(screen.getByTestId("end-agent"));
    fireEvent.click(screen.getByTestId("end-agent-cancel"));
    expect(screen.queryByTestId("end-confirm")).toBeNull();
    fireEvent.click(screen.getByTestId("end-agent"));
    // The canvas's Escape (close the panel) does not hear it.
    const canvasKeys = vi.fn();
    window.addEventListener("keydown", canvasKeys);
    fireEvent.keyDown(screen.getByTestId("end-agent-cancel"), { key: "Escape" });
    window.removeEventListener("keydown", canvasKeys);
    expect(canvasKeys).not.toHaveBeenCalled();
    expect(screen.queryByTestId("end-confirm")).toBeNull();
    expect(screen.getByTestId("end-agent")).toBeInTheDocument();
    expect(screen.getByTestId("details-panel")).toBeInTheDocument();
    await waitFor(() => expect(screen.getByTestId("end-agent")).toHaveFocus());
    expect(ipc.endAgent).not.toHaveBeenCalled();
  });

  it("says why when the signal was not sent", async () => {
    vi.mocked(ipc.endAgent).mockRejectedValue({ kind: "notDelivered", message: "its process has exited already" });
    await openEndable();
    fireEvent.click(screen.getByTestId("end-agent"));
    await act(async () => fireEvent.click(screen.getByTestId("end-agent-confirm")));
    expect(ipc.endAgent).toHaveBeenCalledTimes(1);
    const note = screen.getByTestId("end-agent-note");
    expect(note).toHaveTextContent("its process has exited already");
    expect(note).toHaveClass("is-error");
  });

  it.each([
    ["a remote session", { sessionId: "x", host: "devbox" }],
    ["an ended session", { sessionId: "x", ended: true }],
    ["a session whose process is unknown", { sessionId: "x", process: null }],
    ["a session whose process exited", { sessionId: "x", exited: true }],
  ])("is not offered for %s", async (_, overrides) => {
    await openEndable(overrides);
    expect(screen.queryByTestId("end-agent")).toBeNull();
  });
});

describe("an edit permission in the details panel", () => {
  const edit = { file: "/home/maya/src/webapp/src/app.ts", added: 12, removed: 3, files: 1 };
  const show = (fields: Parameters<typeof makeSession>[0]) => {
    useSwitchboard.getState().applySnapshot([makeSession(fields)]);
    useSwitchboard.getState().select(fields.sessionId);
    return render(<DetailsPanel />);
  };

  it("says the file and its lines beside Allow / Deny", async () => {
    show({ sessionId: "e", status: "blocked", tool: "Edit", command: edit.file, decision: 3, edit });
    expect(screen.getByTestId("details-edit")).toHaveTextContent("app.ts · +12 −3 lines");
    expect(screen.getByTestId("details-edit")).toHaveAttribute("title", edit.file);
    await act(async () => {});
  });

  it("says it for a permission the board does not hold too, and a patch's file count", async () => {
    show({ sessionId: "p", status: "blocked", tool: "apply_patch", edit: { ...edit, files: 2 } });
    expect(screen.getByTestId("details-edit")).toHaveTextContent("app.ts · +12 −3 lines · 2 files");
    await act(async () => {});
  });
});
