// One shared clock for relative ages: every node re-reads it, no node owns a timer.
import { create } from "zustand";

export const AGE_REFRESH_MS = 15_000;

export const useClock = create<{ now: number }>(() => ({ now: Date.now() }));

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
