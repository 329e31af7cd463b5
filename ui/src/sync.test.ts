import { beforeEach, describe, expect, it, vi } from "vitest";
import { waitFor } from "@testing-library/react";
import { startSync } from "./sync";
import { initialData, selectSelectedId, useSwitchboard } from "./store";
import type { Session } from "./bindings/Session";
import type { SessionsChanged } from "./bindings/SessionsChanged";
import { makeSession, NOW } from "./test/sessions";
import * as ipc from "./ipc";

const bridge = vi.hoisted(() => ({
  onChange: null as null | ((c: SessionsChanged) => void),
  onFocus: null as null | ((id: string) => void),
  resolveSnapshot: null as null | ((s: Session[]) => void),
  unlistened: 0,
}));

vi.mock("./ipc", () => ({
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

    // Later changes apply directly.
    bridge.onChange!({ changed: [], removed: ["a"] });
    expect(store().sessions.a).toBeUndefined();

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

});
