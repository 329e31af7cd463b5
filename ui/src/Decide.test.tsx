import { afterEach, describe, expect, it, vi } from "vitest";
import { fireEvent, render, screen } from "@testing-library/react";
import { DecideButtons, notHeldHint, resetDecide } from "./Decide";
import { initialData, useSwitchboard } from "./store";
import { makeSession } from "./test/sessions";
import * as ipc from "./ipc";

vi.mock("./ipc", async (importOriginal) => ({
  toIpcError: (await importOriginal<typeof import("./ipc")>()).toIpcError,
  decide: vi.fn(() => Promise.resolve()),
}));

afterEach(() => {
  resetDecide();
  vi.clearAllMocks();
  useSwitchboard.setState(initialData());
});

describe("Allow only on what the user can see (issue 33.3)", () => {
  const held = makeSession({ sessionId: "held", status: "blocked", decision: 7, decisionUntil: null, tool: "Bash" });

  it("beside a command the card cannot show whole, Allow opens the panel and answers nothing", () => {
    const select = vi.spyOn(useSwitchboard.getState(), "select");
    render(<DecideButtons session={{ ...held, decision: 7 }} place="decide" hidesCommand />);
    const allow = screen.getByTestId("decide-allow");
    expect(allow).toHaveTextContent("Allow…");
    fireEvent.click(allow);
    expect(ipc.decide).not.toHaveBeenCalled();
    expect(select).toHaveBeenCalledWith("held");
  });

  it("beside a command shown whole, Allow answers", () => {
    render(<DecideButtons session={{ ...held, decision: 7 }} place="decide" />);
    fireEvent.click(screen.getByTestId("decide-allow"));
    expect(ipc.decide).toHaveBeenCalledWith("held", 7, "allow");
  });
});

describe("the hint for a prompt not held is true per CLI (issue 33.6)", () => {
  it("a CLI whose hooks cannot answer says so, and never points at a switch it does not have", () => {
    const hint = notHeldHint({ agent: "gemini" });
    expect(hint).toContain("Gemini CLI cannot be answered from the board");
    expect(hint).not.toContain("Connections");
  });

  it("a CLI that can be answered points at its switch", () => {
    expect(notHeldHint({ agent: "claude" })).toContain("turn on Allow / Deny for Claude Code in Connections");
  });
});
