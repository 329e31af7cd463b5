import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { act, fireEvent, render, screen, within } from "@testing-library/react";
import { SessionCard } from "../card/SessionNode";
import { DetailsPanel } from "../panel/DetailsPanel";
import { useSwitchboard } from "../state/store";
import { useClock } from "../state/clock";
import type { Jump } from "../bindings/Jump";
import type { Session } from "../bindings/Session";
import { makeSession, NOW } from "../test/sessions";
import * as ipc from "./ipc";

import { jump, jumpNote, slashBreaks } from "./jump";
import { resetDecide } from "../state/decide";
import { resetJump, UNCOPIED_NOTE_MS, useJumpNotes } from "../state/jumpNotes";
import { initialData } from "../state/data";
import { stylesheets } from "../test/stylesheets";

vi.mock("./ipc", async (importOriginal) => ({
  toIpcError: (await importOriginal<typeof import("./ipc")>()).toIpcError,
  clearUnread: vi.fn(() => Promise.resolve()),
  jumpToTerminal: vi.fn(),
  sessionHistory: vi.fn(() => Promise.resolve([])),
}));

const RESUME = "cd /home/maya/src/webapp && claude --resume 0f1e2d3c-4b5a-6978-8a9b-0c1d2e3f4a5b";

function setClipboard(value: Partial<Clipboard> | undefined) {
  Object.defineProperty(navigator, "clipboard", { value, configurable: true });
}

/** A promise the test settles itself: what the IPC answers, and when. */
function deferred<T>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

function renderSession(fields: Partial<Session>) {
  useSwitchboard.getState().applySnapshot([makeSession({ sessionId: "s", ...fields })]);
  render(<SessionCard id="s" />);
  return screen.getByTestId("session-node");
}

/** The declarations of every rule whose selector names `className`. */
async function rulesFor(className: string): Promise<string[]> {
  const css = await stylesheets();
  return [...css.matchAll(/([^{}]+)\{([^{}]*)\}/g)]
    .filter(([, selector]) => new RegExp(`\\.${className}(?![\\w-])`).test(selector!))
    .map(([, , body]) => body!);
}

beforeEach(() => {
  useSwitchboard.setState(initialData());
  useClock.setState({ now: NOW });
  vi.mocked(ipc.jumpToTerminal).mockReset();
  resetDecide();
  resetJump();
});

afterEach(() => {
  setClipboard(undefined);
  vi.unstubAllGlobals();
});

describe("what a jump says", () => {
  it("says copied only when the resume command is on the clipboard", () => {
    const jumped: Jump = { how: "resume", command: RESUME };
    expect(jumpNote(jumped, true).text).toBe(`No terminal to show; copied: ${RESUME}`);
    const uncopied = jumpNote(jumped, false);
    expect(uncopied.text).toBe(
      `No terminal to show, and the clipboard is not available. To resume it, run in a terminal: ${RESUME}`,
    );
    expect(uncopied.text).not.toMatch(/copied/);
    expect(uncopied.command).toBe(RESUME);
    // The node has no room for the command: it says where it is.
    expect(uncopied.brief).toBe("No terminal to show; could not copy. Open the card to resume it.");
  });

  it("names the Mac terminal tab it brought forward by its tty", () => {
    expect(jumpNote({ how: "tab", tty: "/dev/ttys003" }, false)).toMatchObject({
      text: "Brought its terminal tab (/dev/ttys003) forward.",
      failed: false,
      command: null,
    });
  });

  it("for a remote's session: a terminal opened there, or its command copied, or to run by hand", () => {
    const ssh = "ssh -t devbox tmux attach -t %3";
    expect(jumpNote({ how: "remote", host: "devbox", command: ssh, opened: true }, false)).toMatchObject({
      text: "Opened a terminal on devbox.",
      command: null,
      failed: false,
    });
    const handed: Jump = { how: "remote", host: "box", command: "docker exec -it box tmux attach", opened: false };
    expect(jumpNote(handed, true).text).toBe("No terminal to open on box; copied: docker exec -it box tmux attach");
    const uncopied = jumpNote(handed, false);
    expect(uncopied.text).toBe(
      "No terminal to open on box, and the clipboard is not available. To reach it, run in a terminal: docker exec -it box tmux attach",
    );
    expect(uncopied.command).toBe("docker exec -it box tmux attach");
    expect(uncopied.brief).toBe("No terminal to open on box; could not copy. Open the card for the command.");
  });

  it("breaks a path before a `/` that follows a name, never inside a name", () => {
    expect(slashBreaks(RESUME)).toEqual(["cd /home", "/maya", "/src", "/webapp && claude --resume 0f1e2d3c-4b5a-6978-8a9b-0c1d2e3f4a5b"]);
    expect(slashBreaks("~/src/app")).toEqual(["~/src", "/app"]);
    expect(slashBreaks("pid 7 on /dev/pts/3")).toEqual(["pid 7 on /dev", "/pts", "/3"]);
    expect(slashBreaks("no path here")).toEqual(["no path here"]);
    for (const text of [RESUME, "a//b/", "/"]) expect(slashBreaks(text).join("")).toBe(text);
  });
});

describe("copying the resume command", () => {
  it("starts the clipboard write during the click, before Rust answers (WebKit refuses a later one)", async () => {
    let copied = "";
    const write = vi.fn(async (items: ClipboardItem[]) => {
      copied = await (await (items[0] as unknown as { blob: Promise<Blob> }).blob).text();
    });
    vi.stubGlobal(
      "ClipboardItem",
      class {
        blob: Promise<Blob>;
        constructor(items: Record<string, Promise<Blob>>) {
          this.blob = items["text/plain"]!;
        }
      },
    );
    setClipboard({ write, writeText: vi.fn() });
    const answer = deferred<Jump>();
    vi.mocked(ipc.jumpToTerminal).mockReturnValue(answer.promise);
    const jumping = jump("s");
    expect(write).toHaveBeenCalledTimes(1);
    await act(async () => {
      answer.resolve({ how: "resume", command: RESUME });
      await jumping;
    });
    expect(copied).toBe(RESUME);
    expect(useJumpNotes.getState().s?.text).toBe(`No terminal to show; copied: ${RESUME}`);
    expect(navigator.clipboard.writeText).not.toHaveBeenCalled();
  });

  it("copies the command that reaches a remote's session when no terminal was opened for it", async () => {
    const writeText = vi.fn(() => Promise.resolve());
    setClipboard({ writeText });
    vi.mocked(ipc.jumpToTerminal).mockResolvedValue({ how: "remote", host: "box", command: "docker exec -it box sh", opened: false });
    await act(() => jump("box:s"));
    expect(ipc.jumpToTerminal).toHaveBeenCalledWith("box:s");
    expect(writeText).toHaveBeenCalledWith("docker exec -it box sh");
    expect(useJumpNotes.getState()["box:s"]?.text).toBe("No terminal to open on box; copied: docker exec -it box sh");
  });

  it("leaves the clipboard alone when a terminal was opened on the remote", async () => {
    const writeText = vi.fn(() => Promise.resolve());
    setClipboard({ writeText });
    vi.mocked(ipc.jumpToTerminal).mockResolvedValue({ how: "remote", host: "devbox", command: "ssh -t devbox tmux attach", opened: true });
    await act(() => jump("devbox:s"));
    expect(writeText).not.toHaveBeenCalled();
    expect(useJumpNotes.getState()["devbox:s"]?.text).toBe("Opened a terminal on devbox.");
  });

  it("leaves the clipboard alone when the jump has no command to copy", async () => {
    const write = vi.fn((items: ClipboardItem[]) => (items[0] as unknown as { blob: Promise<Blob> }).blob.then(() => {}));
    vi.stubGlobal(
      "ClipboardItem",
      class {
        blob: Promise<Blob>;
        constructor(items: Record<string, Promise<Blob>>) {
          this.blob = items["text/plain"]!;
        }
      },
    );
    setClipboard({ write });
    vi.mocked(ipc.jumpToTerminal).mockResolvedValue({ how: "tmux", pane: "%3" });
    await act(() => jump("s"));
    await expect(write.mock.results[0]!.value).rejects.toThrow("no resume command");
    expect(useJumpNotes.getState().s?.text).toBe("Switched tmux to pane %3.");
  });

  it.each([
    ["no clipboard at all", undefined],
    ["a clipboard that refuses", { writeText: vi.fn(() => Promise.reject(new DOMException("not allowed", "NotAllowedError"))) }],
  ])("with %s, says so and shows the command whole in the panel, with Copy", async (_case, clipboard) => {
    setClipboard(clipboard);
    vi.useFakeTimers();
    try {
      vi.mocked(ipc.jumpToTerminal).mockResolvedValue({ how: "resume", command: RESUME });
      useSwitchboard.getState().applySnapshot([makeSession({ sessionId: "s", status: "done", exited: true })]);
      useSwitchboard.getState().select("s");
      render(
        <>
          <SessionCard id="s" />
          <DetailsPanel />
        </>,
      );
      await act(async () => fireEvent.click(screen.getByTestId("node-jump")));
      const result = screen.getByTestId("jump-result");
      expect(result).toHaveTextContent("the clipboard is not available. To resume it, run in a terminal:");
      expect(result).not.toHaveTextContent(/copied/i);
      // The command, whole and on its own: a line may break before a `/`, not inside a name.
      const command = result.querySelector("code.jump-command")!;
      expect(command.textContent).toBe(RESUME);
      expect(command.querySelectorAll("wbr")).toHaveLength(3);
      // Nor at a hyphen: `--resume` and the id are kept whole.
      expect([...command.querySelectorAll(".no-break")].map((el) => el.textContent)).toEqual([
        "--resume",
        "0f1e2d3c-4b5a-6978-8a9b-0c1d2e3f4a5b",
      ]);
      expect(within(result).getByTestId("jump-copy")).toHaveAccessibleName(`Copy: ${RESUME}`);
      // The node says where the command is, and has it all in its tooltip.
      const note = screen.getByTestId("node-jump-note");
      expect(note).toHaveTextContent("could not copy. Open the card to resume it.");
      expect(note).toHaveAttribute("title", expect.stringContaining(RESUME));
      // Long enough to copy it by hand.
      act(() => vi.advanceTimersByTime(UNCOPIED_NOTE_MS - 1_000));
      expect(screen.getByTestId("jump-result")).toBeInTheDocument();
      act(() => vi.advanceTimersByTime(1_010));
      expect(screen.queryByTestId("jump-result")).toBeNull();
    } finally {
      vi.useRealTimers();
    }
  });
});

describe("the note on a node", () => {
  it("leaves a blocked node's permission in view, held or not", async () => {
    vi.mocked(ipc.jumpToTerminal).mockResolvedValue({ how: "elsewhere", pid: 4242, tty: "/dev/pts/3" });
    const node = renderSession({ status: "blocked", tool: "Bash", message: "rm -rf dist", unread: false });
    await act(async () => fireEvent.click(within(node).getByTestId("node-jump")));
    expect(within(node).getByTestId("node-jump-note")).toHaveTextContent(
      "It runs in a terminal Switchboard cannot bring forward (pid 4242 on /dev/pts/3).",
    );
    expect(within(node).getByTestId("session-reason")).toHaveTextContent("Answer in terminal: Bash rm -rf dist");
    expect(within(node).getByTestId("status-badge")).toHaveTextContent("Needs permission");
  });

  it("leaves the command beside Allow / Deny in view", async () => {
    vi.mocked(ipc.jumpToTerminal).mockResolvedValue({ how: "tmux", pane: "%3" });
    const node = renderSession({ status: "blocked", tool: "Bash", message: "git push --force", decision: 7 });
    await act(async () => fireEvent.click(within(node).getByTestId("node-jump")));
    expect(within(node).getByTestId("node-jump-note")).toHaveTextContent("Switched tmux to pane %3.");
    expect(within(node).getByTestId("decide-command")).toHaveTextContent("git push --force");
    expect(within(node).getByTestId("decide-allow")).toBeInTheDocument();
    // Not inside the reason's or the buttons' box: it lies over the title and folder.
    expect(within(node).getByTestId("node-jump-note").closest(".node-decide, .node-reason")).toBeNull();
  });

  it("is styled to break only between words or before a `/`, and to clip what does not fit", async () => {
    expect((await rulesFor("no-break")).some((body) => /white-space:\s*nowrap/.test(body))).toBe(true);
    for (const name of ["node-jump-note", "jump-result", "jump-command", "details-jump"]) {
      const rules = await rulesFor(name);
      expect(rules.length, name).toBeGreaterThan(0);
      for (const body of rules) expect(body, name).not.toMatch(/break-all|overflow-wrap:\s*anywhere|break-word/);
    }
    const [note] = await rulesFor("node-jump-note");
    expect(note).toMatch(/overflow:\s*hidden/);
    expect(note).toMatch(/position:\s*absolute/);
  });
});
