import { afterEach, describe, expect, it, vi } from "vitest";
import { fireEvent, render, screen } from "@testing-library/react";
import { DecideButtons, howToAnswer, notHeldHint } from "./Decide";
import { SessionCard } from "../card/SessionNode";
import { useKnownSettings } from "../state/settings";
import { AGENTS } from "../bindings/agents";
import type { Session } from "../bindings/Session";
import { useSwitchboard } from "../state/store";
import { makeSession } from "../test/sessions";
import * as ipc from "../shared/ipc";
import { resetDecide } from "../state/decide";
import { initialData } from "../state/data";

vi.mock("../shared/ipc", async (importOriginal) => ({
  toIpcError: (await importOriginal<typeof import("../shared/ipc")>()).toIpcError,
  DEFAULT_SETTINGS: (await importOriginal<typeof import("../shared/ipc")>()).DEFAULT_SETTINGS,
  decide: vi.fn(() => Promise.resolve()),
}));

afterEach(() => {
  resetDecide();
  vi.clearAllMocks();
  useSwitchboard.setState(initialData());
  useKnownSettings.setState({ settings: null });
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
  const blocked = (agent: string, more: Partial<Session> = {}) =>
    makeSession({ sessionId: `b-${agent}`, agent, status: "blocked", tool: "Bash", ...more });

  it("a CLI whose hooks cannot answer says so, and never points at a switch it does not have", () => {
    const hint = notHeldHint(blocked("gemini"));
    expect(hint).toContain("Gemini CLI cannot be answered from the board");
    expect(hint).not.toContain("Settings");
    expect(howToAnswer(blocked("gemini"), [])?.canTurnOn).toBe(false);
  });

  it("a CLI that can be answered points at its switch while it is off", () => {
    expect(notHeldHint(blocked("claude"), [])).toContain("Allow / Deny from the board is off for Claude Code");
    expect(notHeldHint(blocked("claude"), [])).toContain("turn it on in Settings");
    expect(howToAnswer(blocked("claude"), [])?.canTurnOn).toBe(true);
  });
});

describe("a blocked card says how it can be answered (issue 37)", () => {
  const blocked = (agent: string, more: Partial<Session> = {}) =>
    makeSession({ sessionId: `b-${agent}`, agent, status: "blocked", tool: "Bash", message: "rm -rf dist", ...more });

  it("a held prompt needs no hint: its Allow / Deny are there", () => {
    expect(howToAnswer(blocked("claude", { decision: 3 }), ["claude"])).toBeNull();
    expect(howToAnswer(makeSession({ sessionId: "w", status: "working" }), [])).toBeNull();
    expect(howToAnswer(blocked("claude", { ended: true }), [])).toBeNull();
  });

  it("with the switch on, says why this one was not held instead of pointing at the switch", () => {
    const how = howToAnswer(blocked("codex"), ["codex"])!;
    expect(how.text).toContain("did not hold this prompt");
    expect(how.canTurnOn).toBe(false);
  });

  it("a hold that ran out says so", () => {
    const how = howToAnswer(blocked("claude", { decisionUntil: 1 }), ["claude"])!;
    expect(how.text).toContain("wait for Allow / Deny here ended");
  });

  it("a remote's prompt is answered on its machine", () => {
    const how = howToAnswer(blocked("claude", { host: "devbox", sessionId: "devbox:x" }), [])!;
    expect(how.text).toContain("on devbox");
    expect(how.canTurnOn).toBe(false);
  });

  it("every CLI in Rust's table gets a sentence of its own: none is left with the generic one", () => {
    for (const row of AGENTS) {
      const how = howToAnswer(blocked(row.id), [])!;
      expect(how.text, row.id).toContain(row.name);
      expect(how.canTurnOn, row.id).toBe(row.decides);
    }
  });

  it("the card says where to answer before the command, with the whole why in its tooltip", () => {
    useSwitchboard.getState().applySnapshot([blocked("claude")]);
    useKnownSettings.setState({ settings: { ...ipc.DEFAULT_SETTINGS, decide: [] } });
    render(<SessionCard id="b-claude" />);
    const mark = screen.getByTestId("how-to-answer");
    expect(mark).toHaveTextContent("Answer in terminal: Bash");
    expect(mark.getAttribute("title")).toContain("turn it on in Settings");
    expect(screen.queryByTestId("decide-allow")).toBeNull();
  });

  it("a held card shows Allow / Deny and no terminal hint", () => {
    useSwitchboard.getState().applySnapshot([blocked("claude", { decision: 4 })]);
    render(<SessionCard id="b-claude" />);
    expect(screen.getByTestId("decide-allow")).toBeInTheDocument();
    expect(screen.queryByTestId("how-to-answer")).toBeNull();
  });
});
