import { beforeEach, describe, expect, it, vi } from "vitest";
import { act, fireEvent, render, screen, waitFor } from "@testing-library/react";
import { DetailsPanel } from "./DetailsPanel";
import { useSwitchboard } from "../state/store";
import { useClock } from "../state/clock";
import { makeSession, NOW } from "../test/sessions";
import * as ipc from "../shared/ipc";

import { splitKeys } from "./LiveTerminal";
import type { AgentProcess } from "../bindings/AgentProcess";
import { resetJump } from "../state/jumpNotes";
import { initialData } from "../state/data";

// xterm.js needs a real layout engine; the fake records what the component does with it.
const fakes = vi.hoisted(() => {
  type Handler<T> = (value: T) => void;
  class FakeTerminal {
    cols = 87;
    rows = 25;
    written: string[] = [];
    disposed = false;
    opened = false;
    focused = false;
    onDataHandlers: Handler<string>[] = [];
    onResizeHandlers: Handler<{ cols: number; rows: number }>[] = [];
    constructor() {
      fakes.terminals.push(this);
    }
    loadAddon() {}
    open() {
      this.opened = true;
    }
    focus() {
      this.focused = true;
    }
    write(data: string | Uint8Array) {
      this.written.push(typeof data === "string" ? data : new TextDecoder().decode(data));
    }
    onData(handler: Handler<string>) {
      this.onDataHandlers.push(handler);
      return { dispose: () => (this.onDataHandlers = this.onDataHandlers.filter((h) => h !== handler)) };
    }
    onResize(handler: Handler<{ cols: number; rows: number }>) {
      this.onResizeHandlers.push(handler);
      return { dispose: () => (this.onResizeHandlers = this.onResizeHandlers.filter((h) => h !== handler)) };
    }
    dispose() {
      this.disposed = true;
    }
    type(data: string) {
      for (const handler of this.onDataHandlers) handler(data);
    }
  }
  return { terminals: [] as FakeTerminal[], FakeTerminal };
});

vi.mock("@xterm/xterm", () => ({ Terminal: fakes.FakeTerminal }));
vi.mock("@xterm/addon-fit", () => ({
  FitAddon: class {
    fit() {}
  },
}));
vi.mock("../shared/ipc", async (importOriginal) => ({
  toIpcError: (await importOriginal<typeof import("../shared/ipc")>()).toIpcError,
  sessionHistory: vi.fn(),
  jumpToTerminal: vi.fn(),
  peekScreen: vi.fn(),
  terminalOpen: vi.fn(),
  terminalWrite: vi.fn(),
  terminalResize: vi.fn(),
  terminalClose: vi.fn(),
}));

const inTmux = (pane: string): AgentProcess => ({
  pid: 4242,
  start: 1,
  tty: "/dev/pts/3",
  tmuxPane: pane,
  tmuxSocket: "/tmp/tmux-1000/default",
  windowId: null,
  termProgram: "tmux",
});

type OnOutput = Parameters<typeof ipc.terminalOpen>[3];
let outputs: OnOutput[] = [];

beforeEach(() => {
  useSwitchboard.setState(initialData());
  useClock.setState({ now: NOW });
  fakes.terminals.length = 0;
  outputs = [];
  resetJump();
  vi.mocked(ipc.sessionHistory).mockReset().mockResolvedValue([]);
  vi.mocked(ipc.jumpToTerminal).mockReset().mockResolvedValue({ how: "tmux", pane: "%3" });
  let next = 0;
  vi.mocked(ipc.terminalOpen)
    .mockReset()
    .mockImplementation(async (_id, _cols, _rows, onOutput) => {
      outputs.push(onOutput);
      next += 1;
      return next;
    });
  vi.mocked(ipc.terminalWrite).mockReset().mockResolvedValue(undefined);
  vi.mocked(ipc.terminalResize).mockReset().mockResolvedValue(undefined);
  vi.mocked(ipc.terminalClose).mockReset().mockResolvedValue(undefined);
});

function show(id = "a") {
  useSwitchboard.getState().applySnapshot([
    makeSession({ sessionId: "a", title: "auth-refactor", process: inTmux("%3") }),
    makeSession({ sessionId: "b", title: "billing", process: inTmux("%5") }),
    makeSession({ sessionId: "c", title: "no tmux", process: { ...inTmux("%9"), tmuxPane: null } }),
  ]);
  useSwitchboard.getState().select(id);
  return render(<DetailsPanel />);
}

async function openTerminal() {
  fireEvent.click(screen.getByTestId("terminal-toggle"));
  await screen.findByTestId("terminal-live");
  return fakes.terminals[fakes.terminals.length - 1]!;
}

describe("the live terminal", () => {
  it("is offered only for an agent in a tmux pane, and starts nothing until opened", () => {
    show("c");
    expect(screen.queryByTestId("details-terminal")).toBeNull();
    act(() => useSwitchboard.getState().select("a"));
    expect(screen.getByTestId("terminal-toggle")).toHaveAttribute("aria-expanded", "false");
    expect(screen.queryByTestId("terminal-host")).toBeNull();
    expect(ipc.terminalOpen).not.toHaveBeenCalled();
    expect(fakes.terminals).toHaveLength(0);
  });

  it("opens once, sized like its xterm, draws the output and sends the keys in order", async () => {
    show();
    const term = await openTerminal();
    expect(ipc.terminalOpen).toHaveBeenCalledTimes(1);
    expect(ipc.terminalOpen).toHaveBeenCalledWith("a", 87, 25, expect.any(Function));
    expect(term.opened && term.focused).toBe(true);
    expect(screen.getByTestId("details-panel")).toHaveClass("has-terminal");
    expect(screen.getByTestId("terminal-live")).toHaveTextContent("tmux pane %3");

    act(() => outputs[0]!({ bytes: new TextEncoder().encode("STAND-IN AGENT") }));
    expect(term.written.join("")).toContain("STAND-IN AGENT");

    // One write at a time: what is typed while one is on its way goes with the next.
    let finish: () => void = () => {};
    vi.mocked(ipc.terminalWrite).mockImplementationOnce(() => new Promise<void>((resolve) => (finish = resolve)));
    act(() => term.type("a"));
    act(() => term.type("b"));
    act(() => term.type("c"));
    expect(vi.mocked(ipc.terminalWrite).mock.calls).toEqual([[1, "a"]]);
    await act(async () => finish());
    await waitFor(() => expect(vi.mocked(ipc.terminalWrite).mock.calls).toEqual([[1, "a"], [1, "bc"]]));
    expect(ipc.terminalClose).not.toHaveBeenCalled();
  });

  it("ends with its close button, and a new one opens when asked again", async () => {
    show();
    const term = await openTerminal();
    fireEvent.click(screen.getByTestId("terminal-close"));
    expect(ipc.terminalClose).toHaveBeenCalledWith(1);
    expect(term.disposed).toBe(true);
    expect(screen.queryByTestId("terminal-host")).toBeNull();
    expect(screen.getByTestId("details-panel")).not.toHaveClass("has-terminal");
    // Output that still arrives for the closed one is dropped.
    act(() => outputs[0]!({ bytes: new TextEncoder().encode("late") }));
    expect(term.written.join("")).not.toContain("late");

    const again = await openTerminal();
    expect(ipc.terminalOpen).toHaveBeenCalledTimes(2);
    expect(again).not.toBe(term);
  });

  it("ends when another session is selected, and is closed on the next one", async () => {
    show();
    const term = await openTerminal();
    act(() => useSwitchboard.getState().select("b"));
    expect(ipc.terminalClose).toHaveBeenCalledWith(1);
    expect(term.disposed).toBe(true);
    expect(screen.getByTestId("details-panel")).toHaveAttribute("data-session-id", "b");
    expect(screen.getByTestId("terminal-toggle")).toHaveAttribute("aria-expanded", "false");
    expect(ipc.terminalOpen).toHaveBeenCalledTimes(1);
  });

  it("ends when the panel closes, or when the panel is unmounted", async () => {
    const first = show();
    await openTerminal();
    act(() => useSwitchboard.getState().closeDetails());
    expect(ipc.terminalClose).toHaveBeenCalledWith(1);
    first.unmount();
    const second = show();
    await openTerminal();
    second.unmount();
    expect(ipc.terminalClose).toHaveBeenCalledWith(2);
  });

  it("ends when the window is hidden", async () => {
    show();
    await openTerminal();
    const hidden = vi.spyOn(document, "hidden", "get").mockReturnValue(true);
    act(() => void document.dispatchEvent(new Event("visibilitychange")));
    hidden.mockRestore();
    expect(ipc.terminalClose).toHaveBeenCalledWith(1);
    expect(screen.getByTestId("terminal-toggle")).toHaveAttribute("aria-expanded", "false");
  });

  it("one that opens after it was closed is ended at once", async () => {
    let resolve: (id: number) => void = () => {};
    vi.mocked(ipc.terminalOpen).mockImplementationOnce(() => new Promise<number>((r) => (resolve = r)));
    show();
    fireEvent.click(screen.getByTestId("terminal-toggle"));
    // xterm is loaded on first use: the open is asked for once it is in.
    await waitFor(() => expect(ipc.terminalOpen).toHaveBeenCalledTimes(1));
    fireEvent.click(screen.getByTestId("terminal-close"));
    expect(ipc.terminalClose).not.toHaveBeenCalled();
    await act(async () => resolve(7));
    await waitFor(() => expect(ipc.terminalClose).toHaveBeenCalledWith(7));
  });

  it("closed before xterm has loaded, opens nothing", async () => {
    show();
    fireEvent.click(screen.getByTestId("terminal-toggle"));
    fireEvent.click(screen.getByTestId("terminal-close"));
    // What was loading comes in, and finds the section closed.
    await act(async () => {
      await import("@xterm/xterm");
      await import("@xterm/addon-fit");
    });
    expect(ipc.terminalOpen).not.toHaveBeenCalled();
    expect(fakes.terminals).toHaveLength(0);
  });

  it("shows why it was refused and offers Jump, typing nowhere", async () => {
    vi.mocked(ipc.terminalOpen).mockRejectedValueOnce({
      kind: "notDelivered",
      message: "its tmux pane %3 runs something else now (not this agent's process): nothing was typed",
    });
    show();
    fireEvent.click(screen.getByTestId("terminal-toggle"));
    const reason = await screen.findByTestId("terminal-reason");
    expect(reason).toHaveTextContent("Not opened: its tmux pane %3 runs something else now");
    expect(screen.queryByTestId("terminal-live")).toBeNull();
    act(() => fakes.terminals[0]!.type("x"));
    expect(ipc.terminalWrite).not.toHaveBeenCalled();
    fireEvent.click(screen.getByTestId("terminal-jump"));
    await waitFor(() => expect(ipc.jumpToTerminal).toHaveBeenCalledWith("a"));
    // Nothing was opened, so there is nothing to close.
    fireEvent.click(screen.getByTestId("terminal-close"));
    expect(ipc.terminalClose).not.toHaveBeenCalled();
  });

  it("says so when tmux lets go by itself", async () => {
    show();
    await openTerminal();
    act(() => outputs[0]!({ ended: "tmux detached from the pane" }));
    expect(screen.getByTestId("terminal-ended")).toHaveTextContent("tmux detached from the pane");
    expect(screen.queryByTestId("terminal-live")).toBeNull();
  });
});

describe("splitKeys", () => {
  it("keeps short input whole and never splits a surrogate pair", () => {
    expect(splitKeys("")).toEqual([]);
    expect(splitKeys("abc", 4)).toEqual(["abc"]);
    expect(splitKeys("abcdef", 4)).toEqual(["abcd", "ef"]);
    const parts = splitKeys("ab😀cd", 3);
    expect(parts).toEqual(["ab", "😀c", "d"]);
    expect(parts.join("")).toBe("ab😀cd");
  });
});
