// Keeps the store in step with the Rust side: listen first, then take the snapshot, so no
// change falls between the two; changes that arrive before the snapshot are replayed on it.
// Changes are applied at most once per animation frame: under a stream of status changes one
// layout and one render per frame, not one per event (the events can outrun the frames).
import type { Session } from "../bindings/Session";
import type { SessionsChanged } from "../bindings/SessionsChanged";
import * as ipc from "../shared/ipc";
import { useSwitchboard } from "./store";

/** The longest a change waits when no frame comes (a hidden window gets none). */
const FLUSH_AFTER_MS = 100;

/**
 * Changes received since the last flush, merged into one: each session's latest state, and the
 * removals not undone by a later change. Applying the merge is applying the changes in order.
 */
export class PendingChanges {
  private changed = new Map<string, Session>();
  private removed = new Set<string>();

  add({ changed, removed }: SessionsChanged): void {
    for (const id of removed) {
      this.changed.delete(id);
      this.removed.add(id);
    }
    for (const session of changed) {
      this.removed.delete(session.sessionId);
      // Re-inserted: the merge lists sessions in the order of their latest change.
      this.changed.delete(session.sessionId);
      this.changed.set(session.sessionId, session);
    }
  }

  get empty(): boolean {
    return this.changed.size === 0 && this.removed.size === 0;
  }

  /** The merged change, and an empty buffer. */
  take(): SessionsChanged {
    const out = { changed: [...this.changed.values()], removed: [...this.removed] };
    this.changed.clear();
    this.removed.clear();
    return out;
  }
}

/** Runs `flush` once at the next animation frame (or after a short wait without frames). */
export function frameScheduler(flush: () => void): { request(): void; cancel(): void } {
  let frame: number | null = null;
  let timer: ReturnType<typeof setTimeout> | null = null;
  const cancel = () => {
    if (frame != null) cancelAnimationFrame(frame);
    if (timer != null) clearTimeout(timer);
    frame = null;
    timer = null;
  };
  const run = () => {
    cancel();
    flush();
  };
  return {
    request() {
      if (timer != null) return;
      if (typeof requestAnimationFrame === "function") frame = requestAnimationFrame(run);
      timer = setTimeout(run, FLUSH_AFTER_MS);
    },
    cancel,
  };
}

/**
 * A benchmark's probe (tests/e2e/measure.rs installs `window.__switchboardTiming`): the time of
 * each applied batch — the store update, React's render and its effects (the tile canvases'
 * painting, also timed alone) — so a frame's time can be split into ours and WebKit's (style,
 * layout, paint).
 */
export type BenchTiming = { record(ms: number): void; paint?(ms: number): void };
export function benchTiming(): BenchTiming | undefined {
  return (window as unknown as { __switchboardTiming?: BenchTiming }).__switchboardTiming;
}

export function startSync(): () => void {
  let stopped = false;
  let early: SessionsChanged[] | null = [];
  const unlisteners: Array<() => void> = [];
  const store = useSwitchboard.getState;
  const pending = new PendingChanges();
  const flush = () => {
    if (stopped || pending.empty) return;
    const timing = benchTiming();
    const started = timing ? performance.now() : 0;
    store().applyChanges(pending.take());
    // React renders a store update in a microtask: one queued now runs after it (and its effects).
    if (timing) queueMicrotask(() => timing.record(performance.now() - started));
  };
  const scheduler = frameScheduler(flush);

  const onChange = (change: SessionsChanged) => {
    if (early) early.push(change);
    else {
      pending.add(change);
      scheduler.request();
    }
  };

  const keep = (unlisten: () => void) => {
    if (stopped) unlisten();
    else unlisteners.push(unlisten);
  };

  void (async () => {
    try {
      keep(await ipc.onSessionsChanged(onChange));
      // A notification was clicked. Rust has already cleared its unread dot (the echo follows).
      // The changes before it first: its session may have just arrived.
      keep(
        await ipc.onFocusSession((id) => {
          scheduler.cancel();
          flush();
          store().focusSession(id);
        }),
      );
      const sessions = await ipc.snapshot();
      if (stopped) return;
      store().applySnapshot(sessions);
    } catch (err) {
      console.error("Could not load sessions", err);
      if (!stopped) store().applySnapshot([]);
    }
    const queued = early ?? [];
    early = null;
    for (const change of queued) {
      // A change older than the snapshot is already in it; replaying it would go backwards.
      const current = store().sessions;
      const changed = change.changed.filter(
        (s) => !current[s.sessionId] || s.lastEventAt >= current[s.sessionId]!.lastEventAt,
      );
      store().applyChanges({ changed, removed: change.removed });
    }
  })();

  return () => {
    stopped = true;
    scheduler.cancel();
    for (const unlisten of unlisteners.splice(0)) unlisten();
  };
}
