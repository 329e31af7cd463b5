import { beforeEach, describe, expect, it, vi } from "vitest";
import { fireEvent, render, screen } from "@testing-library/react";
import { EmptyState } from "./EmptyState";

import { doctorReport, healthyReport } from "../test/doctor";
import * as ipc from "../shared/ipc";
import { useConnections } from "../state/connections";
import { stylesheets } from "../test/stylesheets";

vi.mock("../shared/ipc", async (importOriginal) => ({
  ...(await importOriginal<typeof import("../shared/ipc")>()),
  installHooks: vi.fn(),
  doctor: vi.fn(() => Promise.resolve(null)),
}));

beforeEach(() => {
  vi.mocked(ipc.installHooks).mockReset();
  vi.mocked(ipc.doctor).mockReset().mockResolvedValue(null);
  useConnections.setState({ open: false, report: null, checking: false, error: null });
});

describe("the empty state", () => {
  it("says what Switchboard does and shows the install command and button", () => {
    render(<EmptyState />);
    expect(screen.getByText(/tells you the moment one of them needs you/)).toBeInTheDocument();
    expect(screen.getByTestId("install-command")).toHaveTextContent("switchboard install");
    expect(screen.getByRole("button", { name: "Connect my CLIs" })).toBeEnabled();
    expect(screen.getByText("Waiting for the first agent…")).toBeInTheDocument();
  });

  it("the button first shows what would change in which file, then connects on Connect and asks about Allow / Deny", async () => {
    vi.mocked(ipc.installHooks).mockImplementation((_agent, dryRun) =>
      Promise.resolve(dryRun ? "Claude Code: would add the Switchboard hook for 9 events in ~/.claude/settings.json — dry run" : "Claude Code: 9 hooks added"),
    );
    render(<EmptyState />);
    fireEvent.click(screen.getByRole("button", { name: "Connect my CLIs" }));
    expect(ipc.installHooks).toHaveBeenCalledWith("all", true);
    expect(await screen.findByTestId("install-plan")).toHaveTextContent("would add the Switchboard hook for 9 events in ~/.claude/settings.json");
    expect(ipc.installHooks).toHaveBeenCalledTimes(1); // nothing written yet
    fireEvent.click(screen.getByTestId("install-confirm"));
    expect(ipc.installHooks).toHaveBeenLastCalledWith("all");
    expect(await screen.findByRole("status")).toHaveTextContent("Claude Code: 9 hooks added");
    expect(screen.getByTestId("after-connect")).toHaveTextContent("wait for Allow / Deny here");
    expect(screen.getByTestId("decide-settings")).toBeInTheDocument();
  });

  it("Not now leaves everything as it was", async () => {
    vi.mocked(ipc.installHooks).mockResolvedValue("Codex CLI: would add … — dry run");
    render(<EmptyState />);
    fireEvent.click(screen.getByRole("button", { name: "Connect my CLIs" }));
    fireEvent.click(await screen.findByTestId("install-cancel"));
    expect(screen.queryByTestId("install-plan")).toBeNull();
    expect(ipc.installHooks).toHaveBeenCalledTimes(1);
    expect(screen.getByRole("button", { name: "Connect my CLIs" })).toBeEnabled();
  });

  it("shows the installer's error message when it fails", async () => {
    vi.mocked(ipc.installHooks).mockImplementation(() => Promise.reject({ kind: "parse", message: "~/.codex/hooks.json is not valid JSON" }));
    render(<EmptyState />);
    fireEvent.click(screen.getByRole("button", { name: "Connect my CLIs" }));
    // The dry run reads the same files: a file it cannot parse is said at once.
    expect(await screen.findByRole("alert")).toHaveTextContent("~/.codex/hooks.json is not valid JSON");
    expect(screen.getByRole("button", { name: "Connect my CLIs" })).toBeEnabled();
  });

  it("with sessions in Older, says all is quiet and points there instead of installing", () => {
    render(<EmptyState olderCount={3} />);
    expect(screen.getByText("All quiet")).toBeInTheDocument();
    expect(screen.getByTestId("empty-state")).toHaveTextContent("3 earlier sessions are under Older");
    expect(screen.queryByTestId("install-hooks")).toBeNull();
  });

  it("says how the checks went and points to Diagnostics, without listing them a second time", async () => {
    vi.mocked(ipc.doctor).mockResolvedValue(doctorReport());
    render(<EmptyState />);
    expect(ipc.doctor).toHaveBeenCalledTimes(1);
    await screen.findByText(/1 check failed\./);
    expect(screen.queryByTestId("doctor-checks")).toBeNull();
    fireEvent.click(screen.getByTestId("empty-open-diagnostics"));
    expect(useConnections.getState()).toMatchObject({ open: true, tab: "diagnostics" });
  });

  it("with no agent CLI, the next step is installing one (a copyable command each), not a button that fails", async () => {
    const report = doctorReport({ summary: "No agent CLI found on this machine: install Claude Code first." });
    report.agents = report.agents.map((agent) => ({
      ...agent,
      found: false,
      path: null,
      checks: [{ id: `${agent.agent}.path`, label: "On PATH", outcome: "skip" as const, detail: "not installed", fix: `npm install -g ${agent.agent}-cli` }],
    }));
    vi.mocked(ipc.doctor).mockResolvedValue(report);
    render(<EmptyState />);
    const steps = await screen.findAllByTestId("install-step");
    expect(steps.map((step) => step.dataset.agent)).toEqual(report.agents.map((agent) => agent.agent));
    expect(steps[0]).toHaveTextContent("npm install -g claude-cli");
    expect(screen.getByTestId("copy-install-claude")).toBeInTheDocument();
    expect(screen.queryByTestId("install-hooks")).toBeNull();
    expect(screen.queryByText("Connect my CLIs")).toBeNull();
  });

  it("checks again after Connect my CLIs", async () => {
    vi.mocked(ipc.doctor).mockResolvedValueOnce(doctorReport()).mockResolvedValueOnce(healthyReport());
    vi.mocked(ipc.installHooks).mockResolvedValue("Codex CLI: added the Switchboard hook for 12 events");
    render(<EmptyState />);
    await screen.findByText("1 check failed.");
    fireEvent.click(screen.getByRole("button", { name: "Connect my CLIs" }));
    fireEvent.click(await screen.findByTestId("install-confirm"));
    expect(await screen.findByText("Everything is connected.")).toBeInTheDocument();
    expect(ipc.doctor).toHaveBeenCalledTimes(2);
  });

  it("scrolls as one: the checks have no scroll area of their own, and a tall card starts at the top", async () => {
    const css = await stylesheets();
    const rules = [...css.matchAll(/([^{}]+)\{([^{}]*)\}/g)].map(([, selector, body]) => ({ selector: selector!.trim(), body: body! }));
    const inCard = rules.filter(({ selector }) => /\.empty-(checks|card)\b/.test(selector));
    for (const { selector, body } of inCard) expect(body, selector).not.toMatch(/overflow(-y)?:\s*(auto|scroll)|max-height/);
    // Centred with margins, not align-items: a card taller than the window is not cut at the top.
    const state = rules.find(({ selector }) => selector === ".empty-state")!;
    expect(state.body).toMatch(/overflow:\s*auto/);
    expect(state.body).not.toMatch(/align-items:\s*center/);
    expect(rules.find(({ selector }) => selector === ".empty-card")!.body).toMatch(/margin:\s*auto/);
  });

  it("runs no checks when all is quiet (the CLIs clearly report)", () => {
    render(<EmptyState olderCount={2} />);
    expect(ipc.doctor).not.toHaveBeenCalled();
    expect(screen.queryByTestId("doctor-checks")).toBeNull();
  });
});
