import type { Session } from "../bindings/Session";

export const NOW = Date.UTC(2025, 5, 1, 12, 0, 0);

/** A session as the Rust side would send it; override what the test is about. */
export function makeSession(overrides: Partial<Session> & { sessionId: string }): Session {
  const session: Session = {
    agent: "claude",
    status: "working",
    kind: "session",
    tool: null,
    title: null,
    cwd: "/home/maya/src/webapp",
    awaitingInput: false,
    question: null,
    message: null,
    interrupted: false,
    errored: false,
    ended: false,
    unread: false,
    subagents: 0,
    firstEventAt: NOW - 60 * 60_000,
    lastEventAt: NOW - 2 * 60_000,
    statusChangedAt: NOW - 2 * 60_000,
    transcriptPath: null,
    stale: false,
    restored: false,
    archived: false,
    position: null,
    process: null,
    exited: false,
    decision: null,
    decisionUntil: null,
    command: null,
    edit: null,
    attention: null,
    host: "local",
    unreachableSince: null,
    questions: [],
    usage: null,
    footprint: null,
    git: null,
    idleHolding: false,
    turnStartedAt: null,
    boardRank: 3,
    ...overrides,
  };
  // What the reducer stamps (core/src/view.rs), unless the test says otherwise.
  if (!("attention" in overrides)) session.attention = attentionOf(session);
  if (!("boardRank" in overrides)) session.boardRank = boardRankOf(session);
  return session;
}

/** What the reducer stamps as `boardRank` (core/src/view.rs `board_rank`), for made-up sessions. */
export function boardRankOf(s: Session): number {
  if (s.ended) return 6;
  switch (s.status) {
    case "blocked":
      return 0;
    case "waiting":
      return 1;
    case "done":
      return s.errored ? 1 : s.unread ? 2 : 5;
    case "working":
      return 3;
    default:
      return s.unread ? 2 : 4;
  }
}

function attentionOf(s: Session): Session["attention"] {
  if (s.archived) return null;
  const since = s.statusChangedAt ?? s.lastEventAt;
  const failed = s.status === "done" && s.errored;
  if (!s.ended && (failed || s.status === "waiting" || s.status === "blocked")) return { rank: 0, since };
  return s.unread ? { rank: 1, since } : null;
}
