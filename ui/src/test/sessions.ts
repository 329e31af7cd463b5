import type { Session } from "../bindings/Session";

export const NOW = Date.UTC(2025, 5, 1, 12, 0, 0);

/** A session as the Rust side would send it; override what the test is about. */
export function makeSession(overrides: Partial<Session> & { sessionId: string }): Session {
  return {
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
    ...overrides,
  };
}
