// The shared clock wakes only when a word on screen is due to change (issue 47: idle is idle),
// at most every AGE_REFRESH_MS, and at least every LONGEST_SLEEP_MS.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { act, render, screen } from "@testing-library/react";
import { AGE_REFRESH_MS, LONGEST_SLEEP_MS, nextChange, startClock, useClock } from "./clock";
import { Age } from "../card/ClockText";
import { relativeAge } from "../shared/sessionLabels";
import { NOW } from "../test/sessions";

const SECOND = 1_000;

let ticks = 0;
let stopClock: () => void = () => {};
let stopCounting: () => void = () => {};

beforeEach(() => {
  vi.useFakeTimers();
  vi.setSystemTime(NOW);
  useClock.setState({ now: NOW });
  ticks = 0;
  stopCounting = useClock.subscribe(() => (ticks += 1));
});

afterEach(() => {
  stopClock();
  stopCounting();
  vi.useRealTimers();
});

function ages(...at: number[]) {
  render(
    <>
      {at.map((when, n) => (
        <span key={when} data-testid={`age-${n}`}>
          <Age at={when} className="age" />
        </span>
      ))}
    </>,
  );
  stopClock = startClock();
}

/** Lets the fake time run to `NOW + ms` and React draw what it changed. */
function at(ms: number) {
  act(() => vi.advanceTimersByTime(NOW + ms - Date.now()));
}

const shown = (n: number) => screen.getByTestId(`age-${n}`).textContent;

describe("when an age next reads differently", () => {
  it("finds the second it changes", () => {
    const due = nextChange((now) => relativeAge(NOW, now), NOW);
    expect(due).toBeGreaterThanOrEqual(NOW + 45 * SECOND);
    expect(due).toBeLessThan(NOW + 46 * SECOND);
    expect(relativeAge(NOW, due)).toBe("1 min ago");
  });

  it("gives the longest sleep for a text that does not change", () => {
    expect(nextChange(() => "since 14:02", NOW)).toBe(NOW + LONGEST_SLEEP_MS);
  });
});

describe("the clock", () => {
  it("sleeps until an age is due to change, then draws it", () => {
    ages(NOW);
    at(44 * SECOND);
    expect(ticks).toBe(0);
    expect(shown(0)).toBe("just now");
    at(46 * SECOND);
    expect(ticks).toBe(1);
    expect(shown(0)).toBe("1 min ago");
    // The next word is "2 min ago", at two minutes: nothing wakes before.
    at(119 * SECOND);
    expect(ticks).toBe(1);
    at(121 * SECOND);
    expect(ticks).toBe(2);
    expect(shown(0)).toBe("2 min ago");
  });

  it("ticks no more often than every AGE_REFRESH_MS, however many ages are due", () => {
    // Due at 35 s and 40 s: the second waits for the tick 15 s after the first.
    ages(NOW - 10 * SECOND, NOW - 5 * SECOND);
    at(36 * SECOND);
    expect(ticks).toBe(1);
    expect([shown(0), shown(1)]).toEqual(["1 min ago", "just now"]);
    at(35 * SECOND + AGE_REFRESH_MS - SECOND);
    expect(ticks).toBe(1);
    at(35 * SECOND + AGE_REFRESH_MS + SECOND);
    expect(ticks).toBe(2);
    expect(shown(1)).toBe("1 min ago");
  });

  it("with nothing due, wakes only after the longest sleep", () => {
    ages(NOW - 2 * 3_600_000);
    at(LONGEST_SLEEP_MS - SECOND);
    expect(ticks).toBe(0);
    at(LONGEST_SLEEP_MS + SECOND);
    expect(ticks).toBe(1);
    expect(shown(0)).toBe("2 h ago");
  });

  it("an age shown later that is due sooner brings the tick forward", () => {
    ages(NOW - 2 * 3_600_000);
    at(2 * SECOND);
    // Due at 5 s; the clock ticked last at the start, so it may tick at 15 s.
    render(
      <span data-testid="late">
        <Age at={NOW - 40 * SECOND} className="age" />
      </span>,
    );
    act(() => undefined);
    at(14 * SECOND);
    expect(ticks).toBe(0);
    expect(screen.getByTestId("late").textContent).toBe("just now");
    at(16 * SECOND);
    expect(ticks).toBe(1);
    expect(screen.getByTestId("late").textContent).toBe("1 min ago");
  });

  it("a window shown again ticks at once, and leaves no second timer behind", () => {
    ages(NOW);
    at(10 * SECOND);
    act(() => void document.dispatchEvent(new Event("visibilitychange")));
    expect(ticks).toBe(1);
    at(46 * SECOND);
    expect(ticks).toBe(2);
    expect(shown(0)).toBe("1 min ago");
  });

  it("stopped, it ticks no more", () => {
    ages(NOW);
    stopClock();
    at(LONGEST_SLEEP_MS * 2);
    expect(ticks).toBe(0);
    expect(shown(0)).toBe("just now");
  });
});
