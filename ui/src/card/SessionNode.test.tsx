import { beforeEach, describe, expect, it, vi } from "vitest";
import { act, fireEvent, render, screen, within } from "@testing-library/react";
import { SessionCard } from "./SessionNode";
import { useSwitchboard } from "../state/store";
import { useClock } from "../state/clock";
import type { Session } from "../bindings/Session";
import { makeSession, NOW } from "../test/sessions";
import * as ipc from "../shared/ipc";
import { answer } from "../panel/Decide";
import { clockTime } from "../shared/sessionLabels";
import { NOTE_MS, resetDecide } from "../state/decide";
import { JUMP_NOTE_MS, resetJump } from "../state/jumpNotes";
import { initialData } from "../state/data";

vi.mock("../shared/ipc", async (importOriginal) => ({
  toIpcError: (await importOriginal<typeof import("../shared/ipc")>()).toIpcError,
  clearUnread: vi.fn(() => Promise.resolve()),
  removeSession: vi.fn(() => Promise.resolve()),
  decide: vi.fn(() => Promise.resolve()),
  jumpToTerminal: vi.fn(),
}));

function renderSession(fields: Partial<Session> = {}) {
  const session = makeSession({ sessionId: "sess-1", ...fields });
  useSwitchboard.getState().applySnapshot([session]);
  render(<SessionCard id={session.sessionId} />);
  return screen.getByTestId("session-node");
}

beforeEach(() => {
  useSwitchboard.setState(initialData());
  useClock.setState({ now: NOW });
  vi.mocked(ipc.clearUnread).mockClear();
  vi.mocked(ipc.removeSession).mockClear();
  vi.mocked(ipc.decide).mockReset();
  vi.mocked(ipc.decide).mockResolvedValue(undefined);
  resetDecide();
  vi.mocked(ipc.jumpToTerminal).mockReset();
  resetJump();
});

describe("a session node", () => {
  it.each([
    [{ status: "working" as const }, "working", "Working"],
    [{ status: "waiting" as const }, "waiting", "Has a question"],
    [{ status: "blocked" as const }, "blocked", "Needs permission"],
    [{ status: "done" as const }, "done", "Done"],
    [{ status: "done" as const, errored: true, message: "boom" }, "done", "Error"],
    [{ status: "done" as const, interrupted: true }, "done", "Interrupted"],
    [{ status: null, starting: true }, "none", "Starting"],
    [{ status: null, starting: false }, "none", "Idle"],
  ])("%o shows data-status=%s and the word %s", (fields, status, word) => {
    const node = renderSession(fields);
    expect(node).toHaveAttribute("data-status", status);
    expect(within(node).getByTestId("status-badge")).toHaveTextContent(word);
  });

  it("marks errored nodes with the error tone (red outline)", () => {
    const node = renderSession({ status: "done", errored: true, message: "API error 429" });
    expect(node).toHaveClass("tone-error");
    expect(within(node).getByTestId("session-reason")).toHaveTextContent("API error 429");
  });

  it("dims an ended node and says it ended", () => {
    const node = renderSession({ status: "done", ended: true });
    expect(node).toHaveClass("is-ended");
    expect(node).toHaveAttribute("data-ended", "true");
    expect(node).toHaveTextContent("ended");
  });

  it("shows the question of a waiting session", () => {
    const node = renderSession({ status: "waiting", question: "SQLite or Postgres?", awaitingInput: true });
    expect(within(node).getByTestId("session-reason")).toHaveTextContent("SQLite or Postgres?");
  });

  it("names the tool a blocked session needs permission for", () => {
    const node = renderSession({ status: "blocked", tool: "Bash", message: "rm -rf dist" });
    const reason = within(node).getByTestId("session-reason");
    // Not held by the board (Allow / Deny off): where to answer, then the tool and command.
    expect(reason).toHaveTextContent("Answer in terminal: Bash");
    expect(reason).toHaveTextContent("rm -rf dist");
  });

  it("shows title, agent, home-shortened folder, age and subagents", () => {
    const node = renderSession({
      title: "auth-refactor",
      agent: "codex",
      cwd: "/home/maya/src/webapp",
      lastEventAt: NOW - 2 * 60_000,
      subagents: 2,
    });
    expect(node).toHaveTextContent("auth-refactor");
    expect(node).toHaveTextContent("Codex");
    expect(node).toHaveTextContent("~/src/webapp");
    expect(node).toHaveTextContent("2 min ago");
    expect(node).toHaveTextContent("2 subagents");
  });

  it("falls back to the folder name as title and hides a zero subagent count", () => {
    const node = renderSession({ title: null, cwd: "/Users/maya/work/infra", subagents: 0 });
    expect(node).toHaveTextContent("infra");
    expect(node).not.toHaveTextContent("subagent");
  });

  it("refreshes the age when the clock ticks", () => {
    const node = renderSession({ lastEventAt: NOW - 10_000 });
    expect(node).toHaveTextContent("just now");
    act(() => useClock.setState({ now: NOW + 3 * 60_000 }));
    expect(node).toHaveTextContent("3 min ago");
  });

  it("shows the unread dot only when unread", () => {
    const unread = renderSession({ unread: true });
    expect(unread).toHaveAttribute("data-unread", "true");
    expect(within(unread).getByTestId("unread-dot")).toBeInTheDocument();
  });

  it("has no unread dot when read", () => {
    const read = renderSession({ unread: false });
    expect(read).toHaveAttribute("data-unread", "false");
    expect(within(read).queryByTestId("unread-dot")).toBeNull();
  });

  it("clicking it asks Rust to clear its unread dot", () => {
    const node = renderSession({ unread: true });
    fireEvent.click(node);
    expect(ipc.clearUnread).toHaveBeenCalledWith("sess-1");
    // Rust is the source of truth: the dot stays until the sessions-changed echo.
    expect(within(node).getByTestId("unread-dot")).toBeInTheDocument();
  });

  it("clips a long title with its full text in the tooltip", () => {
    const title = "A very long session title that will never fit on one line of a node";
    const node = renderSession({ title });
    expect(within(node).getByTitle(title)).toHaveTextContent(title);
  });

  it("offers a remove button on ended nodes only, which does not open the node", () => {
    const node = renderSession({ status: "done", ended: true, unread: true });
    fireEvent.click(within(node).getByTestId("remove-session"));
    expect(ipc.removeSession).toHaveBeenCalledWith("sess-1");
    expect(ipc.clearUnread).not.toHaveBeenCalled();
  });

  it("has no remove button while the session runs", () => {
    const node = renderSession({ status: "working" });
    expect(within(node).queryByTestId("remove-session")).toBeNull();
  });

  it("shows a clock mark with the silence when the Rust side flags the session stale", () => {
    const node = renderSession({ lastEventAt: NOW - 12 * 60_000, stale: true });
    expect(within(node).getByTitle("no news for 12 min")).toBeInTheDocument();
  });

  it("marks a session restored from the last run, quietly, beside its age", () => {
    const node = renderSession({ restored: true, lastEventAt: NOW - 3 * 60 * 60_000 });
    expect(node).toHaveAttribute("data-restored", "true");
    const mark = within(node).getByTestId("restored-mark");
    expect(mark).toHaveTextContent("from last run");
    expect(node).toHaveTextContent("from last run · 3 h ago");
  });

  it("has no restored mark otherwise, and loses it when the session reports again", () => {
    const node = renderSession({ restored: true });
    act(() =>
      useSwitchboard.getState().applyChanges({
        changed: [makeSession({ sessionId: "sess-1", restored: false, lastEventAt: NOW })],
        removed: [],
      }),
    );
    expect(node).toHaveAttribute("data-restored", "false");
    expect(within(node).queryByTestId("restored-mark")).toBeNull();
  });
});

describe("the compact forms (zoomed out, or a strip among many)", () => {
  const load = (session: Session) => act(() => useSwitchboard.getState().applySnapshot([session]));

  it("a zoomed-out card keeps the status word, agent, title and unread dot", () => {
    load(makeSession({ sessionId: "q", status: "waiting", title: "Pick a DB", agent: "codex", unread: true, question: "SQLite?" }));
    render(<SessionCard id="q" compact />);
    const node = screen.getByTestId("session-node");
    expect(node).toHaveAttribute("data-form", "far-card");
    expect(node).toHaveAttribute("data-status", "waiting");
    expect(node).toHaveAttribute("data-needs-you", "true");
    expect(screen.getByTestId("node-title")).toHaveTextContent("Pick a DB");
    expect(screen.getByTestId("status-badge")).toHaveTextContent("Has a question");
    expect(screen.getByText("Codex")).toBeInTheDocument();
    expect(screen.getByTestId("unread-dot")).toBeInTheDocument();
    expect(screen.queryByTestId("session-reason")).toBeNull();
  });

  it("a strip is one line: status, agent, title; the whole story in its tooltip", () => {
    load(makeSession({ sessionId: "w", status: "working", title: "Bump deps", agent: "gemini" }));
    render(<SessionCard id="w" size="strip" />);
    const node = screen.getByTestId("session-node");
    expect(node).toHaveAttribute("data-form", "strip");
    expect(node).toHaveAttribute("title", "Bump deps — Working · ~/src/webapp");
    expect(screen.getByTestId("node-title")).toHaveTextContent("Bump deps");
    expect(screen.getByTestId("status-badge")).toHaveTextContent("Working");
  });

  it("fades when the filter leaves it out", () => {
    load(makeSession({ sessionId: "w", status: "working", title: "Bump deps" }));
    render(<SessionCard id="w" />);
    act(() => useSwitchboard.getState().setFilterText("nothing like it"));
    expect(screen.getByTestId("session-node")).toHaveAttribute("data-dimmed", "true");
    act(() => useSwitchboard.getState().clearFilter());
    expect(screen.getByTestId("session-node")).toHaveAttribute("data-dimmed", "false");
  });
});

describe("answering a held permission on the node", () => {
  const held = { status: "blocked" as const, tool: "Bash", message: "rm -rf dist", decision: 7 };

  function deferred() {
    let resolve!: () => void;
    let reject!: (err: unknown) => void;
    const promise = new Promise<void>((res, rej) => {
      resolve = res;
      reject = rej;
    });
    return { promise, resolve, reject };
  }

  it("offers Allow and Deny beside the command, never 'always allow'", () => {
    const node = renderSession(held);
    expect(within(node).getByTestId("decide-allow")).toHaveTextContent("Allow");
    expect(within(node).getByTestId("decide-deny")).toHaveTextContent("Deny");
    expect(within(node).getByTestId("decide-command")).toHaveTextContent("rm -rf dist");
    expect(within(node).getAllByRole("button").map((b) => b.getAttribute("aria-label") ?? b.textContent)).toEqual([
      "Allow",
      "Deny",
      "Jump to terminal",
    ]);
    // React Flow must not start a drag from them.
    expect(within(node).getByTestId("decide-allow").closest(".nodrag")).not.toBeNull();
  });

  /** Issue 21.1: what Allow lets through is never clipped beside the button. */
  it("shows the whole command beside Allow, however long, and how long the hold waits", () => {
    const command = "git push --force origin main && psql $PROD_URL -c 'DROP TABLE users;'\n" + "echo more; ".repeat(30);
    const node = renderSession({ ...held, message: command.slice(0, 40) + "…", command, decisionUntil: Date.now() + 23_400 });
    const shown = within(node).getByTestId("decide-command");
    expect(shown.textContent).toBe(command);
    expect(within(node).getByTestId("decide-countdown")).toHaveTextContent(/waits here 2[34] s/);
  });

  it("says a hold that ended unanswered has expired", () => {
    const expired = renderSession({ status: "blocked", tool: "Bash", message: "make deploy", decision: null, decisionUntil: 1 });
    expect(within(expired).getByTestId("session-reason")).toHaveTextContent("Expired — answer in your terminal");
    expect(within(expired).queryByTestId("decide-allow")).toBeNull();
  });

  it.each([
    ["blocked without a hold", { status: "blocked" as const, decision: null }],
    ["waiting, even with a hold id", { status: "waiting" as const, decision: 7 }],
    ["working", { status: "working" as const, decision: null }],
    ["blocked but ended", { status: "blocked" as const, decision: 7, ended: true }],
  ])("has no buttons when %s", (_name, fields) => {
    const node = renderSession(fields);
    expect(within(node).queryByTestId("decide-allow")).toBeNull();
    expect(within(node).queryByTestId("decide-deny")).toBeNull();
  });

  it("keeps them out of the zoomed-out card, which still reads as blocked", () => {
    act(() => useSwitchboard.getState().applySnapshot([makeSession({ sessionId: "b", ...held })]));
    render(<SessionCard id="b" compact />);
    const node = screen.getByTestId("session-node");
    expect(node).toHaveClass("tone-blocked");
    expect(screen.getByTestId("status-badge")).toHaveTextContent("Needs permission");
    expect(screen.queryByTestId("decide-allow")).toBeNull();
  });

  it.each([
    ["decide-allow", "allow"],
    ["decide-deny", "deny"],
  ])("%s sends that verdict for the hold on screen, without opening the node", async (testId, verdict) => {
    const node = renderSession({ ...held, unread: true });
    await act(async () => fireEvent.click(within(node).getByTestId(testId)));
    expect(ipc.decide).toHaveBeenCalledTimes(1);
    expect(ipc.decide).toHaveBeenCalledWith("sess-1", 7, verdict);
    expect(ipc.clearUnread).not.toHaveBeenCalled();
  });

  it("is disabled while the answer is on its way and until Rust moves on", async () => {
    const call = deferred();
    vi.mocked(ipc.decide).mockReturnValue(call.promise);
    const node = renderSession(held);
    fireEvent.click(within(node).getByTestId("decide-allow"));
    expect(within(node).getByTestId("decide-allow")).toBeDisabled();
    expect(within(node).getByTestId("decide-deny")).toBeDisabled();
    fireEvent.click(within(node).getByTestId("decide-deny"));
    expect(ipc.decide).toHaveBeenCalledTimes(1);
    await act(async () => call.resolve());
    expect(within(node).getByTestId("decide-allow")).toBeDisabled();
    // A new permission is held: it can be answered again.
    act(() =>
      useSwitchboard.getState().applyChanges({ changed: [makeSession({ sessionId: "sess-1", ...held, decision: 8 })], removed: [] }),
    );
    expect(within(node).getByTestId("decide-allow")).toBeEnabled();
    // The answer went through: Rust clears the hold and the buttons go.
    act(() =>
      useSwitchboard.getState().applyChanges({
        changed: [makeSession({ sessionId: "sess-1", status: "working", tool: "Bash", decision: null })],
        removed: [],
      }),
    );
    expect(within(node).queryByTestId("decide-allow")).toBeNull();
  });

  it("says briefly that it was already answered when the call is refused", async () => {
    vi.useFakeTimers();
    try {
      const message = "that permission is no longer waiting for an answer (answered at the terminal, or it timed out)";
      vi.mocked(ipc.decide).mockRejectedValue({ kind: "notWaiting", message });
      const node = renderSession(held);
      await act(async () => fireEvent.click(within(node).getByTestId("decide-deny")));
      const note = within(node).getByTestId("decide-note");
      expect(note).toHaveTextContent("Already answered at the terminal, or timed out.");
      expect(note).toHaveAttribute("title", message);
      expect(within(node).queryByTestId("decide-what")).toBeNull();
      // Refused, not sent: the buttons work again while the hold is still shown.
      expect(within(node).getByTestId("decide-allow")).toBeEnabled();
      act(() => vi.advanceTimersByTime(NOTE_MS + 10));
      expect(within(node).queryByTestId("decide-note")).toBeNull();
      expect(within(node).getByTestId("decide-command")).toHaveTextContent("rm -rf dist");
    } finally {
      vi.useRealTimers();
    }
  });

  it("shows any other failure's message", async () => {
    vi.mocked(ipc.decide).mockRejectedValue({ kind: "unavailable", message: "Not running inside the Switchboard app." });
    const node = renderSession(held);
    await act(async () => fireEvent.click(within(node).getByTestId("decide-allow")));
    expect(within(node).getByTestId("decide-note")).toHaveTextContent("Could not answer: Not running inside the Switchboard app.");
  });
});

describe("jumping to the terminal from a node", () => {
  it("the button jumps for this session and says where, briefly, over the title: the reason stays", async () => {
    vi.useFakeTimers();
    try {
      vi.mocked(ipc.jumpToTerminal).mockResolvedValue({ how: "tmux", pane: "%3" });
      const node = renderSession({ status: "done", message: "All tests pass." });
      const button = within(node).getByTestId("node-jump");
      expect(button).toHaveAccessibleName("Jump to terminal");
      await act(async () => fireEvent.click(button));
      expect(ipc.jumpToTerminal).toHaveBeenCalledTimes(1);
      expect(ipc.jumpToTerminal).toHaveBeenCalledWith("sess-1");
      const note = within(node).getByTestId("node-jump-note");
      expect(note).toHaveTextContent("Switched tmux to pane %3.");
      expect(note).toHaveAttribute("role", "status");
      expect(within(node).getByTestId("session-reason")).toHaveTextContent("All tests pass.");
      act(() => vi.advanceTimersByTime(JUMP_NOTE_MS + 10));
      expect(within(node).queryByTestId("node-jump-note")).toBeNull();
      expect(within(node).getByTestId("session-reason")).toHaveTextContent("All tests pass.");
    } finally {
      vi.useRealTimers();
    }
  });

  it("does not open, select or drag the node it sits on", async () => {
    vi.mocked(ipc.jumpToTerminal).mockResolvedValue({ how: "window", window: "0x3a00007" });
    const onParentClick = vi.fn();
    const session = makeSession({ sessionId: "u", status: "done", unread: true });
    useSwitchboard.getState().applySnapshot([session]);
    render(
      <div onClick={onParentClick}>
        <SessionCard id="u" />
      </div>,
    );
    const button = screen.getByTestId("node-jump");
    expect(button).toHaveClass("nodrag");
    await act(async () => fireEvent.click(button));
    expect(await screen.findByTestId("node-jump-note")).toHaveTextContent("Brought its terminal window forward.");
    expect(ipc.clearUnread).not.toHaveBeenCalled();
    // React Flow selects on the node wrapper's click: it must not hear this one.
    expect(onParentClick).not.toHaveBeenCalled();
  });

  it("copies the resume command when there is no terminal to show", async () => {
    const writeText = vi.fn(async () => {});
    Object.defineProperty(navigator, "clipboard", { value: { writeText }, configurable: true });
    vi.mocked(ipc.jumpToTerminal).mockResolvedValue({ how: "resume", command: "cd /w && claude --resume r" });
    const node = renderSession({ status: "done", exited: true });
    await act(async () => fireEvent.click(within(node).getByTestId("node-jump")));
    expect(writeText).toHaveBeenCalledWith("cd /w && claude --resume r");
    const note = within(node).getByTestId("node-jump-note");
    expect(note).toHaveTextContent("No terminal to show; copied: cd /w && claude --resume r");
    expect(note).toHaveAttribute("title", "No terminal to show; copied: cd /w && claude --resume r");
  });

  it("tells a failed jump as a failure", async () => {
    vi.mocked(ipc.jumpToTerminal).mockRejectedValue({ kind: "notFound", message: "no such session" });
    const node = renderSession({ status: "working" });
    await act(async () => fireEvent.click(within(node).getByTestId("node-jump")));
    const note = within(node).getByTestId("node-jump-note");
    expect(note).toHaveTextContent("Could not jump: no such session");
    expect(note).toHaveClass("look-note");
  });

  it("sits beside Allow / Deny on a held permission, apart from them", () => {
    const node = renderSession({ status: "blocked", tool: "Bash", message: "rm -rf dist", decision: 7, unread: true });
    const jump = within(node).getByTestId("node-jump");
    expect(within(node).getByTestId("decide-allow")).toBeInTheDocument();
    expect(within(node).getByTestId("decide-deny")).toBeInTheDocument();
    expect(within(node).getByTestId("unread-dot")).toBeInTheDocument();
    expect(jump.closest(".decide-buttons")).toBeNull();
    expect(jump.closest(".node-decide")).toBeNull();
  });

  it("is not on ended nodes, which have the × there instead", () => {
    const ended = renderSession({ status: "done", ended: true });
    expect(within(ended).queryByTestId("node-jump")).toBeNull();
    expect(within(ended).getByTestId("remove-session")).toBeInTheDocument();
  });

  it.each([
    ["zoomed out", { compact: true }],
    ["a strip", { size: "strip" as const }],
  ])("is absent when %s", (_name, props) => {
    useSwitchboard.getState().applySnapshot([makeSession({ sessionId: "c", status: "done" })]);
    render(<SessionCard id="c" {...props} />);
    expect(screen.getByTestId("session-node")).toBeInTheDocument();
    expect(screen.queryByTestId("node-jump")).toBeNull();
    expect(screen.queryByRole("button", { name: "Jump to terminal" })).toBeNull();
  });

  it("is on the full card of the same session", () => {
    useSwitchboard.getState().applySnapshot([makeSession({ sessionId: "c", status: "done" })]);
    render(<SessionCard id="c" />);
    expect(screen.getByTestId("node-jump")).toBeInTheDocument();
  });
});

describe("a session on another machine", () => {
  const remote = { sessionId: "devbox:r1", host: "devbox" };

  function renderRemote(fields: Partial<Session> = {}, region: string | null = null) {
    const session = makeSession({ ...remote, ...fields });
    useSwitchboard.getState().applySnapshot([session]);
    render(<SessionCard id={session.sessionId} region={region} />);
    return screen.getByTestId("session-node");
  }

  it("says quietly where it runs, on the agent line", () => {
    const node = renderRemote({ cwd: "/home/maya/src/webapp/sub", title: "fix" }, "project:devbox:/home/maya/src/webapp");
    expect(node).toHaveAttribute("data-host", "devbox");
    expect(node.querySelector(".node-meta")).toHaveTextContent(/^Claude · devbox · \.\/sub$/);
    expect(within(node).getByTestId("node-host")).toHaveTextContent("devbox");
    expect(node).toHaveAttribute("data-unreachable", "false");
    expect(within(node).queryByTestId("unreachable-mark")).toBeNull();
  });

  it("says nothing of a host on a local session", () => {
    const node = renderSession({ title: "here" });
    expect(node).toHaveAttribute("data-host", "local");
    expect(within(node).queryByTestId("node-host")).toBeNull();
  });

  it("while its host is unreachable: dimmed, its last known state, and since when — not ended, not stale", () => {
    const since = NOW - 7 * 60_000;
    const node = renderRemote({ status: "working", unreachableSince: since });
    expect(node).toHaveClass("is-unreachable");
    expect(node).toHaveAttribute("data-unreachable", "true");
    expect(node).not.toHaveClass("is-ended");
    expect(node).toHaveAttribute("data-ended", "false");
    expect(node).not.toHaveTextContent("ended");
    expect(node.querySelector(".stale-mark")).toBeNull();
    expect(within(node).getByTestId("status-badge")).toHaveTextContent("Working");
    expect(within(node).getByTestId("unreachable-mark")).toHaveTextContent(`devbox unreachable since ${clockTime(since)}`);
    // It is still there to jump to, or try.
    expect(within(node).getByTestId("node-jump")).toBeInTheDocument();
  });

  it("says it in the compact forms' tooltip too", () => {
    const since = NOW - 7 * 60_000;
    useSwitchboard.getState().applySnapshot([makeSession({ ...remote, title: "fix", unreachableSince: since })]);
    render(<SessionCard id="devbox:r1" size="strip" />);
    const node = screen.getByTestId("session-node");
    expect(node).toHaveClass("is-unreachable");
    expect(node.getAttribute("title")).toContain(`devbox unreachable since ${clockTime(since)}`);
  });

  it("cannot be answered while its host is unreachable: Allow / Deny off, and why", async () => {
    const held = { status: "blocked" as const, tool: "Bash", message: "rm -rf dist", decision: 7, decisionUntil: NOW + 30_000 };
    const node = renderRemote({ ...held, unreachableSince: NOW - 60_000 });
    const allow = within(node).getByTestId("decide-allow");
    const deny = within(node).getByTestId("decide-deny");
    expect(allow).toBeDisabled();
    expect(deny).toBeDisabled();
    expect(allow).toHaveAttribute("title", "devbox is unreachable");
    expect(allow).toHaveAccessibleDescription("devbox is unreachable");
    expect(within(node).getByTestId("decide-blocked")).toHaveTextContent("devbox is unreachable");
    // The hold's clock runs there: no countdown from here.
    expect(within(node).queryByTestId("decide-countdown")).toBeNull();
    // What it asks for is still shown whole.
    expect(within(node).getByTestId("decide-command")).toHaveTextContent("rm -rf dist");
    fireEvent.click(allow);
    // The `a` / `d` keys go through answer(): nothing is sent, and it says why.
    await act(async () => answer(useSwitchboard.getState().sessions["devbox:r1"]!, "allow"));
    expect(ipc.decide).not.toHaveBeenCalled();
    expect(within(node).getByTestId("decide-note")).toHaveTextContent("devbox is unreachable");
  });

  it("can be answered once its host is back", () => {
    const held = { status: "blocked" as const, tool: "Bash", message: "rm -rf dist", decision: 7 };
    const node = renderRemote(held);
    expect(within(node).getByTestId("decide-allow")).toBeEnabled();
    fireEvent.click(within(node).getByTestId("decide-allow"));
    expect(ipc.decide).toHaveBeenCalledWith("devbox:r1", 7, "allow");
  });

  it("tells a jump the backend cannot make there as it tells any failed jump", async () => {
    vi.mocked(ipc.jumpToTerminal).mockRejectedValue({ kind: "unsupported", message: "cannot jump to a terminal on devbox" });
    const node = renderRemote({ status: "working" });
    await act(async () => fireEvent.click(within(node).getByTestId("node-jump")));
    expect(ipc.jumpToTerminal).toHaveBeenCalledWith("devbox:r1");
    const note = within(node).getByTestId("node-jump-note");
    expect(note).toHaveTextContent("Could not jump: cannot jump to a terminal on devbox");
    expect(note).toHaveClass("look-note");
  });
});
