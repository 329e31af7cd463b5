import { describe, expect, it } from "vitest";
import { agentName, relativeAge, shortenHome, silenceFor, titleOf } from "./sessionLabels";
import { makeSession, NOW } from "./test/sessions";

describe("titleOf", () => {
  it("prefers the session's own title, then the last folder, then a short id", () => {
    expect(titleOf(makeSession({ sessionId: "abc", title: "auth-refactor" }))).toBe("auth-refactor");
    expect(titleOf(makeSession({ sessionId: "abc", title: "  ", cwd: "/home/maya/src/webapp/" }))).toBe("webapp");
    expect(titleOf(makeSession({ sessionId: "0123456789abcdef", title: null, cwd: null }))).toBe("01234567");
  });
});

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
