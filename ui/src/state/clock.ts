// One shared clock for relative ages: no node owns a timer. What is drawn from it is read
// through `useClockText`, so a tick re-renders only the words it changed (issue 47: idle is idle).
import { create } from "zustand";

export const AGE_REFRESH_MS = 15_000;

export const useClock = create<{ now: number }>(() => ({ now: Date.now() }));

/**
 * A string drawn from the clock: the component re-renders when the string changes, not on
 * every tick — an age's words change once a minute, a "since 14:02" once a day.
 */
export function useClockText(text: (now: number) => string): string {
  return useClock((s) => text(s.now));
}

export function startClock(intervalMs = AGE_REFRESH_MS): () => void {
  const tick = () => useClock.setState({ now: Date.now() });
  const timer = setInterval(tick, intervalMs);
  // A window that was hidden for an hour should not show "2 min ago" for 15 s.
  const onVisible = () => {
    if (document.visibilityState === "visible") tick();
  };
  document.addEventListener("visibilitychange", onVisible);
  return () => {
    clearInterval(timer);
    document.removeEventListener("visibilitychange", onVisible);
  };
}
