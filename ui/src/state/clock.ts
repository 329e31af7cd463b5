// One shared clock for relative ages: no node owns a timer. What is drawn from it is read
// through `useClockText`, so a tick re-renders only the words it changed, and the clock wakes
// only when a word on screen is due to change (issue 47: idle is idle).
import { useEffect, useRef } from "react";
import { create } from "zustand";

/** The clock ticks at most this often: a word due to change is drawn at most this late. */
export const AGE_REFRESH_MS = 15_000;
/**
 * The longest the clock sleeps while no word on screen is due to change. A change the search in
 * {@link nextChange} steps over (a text that changes and changes back within its step) is drawn
 * at most this late.
 */
export const LONGEST_SLEEP_MS = 10 * 60_000;

export const useClock = create<{ now: number }>(() => ({ now: Date.now() }));

/** A text on screen, and when it next reads differently. */
type Watch = { text: (now: number) => string; due: number };
const watches = new Set<Watch>();

/**
 * A string drawn from the clock: the component re-renders when the string changes, not on
 * every tick — an age's words change once a minute, a "since 14:02" once a day — and the clock
 * wakes for it only when it is due to.
 */
export function useClockText(text: (now: number) => string): string {
  const shown = useClock((s) => text(s.now));
  const watch = useRef<Watch | null>(null);
  useEffect(() => {
    const mine: Watch = { text, due: Infinity };
    watch.current = mine;
    watches.add(mine);
    return () => {
      watches.delete(mine);
      watch.current = null;
    };
    // Registered once; the render below keeps its text current.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);
  // After every render: what it shows may hang on what the render was given.
  useEffect(() => {
    const mine = watch.current;
    if (mine == null) return;
    mine.text = text;
    mine.due = nextChange(text, useClock.getState().now);
    clock?.wakeBy(mine.due);
  });
  return shown;
}

/**
 * The first time after `now`, to the second, at which `text` reads differently; `now` +
 * {@link LONGEST_SLEEP_MS} if it does not before then. Doubling steps, then halving: about a
 * dozen calls for an age's next minute.
 */
export function nextChange(text: (now: number) => string, now: number): number {
  const shown = text(now);
  let same = now;
  for (let step = 1_000; step <= LONGEST_SLEEP_MS; step *= 2) {
    const at = now + step;
    if (text(at) === shown) {
      same = at;
      continue;
    }
    let changed = at;
    while (changed - same > 1_000) {
      const mid = same + Math.floor((changed - same) / 2);
      if (text(mid) === shown) same = mid;
      else changed = mid;
    }
    return changed;
  }
  return now + LONGEST_SLEEP_MS;
}

type Clock = { wakeBy(due: number): void };
let clock: Clock | null = null;

/**
 * Starts the shared clock: it sleeps until the first text on screen is due to change, but wakes
 * no sooner than {@link AGE_REFRESH_MS} after its last tick and no later than
 * {@link LONGEST_SLEEP_MS}. Returns what stops it.
 */
export function startClock(): () => void {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let wakeAt = Infinity;
  let lastTick = Date.now();

  const schedule = (due: number) => {
    const at = Math.max(due, lastTick + AGE_REFRESH_MS);
    if (timer !== undefined && wakeAt <= at) return;
    if (timer !== undefined) clearTimeout(timer);
    wakeAt = at;
    timer = setTimeout(tick, Math.max(0, at - Date.now()));
  };
  const earliest = (now: number) => {
    let due = now + LONGEST_SLEEP_MS;
    for (const watch of watches) {
      if (watch.due <= now) watch.due = nextChange(watch.text, now);
      due = Math.min(due, watch.due);
    }
    return due;
  };
  const tick = () => {
    // A tick when the window shows again comes before the timer's: that one is not needed.
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
    const now = Date.now();
    lastTick = now;
    useClock.setState({ now });
    schedule(earliest(now));
  };
  // A window that was hidden for an hour should not show "2 min ago" a moment longer.
  const onVisible = () => {
    if (document.visibilityState === "visible") tick();
  };
  document.addEventListener("visibilitychange", onVisible);
  const mine: Clock = { wakeBy: schedule };
  clock = mine;
  schedule(earliest(Date.now()));
  return () => {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
    if (clock === mine) clock = null;
    document.removeEventListener("visibilitychange", onVisible);
  };
}
