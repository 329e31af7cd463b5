// Dragged node positions, remembered in localStorage by sessionId until the Rust side stores
// them (SPEC §7). Storage failures (private mode, quota) only cost the memory, never the app.
import type { XY } from "./layout";

const KEY = "switchboard.positions.v1";

function isXY(value: unknown): value is XY {
  if (!value || typeof value !== "object") return false;
  const { x, y } = value as XY;
  return Number.isFinite(x) && Number.isFinite(y);
}

export function loadPositions(): Record<string, XY> {
  try {
    const raw = globalThis.localStorage?.getItem(KEY);
    if (!raw) return {};
    const parsed: unknown = JSON.parse(raw);
    if (!parsed || typeof parsed !== "object") return {};
    const out: Record<string, XY> = {};
    for (const [id, pos] of Object.entries(parsed)) {
      if (isXY(pos)) out[id] = { x: pos.x, y: pos.y };
    }
    return out;
  } catch {
    return {};
  }
}

function save(positions: Record<string, XY>): void {
  try {
    globalThis.localStorage?.setItem(KEY, JSON.stringify(positions));
  } catch {
    // Out of quota or storage disabled: positions are a convenience.
  }
}

export function rememberPosition(sessionId: string, position: XY): void {
  save({ ...loadPositions(), [sessionId]: { x: Math.round(position.x), y: Math.round(position.y) } });
}

/** Forget positions of sessions that are gone; keep the rest. */
export function forgetPositions(sessionIds: Iterable<string>): void {
  const positions = loadPositions();
  let changed = false;
  for (const id of sessionIds) {
    if (id in positions) {
      delete positions[id];
      changed = true;
    }
  }
  if (changed) save(positions);
}

export function keepOnlyPositions(sessionIds: ReadonlySet<string>): void {
  const positions = loadPositions();
  forgetPositions(Object.keys(positions).filter((id) => !sessionIds.has(id)));
}
