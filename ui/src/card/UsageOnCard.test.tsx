// Usage on the board (issue 25): the full card's bar, cost and branch; the panel's Usage section;
// the header's total for today; the filter bar's sort and branch field.
import { beforeEach, describe, expect, it, vi } from "vitest";
import { act, cleanup, fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { SessionCard } from "./SessionNode";
import { DetailsPanel } from "../panel/DetailsPanel";
import { TodayCost } from "../header/Header";
import { FilterBar } from "../board/FilterBar";
import { useSwitchboard } from "../state/store";
import { useClock } from "../state/clock";
import type { Session } from "../bindings/Session";
import { makeSession, NOW } from "../test/sessions";
import { makeUsage } from "../test/usage";
import * as ipc from "../shared/ipc";
import { initialData } from "../state/data";

vi.mock("../shared/ipc", async (importOriginal) => ({
  toIpcError: (await importOriginal<typeof import("../shared/ipc")>()).toIpcError,
  clearUnread: vi.fn(() => Promise.resolve()),
  sessionHistory: vi.fn(() => Promise.resolve([])),
  endAgent: vi.fn(() => Promise.resolve()),
  setPosition: vi.fn(() => Promise.resolve()),
}));

const MIB = 1024 * 1024;
const HOUR = 3_600_000;
const process = { pid: 4242, start: 1, tty: "/dev/pts/3", tmuxPane: null, tmuxSocket: null, windowId: null, termProgram: null };
const footprint = { cpuTenths: 125, rssBytes: 512 * MIB, processes: 3, startedAt: NOW - (2 * HOUR + 5 * 60_000) };

function card(fields: Partial<Session> = {}, props: Partial<Parameters<typeof SessionCard>[0]> = {}) {
  const session = makeSession({ sessionId: "s1", ...fields });
  useSwitchboard.getState().applySnapshot([session]);
  render(<SessionCard id="s1" {...props} />);
  return screen.getByTestId("session-node");
}

/** The panel, once its (empty) history has loaded. */
async function panel(fields: Partial<Session> = {}) {
  const session = makeSession({ sessionId: "s1", ...fields });
  useSwitchboard.getState().applySnapshot([session]);
  act(() => useSwitchboard.getState().select("s1"));
  render(<DetailsPanel />);
  await screen.findByText("No history yet.");
  return screen.getByTestId("details-panel");
}

beforeEach(() => {
  cleanup();
  useSwitchboard.setState(initialData());
  useClock.setState({ now: NOW });
  vi.mocked(ipc.endAgent).mockClear();
});

describe("the full card", () => {
  it("shows context use as a bar, the cost and the branch with its dirty dot", () => {
    const node = card({
      usage: makeUsage({ contextTokens: 46_000, costMicros: 420_000 }),
      git: { branch: "feature/login", worktree: null, dirty: true },
    });
    const bar = within(node).getByTestId("node-context");
    expect(bar).toHaveAttribute("data-percent", "23");
    expect(bar).toHaveAttribute("aria-valuenow", "23");
    expect(bar).not.toHaveClass("is-warning");
    expect((bar.firstElementChild as HTMLElement).style.width).toBe("23%");
    expect(within(node).getByTestId("node-cost")).toHaveTextContent("$0.42");
    const branch = within(node).getByTestId("node-branch");
    expect(branch).toHaveTextContent("feature/login");
    expect(branch).toHaveAttribute("data-dirty", "true");
    expect(within(branch).getByRole("img", { name: "uncommitted changes" })).toBeInTheDocument();
  });

  it("warns from 80 % of the window", () => {
    const node = card({ usage: makeUsage({ contextTokens: 160_000 }) });
    expect(within(node).getByTestId("node-context")).toHaveClass("is-warning");
  });

  it("says <$0.01 for less than a cent, and hides the cost of a model with no price", () => {
    expect(within(card({ usage: makeUsage({ costMicros: 4_000 }) })).getByTestId("node-cost")).toHaveTextContent("<$0.01");
    cleanup();
    const unpriced = card({ usage: makeUsage({ costMicros: null }) });
    expect(within(unpriced).queryByTestId("node-cost")).toBeNull();
    expect(within(unpriced).getByTestId("node-context")).toBeInTheDocument();
  });

  it("shows no bar when the window is not known, no branch when detached, and nothing without data", () => {
    const node = card({ usage: makeUsage({ contextWindow: null }), git: { branch: null, worktree: null, dirty: true } });
    expect(within(node).queryByTestId("node-context")).toBeNull();
    expect(within(node).queryByTestId("node-branch")).toBeNull();
    cleanup();
    const bare = card();
    for (const id of ["node-context", "node-cost", "node-branch", "holding-mark"]) {
      expect(within(bare).queryByTestId(id)).toBeNull();
    }
  });

  it("keeps the zoomed-out forms as they were", () => {
    const fields = {
      usage: makeUsage({ costMicros: 420_000 }),
      git: { branch: "main", worktree: null, dirty: true },
    };
    for (const props of [{ compact: true }, { size: "strip" as const }]) {
      cleanup();
      const node = card(fields, props);
      for (const id of ["node-context", "node-cost", "node-branch"]) {
        expect(within(node).queryByTestId(id)).toBeNull();
      }
    }
  });

  it("marks an agent idle for hours while holding memory, in the age's place", () => {
    const node = card({
      status: "done",
      lastEventAt: NOW - 3 * HOUR,
      process,
      footprint: { ...footprint, rssBytes: 1.2 * 1024 * MIB },
      idleHolding: true,
    });
    expect(within(node).getByTestId("holding-mark")).toHaveTextContent("idle 3 h · holds 1.2 GiB");
    expect(node).toHaveClass("is-holding");
    cleanup();
    const busy = card({ status: "working", lastEventAt: NOW - 3 * HOUR, process, footprint: { ...footprint, rssBytes: 2 * 1024 * MIB } });
    expect(within(busy).queryByTestId("holding-mark")).toBeNull();
  });
});

describe("the details panel's Usage section", () => {
  it("is not there when nothing is known", async () => {
    const details = await panel();
    expect(within(details).queryByTestId("details-usage")).toBeNull();
  });

  it("shows the model, tokens, context, cost and where the prices come from", async () => {
    const details = await panel({
      usage: makeUsage({
        inputTokens: 12_300,
        cacheReadTokens: 1_200_000,
        outputTokens: 3_400,
        contextTokens: 46_000,
        costMicros: 420_000,
      }),
    });
    const usage = within(details).getByTestId("details-usage");
    expect(within(usage).getByTestId("usage-model")).toHaveTextContent("claude-sonnet-4-5");
    expect(within(usage).getByTestId("usage-tokens")).toHaveTextContent("12.3k in · 1.2M cached · 3.4k out");
    expect(within(usage).getByTestId("usage-context")).toHaveTextContent("23 % of 200k");
    expect(within(usage).getByTestId("details-context-bar")).toHaveAttribute("data-percent", "23");
    expect(within(usage).getByTestId("usage-cost")).toHaveTextContent("$0.42 estimated");
    expect(usage).toHaveTextContent(/pricing\.json/);
    expect(usage).toHaveTextContent(/edit it/);
    for (const id of ["usage-cpu", "usage-memory", "usage-uptime", "usage-branch", "usage-worktree"]) {
      expect(within(usage).queryByTestId(id)).toBeNull();
    }
  });

  it("says when a model has no price", async () => {
    const details = await panel({ usage: makeUsage({ model: "claude-next", costMicros: null }) });
    expect(within(details).getByTestId("usage-cost")).toHaveTextContent("no price for claude-next");
    expect(within(details).getByTestId("details-usage")).toHaveTextContent(/Add the model to pricing\.json/);
  });

  it("shows the footprint and the git state without usage", async () => {
    const details = await panel({
      footprint,
      git: { branch: "feature/login", worktree: "/home/maya/src/webapp-login", dirty: true },
    });
    const usage = within(details).getByTestId("details-usage");
    expect(within(usage).queryByTestId("usage-tokens")).toBeNull();
    expect(within(usage).getByTestId("usage-cpu")).toHaveTextContent("13 %");
    expect(within(usage).getByTestId("usage-memory")).toHaveTextContent("512 MiB · 3 processes");
    expect(within(usage).getByTestId("usage-uptime")).toHaveTextContent("up 2 h 5 min");
    expect(within(usage).getByTestId("usage-branch")).toHaveTextContent("feature/login · uncommitted changes");
    expect(within(usage).getByTestId("usage-worktree")).toHaveTextContent("~/src/webapp-login");
    expect(usage).not.toHaveTextContent(/pricing\.json/);
  });

  it("says detached HEAD, and nothing of changes on a clean tree", async () => {
    const details = await panel({ git: { branch: null, worktree: null, dirty: false } });
    expect(within(details).getByTestId("usage-branch")).toHaveTextContent("detached HEAD");
    expect(within(details).queryByTestId("usage-dirty")).toBeNull();
  });

  it("points an idle agent holding memory to End agent, which still asks first", async () => {
    const details = await panel({
      status: "done",
      lastEventAt: NOW - 3 * HOUR,
      process,
      footprint: { ...footprint, rssBytes: 1.2 * 1024 * MIB },
      idleHolding: true,
    });
    const note = within(details).getByTestId("details-holding");
    expect(note).toHaveTextContent("idle 3 h · holds 1.2 GiB — End agent?");
    fireEvent.click(within(note).getByTestId("holding-end"));
    await waitFor(() => expect(within(details).getByTestId("end-confirm")).toBeInTheDocument());
    expect(ipc.endAgent).not.toHaveBeenCalled();
  });

  it("does not offer End agent where the panel cannot end it", async () => {
    const details = await panel({
      status: "done",
      lastEventAt: NOW - 3 * HOUR,
      process: null,
      footprint: { ...footprint, rssBytes: 1.2 * 1024 * MIB },
      idleHolding: true,
    });
    expect(within(details).getByTestId("details-holding")).toHaveTextContent("idle 3 h · holds 1.2 GiB");
    expect(within(details).queryByTestId("holding-end")).toBeNull();
  });
});

describe("the header's cost today", () => {
  it("is not shown before any session active today has a price", () => {
    useSwitchboard.getState().applySnapshot([
      makeSession({ sessionId: "a" }),
      makeSession({ sessionId: "b", usage: makeUsage({ costMicros: null }) }),
    ]);
    render(<TodayCost />);
    expect(screen.queryByTestId("today-cost")).toBeNull();
  });

  it("sums today's sessions and gives each project's share on hover", () => {
    useSwitchboard.getState().applySnapshot([
      makeSession({ sessionId: "a", cwd: "/home/maya/src/webapp", usage: makeUsage({ costMicros: 420_000 }) }),
      makeSession({ sessionId: "b", cwd: "/home/maya/src/webapp/api", usage: makeUsage({ costMicros: 80_000 }) }),
      makeSession({ sessionId: "c", cwd: "/home/maya/src/billing", usage: makeUsage({ costMicros: 1_000_000 }) }),
      makeSession({ sessionId: "d", cwd: "/home/maya/src/x", usage: makeUsage({ costMicros: null }) }),
      makeSession({
        sessionId: "old",
        cwd: "/home/maya/src/billing",
        usage: makeUsage({ costMicros: 9_000_000 }),
        lastEventAt: NOW - 30 * HOUR,
      }),
    ]);
    render(<TodayCost />);
    const today = screen.getByTestId("today-cost");
    expect(today).toHaveTextContent("$1.50 today");
    expect(today).toHaveAttribute("data-micros", "1500000");
    const title = today.getAttribute("title")!;
    expect(title).toMatch(/pricing\.json/);
    expect(title.split("\n").slice(1)).toEqual(["billing  $1.00", "webapp  $0.50", "1 more session has no price in pricing.json"]);
  });
});

describe("sorting and the branch field in the filter bar", () => {
  const sessions = [
    makeSession({ sessionId: "cheap", cwd: "/p/a", status: "done", usage: makeUsage({ costMicros: 10_000 }), git: { branch: "main", worktree: null, dirty: false } }),
    makeSession({ sessionId: "dear", cwd: "/p/a", status: "done", usage: makeUsage({ costMicros: 900_000 }), git: { branch: "feature/x", worktree: null, dirty: false } }),
    makeSession({ sessionId: "none", cwd: "/p/a", status: "working" }),
  ];
  const readingOrder = () =>
    [...useSwitchboard.getState().nodes]
      .sort((a, b) => a.position.y - b.position.y || a.position.x - b.position.x)
      .map((n) => n.id);

  it("orders the nodes in their region by cost, and back", () => {
    useSwitchboard.getState().applySnapshot(sessions);
    expect(readingOrder()).toEqual(["none", "cheap", "dear"]);
    act(() => useSwitchboard.getState().setFilterOpen(true));
    render(<FilterBar />);
    fireEvent.change(screen.getByTestId("filter-sort"), { target: { value: "cost" } });
    expect(useSwitchboard.getState().sort).toBe("cost");
    expect(readingOrder()).toEqual(["dear", "cheap", "none"]);
    // A cost that grows without changing the order lays nothing out again.
    const nodes = useSwitchboard.getState().nodes;
    act(() =>
      useSwitchboard.getState().applyChanges({ changed: [{ ...sessions[0]!, usage: makeUsage({ costMicros: 20_000 }) }], removed: [] }),
    );
    expect(useSwitchboard.getState().nodes).toBe(nodes);
    // Overtaking does.
    act(() =>
      useSwitchboard.getState().applyChanges({ changed: [{ ...sessions[0]!, usage: makeUsage({ costMicros: 2_000_000 }) }], removed: [] }),
    );
    expect(readingOrder()).toEqual(["cheap", "dear", "none"]);
    fireEvent.change(screen.getByTestId("filter-sort"), { target: { value: "default" } });
    expect(readingOrder()).toEqual(["none", "cheap", "dear"]);
  });

  it("says a sort is on while closed, opens from there, and its clear button undoes filter and sort", () => {
    useSwitchboard.getState().applySnapshot(sessions);
    act(() => useSwitchboard.getState().setSort("memory"));
    render(<FilterBar />);
    expect(screen.getByTestId("filter-sort-pill")).toHaveTextContent("Sorted by memory");
    expect(screen.queryByTestId("filter-input")).toBeNull();
    fireEvent.click(screen.getByTestId("filter-sort-pill"));
    expect(screen.getByTestId("filter-sort")).toHaveValue("memory");
    fireEvent.change(screen.getByTestId("filter-input"), { target: { value: "p" } });
    fireEvent.click(screen.getByRole("button", { name: "Clear the filter" }));
    expect(useSwitchboard.getState().sort).toBe("default");
    expect(useSwitchboard.getState().filter.text).toBe("");
    expect(screen.queryByTestId("filter-bar")).toBeNull();
  });

  it("undoes the sort alone from its pill", () => {
    useSwitchboard.getState().applySnapshot(sessions);
    act(() => useSwitchboard.getState().setSort("cost"));
    render(<FilterBar />);
    fireEvent.click(screen.getByRole("button", { name: "Clear the sort" }));
    expect(useSwitchboard.getState().sort).toBe("default");
    expect(screen.queryByTestId("filter-bar")).toBeNull();
  });

  it("lights only the sessions on a matching branch", () => {
    useSwitchboard.getState().applySnapshot(sessions);
    act(() => useSwitchboard.getState().setFilterOpen(true));
    render(<FilterBar />);
    fireEvent.change(screen.getByTestId("filter-branch"), { target: { value: "feature" } });
    expect([...useSwitchboard.getState().matches!]).toEqual(["dear"]);
    expect(screen.getByTestId("filter-count")).toHaveTextContent("1 of 3");
  });
});
