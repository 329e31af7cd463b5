import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { act, fireEvent, render, screen } from "@testing-library/react";
import { LastTurn } from "./LastTurn";
import { makeSession } from "../test/sessions";
import * as ipc from "../shared/ipc";

vi.mock("../shared/ipc", async (importOriginal) => ({
  toIpcError: (await importOriginal<typeof import("../shared/ipc")>()).toIpcError,
  lastTurn: vi.fn(),
}));

const turn = [
  { part: "prompt" as const, text: "Run the slow script" },
  { part: "tool" as const, text: "Bash: ./slow.sh" },
  { part: "result" as const, text: "done in 3 s" },
  { part: "text" as const, text: "It ran." },
];

const settle = () => act(async () => {});

beforeEach(() => {
  vi.mocked(ipc.lastTurn).mockReset();
  vi.mocked(ipc.lastTurn).mockResolvedValue(turn);
});

afterEach(() => vi.clearAllMocks());

describe("LastTurn", () => {
  it("shows the prompt, the tool, its result and the answer, in order", async () => {
    render(<LastTurn session={makeSession({ sessionId: "s", transcriptPath: "/t.jsonl" })} />);
    await settle();
    expect(ipc.lastTurn).toHaveBeenCalledWith("s");
    const items = screen.getByTestId("turn-list").querySelectorAll("li");
    expect([...items].map((li) => li.className)).toEqual([
      "turn-item is-prompt",
      "turn-item is-tool",
      "turn-item is-result",
      "turn-item is-text",
    ]);
    expect(screen.getByTestId("turn-tool")).toHaveTextContent("Bash: ./slow.sh");
  });

  it("reads again when the session reports, not otherwise, and not while closed", async () => {
    const session = makeSession({ sessionId: "s", transcriptPath: "/t.jsonl" });
    const { rerender } = render(<LastTurn session={session} />);
    await settle();
    rerender(<LastTurn session={{ ...session }} />);
    await settle();
    expect(ipc.lastTurn).toHaveBeenCalledTimes(1);
    rerender(<LastTurn session={{ ...session, lastEventAt: session.lastEventAt + 1 }} />);
    await settle();
    expect(ipc.lastTurn).toHaveBeenCalledTimes(2);
    fireEvent.click(screen.getByTestId("turn-toggle"));
    rerender(<LastTurn session={{ ...session, lastEventAt: session.lastEventAt + 2 }} />);
    await settle();
    expect(ipc.lastTurn).toHaveBeenCalledTimes(2);
    expect(screen.queryByTestId("turn-list")).toBeNull();
  });

  it("says why when the transcript cannot be read, and is absent without one or for a remote", async () => {
    vi.mocked(ipc.lastTurn).mockRejectedValue({ kind: "internal", message: "gone" });
    render(<LastTurn session={makeSession({ sessionId: "s", transcriptPath: "/t.jsonl" })} />);
    await settle();
    expect(screen.getByRole("alert")).toHaveTextContent("Could not read its transcript: gone");
    const { container } = render(<LastTurn session={makeSession({ sessionId: "n", transcriptPath: null })} />);
    expect(container).toBeEmptyDOMElement();
    const remote = render(<LastTurn session={makeSession({ sessionId: "r", transcriptPath: "/t", host: "box" })} />);
    expect(remote.container).toBeEmptyDOMElement();
  });
});
