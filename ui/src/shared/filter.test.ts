import { describe, expect, it } from "vitest";
import { filterMatches, isFiltering, matchesFilter, NO_FILTER } from "./filter";
import { makeSession, NOW } from "../test/sessions";

const auth = makeSession({ sessionId: "a", title: "auth-refactor", agent: "claude", status: "blocked", tool: "Bash" });
const db = makeSession({ sessionId: "b", title: "Pick a database", agent: "codex", status: "waiting", cwd: "/home/maya/src/api" });
const docs = makeSession({ sessionId: "c", title: "Rewrite README", agent: "gemini", status: "done", unread: true });
const old = makeSession({ sessionId: "d", title: "Old spike", status: "done", ended: true });
const sessions = { a: auth, b: db, c: docs, d: old };
const order = ["a", "b", "c", "d"];
const projects = { a: "/home/maya/src/webapp", b: "/home/maya/src/api", c: "/home/maya/src/webapp", d: "/home/maya/src/webapp" };
const match = (text: string, category: "needs" | "working" | "done" | null = null) =>
  [...(filterMatches(sessions, order, projects, { text, category }) ?? [])];

describe("the quick filter", () => {
  it("matches the title, case-insensitively", () => {
    expect(match("AUTH")).toEqual(["a"]);
  });

  it("matches the project by folder name or home-shortened path", () => {
    expect(match("api")).toEqual(["b"]);
    expect(match("~/src/webapp")).toEqual(["a", "c", "d"]);
  });

  it("matches the agent by id or name", () => {
    expect(match("codex")).toEqual(["b"]);
    expect(match("Gemini")).toEqual(["c"]);
  });

  it("matches the status in the UI's words and the model's", () => {
    expect(match("permission")).toEqual(["a"]);
    expect(match("blocked")).toEqual(["a"]);
    expect(match("needs you")).toEqual(["a", "b"]);
    expect(match("unread")).toEqual(["c"]);
    expect(match("ended")).toEqual(["d"]);
  });

  it("wants every term to match somewhere", () => {
    expect(match("webapp done")).toEqual(["c", "d"]);
    expect(match("webapp codex")).toEqual([]);
  });

  it("combines with a status chip; ended sessions count towards no chip", () => {
    expect(match("", "done")).toEqual(["c"]);
    expect(match("webapp", "needs")).toEqual(["a"]);
  });

  it("filters nothing when empty", () => {
    expect(isFiltering(NO_FILTER)).toBe(false);
    expect(isFiltering({ text: "  ", category: null })).toBe(false);
    expect(filterMatches(sessions, order, projects, NO_FILTER)).toBeNull();
    expect(matchesFilter(auth, null, NO_FILTER)).toBe(true);
  });
});

describe("what is on the card is found", () => {
  it("matches the question, the command and the last message, not only the title", () => {
    const filter = { text: "deploy", category: null };
    const asked = makeSession({ sessionId: "q", status: "waiting", question: "Deploy to staging now?" });
    const blocked = makeSession({ sessionId: "c", status: "blocked", tool: "Bash", message: "make deploy", command: "make deploy" });
    const said = makeSession({ sessionId: "m", status: "done", message: "Deployed the fix." });
    const other = makeSession({ sessionId: "o", status: "done", message: "Tests pass." });
    expect([asked, blocked, said, other].map((s) => matchesFilter(s, null, filter))).toEqual([true, true, true, false]);
  });

  it("matches a question tool's header and option labels", () => {
    const asked = makeSession({
      sessionId: "q",
      status: "waiting",
      questions: [
        {
          header: "Framework",
          question: "Which one?",
          multiSelect: false,
          options: [
            { label: "React", description: "Use React" },
            { label: "Vue", description: null },
          ],
        },
      ],
    });
    expect(matchesFilter(asked, null, { text: "vue", category: null })).toBe(true);
    expect(matchesFilter(asked, null, { text: "framework", category: null })).toBe(true);
    expect(matchesFilter(asked, null, { text: "svelte", category: null })).toBe(false);
  });
});

describe("sessions on other machines", () => {
  it("are found by their host's name, and by 'unreachable' while its link is down", () => {
    const here = makeSession({ sessionId: "h", title: "local work" });
    const there = makeSession({ sessionId: "devbox:1", host: "devbox", title: "remote work" });
    const gone = makeSession({ sessionId: "gpu:1", host: "gpu", title: "training", unreachableSince: NOW - 60_000 });
    const all = { h: here, "devbox:1": there, "gpu:1": gone };
    const ids = ["h", "devbox:1", "gpu:1"];
    const find = (text: string) => [...(filterMatches(all, ids, {}, { text, category: null }) ?? [])];
    expect(find("devbox")).toEqual(["devbox:1"]);
    expect(find("DevBox work")).toEqual(["devbox:1"]);
    expect(find("gpu")).toEqual(["gpu:1"]);
    expect(find("unreachable")).toEqual(["gpu:1"]);
    // Each session runs on one machine.
    expect(find("devbox gpu")).toEqual([]);
  });
});

describe("the branch filter", () => {
  const onBranch = (sessionId: string, branch: string | null) =>
    makeSession({ sessionId, title: sessionId, git: { branch, worktree: null, dirty: false } });
  const branches = {
    login: onBranch("login", "feature/login-passkeys"),
    main: onBranch("main", "main"),
    detached: onBranch("detached", null),
    nogit: makeSession({ sessionId: "nogit", title: "nogit" }),
  };
  const ids = Object.keys(branches);
  const lit = (branch: string, text = "") => [...(filterMatches(branches, ids, {}, { text, category: null, branch }) ?? [])];

  it("keeps the sessions whose git branch contains it, case-insensitively", () => {
    expect(lit("LOGIN")).toEqual(["login"]);
    expect(lit("feature/")).toEqual(["login"]);
    expect(lit("ma")).toEqual(["main"]);
  });

  it("matches no detached HEAD and no folder outside git", () => {
    expect(lit("a")).toEqual(["login", "main"]);
  });

  it("filters on its own, and together with the text", () => {
    expect(isFiltering({ text: "", category: null, branch: " main " })).toBe(true);
    expect(isFiltering({ text: "", category: null, branch: "  " })).toBe(false);
    expect(lit("main", "login")).toEqual([]);
  });

  it("is also found by the quick filter's text, as the card shows it", () => {
    expect(lit("", "passkeys")).toEqual(["login"]);
  });
});
