import { beforeEach, describe, expect, it, vi } from "vitest";
import { initialData, needsYouQueue, selectSelectedId, useSwitchboard } from "./store";
import { overlaps } from "./layout";
import { loadPositions } from "./positions";
import { makeSession, NOW } from "./test/sessions";
import * as ipc from "./ipc";

vi.mock("./ipc", () => ({
  clearUnread: vi.fn(() => Promise.resolve()),
  removeSession: vi.fn(() => Promise.resolve()),
}));

const store = () => useSwitchboard.getState();
const at = (minutesAgo: number) => NOW - minutesAgo * 60_000;

beforeEach(() => {
  useSwitchboard.setState({ ...initialData(), columns: 3 });
  vi.mocked(ipc.clearUnread).mockClear();
});

describe("sessions from the Rust side", () => {
  it("a snapshot loads every session in arrival order", () => {
    store().applySnapshot([
      makeSession({ sessionId: "late", firstEventAt: at(1) }),
      makeSession({ sessionId: "early", firstEventAt: at(30) }),
      makeSession({ sessionId: "middle", firstEventAt: at(10) }),
    ]);
    expect(store().loaded).toBe(true);
    expect(store().order).toEqual(["early", "middle", "late"]);
    expect(store().nodes.map((n) => n.id)).toEqual(["early", "middle", "late"]);
  });

  it("applies a sessions-changed burst in one store update: upserts by id, deletes removed", () => {
    store().applySnapshot([
      makeSession({ sessionId: "a", firstEventAt: at(30) }),
      makeSession({ sessionId: "b", firstEventAt: at(20) }),
      makeSession({ sessionId: "c", firstEventAt: at(10) }),
    ]);
    const updates = vi.fn();
    const unsubscribe = useSwitchboard.subscribe(updates);
    store().applyChanges({
      changed: [
        makeSession({ sessionId: "a", firstEventAt: at(30), status: "blocked", tool: "Bash" }),
        makeSession({ sessionId: "d", firstEventAt: at(5) }),
        makeSession({ sessionId: "e", firstEventAt: at(40) }),
      ],
      removed: ["b", "not-there"],
    });
    unsubscribe();
    expect(updates).toHaveBeenCalledTimes(1);
    expect(store().sessions.a?.status).toBe("blocked");
    expect(store().sessions.b).toBeUndefined();
    expect(store().order).toEqual(["e", "a", "c", "d"]);
    expect(store().nodes.map((n) => n.id).sort()).toEqual(["a", "c", "d", "e"]);
  });

  it("a status change keeps the node list (and so every node's position) untouched", () => {
    store().applySnapshot([makeSession({ sessionId: "a" }), makeSession({ sessionId: "b", firstEventAt: NOW })]);
    const nodes = store().nodes;
    store().applyChanges({ changed: [makeSession({ sessionId: "a", status: "done" })], removed: [] });
    expect(store().nodes).toBe(nodes);
    expect(store().sessions.a?.status).toBe("done");
  });

  it("an empty burst changes nothing", () => {
    const before = useSwitchboard.getState();
    store().applyChanges({ changed: [], removed: [] });
    expect(useSwitchboard.getState()).toBe(before);
  });
});

describe("placement", () => {
  it("new sessions take the first free grid cell, never on top of another node", () => {
    store().applySnapshot(["a", "b", "c", "d"].map((id, i) => makeSession({ sessionId: id, firstEventAt: at(50 - i) })));
    // The user drags "a" away, freeing the first cell, then drags "b" half over "c".
    const c = store().nodes.find((n) => n.id === "c")!.position;
    store().onNodesChange([{ id: "a", type: "position", position: { x: 900, y: 600 }, dragging: false }]);
    store().onNodesChange([{ id: "b", type: "position", position: { x: c.x - 40, y: c.y + 30 }, dragging: false }]);
    for (let i = 0; i < 6; i++) {
      store().applyChanges({ changed: [makeSession({ sessionId: `new${i}`, firstEventAt: at(5 - i) })], removed: [] });
    }
    const nodes = store().nodes;
    const fresh = nodes.filter((n) => n.id.startsWith("new"));
    expect(fresh[0]!.position).toEqual({ x: 0, y: 0 });
    for (const node of fresh) {
      for (const other of nodes) {
        if (other.id !== node.id) expect(overlaps(node.position, other.position), `${node.id}/${other.id}`).toBe(false);
      }
    }
  });

  it("remembers a dragged position once the drag ends, and uses it after a restart", () => {
    store().applySnapshot([makeSession({ sessionId: "a" }), makeSession({ sessionId: "b", firstEventAt: NOW })]);
    store().onNodesChange([{ id: "a", type: "position", position: { x: 333, y: 222 }, dragging: true }]);
    expect(loadPositions().a).toBeUndefined();
    expect(store().nodes.find((n) => n.id === "a")?.position).toEqual({ x: 333, y: 222 });
    store().onNodesChange([{ id: "a", type: "position", position: { x: 340, y: 230 }, dragging: false }]);
    expect(loadPositions().a).toEqual({ x: 340, y: 230 });

    // A new window (same localStorage) puts "a" back where the user left it.
    useSwitchboard.setState({ ...initialData(), columns: 3 });
    store().applySnapshot([makeSession({ sessionId: "a" }), makeSession({ sessionId: "b", firstEventAt: NOW })]);
    expect(store().nodes.find((n) => n.id === "a")?.position).toEqual({ x: 340, y: 230 });
    expect(store().nodes.find((n) => n.id === "b")?.position).toEqual({ x: 0, y: 0 });
  });

  it("forgets the position of a removed session", () => {
    store().applySnapshot([makeSession({ sessionId: "a" })]);
    store().onNodesChange([{ id: "a", type: "position", position: { x: 50, y: 50 }, dragging: false }]);
    store().applyChanges({ changed: [], removed: ["a"] });
    expect(loadPositions()).toEqual({});
  });

  it("ignores React Flow's own attempts to remove nodes", () => {
    store().applySnapshot([makeSession({ sessionId: "a" })]);
    store().onNodesChange([{ id: "a", type: "remove" }]);
    expect(store().nodes).toHaveLength(1);
  });
});

describe("needs-you ordering for the n key", () => {
  const sessions = [
    makeSession({ sessionId: "working", status: "working", unread: false }),
    makeSession({ sessionId: "done-unread", status: "done", unread: true, statusChangedAt: at(30) }),
    makeSession({ sessionId: "waiting-new", status: "waiting", statusChangedAt: at(1) }),
    makeSession({ sessionId: "blocked-old", status: "blocked", statusChangedAt: at(9) }),
    makeSession({ sessionId: "done-read", status: "done", unread: false }),
    makeSession({ sessionId: "blocked-ended", status: "blocked", ended: true }),
    makeSession({ sessionId: "error-unread", status: "done", errored: true, unread: true, statusChangedAt: at(2) }),
  ].map((s, i) => ({ ...s, firstEventAt: at(100 - i) }));

  it("puts blocked and waiting first (longest waiting first), then unread ones", () => {
    store().applySnapshot(sessions);
    expect(needsYouQueue(store().sessions, store().order)).toEqual([
      "blocked-old",
      "waiting-new",
      "done-unread",
      "error-unread",
    ]);
  });

  it("n and Shift+n step through that queue and wrap around", () => {
    store().applySnapshot(sessions);
    const seen: Array<string | null> = [];
    for (let i = 0; i < 5; i++) {
      store().jumpToNeedsYou(1);
      seen.push(selectSelectedId(store()));
    }
    expect(seen).toEqual(["blocked-old", "waiting-new", "done-unread", "error-unread", "blocked-old"]);
    store().jumpToNeedsYou(-1);
    expect(selectSelectedId(store())).toBe("error-unread");
    expect(store().focus?.id).toBe("error-unread");
  });

  it("a chip click cycles through the sessions it counts", () => {
    store().applySnapshot(sessions);
    store().cycle("done");
    expect(selectSelectedId(store())).toBe("done-unread");
    store().cycle("done");
    expect(selectSelectedId(store())).toBe("done-read");
    store().cycle("done");
    expect(selectSelectedId(store())).toBe("error-unread");
    store().cycle("done");
    expect(selectSelectedId(store())).toBe("done-unread");
  });

  it("jumping with nothing to jump to keeps the selection", () => {
    store().applySnapshot([makeSession({ sessionId: "a", status: "working" })]);
    store().select("a");
    store().jumpToNeedsYou(1);
    expect(selectSelectedId(store())).toBe("a");
  });
});

describe("opening and focusing", () => {
  it("opening an unread node asks Rust to clear it and leaves the dot until the echo", () => {
    store().applySnapshot([makeSession({ sessionId: "a", unread: true }), makeSession({ sessionId: "b" })]);
    store().openSession("a");
    store().openSession("b");
    expect(ipc.clearUnread).toHaveBeenCalledTimes(1);
    expect(ipc.clearUnread).toHaveBeenCalledWith("a");
    expect(store().sessions.a?.unread).toBe(true);
    store().applyChanges({ changed: [makeSession({ sessionId: "a", unread: false })], removed: [] });
    expect(store().sessions.a?.unread).toBe(false);
  });

  it("a focus request for a session not seen yet waits for it", () => {
    store().applySnapshot([makeSession({ sessionId: "a" })]);
    store().focusSession("later");
    expect(store().focus).toBeNull();
    store().applyChanges({ changed: [makeSession({ sessionId: "later", firstEventAt: NOW })], removed: [] });
    expect(store().focus?.id).toBe("later");
    expect(selectSelectedId(store())).toBe("later");
  });
});
