import { beforeEach, describe, expect, it, vi } from "vitest";
import { act, fireEvent, render, screen } from "@testing-library/react";
import { installedClis, NEW_AGENT_CLIS, NewAgentButton, STARTED_CLOSE_MS } from "./NewAgent";

import { doctorReport } from "../test/doctor";
import * as ipc from "../shared/ipc";
import { useConnections } from "../state/connections";

vi.mock("../shared/ipc", async (importOriginal) => ({
  toIpcError: (await importOriginal<typeof import("../shared/ipc")>()).toIpcError,
  newAgent: vi.fn(),
}));

const launched = {
  session: "sb-1",
  pane: "%4",
  cwd: "/home/maya/src/webapp",
  attach: "tmux -L switchboard attach -t sb-1",
};

beforeEach(() => {
  vi.useRealTimers();
  vi.mocked(ipc.newAgent).mockReset();
  vi.mocked(ipc.newAgent).mockResolvedValue(launched);
});

function openDialog() {
  render(<NewAgentButton />);
  const toggle = screen.getByTestId("new-agent-toggle");
  fireEvent.click(toggle);
  return { toggle, dialog: screen.getByTestId("new-agent-dialog") };
}

describe("New agent", () => {
  it("opens a dialog from the header button, with Claude chosen and the focus on the CLIs", () => {
    const { toggle, dialog } = openDialog();
    expect(toggle).toHaveAttribute("aria-expanded", "true");
    expect(dialog).toHaveAttribute("role", "dialog");
    expect(screen.getByTestId("new-agent-cli-claude")).toBeChecked();
    expect(screen.getByTestId("new-agent-cli-claude")).toHaveFocus();
    expect(screen.getByTestId("new-agent-cwd")).toHaveAttribute("placeholder", "this folder: where Switchboard was started");
    expect(screen.getByTestId("new-agent-prompt").tagName).toBe("TEXTAREA");
  });

  it("sends every empty field as null", async () => {
    openDialog();
    fireEvent.change(screen.getByTestId("new-agent-cwd"), { target: { value: "   " } });
    await act(async () => fireEvent.click(screen.getByTestId("new-agent-start")));
    expect(ipc.newAgent).toHaveBeenCalledTimes(1);
    expect(ipc.newAgent).toHaveBeenCalledWith({ cli: "claude", cwd: null, worktree: null, prompt: null });
  });

  it("sends the chosen CLI, folder, branch and the prompt as typed", async () => {
    openDialog();
    fireEvent.click(screen.getByTestId("new-agent-cli-codex"));
    fireEvent.change(screen.getByTestId("new-agent-cwd"), { target: { value: " /home/maya/src/api " } });
    fireEvent.change(screen.getByTestId("new-agent-worktree"), { target: { value: "fix-login" } });
    fireEvent.change(screen.getByTestId("new-agent-prompt"), { target: { value: "Fix the login test.\nThen run it." } });
    expect(screen.getByTestId("new-agent-start")).toHaveTextContent("Start Codex");
    await act(async () => fireEvent.click(screen.getByTestId("new-agent-start")));
    expect(ipc.newAgent).toHaveBeenCalledWith({
      cli: "codex",
      cwd: "/home/maya/src/api",
      worktree: "fix-login",
      prompt: "Fix the login test.\nThen run it.",
    });
  });

  it("says where it started and how to attach, then closes by itself and gives the focus back", async () => {
    vi.useFakeTimers();
    const { toggle } = openDialog();
    await act(async () => fireEvent.click(screen.getByTestId("new-agent-start")));
    const started = screen.getByTestId("new-agent-started");
    expect(started).toHaveTextContent("Started in ~/src/webapp — its card appears with its first event");
    expect(screen.getByTestId("new-agent-attach")).toHaveTextContent("tmux -L switchboard attach -t sb-1");
    expect(screen.getByTestId("new-agent-copy")).toHaveAttribute("aria-label", "Copy: tmux -L switchboard attach -t sb-1");
    act(() => vi.advanceTimersByTime(STARTED_CLOSE_MS));
    expect(screen.queryByTestId("new-agent-dialog")).toBeNull();
    expect(toggle).toHaveAttribute("aria-expanded", "false");
    expect(toggle).toHaveFocus();
  });

  it("shows why it did not start, and keeps what was typed", async () => {
    vi.mocked(ipc.newAgent).mockRejectedValue({ kind: "io", message: "codex is not on PATH" });
    openDialog();
    fireEvent.click(screen.getByTestId("new-agent-cli-codex"));
    fireEvent.change(screen.getByTestId("new-agent-worktree"), { target: { value: "spike" } });
    fireEvent.change(screen.getByTestId("new-agent-prompt"), { target: { value: "Try it" } });
    await act(async () => fireEvent.click(screen.getByTestId("new-agent-start")));
    expect(screen.getByTestId("new-agent-error")).toHaveTextContent("codex is not on PATH");
    expect(screen.queryByTestId("new-agent-started")).toBeNull();
    expect(screen.getByTestId("new-agent-cli-codex")).toBeChecked();
    expect(screen.getByTestId("new-agent-worktree")).toHaveValue("spike");
    expect(screen.getByTestId("new-agent-prompt")).toHaveValue("Try it");
    expect(screen.getByTestId("new-agent-start")).toBeEnabled();
  });

  it("Escape closes it without starting anything, the canvas does not hear it, and the focus returns", () => {
    const { toggle } = openDialog();
    fireEvent.change(screen.getByTestId("new-agent-prompt"), { target: { value: "half a thought" } });
    const canvasKeys = vi.fn();
    window.addEventListener("keydown", canvasKeys);
    fireEvent.keyDown(screen.getByTestId("new-agent-prompt"), { key: "Escape" });
    window.removeEventListener("keydown", canvasKeys);
    expect(canvasKeys).not.toHaveBeenCalled();
    expect(screen.queryByTestId("new-agent-dialog")).toBeNull();
    expect(toggle).toHaveFocus();
    expect(ipc.newAgent).not.toHaveBeenCalled();
  });

  it("Ctrl+Enter in the prompt starts it; Enter alone is a new line", async () => {
    openDialog();
    const prompt = screen.getByTestId("new-agent-prompt");
    fireEvent.change(prompt, { target: { value: "Go" } });
    fireEvent.keyDown(prompt, { key: "Enter" });
    expect(ipc.newAgent).not.toHaveBeenCalled();
    await act(async () => fireEvent.keyDown(prompt, { key: "Enter", ctrlKey: true }));
    expect(ipc.newAgent).toHaveBeenCalledWith({ cli: "claude", cwd: null, worktree: null, prompt: "Go" });
  });
});

describe("New agent for a newcomer (issue 37)", () => {
  beforeEach(() => {
    useConnections.setState({ report: null, checking: false, error: null });
  });

  it("after an error, Esc and a click outside still close it", async () => {
    vi.mocked(ipc.newAgent).mockRejectedValue({ kind: "notFound", message: "claude is not on PATH" });
    openDialog();
    fireEvent.click(screen.getByTestId("new-agent-start"));
    await screen.findByTestId("new-agent-error");
    // The focus is nowhere in the popover now (the button it was on was disabled meanwhile).
    (document.activeElement as HTMLElement | null)?.blur();
    fireEvent.keyDown(document.body, { key: "Escape" });
    expect(screen.queryByTestId("new-agent-dialog")).toBeNull();

    fireEvent.click(screen.getByTestId("new-agent-toggle"));
    fireEvent.click(screen.getByTestId("new-agent-start"));
    await screen.findByTestId("new-agent-error");
    fireEvent.mouseDown(screen.getByTestId("new-agent-error"));
    expect(screen.getByTestId("new-agent-dialog")).toBeInTheDocument();
    fireEvent.mouseDown(document.body);
    expect(screen.queryByTestId("new-agent-dialog")).toBeNull();
  });

  it("offers only the CLIs installed here, and names the others", () => {
    const report = doctorReport();
    useConnections.setState({ report });
    openDialog();
    const onPath = report.agents.filter((agent) => agent.path != null).map((agent) => agent.agent);
    for (const cli of NEW_AGENT_CLIS) {
      const known = report.agents.some((agent) => agent.agent === cli);
      expect(screen.queryByTestId(`new-agent-cli-${cli}`) != null, cli).toBe(onPath.includes(cli) || !known);
    }
    expect(screen.getByTestId("new-agent-missing")).toHaveTextContent("Gemini CLI");
    expect(installedClis(null).offered).toEqual([...NEW_AGENT_CLIS]);
  });

  it("with none installed, offers nothing to start and says where to look", () => {
    const report = doctorReport();
    useConnections.setState({ report: { ...report, agents: report.agents.map((a) => ({ ...a, path: null, found: false })) } });
    const known = new Set(report.agents.map((a) => a.agent));
    openDialog();
    if (NEW_AGENT_CLIS.every((cli) => known.has(cli))) {
      expect(screen.getByTestId("new-agent-none")).toHaveTextContent("Diagnostics");
      expect(screen.getByTestId("new-agent-start")).toBeDisabled();
    }
  });

  it("its button's tooltip does not cover the heading while open", () => {
    const { toggle } = openDialog();
    expect(toggle).not.toHaveAttribute("title");
    fireEvent.click(toggle);
    expect(toggle).toHaveAttribute("title");
  });
});
