// The status language the card speaks: one word, one tone and one icon per state, used by nodes,
// chips and the minimap alike. The words, the chips and the reasons are stamped by Rust
// (core/src/view/face.rs) on every session; the web view only draws them.
import type { Reason } from "../bindings/Reason";
import type { Session } from "../bindings/Session";

export type { Badge } from "../bindings/Badge";
export type { Category } from "../bindings/Category";
export type { Reason } from "../bindings/Reason";
export type { Tone } from "../bindings/Tone";

/** `working` with no news for a long while: the Rust side sets the flag, the node shows a clock. */
export function isStale(session: Session): boolean {
  return session.stale;
}

/** A reason's whole text, for its tooltip: Rust leaves `full` out when lead or text says it all. */
export function reasonTooltip(reason: Reason): string {
  return reason.full ?? (reason.text || reason.lead || "");
}
