import { describe, expect, it } from "vitest";
import { agentName, clockTime, distinctTags, labelsInRegion, middleCut, relativeAge, shortenHome, silenceFor, unreachableLine } from "./sessionLabels";
import { makeSession, NOW } from "../test/sessions";

describe("agentName", () => {
  it("names the known CLIs and keeps custom labels as they are", () => {
    expect(["claude", "codex", "gemini", "aider"].map(agentName)).toEqual(["Claude", "Codex", "Gemini", "aider"]);
  });
});

describe("shortenHome", () => {
  it.each([
    ["/home/maya/src/webapp", "~/src/webapp"],
    ["/Users/maya/work", "~/work"],
    ["/home/maya", "~"],
    ["/root/project", "~/project"],
    ["/opt/projects/handbook", "/opt/projects/handbook"],
    ["/home", "/home"],
    ["/rootless/x", "/rootless/x"],
  ])("%s → %s", (cwd, shown) => {
    expect(shortenHome(cwd)).toBe(shown);
  });
});

describe("relativeAge", () => {
  it.each([
    [10_000, "just now"],
    [-5_000, "just now"],
    [60_000, "1 min ago"],
    [2 * 60_000 + 30_000, "2 min ago"],
    [59 * 60_000, "59 min ago"],
    [3 * 3_600_000, "3 h ago"],
    [2 * 86_400_000, "2 d ago"],
  ])("%i ms ago → %s", (ago, text) => {
    expect(relativeAge(NOW - ago, NOW)).toBe(text);
  });

  it("says how long a stale session has been quiet", () => {
    expect(silenceFor(NOW - 12 * 60_000, NOW)).toBe("no news for 12 min");
  });
});

describe("labelsInRegion", () => {
  // Titles as Rust stamps them: with none of its own, a session is named after its folder.
  const at = (cwd: string, title: string) =>
    makeSession({ sessionId: "3f2a9c1b-77", agent: "codex", cwd, title });

  it("names the project once: the region says it, the card does not repeat it", () => {
    expect(labelsInRegion(at("/home/maya/src/api", "Fix the login"), "project:/home/maya/src/api")).toEqual({
      title: "Fix the login",
      folder: null,
    });
    // No title of its own: not the folder's name again, but the agent and the short id.
    expect(labelsInRegion(at("/home/maya/src/api", "api"), "project:/home/maya/src/api")).toEqual({
      title: "Codex · 3f2a9c1b",
      folder: null,
    });
  });

  it("shows a subfolder as the part below the project", () => {
    expect(labelsInRegion(at("/home/maya/src/api/sub0/sub3", "sub3"), "project:/home/maya/src/api")).toEqual({
      title: "sub3",
      folder: "./sub0/sub3",
    });
  });

  it("keeps the whole folder in the needs-you lane and outside its project", () => {
    expect(labelsInRegion(at("/home/maya/src/api", "api"), "needs-you")).toEqual({ title: "api", folder: "~/src/api" });
    expect(labelsInRegion(at("/home/maya/src/api-old", "api-old"), "project:/home/maya/src/api")).toEqual({
      title: "api-old",
      folder: "~/src/api-old",
    });
    expect(labelsInRegion(at("/home/maya/src/api", "api"), null)).toEqual({ title: "api", folder: "~/src/api" });
  });
});

describe("a remote's session", () => {
  const remote = (cwd: string, title: string) =>
    makeSession({ sessionId: "devbox:3f2a9c1b-77", host: "devbox", agent: "codex", cwd, title });

  it("is told apart by its id there, not by the host prefix of its id here", () => {
    expect(labelsInRegion(remote("/home/maya/src/api", "api"), "project:devbox:/home/maya/src/api")).toEqual({
      title: "Codex · 3f2a9c1b",
      folder: null,
    });
  });

  it("is shown below its project in its host's region only", () => {
    expect(labelsInRegion(remote("/home/maya/src/api/sub", "sub"), "project:devbox:/home/maya/src/api")).toEqual({
      title: "sub",
      folder: "./sub",
    });
    // Not in this machine's region of the same path (it is never laid out there).
    expect(labelsInRegion(remote("/home/maya/src/api/sub", "sub"), "project:/home/maya/src/api")).toEqual({
      title: "sub",
      folder: "~/src/api/sub",
    });
  });

  it("says since when its host is unreachable: the time of day, or the date once a day old", () => {
    expect(unreachableLine("devbox", NOW - 5 * 60_000, NOW)).toBe(`devbox unreachable since ${clockTime(NOW - 5 * 60_000)}`);
    expect(unreachableLine("devbox", NOW - 3 * 86_400_000, NOW)).toMatch(/^devbox unreachable since \S+ \S+$/);
    expect(unreachableLine("devbox", NOW - 3 * 86_400_000, NOW)).not.toContain(":");
  });
});

describe("two sessions of one folder never read the same (issue 37)", () => {
  it("tags them by the first characters of their ids when those differ, else by their ends", () => {
    expect(distinctTags(["3f2a9c1b-77", "8d0e4a22-11"])).toEqual(["3f2a9c1b", "8d0e4a22"]);
    // Same first 8 characters: the whole id when short, its end when long.
    expect(distinctTags(["c-hello-1", "c-hello-2"])).toEqual(["c-hello-1", "c-hello-2"]);
    expect(distinctTags(["session-from-ci-run-0001", "session-from-ci-run-0002"])).toEqual(["…run-0001", "…run-0002"]);
    const tags = distinctTags(["aaaaaaaa-1-xxxxxxxx", "aaaaaaaa-2-xxxxxxxx"]);
    expect(new Set(tags).size).toBe(2);
  });

  it("cuts a title in the middle, keeping the tail that tells it apart", () => {
    expect(middleCut("webapp · c-hello-2", " · c-hello-2")).toEqual({ head: "webapp", tail: " · c-hello-2" });
    expect(middleCut("short title")).toEqual({ head: "short title", tail: "" });
    const long = middleCut("Refactor the authentication middleware for v2");
    expect(long.head + long.tail).toBe("Refactor the authentication middleware for v2");
    expect(long.tail).toBe(" for v2");
  });

  it("keeps whole words: a long last word whole, with its space; one ellipsis at most (issue 44.3)", () => {
    // Not "nerabilities": the word whole, or nothing.
    expect(middleCut("Audit the dependencies for vulnerabilities")).toEqual({ head: "Audit the dependencies for", tail: " vulnerabilities" });
    // The space goes with the tail: never "TLScertificates".
    expect(middleCut("Rotate the TLS certificates")).toEqual({ head: "Rotate the TLS", tail: " certificates" });
    // A last word too long to keep: cut at the end.
    expect(middleCut("Investigate internationalizationmiddlewarefactories")).toEqual({
      head: "Investigate internationalizationmiddlewarefactories",
      tail: "",
    });
    // Already cut by its agent: no second ellipsis.
    expect(middleCut("Migrate the Button component to the design tokens and…").tail).toBe("");
  });
});
