import { beforeEach, describe, expect, it, vi } from "vitest";
import { waitFor } from "@testing-library/react";
import { PendingChanges, startSync } from "./sync";
import { selectSelectedId, useSwitchboard } from "./store";
import type { Session } from "../bindings/Session";
import type { SessionsChanged } from "../bindings/SessionsChanged";
import { makeSession, NOW } from "../test/sessions";
import * as ipc from "../shared/ipc";
import { initialData } from "./data";

const bridge = vi.hoisted(() => ({
  onChange: null as null | ((c: SessionsChanged) => void),
  onFocus: null as null | ((id: string) => void),
  resolveSnapshot: null as null | ((s: Session[]) => void),
  unlistened: 0,
}));

vi.mock("../shared/ipc", () => ({
  onSessionsChanged: vi.fn(async (h: (c: SessionsChanged) => void) => {
    bridge.onChange = h;
    return () => void bridge.unlistened++;
  }),
  onFocusSession: vi.fn(async (h: (id: string) => void) => {
    bridge.onFocus = h;
    return () => void bridge.unlistened++;
  }),
  snapshot: vi.fn(() => new Promise<Session[]>((resolve) => (bridge.resolveSnapshot = resolve))),
  clearUnread: vi.fn(() => Promise.resolve()),
  setPosition: vi.fn(() => Promise.resolve()),
}));

const store = () => useSwitchboard.getState();

beforeEach(() => {
  useSwitchboard.setState(initialData());
  Object.assign(bridge, { onChange: null, onFocus: null, resolveSnapshot: null, unlistened: 0 });
  vi.mocked(ipc.clearUnread).mockClear();
  vi.mocked(ipc.setPosition).mockClear();
});

describe("startSync", () => {
  it("listens before taking the snapshot and replays what arrived in between", async () => {
    const stop = startSync();
    await waitFor(() => expect(bridge.resolveSnapshot).not.toBeNull());
    expect(ipc.onSessionsChanged).toHaveBeenCalled();

    // Arrives while the snapshot is on its way: one newer than the snapshot, one older.
    bridge.onChange!({
      changed: [
        makeSession({ sessionId: "a", status: "done", lastEventAt: NOW }),
        makeSession({ sessionId: "b", status: "working", lastEventAt: NOW - 10_000 }),
      ],
      removed: [],
    });
    expect(store().loaded).toBe(false);

    bridge.resolveSnapshot!([
      makeSession({ sessionId: "a", status: "working", lastEventAt: NOW - 5_000 }),
      makeSession({ sessionId: "b", status: "blocked", lastEventAt: NOW - 1_000 }),
    ]);
    await waitFor(() => expect(store().loaded).toBe(true));
    expect(store().sessions.a?.status).toBe("done");
    expect(store().sessions.b?.status).toBe("blocked");

    // Later changes apply by the next frame.
    bridge.onChange!({ changed: [], removed: ["a"] });
    await waitFor(() => expect(store().sessions.a).toBeUndefined());

    stop();
    expect(bridge.unlistened).toBe(2);
  });

  it("a focus-session event selects the node and brings it into view", async () => {
    startSync();
    await waitFor(() => expect(bridge.resolveSnapshot).not.toBeNull());
    bridge.resolveSnapshot!([makeSession({ sessionId: "a" }), makeSession({ sessionId: "b", unread: true })]);
    await waitFor(() => expect(store().loaded).toBe(true));
    bridge.onFocus!("b");
    expect(selectSelectedId(store())).toBe("b");
    expect(store().focus?.id).toBe("b");
    // Rust clears the dot of a clicked notification itself: no second request from here.
    expect(ipc.clearUnread).not.toHaveBeenCalled();
  });

  it("still shows the (empty) canvas when the snapshot fails", async () => {
    const error = vi.spyOn(console, "error").mockImplementation(() => {});
    vi.mocked(ipc.snapshot).mockRejectedValueOnce({ kind: "io", message: "nope" });
    startSync();
    await waitFor(() => expect(store().loaded).toBe(true));
    expect(store().order).toEqual([]);
    error.mockRestore();
  });

  it("applies a burst of changes once, in a frame, with nothing dropped", async () => {
    const stop = startSync();
    await waitFor(() => expect(bridge.resolveSnapshot).not.toBeNull());
    bridge.resolveSnapshot!([makeSession({ sessionId: "a" }), makeSession({ sessionId: "b" })]);
    await waitFor(() => expect(store().loaded).toBe(true));
    const applyChanges = vi.spyOn(store(), "applyChanges");

    bridge.onChange!({ changed: [makeSession({ sessionId: "a", status: "blocked" })], removed: [] });
    bridge.onChange!({ changed: [makeSession({ sessionId: "c", status: "waiting" })], removed: ["b"] });
    bridge.onChange!({ changed: [makeSession({ sessionId: "a", status: "done" })], removed: [] });
    expect(applyChanges).not.toHaveBeenCalled();
    await waitFor(() => expect(applyChanges).toHaveBeenCalledTimes(1));
    expect(store().sessions.a?.status).toBe("done");
    expect(store().sessions.b).toBeUndefined();
    expect(store().sessions.c?.status).toBe("waiting");
    expect(store().order).toEqual(["a", "c"]);
    stop();
  });

  it("applies pending changes before a focus request, so its session is there", async () => {
    const stop = startSync();
    await waitFor(() => expect(bridge.resolveSnapshot).not.toBeNull());
    bridge.resolveSnapshot!([makeSession({ sessionId: "a" })]);
    await waitFor(() => expect(store().loaded).toBe(true));
    bridge.onChange!({ changed: [makeSession({ sessionId: "new", status: "done", unread: true })], removed: [] });
    bridge.onFocus!("new");
    expect(selectSelectedId(store())).toBe("new");
    expect(store().focus?.id).toBe("new");
    stop();
  });
});

describe("PendingChanges", () => {
  const merged = (...changes: SessionsChanged[]) => {
    const pending = new PendingChanges();
    for (const change of changes) pending.add(change);
    return pending.take();
  };

  it("keeps each session's latest state", () => {
    const out = merged(
      { changed: [makeSession({ sessionId: "a", status: "working" }), makeSession({ sessionId: "b" })], removed: [] },
      { changed: [makeSession({ sessionId: "a", status: "blocked" })], removed: [] },
    );
    expect(out.changed.map((s) => [s.sessionId, s.status])).toEqual([
      ["b", "working"],
      ["a", "blocked"],
    ]);
    expect(out.removed).toEqual([]);
  });

  it("a removal wins over earlier changes, a later change over the removal", () => {
    expect(merged({ changed: [makeSession({ sessionId: "a" })], removed: [] }, { changed: [], removed: ["a"] })).toEqual({
      changed: [],
      removed: ["a"],
    });
    const back = merged({ changed: [], removed: ["a"] }, { changed: [makeSession({ sessionId: "a", status: "done" })], removed: [] });
    expect(back.removed).toEqual([]);
    expect(back.changed.map((s) => s.status)).toEqual(["done"]);
  });

  it("is empty once taken", () => {
    const pending = new PendingChanges();
    pending.add({ changed: [makeSession({ sessionId: "a" })], removed: ["b"] });
    expect(pending.empty).toBe(false);
    pending.take();
    expect(pending.empty).toBe(true);
    expect(pending.take()).toEqual({ changed: [], removed: [] });
  });
});
