import { beforeEach, describe, expect, it, vi } from "vitest";
import { AGENTS } from "../bindings/agents";
import { act, fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { ConnectionsDrawer, ConnectionsToggle } from "./Connections";
import { useSwitchboard } from "../state/store";
import { doctorReport, healthyReport } from "../test/doctor";
import { makeSession } from "../test/sessions";
import * as ipc from "../shared/ipc";
import { useConnections } from "../state/connections";
import { initialData } from "../state/data";
import { stylesheets } from "../test/stylesheets";

vi.mock("../shared/ipc", async (importOriginal) => ({
  ...(await importOriginal<typeof import("../shared/ipc")>()),
  doctor: vi.fn(),
  settings: vi.fn(),
  setSettings: vi.fn(),
}));

/** The declarations of every rule whose selector names `className`. */
async function rulesFor(className: string): Promise<{ selector: string; body: string }[]> {
  const css = await stylesheets();
  return [...css.matchAll(/([^{}]+)\{([^{}]*)\}/g)]
    .filter(([, selector]) => new RegExp(`\\.${className}(?![\\w-])`).test(selector!))
    .map(([, selector, body]) => ({ selector: selector!.trim(), body: body! }));
}

function renderConnections() {
  return render(
    <>
      <ConnectionsToggle />
      <ConnectionsDrawer />
    </>,
  );
}

/** The header button (which opens Settings), then the Diagnostics tab. */
function openDiagnostics() {
  fireEvent.click(screen.getByTestId("connections-toggle"));
  fireEvent.click(screen.getByTestId("drawer-tab-diagnostics"));
}

beforeEach(() => {
  useConnections.setState({ open: false, report: null, checking: false, error: null });
  vi.mocked(ipc.doctor).mockReset();
  vi.mocked(ipc.doctor).mockResolvedValue(healthyReport());
  vi.mocked(ipc.settings).mockReset();
  vi.mocked(ipc.settings).mockResolvedValue({ decide: [], holdSeconds: 30, remotes: [], reach: ipc.DEFAULT_REACH });
  vi.mocked(ipc.setSettings).mockReset();
  // Like Rust: keeps the known CLIs, clamps the wait to 5..120.
  vi.mocked(ipc.setSettings).mockImplementation(async (next) => ({
    decide: next.decide.filter((a) => ["claude", "codex"].includes(a)).sort(),
    holdSeconds: Math.min(120, Math.max(5, next.holdSeconds)),
    remotes: next.remotes,
    reach: next.reach,
  }));
});

describe("Diagnostics (the checks)", () => {
  it("opens from the header button and lists every check, grouped by CLI", async () => {
    vi.mocked(ipc.doctor).mockResolvedValue(doctorReport());
    renderConnections();
    expect(screen.queryByTestId("connections-drawer")).toBeNull();
    openDiagnostics();
    expect(ipc.doctor).toHaveBeenCalledTimes(1);
    const drawer = await screen.findByTestId("connections-drawer");
    await within(drawer).findByTestId("doctor-checks");
    const groups = within(drawer).getAllByTestId("check-group").map((g) => g.dataset.agent);
    expect(groups).toEqual(["claude", "codex", "gemini", "switchboard"]);
    expect(within(drawer).getByText("2.1.332")).toBeInTheDocument();
    expect(within(drawer).getByTestId("doctor-summary")).toHaveTextContent("1 check failed.");
    expect(screen.getByTestId("connections-toggle")).toHaveAttribute("aria-pressed", "true");
  });

  it("a failing check shows the command that fixes it; a passing one shows none", async () => {
    vi.mocked(ipc.doctor).mockResolvedValue(doctorReport());
    renderConnections();
    openDiagnostics();
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
    openDiagnostics();
    const drawer = await screen.findByTestId("connections-drawer");
    const row = await waitFor(() => drawer.querySelector<HTMLElement>('[data-check="codex.hooks"]')!);
    const copy = within(row).getByRole("button", { name: "Copy: switchboard install codex" });
    fireEvent.click(copy);
    expect(writeText).toHaveBeenCalledWith("switchboard install codex");
    await waitFor(() => expect(copy).toHaveTextContent("Copied"));
  });

  it("the header's alert dot also lights while a remote is unreachable, and says which", () => {
    useSwitchboard.setState(initialData());
    useSwitchboard.getState().applySnapshot([
      makeSession({ sessionId: "local-1" }),
      makeSession({ sessionId: "devbox:a", host: "devbox", unreachableSince: Date.now() - 60_000 }),
      makeSession({ sessionId: "devbox:b", host: "devbox", unreachableSince: Date.now() - 60_000 }),
      makeSession({ sessionId: "gpu:a", host: "gpu" }),
    ]);
    renderConnections();
    const toggle = screen.getByTestId("connections-toggle");
    expect(screen.getByTestId("connections-alert")).toHaveAttribute("aria-label", "devbox is unreachable");
    expect(toggle.getAttribute("title")).toMatch(/^devbox is unreachable: its sessions show what was last known\./);
    act(() =>
      useSwitchboard.getState().applyChanges({
        changed: [
          makeSession({ sessionId: "devbox:a", host: "devbox" }),
          makeSession({ sessionId: "devbox:b", host: "devbox" }),
        ],
        removed: [],
      }),
    );
    expect(screen.queryByTestId("connections-alert")).toBeNull();
    expect(toggle.getAttribute("title")).not.toMatch(/unreachable/);
    useSwitchboard.setState(initialData());
  });

  it("Check again runs the checks again; the header's alert dot follows the result", async () => {
    vi.mocked(ipc.doctor).mockResolvedValueOnce(doctorReport()).mockResolvedValueOnce(healthyReport());
    renderConnections();
    openDiagnostics();
    await screen.findByText("1 check failed.");
    expect(screen.getByLabelText("1 failing")).toBeInTheDocument();
    fireEvent.click(screen.getByTestId("connections-refresh"));
    expect(await screen.findByText("Everything is connected.")).toBeInTheDocument();
    expect(ipc.doctor).toHaveBeenCalledTimes(2);
    expect(screen.queryByLabelText(/failing/)).toBeNull();
    expect(screen.getByTestId("doctor-checks")).toHaveAttribute("data-ok", "true");
  });

  it("Settings and Diagnostics are apart: the switches on one tab, the checks on the other", async () => {
    vi.mocked(ipc.doctor).mockResolvedValue(doctorReport());
    renderConnections();
    fireEvent.click(screen.getByTestId("connections-toggle"));
    const drawer = await screen.findByTestId("connections-drawer");
    // The header button opens Settings: switches, no checks.
    expect(within(drawer).getByTestId("drawer-tab-settings")).toHaveAttribute("aria-selected", "true");
    expect(within(drawer).getByTestId("decide-setting-claude")).toBeInTheDocument();
    expect(within(drawer).queryByTestId("doctor-checks")).toBeNull();
    expect(within(drawer).queryByTestId("connections-refresh")).toBeNull();
    // The failing count is on the Diagnostics tab, in words for a screen reader.
    expect(await within(drawer).findByRole("tab", { name: "Diagnostics, 1 failing" })).toBeInTheDocument();
    fireEvent.click(within(drawer).getByTestId("drawer-tab-diagnostics"));
    const checks = await within(drawer).findByTestId("doctor-checks");
    expect(within(drawer).queryByTestId("decide-setting-claude")).toBeNull();
    const order = [within(drawer).getByTestId("doctor-summary"), within(drawer).getByTestId("connections-refresh"), checks];
    for (const [x, y] of order.slice(1).map((el, i) => [order[i]!, el] as const)) {
      expect(x.compareDocumentPosition(y) & Node.DOCUMENT_POSITION_FOLLOWING).toBeTruthy();
    }
    // The drawer scrolls; nothing in it scrolls on its own.
    const [drawerRule] = (await rulesFor("connections-drawer")).filter((r) => r.selector === ".connections-drawer");
    expect(drawerRule!.body).toMatch(/overflow-y:\s*auto/);
    const inside = new Set<string>();
    for (const el of drawer.querySelectorAll("[class]")) for (const name of el.classList) inside.add(name);
    for (const name of inside) {
      for (const { selector, body } of await rulesFor(name)) {
        if (selector.includes("empty-")) continue;
        expect(body, selector).not.toMatch(/overflow(-y)?:\s*(auto|scroll)|line-clamp/);
      }
    }
  });

  it("Check again says it ran, even when nothing changed", async () => {
    vi.mocked(ipc.doctor).mockResolvedValue(doctorReport());
    renderConnections();
    openDiagnostics();
    const stamp = await screen.findByText(/^Checked at \d\d:\d\d:\d\d$/);
    let answer!: (report: ReturnType<typeof doctorReport>) => void;
    vi.mocked(ipc.doctor).mockReturnValueOnce(new Promise((resolve) => (answer = resolve)));
    fireEvent.click(screen.getByTestId("connections-refresh"));
    expect(screen.getByTestId("connections-refresh")).toHaveTextContent("Checking…");
    expect(screen.getByTestId("checked-at")).toHaveTextContent("Running every check…");
    expect(screen.getByTestId("diagnostics")).toHaveAttribute("aria-busy", "true");
    await act(async () => answer(doctorReport()));
    expect(screen.getByTestId("checked-at")).toHaveTextContent(/^Checked at/);
    expect(stamp).toHaveAttribute("role", "status");
  });

  it("whether a CLI is there reads Installed / Not installed, never 'On PATH … not installed'", async () => {
    const report = doctorReport();
    report.agents[2]!.checks[0] = { ...report.agents[2]!.checks[0]!, label: "On PATH", detail: "not installed: no `gemini` on PATH" };
    report.agents[0]!.checks[0] = { ...report.agents[0]!.checks[0]!, label: "On PATH" };
    vi.mocked(ipc.doctor).mockResolvedValue(report);
    renderConnections();
    openDiagnostics();
    const drawer = await screen.findByTestId("connections-drawer");
    await within(drawer).findByTestId("doctor-checks");
    expect(drawer.querySelector('[data-check="gemini.path"] .check-label')).toHaveTextContent("Not installed");
    expect(drawer.querySelector('[data-check="claude.path"] .check-label')).toHaveTextContent("Installed");
    expect(drawer).not.toHaveTextContent("On PATH");
  });

  it("no agent CLI at all is the next step, not a success: never shown as OK", async () => {
    const none = doctorReport({ ok: false, summary: "No agent CLI found on this machine: install Claude Code first." });
    none.agents = none.agents.map((agent) => ({ ...agent, found: false, path: null, checks: [] }));
    vi.mocked(ipc.doctor).mockResolvedValue(none);
    renderConnections();
    openDiagnostics();
    const summary = await screen.findByTestId("doctor-summary");
    expect(summary).toHaveAttribute("data-state", "none");
    expect(summary).not.toHaveClass("is-ok");
  });

  it("never breaks a name: CLIs, checks and switches stay on one line", async () => {
    vi.mocked(ipc.doctor).mockResolvedValue(doctorReport());
    renderConnections();
    openDiagnostics();
    const drawer = await screen.findByTestId("connections-drawer");
    await within(drawer).findByTestId("doctor-checks");
    const names = [...drawer.querySelectorAll(".check-group .check-name")].map((el) => el.textContent);
    expect(names).toEqual(["Claude Code", "Codex CLI", "Gemini CLI", "Switchboard"]);
    fireEvent.click(within(drawer).getByTestId("drawer-tab-settings"));
    const switches = [...drawer.querySelectorAll(".decide-setting-name")].map((el) => el.textContent);
    // One switch per CLI the table installs, in its order.
    expect(switches).toEqual(AGENTS.filter((agent) => agent.installs).map((agent) => agent.name));
    expect(switches).toContain("Copilot CLI");
    for (const name of ["check-heading", "check-label", "decide-setting-name", "decide-setting"]) {
      const rules = await rulesFor(name);
      expect(rules.some(({ body }) => /white-space:\s*nowrap/.test(body)), name).toBe(true);
    }
    expect((await rulesFor("check-name")).some(({ body }) => /text-overflow:\s*ellipsis/.test(body))).toBe(true);
  });

  it("a passing check is one quiet row; a failing one says all it found", async () => {
    vi.mocked(ipc.doctor).mockResolvedValue(doctorReport());
    renderConnections();
    openDiagnostics();
    const drawer = await screen.findByTestId("connections-drawer");
    await within(drawer).findByTestId("doctor-checks");
    expect(drawer.querySelector('[data-check="claude.hooks"]')).toHaveClass("is-brief");
    const failing = drawer.querySelector('[data-check="codex.hooks"]')!;
    expect(failing).not.toHaveClass("is-brief");
    expect(failing.querySelector(".check-detail")).toHaveTextContent("no Switchboard hook in ~/.codex/hooks.json");
    // The path may break before a `/`, not inside a name.
    expect(failing.querySelectorAll(".check-detail wbr")).toHaveLength(1);
  });

  it.each([
    ["no clipboard", undefined],
    ["a clipboard that refuses", { writeText: vi.fn(() => Promise.reject(new DOMException("not allowed", "NotAllowedError"))) }],
  ])("Copy says it did not copy with %s", async (_case, clipboard) => {
    Object.defineProperty(navigator, "clipboard", { value: clipboard, configurable: true });
    vi.mocked(ipc.doctor).mockResolvedValue(doctorReport());
    renderConnections();
    openDiagnostics();
    const drawer = await screen.findByTestId("connections-drawer");
    const row = await waitFor(() => drawer.querySelector<HTMLElement>('[data-check="codex.hooks"]')!);
    const copy = within(row).getByRole("button", { name: "Copy: switchboard install codex" });
    fireEvent.click(copy);
    await waitFor(() => expect(copy).toHaveTextContent("Not copied"));
    expect(copy).toHaveAttribute("title", "The clipboard is not available: select the text and copy it");
  });

  it("shows the error when the checks cannot run, and closes", async () => {
    vi.mocked(ipc.doctor).mockRejectedValue({ kind: "noHome", message: "HOME is not set" });
    renderConnections();
    openDiagnostics();
    expect(await screen.findByRole("alert")).toHaveTextContent("HOME is not set");
    fireEvent.click(screen.getByRole("button", { name: "Close Settings" }));
    expect(screen.queryByTestId("connections-drawer")).toBeNull();
  });
});

describe("the drawer keeps to the keyboard and its top (issue 44.5)", () => {
  it("Esc closes it, wherever the focus is in it", async () => {
    renderConnections();
    fireEvent.click(screen.getByTestId("connections-toggle"));
    const drawer = await screen.findByTestId("connections-drawer");
    fireEvent.keyDown(within(drawer).getByTestId("drawer-tab-diagnostics"), { key: "Escape" });
    expect(screen.queryByTestId("connections-drawer")).toBeNull();
  });

  it("Appearance comes first; each tab opens at its top", async () => {
    renderConnections();
    fireEvent.click(screen.getByTestId("connections-toggle"));
    const drawer = await screen.findByTestId("connections-drawer");
    const first = drawer.querySelector('[role="tabpanel"] > section');
    expect(first).toHaveAttribute("data-testid", "appearance-settings");
    drawer.scrollTop = 400;
    fireEvent.click(screen.getByTestId("drawer-tab-diagnostics"));
    expect(drawer.scrollTop).toBe(0);
    await screen.findByTestId("diagnostics");
  });
});

describe("answering permissions from Switchboard (settings)", () => {
  async function openSettings() {
    renderConnections();
    fireEvent.click(screen.getByTestId("connections-toggle"));
    const section = await screen.findByTestId("decide-settings");
    await waitFor(() => expect(within(section).getByTestId("decide-setting-claude")).toBeEnabled());
    // The wait shows what was read once its effect ran (a render after the switches).
    await waitFor(() => expect(within(section).getByTestId("decide-hold-seconds")).not.toHaveValue(null));
    return section;
  }

  it("is off for every CLI by default, and says what it does", async () => {
    const section = await openSettings();
    expect(ipc.settings).toHaveBeenCalledTimes(1);
    expect(section).toHaveTextContent("Answer permissions from Switchboard");
    expect(section).toHaveTextContent(
      "When on, that CLI's permission prompt waits up to 30 s for Allow / Deny here or in the notification; answering in the terminal still works, and if Switchboard is closed nothing waits.",
    );
    for (const agent of ["claude", "codex", "gemini"]) {
      expect(within(section).getByTestId(`decide-setting-${agent}`)).not.toBeChecked();
    }
    expect(within(section).getByLabelText(/^Claude Code/)).toBe(within(section).getByTestId("decide-setting-claude"));
    expect(within(section).getByLabelText(/^Codex/)).toBe(within(section).getByTestId("decide-setting-codex"));
    expect(within(section).getByLabelText(/^Gemini CLI/)).toBe(within(section).getByTestId("decide-setting-gemini"));
    // Gemini CLI has no hook that can approve a tool: not offered, and says why.
    expect(within(section).getByTestId("decide-setting-gemini")).toBeDisabled();
    expect(within(section).getByTestId("decide-setting-gemini")).toHaveAccessibleDescription("no hook of Gemini CLI 0.61 can approve a tool");
    expect(within(section).getByTestId("decide-setting-codex")).toHaveAccessibleDescription(
      "its own prompt appears only when the wait ends",
    );
    expect(within(section).getByTestId("decide-hold-seconds")).toHaveValue(30);
  });

  it("shows what is saved and saves a toggle at once", async () => {
    vi.mocked(ipc.settings).mockResolvedValue({ decide: ["codex"], holdSeconds: 45, remotes: [], reach: ipc.DEFAULT_REACH });
    const section = await openSettings();
    expect(within(section).getByTestId("decide-setting-codex")).toBeChecked();
    expect(within(section).getByTestId("decide-setting-claude")).not.toBeChecked();
    expect(within(section).getByTestId("decide-hold-seconds")).toHaveValue(45);
    expect(section).toHaveTextContent("waits up to 45 s");

    fireEvent.click(within(section).getByTestId("decide-setting-claude"));
    expect(ipc.setSettings).toHaveBeenLastCalledWith({ decide: ["codex", "claude"], holdSeconds: 45, remotes: [], reach: ipc.DEFAULT_REACH });
    await waitFor(() => expect(within(section).getByTestId("decide-setting-claude")).toBeChecked());
    fireEvent.click(within(section).getByTestId("decide-setting-codex"));
    expect(ipc.setSettings).toHaveBeenLastCalledWith({ decide: ["claude"], holdSeconds: 45, remotes: [], reach: ipc.DEFAULT_REACH });
    await waitFor(() => expect(within(section).getByTestId("decide-setting-codex")).not.toBeChecked());
    expect(within(section).getByTestId("decide-setting-claude")).toBeChecked();
  });

  it("saves the wait when it is left, and shows it as Rust kept it (5–120 s)", async () => {
    const section = await openSettings();
    const hold = within(section).getByTestId("decide-hold-seconds");
    expect(hold).toHaveAttribute("min", "5");
    expect(hold).toHaveAttribute("max", "120");
    fireEvent.change(hold, { target: { value: "300" } });
    expect(ipc.setSettings).not.toHaveBeenCalled();
    fireEvent.blur(hold);
    expect(ipc.setSettings).toHaveBeenCalledWith({ decide: [], holdSeconds: 300, remotes: [], reach: ipc.DEFAULT_REACH });
    await waitFor(() => expect(hold).toHaveValue(120));
    expect(section).toHaveTextContent("waits up to 120 s");
    // The first save has settled (the field is editable again) before the next one is typed.
    await waitFor(() => expect(hold).not.toBeDisabled());
    fireEvent.change(hold, { target: { value: "12" } });
    fireEvent.keyDown(hold, { key: "Enter" });
    await waitFor(() =>
      expect(ipc.setSettings).toHaveBeenLastCalledWith({ decide: [], holdSeconds: 12, remotes: [], reach: ipc.DEFAULT_REACH }),
    );
    await waitFor(() => expect(hold).toHaveValue(12));
  });

  it("shows a failed save inline and keeps showing what is saved", async () => {
    vi.mocked(ipc.setSettings).mockRejectedValue({ kind: "io", message: "cannot save the settings to /x: disk full" });
    const section = await openSettings();
    fireEvent.click(within(section).getByTestId("decide-setting-codex"));
    expect(await within(section).findByTestId("decide-settings-error")).toHaveTextContent(
      "cannot save the settings to /x: disk full",
    );
    expect(within(section).getByTestId("decide-setting-codex")).not.toBeChecked();
  });

  it("shows why the settings cannot be read", async () => {
    vi.mocked(ipc.settings).mockRejectedValue({ kind: "io", message: "settings.json is unreadable" });
    renderConnections();
    fireEvent.click(screen.getByTestId("connections-toggle"));
    expect(await screen.findByTestId("decide-settings-error")).toHaveTextContent("settings.json is unreadable");
    expect(screen.getByTestId("decide-setting-claude")).toBeDisabled();
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

describe("check texts", () => {
  it("show `backticked` commands as code, never the backticks, and copy the command", async () => {
    const { DoctorChecks, commandOf } = await import("./Connections");
    const fix = "start the app (`switchboard`), or `switchboard serve` where there is no display";
    const report = doctorReport({ switchboard: [{ id: "switchboard.running", label: "Running", outcome: "fail", detail: "not running", fix }] });
    render(<DoctorChecks report={report} />);
    const shown = screen.getAllByTestId("check-fix").find((el) => el.textContent?.includes("switchboard serve"))!;
    expect(shown.textContent).not.toContain("`");
    expect(within(shown).getAllByText(/switchboard/, { selector: "code" }).map((c) => c.textContent)).toEqual([
      "switchboard",
      "switchboard serve",
    ]);
    expect(commandOf(fix)).toBe("switchboard");
    expect(commandOf("switchboard install codex")).toBe("switchboard install codex");
  });
});
