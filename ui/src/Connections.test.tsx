import { beforeEach, describe, expect, it, vi } from "vitest";
import { act, fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { ConnectionsDrawer, ConnectionsToggle, useConnections } from "./Connections";
import { initialData, useSwitchboard } from "./store";
import { doctorReport, healthyReport } from "./test/doctor";
import { makeSession } from "./test/sessions";
import * as ipc from "./ipc";

vi.mock("./ipc", async (importOriginal) => ({
  ...(await importOriginal<typeof import("./ipc")>()),
  doctor: vi.fn(),
}));

function renderConnections() {
  return render(
    <>
      <ConnectionsToggle />
      <ConnectionsDrawer />
    </>,
  );
}

beforeEach(() => {
  useConnections.setState({ open: false, report: null, checking: false, error: null });
  vi.mocked(ipc.doctor).mockReset();
});

describe("the Connections view", () => {
  it("opens from the header button and lists every check, grouped by CLI", async () => {
    vi.mocked(ipc.doctor).mockResolvedValue(doctorReport());
    renderConnections();
    expect(screen.queryByTestId("connections-drawer")).toBeNull();
    fireEvent.click(screen.getByTestId("connections-toggle"));
    expect(ipc.doctor).toHaveBeenCalledTimes(1);
    const drawer = await screen.findByTestId("connections-drawer");
    await within(drawer).findByTestId("doctor-checks");
    const groups = within(drawer).getAllByTestId("check-group").map((g) => g.dataset.agent);
    expect(groups).toEqual(["claude", "codex", "gemini", "switchboard"]);
    expect(within(drawer).getByText("2.1.332")).toBeInTheDocument();
    expect(within(drawer).getByTestId("doctor-summary")).toHaveTextContent("1 check needs fixing.");
    expect(screen.getByTestId("connections-toggle")).toHaveAttribute("aria-pressed", "true");
  });

  it("a failing check shows the command that fixes it; a passing one shows none", async () => {
    vi.mocked(ipc.doctor).mockResolvedValue(doctorReport());
    renderConnections();
    fireEvent.click(screen.getByTestId("connections-toggle"));
    const drawer = await screen.findByTestId("connections-drawer");
    const hooks = await within(drawer).findByText("no Switchboard hook in ~/.codex/hooks.json");
    const row = hooks.closest<HTMLElement>("[data-testid=check]")!;
    expect(row).toHaveAttribute("data-check", "codex.hooks");
    expect(row).toHaveAttribute("data-outcome", "fail");
    expect(within(row).getByTestId("check-fix")).toHaveTextContent("switchboard install codex");
    const passing = drawer.querySelector<HTMLElement>('[data-check="claude.hooks"]')!;
    expect(within(passing).queryByTestId("check-fix")).toBeNull();
    // A CLI that is not installed is skipped, with how to get it.
    const gemini = drawer.querySelector<HTMLElement>('[data-check="gemini.path"]')!;
    expect(gemini).toHaveAttribute("data-outcome", "skip");
    expect(within(gemini).getByTestId("check-fix")).toHaveTextContent("npm install -g @google/gemini-cli");
  });

  it("Copy puts the fix command on the clipboard", async () => {
    const writeText = vi.fn(() => Promise.resolve());
    Object.defineProperty(navigator, "clipboard", { value: { writeText }, configurable: true });
    vi.mocked(ipc.doctor).mockResolvedValue(doctorReport());
    renderConnections();
    fireEvent.click(screen.getByTestId("connections-toggle"));
    const drawer = await screen.findByTestId("connections-drawer");
    const row = await waitFor(() => drawer.querySelector<HTMLElement>('[data-check="codex.hooks"]')!);
    const copy = within(row).getByRole("button", { name: "Copy: switchboard install codex" });
    fireEvent.click(copy);
    expect(writeText).toHaveBeenCalledWith("switchboard install codex");
    await waitFor(() => expect(copy).toHaveTextContent("Copied"));
  });

  it("Check again runs the checks again; the header's alert dot follows the result", async () => {
    vi.mocked(ipc.doctor).mockResolvedValueOnce(doctorReport()).mockResolvedValueOnce(healthyReport());
    renderConnections();
    fireEvent.click(screen.getByTestId("connections-toggle"));
    await screen.findByText("1 check needs fixing.");
    expect(screen.getByLabelText("1 failing")).toBeInTheDocument();
    fireEvent.click(screen.getByTestId("connections-refresh"));
    expect(await screen.findByText("Everything is connected.")).toBeInTheDocument();
    expect(ipc.doctor).toHaveBeenCalledTimes(2);
    expect(screen.queryByLabelText(/failing/)).toBeNull();
    expect(screen.getByTestId("doctor-checks")).toHaveAttribute("data-ok", "true");
  });

  it("shows the error when the checks cannot run, and closes", async () => {
    vi.mocked(ipc.doctor).mockRejectedValue({ kind: "noHome", message: "HOME is not set" });
    renderConnections();
    fireEvent.click(screen.getByTestId("connections-toggle"));
    expect(await screen.findByRole("alert")).toHaveTextContent("HOME is not set");
    fireEvent.click(screen.getByRole("button", { name: "Close Connections" }));
    expect(screen.queryByTestId("connections-drawer")).toBeNull();
  });
});

describe("the doctor's test sessions", () => {
  beforeEach(() => useSwitchboard.setState(initialData()));

  it("never reach the canvas, from the snapshot or from a change", () => {
    const store = useSwitchboard.getState();
    store.applySnapshot([makeSession({ sessionId: "real" }), makeSession({ sessionId: "switchboard-doctor-1-2" })]);
    expect(useSwitchboard.getState().order).toEqual(["real"]);
    act(() =>
      useSwitchboard.getState().applyChanges({
        changed: [makeSession({ sessionId: "switchboard-doctor-3-4", ended: true })],
        removed: [],
      }),
    );
    expect(Object.keys(useSwitchboard.getState().sessions)).toEqual(["real"]);
  });
});
