// Keeps the store in step with the Rust side: listen first, then take the snapshot, so no
// change falls between the two; changes that arrive before the snapshot are replayed on it.
import type { SessionsChanged } from "./bindings/SessionsChanged";
import * as ipc from "./ipc";
import { useSwitchboard } from "./store";

export function startSync(): () => void {
  let stopped = false;
  let early: SessionsChanged[] | null = [];
  const unlisteners: Array<() => void> = [];
  const store = useSwitchboard.getState;

  const onChange = (change: SessionsChanged) => {
    if (early) early.push(change);
    else store().applyChanges(change);
  };

  const keep = (unlisten: () => void) => {
    if (stopped) unlisten();
    else unlisteners.push(unlisten);
  };

  void (async () => {
    try {
      keep(await ipc.onSessionsChanged(onChange));
      // A notification was clicked. Rust has already cleared its unread dot (the echo follows).
      keep(await ipc.onFocusSession((id) => store().focusSession(id)));
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
    for (const unlisten of unlisteners.splice(0)) unlisten();
  };
}
