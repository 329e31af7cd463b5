import { beforeEach, describe, expect, it, vi } from "vitest";
import { selectDetailsId, selectSelectedId, useSwitchboard } from "./store";

import { makeSession, NOW } from "../test/sessions";
import { render } from "@testing-library/react";
import { SessionCard } from "../card/SessionNode";
import * as ipc from "../shared/ipc";
import { countEnded, countInCategory, idsInCategory, needsYouQueue } from "./sessionLists";
import { initialData } from "./data";
import { boxesOverlap, overlaps, sizeOf } from "../board/geometry";

vi.mock("../shared/ipc", () => ({
  clearUnread: vi.fn(() => Promise.resolve()),
  removeSession: vi.fn(() => Promise.resolve()),
  setPosition: vi.fn(() => Promise.resolve()),
}));

const store = () => useSwitchboard.getState();
const at = (minutesAgo: number) => NOW - minutesAgo * 60_000;

beforeEach(() => {
  useSwitchboard.setState(initialData());
  vi.mocked(ipc.clearUnread).mockClear();
  vi.mocked(ipc.setPosition).mockClear();
});

const positionOf = (id: string) => store().nodes.find((n) => n.id === id)?.position;

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

  it("an answered session held in place stays in the lane until released, then moves out", () => {
    const blocked = makeSession({ sessionId: "b", firstEventAt: NOW, status: "blocked" });
    store().applySnapshot([makeSession({ sessionId: "a" }), blocked]);
    const inLane = positionOf("b")!;
    store().holdPlace("b");
    store().applyChanges({ changed: [makeSession({ sessionId: "b", firstEventAt: NOW, status: "working" })], removed: [] });
    expect(positionOf("b")).toEqual(inLane);
    expect(store().regions.map((r) => r.id)).toContain("needs-you");
    store().releasePlace("b");
    expect(positionOf("b")).not.toEqual(inLane);
    expect(store().regions.map((r) => r.id)).not.toContain("needs-you");
  });

  it("a change that does not move a session in the ordering keeps the node list untouched", () => {
    store().applySnapshot([makeSession({ sessionId: "a" }), makeSession({ sessionId: "b", firstEventAt: NOW })]);
    const nodes = store().nodes;
    store().applyChanges({ changed: [makeSession({ sessionId: "a", tool: "Edit", message: "still at it" })], removed: [] });
    expect(store().nodes).toBe(nodes);
    expect(store().sessions.a?.tool).toBe("Edit");
  });

  it("a session that starts needing the user moves up into the Needs you lane", () => {
    store().applySnapshot([makeSession({ sessionId: "a" }), makeSession({ sessionId: "b", firstEventAt: NOW })]);
    const before = positionOf("b")!;
    store().applyChanges({ changed: [makeSession({ sessionId: "b", firstEventAt: NOW, status: "blocked" })], removed: [] });
    expect(positionOf("b")!.y).toBeLessThan(before.y);
    expect(store().regions.map((r) => r.id)).toEqual(["needs-you", "project:/home/maya/src/webapp"]);
    // Only the node that moved is a new object.
    expect(store().nodes.find((n) => n.id === "b")?.data.size).toBe("full");
  });

  it("a change that moves nothing keeps every node and region object; a move keeps the others'", () => {
    const projects = ["/src/api", "/src/web", "/src/docs"];
    store().applySnapshot(
      Array.from({ length: 30 }, (_, i) =>
        makeSession({ sessionId: `s${i}`, firstEventAt: at(60 - i), cwd: projects[i % 3], status: i === 0 ? "blocked" : "working" }),
      ),
    );
    const { nodes, regions } = store();
    // Still working, with news: same lane, same place.
    store().applyChanges({ changed: [makeSession({ sessionId: "s4", firstEventAt: at(56), cwd: "/src/web", status: "working", lastEventAt: NOW })], removed: [] });
    expect(store().nodes).toBe(nodes);
    expect(store().regions).toBe(regions);

    // The last session of /src/docs asks: it goes up to the lane beside s0; the others stay put.
    store().applyChanges({ changed: [makeSession({ sessionId: "s29", firstEventAt: at(31), cwd: "/src/docs", status: "waiting" })], removed: [] });
    const after = new Map(store().nodes.map((n) => [n.id, n]));
    let kept = 0;
    for (const node of nodes) {
      const next = after.get(node.id)!;
      const moved = next.position.x !== node.position.x || next.position.y !== node.position.y;
      if (!moved && node.id !== "s29") expect(next).toBe(node);
      if (next === node) kept++;
      // The size did not change: the node's data is the same object, moved or not.
      if (next.data.size === node.data.size) expect(next.data).toBe(node.data);
    }
    expect(kept).toBeGreaterThan(20);
    expect(store().regions.find((r) => r.id === "project:/src/api")).toBe(regions.find((r) => r.id === "project:/src/api"));
  });

  it("an empty burst changes nothing", () => {
    const before = useSwitchboard.getState();
    store().applyChanges({ changed: [], removed: [] });
    expect(useSwitchboard.getState()).toBe(before);
  });
});

describe("sessions on other machines", () => {
  it("sit in their own host's region, not with the same folder here, and each node knows its region", () => {
    store().applySnapshot([
      makeSession({ sessionId: "here", cwd: "/home/maya/src/webapp" }),
      makeSession({ sessionId: "devbox:there", host: "devbox", cwd: "/home/maya/src/webapp", firstEventAt: NOW }),
    ]);
    expect(store().regions.map((r) => [r.id, r.label])).toEqual([
      ["project:/home/maya/src/webapp", "webapp"],
      ["project:devbox:/home/maya/src/webapp", "devbox · webapp"],
    ]);
    expect(store().nodes.find((n) => n.id === "devbox:there")?.data.region).toBe("project:devbox:/home/maya/src/webapp");
    expect(store().nodes.find((n) => n.id === "here")?.data.region).toBe("project:/home/maya/src/webapp");
  });
});

describe("placement", () => {
  it("new sessions are laid out around dragged ones, never on top of another node", () => {
    store().applySnapshot(["a", "b", "c", "d"].map((id, i) => makeSession({ sessionId: id, firstEventAt: at(50 - i) })));
    // The user drags "a" away, then drags "b" half over "c"'s spot.
    const c = store().nodes.find((n) => n.id === "c")!.position;
    store().onNodesChange([{ id: "a", type: "position", position: { x: 900, y: 600 }, dragging: false }]);
    store().onNodesChange([{ id: "b", type: "position", position: { x: c.x - 40, y: c.y + 30 }, dragging: false }]);
    for (let i = 0; i < 6; i++) {
      store().applyChanges({ changed: [makeSession({ sessionId: `new${i}`, firstEventAt: at(5 - i) })], removed: [] });
    }
    const nodes = store().nodes;
    expect(positionOf("a")).toEqual({ x: 900, y: 600 });
    expect(positionOf("b")).toEqual({ x: c.x - 40, y: c.y + 30 });
    const box = (n: (typeof nodes)[number]) => ({ ...n.position, ...sizeOf(n.data.size) });
    for (const node of nodes) {
      for (const other of nodes) {
        if (other.id !== node.id) expect(boxesOverlap(box(node), box(other)), `${node.id}/${other.id}`).toBe(false);
      }
    }
  });

  it("sends the position to Rust when a drag ends, rounded to whole numbers, never during it", () => {
    store().applySnapshot([makeSession({ sessionId: "a" }), makeSession({ sessionId: "b", firstEventAt: NOW })]);
    store().onNodesChange([{ id: "a", type: "position", position: { x: 333.4, y: 222.2 }, dragging: true }]);
    store().onNodesChange([{ id: "a", type: "position", position: { x: 336.7, y: 225.5 }, dragging: true }]);
    expect(ipc.setPosition).not.toHaveBeenCalled();
    // The node follows the pointer meanwhile.
    expect(positionOf("a")).toEqual({ x: 336.7, y: 225.5 });
    store().onNodesChange([{ id: "a", type: "position", position: { x: 340.6, y: -229.5 }, dragging: false }]);
    expect(ipc.setPosition).toHaveBeenCalledTimes(1);
    expect(ipc.setPosition).toHaveBeenCalledWith("a", 341, -229);
    const [, x, y] = vi.mocked(ipc.setPosition).mock.calls[0]!;
    expect(Number.isInteger(x) && Number.isInteger(y)).toBe(true);
  });

  it("sends nothing for selection or size changes", () => {
    store().applySnapshot([makeSession({ sessionId: "a" })]);
    store().onNodesChange([{ id: "a", type: "select", selected: true }]);
    store().onNodesChange([{ id: "a", type: "dimensions", dimensions: { width: 272, height: 116 } }]);
    expect(ipc.setPosition).not.toHaveBeenCalled();
  });

  it("a position from Rust wins over the grid; the others fill the grid around it", () => {
    store().applySnapshot([
      makeSession({ sessionId: "a", firstEventAt: at(30), position: { x: 40, y: 600 } }),
      makeSession({ sessionId: "b", firstEventAt: at(20) }),
      makeSession({ sessionId: "c", firstEventAt: at(10), position: { x: 0, y: 0 } }),
    ]);
    expect(positionOf("a")).toEqual({ x: 40, y: 600 });
    expect(positionOf("c")).toEqual({ x: 0, y: 0 });
    // "b" is laid out in its project's region, clear of "c" sitting where the region starts.
    expect(overlaps(positionOf("b")!, { x: 0, y: 0 })).toBe(false);
  });

  it("keeps a node where it is when the echo of its drag (or any change) arrives", () => {
    store().applySnapshot([makeSession({ sessionId: "a" })]);
    store().onNodesChange([{ id: "a", type: "position", position: { x: 500, y: 80 }, dragging: false }]);
    // The user moved on before the echo of an older drag came back.
    store().onNodesChange([{ id: "a", type: "position", position: { x: 900, y: 80 }, dragging: false }]);
    store().applyChanges({ changed: [makeSession({ sessionId: "a", position: { x: 500, y: 80 } })], removed: [] });
    expect(positionOf("a")).toEqual({ x: 900, y: 80 });
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

  it("without a layout: blocked, waiting and failed first (longest waiting first), then unread ones", () => {
    store().applySnapshot(sessions);
    expect(needsYouQueue(store().sessions, store().order)).toEqual([
      "blocked-old",
      "error-unread",
      "waiting-new",
      "done-unread",
    ]);
  });

  it("n and Shift+n step through the sessions in the order the lane shows them, and wrap around", () => {
    store().applySnapshot(sessions);
    const seen: Array<string | null> = [];
    for (let i = 0; i < 5; i++) {
      store().jumpToNeedsYou(1);
      seen.push(selectSelectedId(store()));
    }
    // The lane: blocked first, then waiting and failed in arrival order; then the unread one.
    expect(seen).toEqual(["blocked-old", "waiting-new", "error-unread", "done-unread", "blocked-old"]);
    store().jumpToNeedsYou(-1);
    expect(selectSelectedId(store())).toBe("done-unread");
    expect(store().focus?.id).toBe("done-unread");
  });

  it("n visits the lane's cards row by row, as they are drawn", () => {
    const many = Array.from({ length: 7 }, (_, i) =>
      makeSession({
        sessionId: `ask-${i}`,
        status: i % 2 === 0 ? "waiting" : "blocked",
        firstEventAt: at(100 - i),
        // Waiting longest is not what the eye follows: the lane's order is.
        statusChangedAt: at(i),
      }),
    );
    store().applySnapshot(many);
    const lane = store()
      .nodes.filter((n) => n.data.region === "needs-you")
      .sort((a, b) => a.position.y - b.position.y || a.position.x - b.position.x)
      .map((n) => n.id);
    expect(lane).toHaveLength(7);
    const seen: string[] = [];
    for (let i = 0; i < 7; i++) {
      store().jumpToNeedsYou(1);
      seen.push(selectSelectedId(store())!);
    }
    expect(seen).toEqual(lane);
  });

  it("a chip click cycles through the sessions it counts", () => {
    store().applySnapshot(sessions);
    store().cycle("done");
    expect(selectSelectedId(store())).toBe("done-unread");
    store().cycle("done");
    expect(selectSelectedId(store())).toBe("done-read");
    // The failed one is counted under Needs you, not done.
    store().cycle("done");
    expect(selectSelectedId(store())).toBe("done-unread");
    store().cycle("needs");
    expect(store().sessions[selectSelectedId(store())!]?.status).not.toBe("working");
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

describe("archived sessions (the Older list)", () => {
  const mixed = () => [
    makeSession({ sessionId: "live", status: "blocked", firstEventAt: at(50) }),
    makeSession({ sessionId: "old-done", status: "done", unread: true, archived: true, firstEventAt: at(3000), lastEventAt: at(2000) }),
    makeSession({ sessionId: "old-ask", status: "waiting", archived: true, firstEventAt: at(4000), lastEventAt: at(1600) }),
    makeSession({ sessionId: "working", status: "working", firstEventAt: at(40) }),
  ];

  it("are not nodes on the canvas and are listed most recent first", () => {
    store().applySnapshot(mixed());
    expect(store().order).toEqual(["live", "working"]);
    expect(store().nodes.map((n) => n.id)).toEqual(["live", "working"]);
    expect(store().older).toEqual(["old-ask", "old-done"]);
  });

  it("count towards no header chip, no chip cycle and no n queue", () => {
    store().applySnapshot(mixed());
    expect(countInCategory(store().sessions, "needs")).toBe(1);
    expect(countInCategory(store().sessions, "done")).toBe(0);
    expect(idsInCategory(store().sessions, store().order, "needs")).toEqual(["live"]);
    expect(needsYouQueue(store().sessions, store().order)).toEqual(["live"]);
  });

  it("leave the canvas when they age off and come back, in a free cell, when they report", () => {
    store().applySnapshot(mixed());
    const nodes = store().nodes;
    store().applyChanges({
      changed: [makeSession({ sessionId: "working", status: "working", firstEventAt: at(40), archived: true })],
      removed: [],
    });
    expect(store().nodes.map((n) => n.id)).toEqual(["live"]);
    expect(store().older[0]).toBe("working");
    expect(store().nodes[0]).toBe(nodes[0]);

    store().applyChanges({
      changed: [makeSession({ sessionId: "old-ask", status: "working", firstEventAt: at(4000), lastEventAt: NOW })],
      removed: [],
    });
    expect(store().older).toEqual(["working", "old-done"]);
    expect(store().order).toEqual(["old-ask", "live"]);
    expect(overlaps(positionOf("old-ask")!, positionOf("live")!)).toBe(false);
  });

  it("a returning session goes back to its dragged spot and the grid makes room", () => {
    store().applySnapshot([makeSession({ sessionId: "a", archived: true, position: { x: 10, y: 10 } })]);
    store().applyChanges({ changed: [makeSession({ sessionId: "b", firstEventAt: NOW })], removed: [] });
    const first = positionOf("b")!;
    expect(overlaps(first, { x: 10, y: 10 })).toBe(true);
    store().applyChanges({ changed: [makeSession({ sessionId: "a", position: { x: 10, y: 10 } })], removed: [] });
    // The user's spot wins; the laid-out node moves out of its way.
    expect(positionOf("a")).toEqual({ x: 10, y: 10 });
    expect(overlaps(positionOf("a")!, positionOf("b")!)).toBe(false);
    // Nobody else there: it goes back to where the user left it.
    store().applyChanges({ changed: [makeSession({ sessionId: "c", archived: true, position: { x: 900, y: 700 } })], removed: [] });
    store().applyChanges({ changed: [makeSession({ sessionId: "c", position: { x: 900, y: 700 } })], removed: [] });
    expect(positionOf("c")).toEqual({ x: 900, y: 700 });
  });

  it("picking one in the list shows its details without selecting a node or telling Rust", () => {
    store().applySnapshot(mixed());
    store().select("live");
    store().pickOlder("old-done");
    expect(selectSelectedId(store())).toBeNull();
    expect(selectDetailsId(store())).toBe("old-done");
    expect(ipc.clearUnread).not.toHaveBeenCalled();
    // Selecting a node takes the details panel back.
    store().select("working");
    expect(selectDetailsId(store())).toBe("working");
    expect(store().pickedOlder).toBeNull();
  });

  it("a picked session that reports again becomes the selected node", () => {
    store().applySnapshot(mixed());
    store().pickOlder("old-done");
    store().applyChanges({
      changed: [makeSession({ sessionId: "old-done", status: "working", firstEventAt: at(3000), lastEventAt: NOW })],
      removed: [],
    });
    expect(selectSelectedId(store())).toBe("old-done");
    expect(store().pickedOlder).toBeNull();
  });

  it("a selected node that ages off stays in the details panel", () => {
    store().applySnapshot(mixed());
    store().select("working");
    store().applyChanges({
      changed: [makeSession({ sessionId: "working", status: "working", firstEventAt: at(40), archived: true })],
      removed: [],
    });
    expect(selectDetailsId(store())).toBe("working");
  });

  it("a focus request for an archived session waits until it is back on the canvas", () => {
    store().applySnapshot(mixed());
    store().focusSession("old-ask");
    expect(store().focus).toBeNull();
    store().applyChanges({
      changed: [makeSession({ sessionId: "old-ask", status: "blocked", firstEventAt: at(4000), lastEventAt: NOW })],
      removed: [],
    });
    expect(store().focus?.id).toBe("old-ask");
    expect(selectSelectedId(store())).toBe("old-ask");
  });

  it("the drawer closes itself once the list is empty", () => {
    store().applySnapshot(mixed());
    store().setOlderOpen(true);
    store().applyChanges({ changed: [], removed: ["old-ask"] });
    expect(store().olderOpen).toBe(true);
    store().applyChanges({ changed: [], removed: ["old-done"] });
    expect(store().olderOpen).toBe(false);
  });

  it("countEnded counts every ended session, archived ones too (what remove_ended removes)", () => {
    store().applySnapshot([
      makeSession({ sessionId: "a", ended: true }),
      makeSession({ sessionId: "b", ended: true, archived: true }),
      makeSession({ sessionId: "c" }),
    ]);
    expect(countEnded(store().sessions)).toBe(2);
  });
});

describe("sessions with the same title", () => {
  it("are marked as twins so their nodes add a short id; a unique title is not", () => {
    store().applySnapshot([
      makeSession({ sessionId: "aaaa1111-x", title: "search", cwd: "/src/search" }),
      makeSession({ sessionId: "bbbb2222-y", title: "Search", cwd: "/src/search" }),
      makeSession({ sessionId: "cccc3333-z", title: "api", cwd: "/src/api" }),
    ]);
    expect([...store().twins.keys()].sort()).toEqual(["aaaa1111-x", "bbbb2222-y"]);
    expect(store().twins.get("aaaa1111-x")).toBe("aaaa1111");
    const before = store().twins;
    store().applyChanges({ changed: [makeSession({ sessionId: "cccc3333-z", title: "api", status: "done" })], removed: [] });
    expect(store().twins).toBe(before);
    store().applyChanges({ changed: [], removed: ["bbbb2222-y"] });
    expect(store().twins.size).toBe(0);
  });

  it("two cards of one folder whose ids start alike still read differently, in the lane and in their region", () => {
    store().applySnapshot([
      makeSession({ sessionId: "c-hello-1", cwd: "/home/maya/src/webapp", status: "blocked" }),
      makeSession({ sessionId: "c-hello-2", cwd: "/home/maya/src/webapp", status: "blocked" }),
      makeSession({ sessionId: "c-hello-3", cwd: "/home/maya/src/webapp", status: "working" }),
      makeSession({ sessionId: "c-hello-4", cwd: "/home/maya/src/webapp", status: "working" }),
    ]);
    const { container } = render(
      <>
        {store().nodes.map((n) => (
          <SessionCard key={n.id} id={n.id} region={n.data.region} />
        ))}
      </>,
    );
    const titles = [...container.querySelectorAll("[data-testid=node-title]")].map((el) => el.textContent);
    expect(titles).toHaveLength(4);
    expect(new Set(titles).size).toBe(4);
    // The part that tells them apart is the part that never gives way.
    const tails = [...container.querySelectorAll(".middle-cut-tail")].map((el) => el.textContent);
    expect(tails).toEqual(expect.arrayContaining([" · c-hello-1", " · c-hello-2"]));
  });
});
