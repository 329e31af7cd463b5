// One-time migration: node positions used to live in localStorage; the Rust side keeps them now
// (Session.position, SQLite). On start, a session Rust has no position for but localStorage
// has gets it sent with set_position once, then the old key goes for good.
import type { Session } from "./bindings/Session";
import { toCoordinate, type XY } from "./layout";
import * as ipc from "./ipc";

export const LEGACY_POSITIONS_KEY = "switchboard.positions.v1";

function isXY(value: unknown): value is XY {
  if (!value || typeof value !== "object") return false;
  const { x, y } = value as XY;
  return Number.isFinite(x) && Number.isFinite(y);
}

/** What the old localStorage key holds (nothing when absent or unreadable). */
export function readLegacyPositions(): Record<string, XY> {
  try {
    const raw = globalThis.localStorage?.getItem(LEGACY_POSITIONS_KEY);
    if (!raw) return {};
    const parsed: unknown = JSON.parse(raw);
    if (!parsed || typeof parsed !== "object") return {};
    const out: Record<string, XY> = {};
    for (const [id, pos] of Object.entries(parsed)) {
      if (isXY(pos)) out[id] = { x: toCoordinate(pos.x), y: toCoordinate(pos.y) };
    }
    return out;
  } catch {
    return {};
  }
}

function hasLegacyKey(): boolean {
  try {
    return globalThis.localStorage?.getItem(LEGACY_POSITIONS_KEY) != null;
  } catch {
    return false;
  }
}

function dropLegacyKey(): void {
  try {
    globalThis.localStorage?.removeItem(LEGACY_POSITIONS_KEY);
  } catch {
    // Storage disabled: there is nothing to drop either.
  }
}

/**
 * Hands the remembered positions of `sessions` (the start-up snapshot) to Rust, deletes the
 * old key, and returns the sessions with those positions filled in so the canvas places the
 * nodes there straight away rather than waiting for the echo. Rust's own positions win.
 */
export function migrateLegacyPositions(sessions: readonly Session[]): readonly Session[] {
  if (!hasLegacyKey()) return sessions;
  const legacy = readLegacyPositions();
  // Dropped before anything is sent: a second start (or a second mount) never sends again.
  dropLegacyKey();
  return sessions.map((session) => {
    const saved = legacy[session.sessionId];
    if (session.position != null || !saved) return session;
    ipc
      .setPosition(session.sessionId, saved.x, saved.y)
      .catch((err: unknown) => console.warn("set_position (migration) failed", err));
    return { ...session, position: { x: saved.x, y: saved.y } };
  });
}
