// The clock and the cards (issue 47: idle is idle): a tick draws again only the words it changed.
import { beforeEach, describe, expect, it, vi } from "vitest";
import { act, render, screen, within } from "@testing-library/react";
import { SessionCard } from "./SessionNode";
import { useSwitchboard } from "../state/store";
import { useClock } from "../state/clock";
import { makeSession, NOW } from "../test/sessions";
import { initialData } from "../state/data";
import type { Session } from "../bindings/Session";

// Each drawing of a card works out its labels once: counted, it says how often cards are drawn.
const drawn = vi.hoisted(() => ({ cards: 0 }));
vi.mock("../shared/sessionLabels", async (importOriginal) => {
  const actual = await importOriginal<typeof import("../shared/sessionLabels")>();
  return {
    ...actual,
    labelsInRegion: (...args: Parameters<typeof actual.labelsInRegion>) => {
      drawn.cards += 1;
      return actual.labelsInRegion(...args);
    },
  };
});

const MINUTE = 60_000;

beforeEach(() => {
  useSwitchboard.setState(initialData());
  useClock.setState({ now: NOW });
});

function board(fields: Partial<Session> = {}) {
  const sessions = Array.from({ length: 20 }, (_, n) =>
    makeSession({ sessionId: `w-${n}`, status: "working", lastEventAt: NOW - 5_000, firstEventAt: NOW - MINUTE, ...fields }),
  );
  useSwitchboard.getState().applySnapshot(sessions);
  render(
    <>
      {sessions.map((session) => (
        <SessionCard key={session.sessionId} id={session.sessionId} />
      ))}
    </>,
  );
  return sessions;
}

describe("the clock and the cards", () => {
  it("a tick draws no card again: the ages change their own words", () => {
    board();
    const before = drawn.cards;
    expect(before).toBeGreaterThanOrEqual(20);
    // 15 s later every card still says "just now".
    act(() => useClock.setState({ now: NOW + 15_000 }));
    expect(screen.getAllByText("just now")).toHaveLength(20);
    // A minute later every age changed, and no card was drawn again for it.
    act(() => useClock.setState({ now: NOW + MINUTE }));
    expect(screen.getAllByText("1 min ago")).toHaveLength(20);
    act(() => useClock.setState({ now: NOW + 5 * MINUTE }));
    expect(screen.getAllByText("5 min ago")).toHaveLength(20);
    expect(drawn.cards).toBe(before);
  });

  it("a stale card's silence, an unreachable one's since and an idle one's hold follow the clock", () => {
    const footprint = { cpuTenths: 0, rssBytes: 1.2 * 1024 ** 3, processes: 1, startedAt: NOW - 5 * 60 * MINUTE };
    useSwitchboard.getState().applySnapshot([
      makeSession({ sessionId: "stale", status: "working", stale: true, lastEventAt: NOW - 12 * MINUTE }),
      makeSession({ sessionId: "far", host: "devbox", unreachableSince: NOW - 30 * MINUTE, lastEventAt: NOW - 31 * MINUTE }),
      makeSession({ sessionId: "holding", status: "done", idleHolding: true, footprint, lastEventAt: NOW - 3 * 60 * MINUTE }),
    ]);
    render(
      <>
        <SessionCard id="stale" />
        <SessionCard id="far" />
        <SessionCard id="holding" />
      </>,
    );
    const card = (id: string) => screen.getAllByTestId("session-node").find((n) => n.dataset.sessionId === id)!;
    expect(within(card("stale")).getByText("no news for 12 min")).toBeInTheDocument();
    expect(within(card("holding")).getByTestId("holding-mark")).toHaveTextContent("idle 3 h · holds 1.2 GiB");
    const since = within(card("far")).getByTestId("unreachable-mark");
    expect(since.title).toContain("its last event 31 min ago");
    const before = drawn.cards;
    act(() => useClock.setState({ now: NOW + 60 * MINUTE }));
    expect(within(card("stale")).getByText("no news for 1 h")).toBeInTheDocument();
    expect(within(card("holding")).getByTestId("holding-mark")).toHaveTextContent("idle 4 h · holds 1.2 GiB");
    expect(since.title).toContain("its last event 1 h ago");
    expect(drawn.cards).toBe(before);
  });
});
