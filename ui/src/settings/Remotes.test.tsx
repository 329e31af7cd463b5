import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { act, fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { ConnectionsDrawer } from "./Connections";
import { commandWords, REMOTES_POLL_MS, remoteProblem } from "./Remotes";
import type { RemoteState } from "../bindings/RemoteState";
import type { Settings } from "../bindings/Settings";
import { useClock } from "../state/clock";
import { clockTime } from "../shared/sessionLabels";
import { healthyReport } from "../test/doctor";
import { NOW } from "../test/sessions";
import * as ipc from "../shared/ipc";
import { useConnections } from "../state/connections";

vi.mock("../shared/ipc", async (importOriginal) => ({
  ...(await importOriginal<typeof import("../shared/ipc")>()),
  doctor: vi.fn(),
  settings: vi.fn(),
  setSettings: vi.fn(),
  remotes: vi.fn(),
}));

const SAVED: Settings = {
  decide: ["claude"],
  holdSeconds: 30,
  remotes: [
    { name: "devbox", command: ["ssh", "devbox"] },
    { name: "gpu", command: ["ssh", "-p", "2222", "gpu.lab"] },
    { name: "lab", command: ["ssh", "lab"] },
    { name: "fresh", command: ["ssh", "fresh"] },
  ],
  reach: ipc.DEFAULT_REACH,
};

function link(fields: Partial<RemoteState> & { name: string }): RemoteState {
  return {
    command: ["ssh", fields.name],
    state: "connected",
    since: NOW - 30 * 60_000,
    sessions: 0,
    lastSeq: null,
    lagMs: null,
    error: null,
    version: null,
    ...fields,
  };
}

const LINKS: RemoteState[] = [
  link({ name: "devbox", state: "connected", since: NOW - 30 * 60_000, sessions: 3, version: "0.4.0", lagMs: 120 }),
  link({
    name: "gpu",
    command: ["ssh", "-p", "2222", "gpu.lab"],
    state: "unreachable",
    since: NOW - 5 * 60_000,
    sessions: 2,
    error: "ssh: connect to host gpu.lab port 2222: Connection refused",
  }),
  link({ name: "lab", state: "connecting", since: null, sessions: 0 }),
];

async function openPanel() {
  render(<ConnectionsDrawer />);
  act(() => useConnections.getState().setOpen(true));
  const section = await screen.findByTestId("remotes-settings");
  await waitFor(() => expect(within(section).getByTestId("remote-add")).toBeEnabled());
  await waitFor(() => expect(ipc.remotes).toHaveBeenCalled());
  // The first answer of `remotes` is in.
  await act(async () => {});
  return section;
}

function rowOf(section: HTMLElement, name: string): HTMLElement {
  return section.querySelector<HTMLElement>(`[data-testid="remote"][data-remote="${name}"]`)!;
}

beforeEach(() => {
  useConnections.setState({ open: false, report: null, checking: false, error: null });
  useClock.setState({ now: NOW });
  vi.mocked(ipc.doctor).mockReset();
  vi.mocked(ipc.doctor).mockResolvedValue(healthyReport());
  vi.mocked(ipc.settings).mockReset();
  vi.mocked(ipc.settings).mockResolvedValue(SAVED);
  vi.mocked(ipc.setSettings).mockReset();
  vi.mocked(ipc.setSettings).mockImplementation(async (next) => next);
  vi.mocked(ipc.remotes).mockReset();
  vi.mocked(ipc.remotes).mockResolvedValue(LINKS);
});

afterEach(() => {
  vi.useRealTimers();
});

describe("the remotes in Connections", () => {
  it("lists each remote with its state in words and colour, its command and its sessions", async () => {
    const section = await openPanel();
    await waitFor(() => expect(rowOf(section, "devbox")).toHaveAttribute("data-state", "connected"));
    const names = within(section).getAllByTestId("remote").map((r) => r.dataset.remote);
    expect(names).toEqual(["devbox", "gpu", "lab", "fresh"]);

    const devbox = rowOf(section, "devbox");
    expect(devbox).toHaveClass("tone-done");
    expect(within(devbox).getByTestId("remote-state")).toHaveTextContent(`Connected since ${clockTime(NOW - 30 * 60_000)}`);
    expect(within(devbox).getByTestId("remote-sessions")).toHaveTextContent("3 sessions");
    expect(devbox).toHaveTextContent("ssh devbox");
    expect(within(devbox).queryByTestId("remote-error")).toBeNull();

    const gpu = rowOf(section, "gpu");
    expect(gpu).toHaveAttribute("data-state", "unreachable");
    expect(gpu).toHaveClass("tone-error");
    expect(within(gpu).getByTestId("remote-state")).toHaveTextContent(`Unreachable since ${clockTime(NOW - 5 * 60_000)}`);
    expect(within(gpu).getByTestId("remote-sessions")).toHaveTextContent("2 sessions");
    expect(within(gpu).getByTestId("remote-error")).toHaveTextContent("Connection refused");
    expect(gpu).toHaveTextContent("ssh -p 2222 gpu.lab");

    const lab = rowOf(section, "lab");
    expect(lab).toHaveAttribute("data-state", "connecting");
    expect(lab).toHaveClass("tone-working");
    expect(within(lab).getByTestId("remote-state")).toHaveTextContent("Connecting…");
    expect(within(lab).getByTestId("remote-sessions")).toHaveTextContent("no sessions");

    // Saved, but Rust has not said anything of it yet: no state is claimed.
    const fresh = rowOf(section, "fresh");
    expect(fresh).toHaveAttribute("data-state", "none");
    expect(within(fresh).getByTestId("remote-state")).toHaveTextContent("Not reported yet");
  });

  it("says when none is followed, and how to put Switchboard on one", async () => {
    vi.mocked(ipc.settings).mockResolvedValue({ ...SAVED, remotes: [] });
    vi.mocked(ipc.remotes).mockResolvedValue([]);
    const section = await openPanel();
    expect(within(section).getByTestId("remotes-empty")).toBeInTheDocument();
    expect(within(section).getByTestId("remote-hint")).toHaveTextContent(
      "Then run switchboard remote install NAME to put Switchboard there.",
    );
    fireEvent.change(within(section).getByTestId("remote-name"), { target: { value: "devbox" } });
    expect(within(section).getByTestId("remote-hint")).toHaveTextContent("switchboard remote install devbox");
  });

  it("asks Rust for the links every 2 s while the panel is open, and stops when it closes", async () => {
    vi.useFakeTimers({ toFake: ["setInterval", "clearInterval"] });
    await openPanel();
    const calls = vi.mocked(ipc.remotes).mock.calls.length;
    expect(calls).toBeGreaterThanOrEqual(1);
    await act(async () => vi.advanceTimersByTime(REMOTES_POLL_MS));
    expect(ipc.remotes).toHaveBeenCalledTimes(calls + 1);
    await act(async () => vi.advanceTimersByTime(REMOTES_POLL_MS));
    expect(ipc.remotes).toHaveBeenCalledTimes(calls + 2);
    act(() => useConnections.getState().setOpen(false));
    await act(async () => vi.advanceTimersByTime(5 * REMOTES_POLL_MS));
    expect(ipc.remotes).toHaveBeenCalledTimes(calls + 2);
  });

  it("adds a remote by saving the settings with it, the command split on whitespace", async () => {
    const section = await openPanel();
    fireEvent.change(within(section).getByTestId("remote-name"), { target: { value: " build-1.eu " } });
    fireEvent.change(within(section).getByTestId("remote-command"), { target: { value: "  ssh  -J bastion   build-1 " } });
    await act(async () => fireEvent.click(within(section).getByTestId("remote-add")));
    expect(ipc.setSettings).toHaveBeenCalledTimes(1);
    expect(ipc.setSettings).toHaveBeenCalledWith({
      ...SAVED,
      remotes: [...SAVED.remotes, { name: "build-1.eu", command: ["ssh", "-J", "bastion", "build-1"] }],
    });
    await waitFor(() => expect(within(section).getByTestId("remote-name")).toHaveValue(""));
    expect(within(section).getByTestId("remote-command")).toHaveValue("");
    expect(within(section).getByTestId("remote-hint")).toHaveTextContent("switchboard remote install build-1.eu");
    // It is listed at once, before Rust reports on it.
    expect(rowOf(section, "build-1.eu")).toBeInTheDocument();
  });

  it("removes a remote by saving the settings without it", async () => {
    const section = await openPanel();
    // Like Rust: a remote no longer in the settings is let go at once.
    vi.mocked(ipc.setSettings).mockImplementation(async (next) => {
      vi.mocked(ipc.remotes).mockResolvedValue(LINKS.filter((l) => next.remotes.some((r) => r.name === l.name)));
      return next;
    });
    await act(async () => fireEvent.click(within(rowOf(section, "gpu")).getByRole("button", { name: "Remove gpu" })));
    expect(ipc.setSettings).toHaveBeenCalledWith({
      ...SAVED,
      remotes: SAVED.remotes.filter((r) => r.name !== "gpu"),
    });
    await waitFor(() => expect(rowOf(section, "gpu")).toBeNull());
    expect(within(section).getAllByTestId("remote").map((r) => r.dataset.remote)).toEqual(["devbox", "lab", "fresh"]);
  });

  it("shows a link Rust still reports but the settings no longer hold as such, with nothing to remove", async () => {
    vi.mocked(ipc.settings).mockResolvedValue({ ...SAVED, remotes: [] });
    vi.mocked(ipc.remotes).mockResolvedValue([link({ name: "old", state: "not_followed", since: null, sessions: 1 })]);
    const section = await openPanel();
    const old = rowOf(section, "old");
    expect(old).toHaveAttribute("data-state", "not_followed");
    expect(old).toHaveClass("tone-idle");
    expect(within(old).getByTestId("remote-state")).toHaveTextContent("Not followed");
    expect(within(old).queryByTestId("remote-remove")).toBeNull();
  });

  it("keeps the remotes when a CLI's switch is saved after one was added (one settings file)", async () => {
    const section = await openPanel();
    fireEvent.change(within(section).getByTestId("remote-name"), { target: { value: "box2" } });
    fireEvent.change(within(section).getByTestId("remote-command"), { target: { value: "ssh box2" } });
    await act(async () => fireEvent.click(within(section).getByTestId("remote-add")));
    const codex = screen.getByTestId("decide-setting-codex");
    await waitFor(() => expect(codex).toBeEnabled());
    await act(async () => fireEvent.click(codex));
    expect(ipc.setSettings).toHaveBeenLastCalledWith({
      ...SAVED,
      decide: ["claude", "codex"],
      remotes: [...SAVED.remotes, { name: "box2", command: ["ssh", "box2"] }],
    });
  });

  it.each([
    ["", "ssh x", "name", "Give it a name"],
    ["dev box", "ssh x", "name", "only letters, digits"],
    ["a".repeat(41), "ssh x", "name", "at most 40 characters"],
    ["local", "ssh x", "name", "“local” is this machine"],
    ["LOCAL", "ssh x", "name", "“local” is this machine"],
    ["devbox", "ssh x", "name", "already a remote called devbox"],
    ["newbox", "   ", "command", "Say how to reach it"],
  ])("refuses name %j with command %j, saying what is wrong by the %s", async (name, command, field, text) => {
    const section = await openPanel();
    fireEvent.change(within(section).getByTestId("remote-name"), { target: { value: name } });
    fireEvent.change(within(section).getByTestId("remote-command"), { target: { value: command } });
    fireEvent.click(within(section).getByTestId("remote-add"));
    const problem = within(section).getByTestId("remote-problem");
    expect(problem).toHaveTextContent(text);
    expect(ipc.setSettings).not.toHaveBeenCalled();
    const input = within(section).getByTestId(field === "name" ? "remote-name" : "remote-command");
    expect(input).toHaveAttribute("aria-invalid", "true");
    expect(input).toHaveAccessibleDescription(problem.textContent!);
    // Typing in that field again clears it.
    fireEvent.change(input, { target: { value: `${name}x` } });
    expect(within(section).queryByTestId("remote-problem")).toBeNull();
  });

  it("shows a failed save inline and keeps what was typed", async () => {
    vi.mocked(ipc.setSettings).mockRejectedValue({ kind: "io", message: "cannot save the settings: disk full" });
    const section = await openPanel();
    fireEvent.change(within(section).getByTestId("remote-name"), { target: { value: "box2" } });
    fireEvent.change(within(section).getByTestId("remote-command"), { target: { value: "ssh box2" } });
    await act(async () => fireEvent.click(within(section).getByTestId("remote-add")));
    expect(await within(section).findByTestId("remotes-error")).toHaveTextContent("disk full");
    expect(within(section).getByTestId("remote-name")).toHaveValue("box2");
    expect(rowOf(section, "box2")).toBeNull();
  });
});

describe("remoteProblem", () => {
  it("takes letters, digits, -, _ and . up to 40, and a command of at least one word", () => {
    expect(remoteProblem("dev_box-2.eu", "ssh dev", [])).toBeNull();
    expect(remoteProblem("a".repeat(40), "ssh dev", [])).toBeNull();
    expect(remoteProblem("Devbox", "ssh dev", [{ name: "devbox", command: ["ssh"] }])?.field).toBe("name");
    expect(commandWords("  ssh \t devbox  ")).toEqual(["ssh", "devbox"]);
  });
});
