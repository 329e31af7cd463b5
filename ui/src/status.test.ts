import { describe, expect, it } from "vitest";
import { badgeOf, categoryOf, clip, reasonOf, REASON_DISPLAY_CHARS, STARTING_GRACE_MS } from "./status";
import { makeSession, NOW } from "./test/sessions";

describe("badgeOf speaks the status language", () => {
  it.each([
    [{ status: "working" as const }, "working", "Working"],
    [{ status: "waiting" as const }, "waiting", "Has a question"],
    [{ status: "blocked" as const }, "blocked", "Needs permission"],
    [{ status: "done" as const }, "done", "Done"],
    [{ status: "done" as const, errored: true }, "error", "Error"],
    [{ status: "done" as const, interrupted: true }, "interrupted", "Interrupted"],
    [{ status: null, firstEventAt: NOW - 5_000 }, "idle", "Starting"],
    [{ status: null, firstEventAt: NOW - STARTING_GRACE_MS - 1 }, "idle", "Idle"],
    [{ status: null, firstEventAt: NOW - 5_000, ended: true }, "idle", "Idle"],
  ])("%o → %s %s", (fields, tone, word) => {
    expect(badgeOf(makeSession({ sessionId: "s", ...fields }), NOW)).toEqual({ tone, word });
  });

  it("a question or a permission wins over stale error flags", () => {
    const s = makeSession({ sessionId: "s", status: "blocked", errored: true });
    expect(badgeOf(s, NOW).word).toBe("Needs permission");
  });
});

describe("reasonOf says why the user is needed", () => {
  it("waiting shows the question, else the message", () => {
    const asked = makeSession({ sessionId: "s", status: "waiting", question: "SQLite or Postgres?", message: "m" });
    expect(reasonOf(asked)).toMatchObject({ text: "SQLite or Postgres?", look: "attention" });
    const noQuestion = makeSession({ sessionId: "s", status: "waiting", message: "Claude needs your input" });
    expect(reasonOf(noQuestion)?.text).toBe("Claude needs your input");
  });

  it("blocked names the tool and the command", () => {
    const r = reasonOf(makeSession({ sessionId: "s", status: "blocked", tool: "Bash", message: "rm -rf dist" }));
    expect(r).toMatchObject({ lead: "Needs permission: Bash", text: "rm -rf dist" });
    expect(r?.full).toBe("Needs permission: Bash  rm -rf dist");
    expect(reasonOf(makeSession({ sessionId: "s", status: "blocked" }))?.lead).toBe("Needs permission");
  });

  it("done shows the last message, errored the error", () => {
    expect(reasonOf(makeSession({ sessionId: "s", status: "done", message: "All green" }))).toMatchObject({
      text: "All green",
      look: "box",
    });
    expect(
      reasonOf(makeSession({ sessionId: "s", status: "done", errored: true, message: "429 quota" })),
    ).toMatchObject({ text: "429 quota", look: "attention" });
    expect(reasonOf(makeSession({ sessionId: "s", status: "done" }))).toBeNull();
  });

  it("working is quiet: the tool in use, if any", () => {
    expect(reasonOf(makeSession({ sessionId: "s", status: "working", tool: "Edit" }))).toMatchObject({
      text: "Using Edit",
      look: "quiet",
    });
    expect(reasonOf(makeSession({ sessionId: "s", status: "working" }))).toBeNull();
  });

  it("collapses whitespace and clips a huge message, keeping the whole text for the tooltip", () => {
    const huge = "line one\n\n   line two ".repeat(3000);
    const r = reasonOf(makeSession({ sessionId: "s", status: "done", message: huge }))!;
    expect(r.text.length).toBeLessThanOrEqual(REASON_DISPLAY_CHARS);
    expect(r.text.endsWith("…")).toBe(true);
    expect(r.text).not.toMatch(/\s{2}|\n/);
    expect(r.full).toBe(huge);
  });
});

describe("categoryOf feeds the header chips", () => {
  it("counts waiting and blocked as needing you, and ended sessions as nothing", () => {
    expect(categoryOf(makeSession({ sessionId: "a", status: "waiting" }))).toBe("needs");
    expect(categoryOf(makeSession({ sessionId: "a", status: "blocked" }))).toBe("needs");
    expect(categoryOf(makeSession({ sessionId: "a", status: "working" }))).toBe("working");
    // A failed turn needs the user (issue 21.5), not the green chip.
    expect(categoryOf(makeSession({ sessionId: "a", status: "done", errored: true }))).toBe("needs");
    expect(categoryOf(makeSession({ sessionId: "a", status: "done" }))).toBe("done");
    expect(categoryOf(makeSession({ sessionId: "a", status: null }))).toBeNull();
    expect(categoryOf(makeSession({ sessionId: "a", status: "blocked", ended: true }))).toBeNull();
  });
});

describe("clip", () => {
  it("counts characters as Rust does and never cuts an emoji in half", () => {
    expect(clip("🚀🚀🚀🚀", 3)).toBe("🚀🚀…");
    expect(clip("🚀🚀🚀", 3)).toBe("🚀🚀🚀");
    expect(clip("héllo wörld", 6)).toBe("héllo…");
    expect(Array.from(clip("x".repeat(500), 100))).toHaveLength(100);
  });
});
