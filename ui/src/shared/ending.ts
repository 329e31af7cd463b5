// Whether a session's agent can be ended from here ("End agent…"): a local agent still running.
// Shared by the details panel and its usage section.
import type { Session } from "../bindings/Session";
import { isRemote } from "./sessionLabels";

export function canEnd(session: Session): boolean {
  return !isRemote(session) && !session.ended && !session.exited && session.process != null;
}
