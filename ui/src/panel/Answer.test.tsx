import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { act, fireEvent, render, screen, within } from "@testing-library/react";
import { DetailsPanel } from "./DetailsPanel";
import { SessionCard } from "../card/SessionNode";
import { useSwitchboard } from "../state/store";
import { useClock } from "../state/clock";
import type { Question } from "../bindings/Question";
import type { Session } from "../bindings/Session";
import { makeSession, NOW } from "../test/sessions";
import * as ipc from "../shared/ipc";

import { PEEK_MS } from "./ScreenPeek";
import { resetAnswers } from "../state/answers";
import { resetDecide } from "../state/decide";
import { resetJump } from "../state/jumpNotes";
import { initialData } from "../state/data";

vi.mock("../shared/ipc", async (importOriginal) => ({
  toIpcError: (await importOriginal<typeof import("../shared/ipc")>()).toIpcError,
  sessionHistory: vi.fn(),
  jumpToTerminal: vi.fn(),
  decide: vi.fn(),
  clearUnread: vi.fn(() => Promise.resolve()),
  answerQuestion: vi.fn(),
  reply: vi.fn(),
  answerText: vi.fn(),
  peekScreen: vi.fn(),
}));

const framework: Question = {
  header: "Framework",
  question: "Which framework should the new settings page use?\nBoth are already in the repo.",
  multiSelect: false,
  options: [
    { label: "React", description: "Use React" },
    { label: "Vue", description: "Use Vue" },
    { label: "Neither", description: null },
  ],
};

const asked = (fields: Partial<Session> = {}) =>
  makeSession({
    sessionId: "q",
    title: "settings-page",
    status: "waiting",
    awaitingInput: true,
    question: framework.question,
    questions: [framework],
    ...fields,
  });

function openPanel(session: Session) {
  useSwitchboard.getState().applySnapshot([session]);
  useSwitchboard.getState().select(session.sessionId);
  return render(<DetailsPanel />);
}

/** Let the history fetch and any answer settle. */
const settle = () => act(async () => {});

beforeEach(() => {
  useSwitchboard.setState(initialData());
  useClock.setState({ now: NOW });
  vi.mocked(ipc.sessionHistory).mockReset();
  vi.mocked(ipc.sessionHistory).mockResolvedValue([]);
  vi.mocked(ipc.jumpToTerminal).mockReset();
  vi.mocked(ipc.clearUnread).mockClear();
  vi.mocked(ipc.answerQuestion).mockReset();
  vi.mocked(ipc.answerQuestion).mockResolvedValue({ pane: "%3", typed: "2", throughHook: false, throughDaemon: false });
  vi.mocked(ipc.reply).mockReset();
  vi.mocked(ipc.reply).mockResolvedValue({ pane: "%3", typed: "run the tests", throughHook: false, throughDaemon: false });
  vi.mocked(ipc.peekScreen).mockReset();
  vi.mocked(ipc.peekScreen).mockResolvedValue({ text: "$ claude\n> Which framework?", reason: null });
  resetAnswers();
  resetDecide();
  resetJump();
});

describe("a question in the details panel", () => {
  it("shows the header, the question whole and its options numbered as the CLI draws them", async () => {
    openPanel(asked());
    const section = screen.getByTestId("details-question");
    expect(within(section).getByText("Framework")).toHaveClass("question-header");
    expect(section.querySelector(".question-text")!.textContent).toBe(framework.question);
    const options = ["1", "2", "3"].map((n) => within(section).getByTestId(`details-option-${n}`));
    expect(options.map((o) => o.textContent)).toEqual(["1 React — Use React", "2 Vue — Use Vue", "3 Neither"]);
    expect(options.every((o) => o.tagName === "BUTTON" && !(o as HTMLButtonElement).disabled)).toBe(true);
    expect(options[1]).toHaveAttribute("aria-keyshortcuts", "2");
    expect(section).toHaveTextContent("Click or press 1–3, or answer in the terminal — whichever comes first.");
    await settle();
  });

  it("a click types that option's number: busy while it goes, then says where it went", async () => {
    let deliver: (value: { pane: string; typed: string; throughHook: boolean; throughDaemon: boolean }) => void = () => {};
    vi.mocked(ipc.answerQuestion).mockImplementation(() => new Promise((resolve) => (deliver = resolve)));
    openPanel(asked());
    fireEvent.click(screen.getByTestId("details-option-2"));
    expect(ipc.answerQuestion).toHaveBeenCalledWith("q", 2);
    expect(screen.getByRole("list", { name: "Answer the question" })).toHaveAttribute("aria-busy", "true");
    expect(screen.getByTestId("details-option-1")).toBeDisabled();
    // A second click for the same question is not a second answer.
    fireEvent.click(screen.getByTestId("details-option-1"));
    expect(ipc.answerQuestion).toHaveBeenCalledTimes(1);
    await act(async () => deliver({ pane: "%3", typed: "2", throughHook: false, throughDaemon: false }));
    expect(screen.getByTestId("details-answer-note")).toHaveTextContent("took it: typed 2 into pane %3");
    expect(screen.getByTestId("details-answer-note")).not.toHaveClass("is-error");
    expect(screen.getByTestId("details-option-2")).toHaveClass("is-chosen");
  });

  it("a question held for the board is answered through its hook, by option or in words", async () => {
    vi.mocked(ipc.answerQuestion).mockResolvedValue({ pane: "", typed: "Vue", throughHook: true, throughDaemon: false });
    vi.mocked(ipc.answerText).mockReset();
    vi.mocked(ipc.answerText).mockResolvedValue({ pane: "", typed: "Svelte, please", throughHook: true, throughDaemon: false });
    openPanel(asked({ decision: 7 }));
    fireEvent.change(screen.getByTestId("written-answer-input"), { target: { value: "Svelte, please" } });
    fireEvent.click(screen.getByTestId("written-answer-send"));
    expect(ipc.answerText).toHaveBeenCalledWith("q", "Svelte, please");
    await settle();
    expect(screen.getByTestId("details-answer-note")).toHaveTextContent("Answered “Svelte, please” through its hook");
    expect(screen.queryByTestId("written-answer")).toBeNull();
  });

  it("a session its CLI's daemon serves is answered through the daemon, nothing typed", async () => {
    vi.mocked(ipc.answerQuestion).mockResolvedValue({ pane: "", typed: "Vue", throughHook: false, throughDaemon: true });
    openPanel(asked({ agent: "codex" }));
    fireEvent.click(screen.getByTestId("details-option-2"));
    await settle();
    expect(screen.getByTestId("details-answer-note")).toHaveTextContent(
      "Codex took it: sent “Vue” through its daemon, nothing typed",
    );
    expect(screen.getByTestId("details-answer-note")).not.toHaveTextContent("pane");
  });

  it("a question not held for the board has no box for words (typing in a pane takes options only)", async () => {
    openPanel(asked());
    expect(screen.queryByTestId("written-answer")).toBeNull();
    await settle();
  });

  it("key 2 picks option 2 while the panel is focused", async () => {
    openPanel(asked());
    const panel = screen.getByTestId("details-panel");
    act(() => panel.focus());
    // Keys for options that are not there, or held down, do nothing.
    fireEvent.keyDown(panel, { key: "7" });
    fireEvent.keyDown(panel, { key: "2", repeat: true });
    expect(ipc.answerQuestion).not.toHaveBeenCalled();
    await act(async () => fireEvent.keyDown(panel, { key: "2" }));
    expect(ipc.answerQuestion).toHaveBeenCalledTimes(1);
    expect(ipc.answerQuestion).toHaveBeenCalledWith("q", 2);
  });

  it("keys on a focused option button answer too; a/d/n are not taken", async () => {
    openPanel(asked());
    const button = screen.getByTestId("details-option-1");
    act(() => button.focus());
    const a = fireEvent.keyDown(button, { key: "a" });
    expect(a).toBe(true); // not prevented: left to the canvas
    await act(async () => fireEvent.keyDown(button, { key: "3" }));
    expect(ipc.answerQuestion).toHaveBeenCalledWith("q", 3);
  });

  it("a multi-select question is shown, but answered in its terminal: nothing to click, no key", async () => {
    openPanel(asked({ questions: [{ ...framework, multiSelect: true }] }));
    const section = screen.getByTestId("details-question");
    expect(within(section).getByTestId("details-option-1")).toHaveTextContent("1 React — Use React");
    expect(within(section).queryAllByRole("button")).toHaveLength(0);
    expect(section).toHaveTextContent("Several choices — answer in its terminal.");
    fireEvent.click(within(section).getByTestId("details-option-1"));
    fireEvent.keyDown(screen.getByTestId("details-panel"), { key: "1" });
    expect(ipc.answerQuestion).not.toHaveBeenCalled();
    await settle();
  });

  it("several questions are all shown, and answered in the terminal", async () => {
    const second: Question = { header: "Styling", question: "CSS modules or Tailwind?", multiSelect: false, options: [{ label: "CSS modules", description: null }, { label: "Tailwind", description: null }] };
    openPanel(asked({ questions: [framework, second] }));
    const items = screen.getAllByTestId("details-question-item");
    expect(items).toHaveLength(2);
    expect(items[1]).toHaveTextContent("CSS modules or Tailwind?");
    expect(within(screen.getByTestId("details-question")).queryAllByRole("button")).toHaveLength(0);
    expect(screen.getByTestId("details-answer-elsewhere")).toHaveTextContent("2 questions — answer in its terminal.");
    await settle();
  });

  it("a remote agent's question is answered through its box, which says where it went", async () => {
    openPanel(asked({ sessionId: "devbox:q", host: "devbox" }));
    fireEvent.click(screen.getByTestId("details-option-2"));
    expect(ipc.answerQuestion).toHaveBeenCalledWith("devbox:q", 2);
    await settle();
    expect(screen.getByTestId("details-answer-note")).toHaveTextContent("took it: typed 2 into pane %3 on devbox");
  });

  it("while its box is unreachable, a remote's question cannot be answered from here", async () => {
    openPanel(asked({ sessionId: "devbox:q", host: "devbox", unreachableSince: NOW - 60_000 }));
    expect(within(screen.getByTestId("details-question")).queryAllByRole("button")).toHaveLength(0);
    expect(screen.getByTestId("details-answer-elsewhere")).toHaveTextContent("devbox is unreachable");
    await settle();
  });

  it("a refusal says why, the buttons come back, and Jump is suggested", async () => {
    vi.mocked(ipc.answerQuestion).mockRejectedValue({
      kind: "notDelivered",
      message: "it does not run in tmux (tty /dev/pts/3): use Jump to go to its terminal",
    });
    openPanel(asked());
    expect(screen.getByTestId("jump-to-terminal")).not.toHaveClass("is-suggested");
    await act(async () => fireEvent.click(screen.getByTestId("details-option-1")));
    const note = screen.getByTestId("details-answer-note");
    expect(note).toHaveTextContent("Not typed: it does not run in tmux (tty /dev/pts/3): use Jump to go to its terminal");
    expect(note).toHaveClass("is-error");
    expect(screen.getByTestId("jump-to-terminal")).toHaveClass("is-suggested");
    expect(screen.getByTestId("details-option-1")).toBeEnabled();
  });

  it("the first answer wins: when the terminal answers, the options go", async () => {
    openPanel(asked());
    expect(screen.getByTestId("details-option-1")).toBeInTheDocument();
    act(() =>
      useSwitchboard.getState().applyChanges({
        changed: [asked({ status: "working", awaitingInput: false, questions: [], question: null, tool: "Edit" })],
        removed: [],
      }),
    );
    expect(screen.queryByTestId("details-question")).toBeNull();
    expect(screen.queryByTestId("details-option-1")).toBeNull();
    await settle();
  });
});

describe("a question on the card", () => {
  it("shows the question on one line and numbered options; a click answers without opening the node", async () => {
    useSwitchboard.getState().applySnapshot([asked({ unread: true })]);
    render(<SessionCard id="q" />);
    const node = screen.getByTestId("session-node");
    expect(within(node).getByTestId("session-reason")).toHaveTextContent("Framework Which framework");
    const vue = within(node).getByTestId("node-option-2");
    expect(vue).toHaveTextContent("2 Vue");
    expect(vue).toHaveAttribute("title", "2 Vue — Use Vue (2)");
    await act(async () => fireEvent.click(vue));
    expect(ipc.answerQuestion).toHaveBeenCalledWith("q", 2);
    expect(ipc.clearUnread).not.toHaveBeenCalled();
    expect(within(node).getByTestId("node-answer-note")).toHaveTextContent("took it: typed 2 into pane %3");
  });

  it("says where to answer a question it cannot take", () => {
    useSwitchboard.getState().applySnapshot([asked({ questions: [{ ...framework, multiSelect: true }] })]);
    render(<SessionCard id="q" />);
    expect(screen.queryAllByRole("button", { name: /React|Vue/ })).toHaveLength(0);
    expect(screen.getByTestId("node-answer-elsewhere")).toHaveTextContent("Several choices — answer in its terminal.");
  });
});

describe("the reply box", () => {
  it.each([
    ["done", { status: "done" as const }, true],
    ["waiting without a question", { status: "waiting" as const, awaitingInput: true, question: "Anything else?" }, true],
    ["waiting with a question", { status: "waiting" as const, awaitingInput: true, questions: [framework] }, false],
    ["working", { status: "working" as const }, false],
    ["blocked", { status: "blocked" as const, tool: "Bash" }, false],
    ["ended", { status: "done" as const, ended: true }, false],
  ])("%s: shown = %s", async (_, fields, shown) => {
    openPanel(makeSession({ sessionId: "r", ...fields }));
    expect(screen.queryByTestId("reply-input") != null).toBe(shown);
    await settle();
  });

  it("a remote's session takes a reply through its box, but not while the box is unreachable", async () => {
    openPanel(makeSession({ sessionId: "devbox:r", host: "devbox", status: "done", unreachableSince: NOW - 1_000 }));
    expect(screen.queryByTestId("reply-input")).toBeNull();
    expect(screen.getByTestId("reply-remote")).toHaveTextContent("devbox is unreachable");
    await settle();
  });

  it("Enter sends the reply; it says where it went and the box clears", async () => {
    openPanel(makeSession({ sessionId: "r", status: "done" }));
    const input = screen.getByTestId("reply-input");
    expect(input).toHaveAttribute("placeholder", "Reply — its next prompt");
    expect(screen.getByTestId("reply-send")).toBeDisabled();
    fireEvent.change(input, { target: { value: "run the tests" } });
    // Digits typed into it are text, not options; Enter here is not the canvas's Enter.
    fireEvent.keyDown(input, { key: "2" });
    await act(async () => fireEvent.submit(input.closest("form")!));
    expect(ipc.reply).toHaveBeenCalledWith("r", "run the tests");
    expect(ipc.answerQuestion).not.toHaveBeenCalled();
    expect(screen.getByTestId("reply-note")).toHaveTextContent("took it: sent to pane %3");
    expect(input).toHaveValue("");
  });

  it("a refusal is shown inline and the text stays", async () => {
    vi.mocked(ipc.reply).mockRejectedValue({ kind: "notDelivered", message: "its tmux pane %3 is gone, or tmux does not answer" });
    openPanel(makeSession({ sessionId: "r", status: "done" }));
    const input = screen.getByTestId("reply-input");
    fireEvent.change(input, { target: { value: "go on" } });
    await act(async () => fireEvent.click(screen.getByTestId("reply-send")));
    expect(screen.getByTestId("reply-note")).toHaveTextContent("Not sent: its tmux pane %3 is gone, or tmux does not answer");
    expect(screen.getByTestId("reply-note")).toHaveClass("is-error");
    expect(input).toHaveValue("go on");
    expect(screen.getByTestId("jump-to-terminal")).toHaveClass("is-suggested");
  });
});

describe("its screen", () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  const advance = (ms: number) => act(async () => void vi.advanceTimersByTime(ms));

  it("is collapsed and reads nothing until opened; open, it reads every 1.5 s; closed, it stops", async () => {
    openPanel(makeSession({ sessionId: "s", status: "working" }));
    const toggle = screen.getByTestId("screen-toggle");
    expect(toggle).toHaveAttribute("aria-expanded", "false");
    await advance(10 * PEEK_MS);
    expect(ipc.peekScreen).not.toHaveBeenCalled();

    await act(async () => fireEvent.click(toggle));
    expect(toggle).toHaveAttribute("aria-expanded", "true");
    expect(ipc.peekScreen).toHaveBeenCalledTimes(1);
    expect(ipc.peekScreen).toHaveBeenCalledWith("s");
    expect(screen.getByTestId("screen-text")).toHaveTextContent("> Which framework?");
    expect(screen.getByTestId("screen-text").tagName).toBe("PRE");
    await advance(PEEK_MS);
    expect(ipc.peekScreen).toHaveBeenCalledTimes(2);
    await advance(PEEK_MS);
    expect(ipc.peekScreen).toHaveBeenCalledTimes(3);

    await act(async () => fireEvent.click(toggle));
    expect(screen.queryByTestId("screen-text")).toBeNull();
    await advance(10 * PEEK_MS);
    expect(ipc.peekScreen).toHaveBeenCalledTimes(3);
  });

  it("stops when the panel closes or shows another session", async () => {
    useSwitchboard.getState().applySnapshot([makeSession({ sessionId: "s" }), makeSession({ sessionId: "t" })]);
    useSwitchboard.getState().select("s");
    render(<DetailsPanel />);
    await act(async () => fireEvent.click(screen.getByTestId("screen-toggle")));
    expect(ipc.peekScreen).toHaveBeenCalledTimes(1);
    act(() => useSwitchboard.getState().select("t"));
    await advance(5 * PEEK_MS);
    // The other session's section starts collapsed: nobody reads either screen.
    expect(ipc.peekScreen).toHaveBeenCalledTimes(1);
    await act(async () => fireEvent.click(screen.getByTestId("screen-toggle")));
    expect(ipc.peekScreen).toHaveBeenLastCalledWith("t");
    expect(ipc.peekScreen).toHaveBeenCalledTimes(2);
    act(() => useSwitchboard.getState().closeDetails());
    await advance(5 * PEEK_MS);
    expect(ipc.peekScreen).toHaveBeenCalledTimes(2);
  });

  it("says quietly why there is no screen", async () => {
    vi.mocked(ipc.peekScreen).mockResolvedValue({ text: null, reason: "it does not run in tmux (tty /dev/pts/3): use Jump to go to its terminal" });
    openPanel(makeSession({ sessionId: "s" }));
    await act(async () => fireEvent.click(screen.getByTestId("screen-toggle")));
    expect(screen.getByTestId("screen-reason")).toHaveTextContent("it does not run in tmux");
    expect(screen.queryByTestId("screen-text")).toBeNull();
  });
});
