import { describe, expect, it } from "vitest";
import { makeSession, NOW } from "../test/sessions";
import { makeUsage } from "../test/usage";
import {
  contextLine,
  contextPercent,
  contextWarns,
  dayCost,
  formatBytes,
  formatCost,
  formatCpu,
  formatSpan,
  formatTokens,
  formatUptime,
  holdingLine,
  idleHolding,
  localMidnight,
  sortPlaces,
} from "./usage";

const MIB = 1024 * 1024;
const GIB = 1024 * MIB;
const HOUR = 3_600_000;

describe("formatting usage figures", () => {
  it.each([
    [0, "0"],
    [950, "950"],
    [1_000, "1k"],
    [1_260, "1.3k"],
    [12_345, "12.3k"],
    [99_940, "99.9k"],
    [200_000, "200k"],
    [999_499, "999k"],
    [999_950, "1M"],
    [1_234_567, "1.2M"],
    [123_456_789, "123M"],
  ])("tokens %d read %s", (tokens, text) => {
    expect(formatTokens(tokens)).toBe(text);
  });

  it.each([
    [null, null],
    [0, "$0.00"],
    [1, "<$0.01"],
    [9_999, "<$0.01"],
    [10_000, "$0.01"],
    [420_000, "$0.42"],
    [12_345_678, "$12.35"],
    [1_234_567_890, "$1,235"],
  ])("a cost of %s micros reads %s", (micros, text) => {
    expect(formatCost(micros)).toBe(text);
  });

  it.each([
    [512 * 1024, "512 KiB"],
    [4.2 * MIB, "4.2 MiB"],
    [512 * MIB, "512 MiB"],
    [1023.9 * MIB, "1 GiB"],
    [1.2 * GIB, "1.2 GiB"],
    [12 * GIB, "12 GiB"],
  ])("%d bytes read %s", (bytes, text) => {
    expect(formatBytes(bytes)).toBe(text);
  });

  it.each([
    [0, "0 %"],
    [4, "0.4 %"],
    [125, "13 %"],
    [1530, "153 %"],
  ])("CPU of %d tenths reads %s", (tenths, text) => {
    expect(formatCpu(tenths)).toBe(text);
  });

  it.each([
    [45_000, "45 s"],
    [12 * 60_000, "12 min"],
    [2 * HOUR, "2 h"],
    [2 * HOUR + 5 * 60_000, "2 h 5 min"],
    [76 * HOUR, "3 d 4 h"],
    [72 * HOUR, "3 d"],
  ])("a span of %d ms reads %s", (ms, text) => {
    expect(formatSpan(ms)).toBe(text);
  });

  it("says how long the agent has been up", () => {
    expect(formatUptime(NOW - (2 * HOUR + 5 * 60_000), NOW)).toBe("up 2 h 5 min");
  });
});

describe("context use", () => {
  it("is the share of the window in use, rounded down, as status --json has it", () => {
    expect(contextPercent(makeUsage({ contextTokens: 46_000, contextWindow: 200_000 }))).toBe(23);
    expect(contextPercent(makeUsage({ contextTokens: 159_999, contextWindow: 200_000 }))).toBe(79);
    expect(contextPercent(makeUsage({ contextTokens: 250_000, contextWindow: 200_000 }))).toBe(100);
  });

  it("is not known without a window", () => {
    expect(contextPercent(makeUsage({ contextWindow: null }))).toBeNull();
    expect(contextPercent(null)).toBeNull();
  });

  it("warns from 80 %", () => {
    expect(contextWarns(79)).toBe(false);
    expect(contextWarns(80)).toBe(true);
    expect(contextWarns(null)).toBe(false);
  });

  it("reads as a share of the window, or as tokens when the window is not known", () => {
    expect(contextLine(makeUsage({ contextTokens: 46_000 }))).toBe("23 % of 200k");
    expect(contextLine(makeUsage({ contextTokens: 46_000, contextWindow: null }))).toBe("46k tokens");
  });
});

describe("an idle agent holding memory", () => {
  const footprint = (rssBytes: number) => ({ cpuTenths: 0, rssBytes, processes: 3, startedAt: NOW - 5 * HOUR });
  const idle = (fields: Parameters<typeof makeSession>[0]) =>
    idleHolding(
      makeSession({ status: "done", lastEventAt: NOW - 3 * HOUR, footprint: footprint(1.2 * GIB), idleHolding: true, ...fields }),
      NOW,
    );

  it("is what Rust marked, with how long and how much", () => {
    expect(idle({ sessionId: "a" })).toEqual({ idleMs: 3 * HOUR, rssBytes: 1.2 * GIB });
    expect(idle({ sessionId: "b", footprint: footprint(200 * MIB) })).toEqual({ idleMs: 3 * HOUR, rssBytes: 200 * MIB });
  });

  it.each([
    ["Rust did not mark it", { idleHolding: false }],
    ["no footprint is known", { footprint: null }],
  ])("is not marked when %s", (_, fields) => {
    expect(idle({ sessionId: "x", ...fields })).toBeNull();
  });

  it("says how long and how much", () => {
    expect(holdingLine({ idleMs: 3 * HOUR + 20 * 60_000, rssBytes: 1.2 * GIB })).toBe("idle 3 h · holds 1.2 GiB");
    expect(holdingLine({ idleMs: 50 * HOUR, rssBytes: 300 * MIB })).toBe("idle 2 d · holds 300 MiB");
  });
});

describe("sorting by a usage figure", () => {
  const sessions = Object.fromEntries(
    [
      makeSession({ sessionId: "cheap", usage: makeUsage({ costMicros: 10_000, contextTokens: 180_000 }) }),
      makeSession({ sessionId: "none" }),
      makeSession({ sessionId: "dear", usage: makeUsage({ costMicros: 900_000, contextTokens: 20_000 }) }),
      makeSession({ sessionId: "unpriced", usage: makeUsage({ costMicros: null, contextWindow: null }) }),
      makeSession({ sessionId: "mid", usage: makeUsage({ costMicros: 10_000, contextTokens: 90_000 }), footprint: { cpuTenths: 0, rssBytes: GIB, processes: 1, startedAt: NOW } }),
    ].map((s) => [s.sessionId, s]),
  );
  const order = ["cheap", "none", "dear", "unpriced", "mid"];
  const sorted = (by: Parameters<typeof sortPlaces>[2]) => {
    const places = sortPlaces(sessions, order, by)!;
    return [...order].sort((a, b) => places[a]! - places[b]!);
  };

  it("puts the largest first, ties in arrival order, and those without the figure last", () => {
    expect(sorted("cost")).toEqual(["dear", "cheap", "mid", "none", "unpriced"]);
    expect(sorted("context")).toEqual(["cheap", "mid", "dear", "none", "unpriced"]);
    expect(sorted("memory")).toEqual(["mid", "cheap", "none", "dear", "unpriced"]);
  });

  it("gives no places in the default order", () => {
    expect(sortPlaces(sessions, order, "default")).toBeNull();
  });
});

describe("today's cost", () => {
  // NOW is noon UTC; midnight is the local one, whatever the test machine's zone.
  const midnight = localMidnight(NOW);
  const priced = (sessionId: string, micros: number | null, fields: Parameters<typeof makeSession>[0] = { sessionId }) =>
    makeSession({ ...fields, sessionId, usage: makeUsage({ costMicros: micros }), lastEventAt: fields.lastEventAt ?? NOW - 60_000 });

  it("starts at local midnight", () => {
    const day = new Date(midnight);
    expect([day.getHours(), day.getMinutes(), day.getSeconds(), day.getMilliseconds()]).toEqual([0, 0, 0, 0]);
    expect(midnight).toBeLessThanOrEqual(NOW);
    expect(NOW - midnight).toBeLessThan(24 * HOUR);
  });

  it("sums the sessions active since midnight, per project, the most expensive first", () => {
    const sessions = Object.fromEntries(
      [
        priced("a", 420_000, { sessionId: "a", cwd: "/home/maya/src/webapp" }),
        priced("b", 80_000, { sessionId: "b", cwd: "/home/maya/src/webapp/api" }),
        priced("c", 1_000_000, { sessionId: "c", cwd: "/home/maya/src/billing" }),
        priced("yesterday", 5_000_000, { sessionId: "yesterday", lastEventAt: midnight - 1 }),
        priced("unpriced", null, { sessionId: "unpriced" }),
        priced("remote", 30_000, { sessionId: "devbox:r", host: "devbox", cwd: "/srv/api" }),
        makeSession({ sessionId: "no-usage" }),
      ].map((s) => [s.sessionId, s]),
    );
    const projects = { a: "/home/maya/src/webapp", b: "/home/maya/src/webapp", c: "/home/maya/src/billing" };
    const today = dayCost(sessions, projects, NOW);
    expect(today.micros).toBe(1_530_000);
    expect(today.priced).toBe(4);
    expect(today.unpriced).toBe(1);
    expect(today.projects).toEqual([
      { label: "billing", micros: 1_000_000, sessions: 1 },
      { label: "webapp", micros: 500_000, sessions: 2 },
      { label: "devbox · api", micros: 30_000, sessions: 1 },
    ]);
  });

  it("is nothing on a board with no usage today", () => {
    expect(dayCost({}, {}, NOW)).toEqual({ micros: 0, priced: 0, unpriced: 0, projects: [] });
  });
});
