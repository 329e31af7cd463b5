// Generated from the Rust types by ts-rs (src-tauri/engine/src/bindings.rs). Do not edit.
import type { PushChannel } from "./PushChannel";
import type { QuietHours } from "./QuietHours";

export type Reach = { 
/**
 * The statuses (`waiting`, `blocked`, `done`) that play a tone in the board when a session
 * newly reaches one; none by default.
 */
sound: Array<string>, quietHours: QuietHours, 
/**
 * An ntfy topic URL (`https://ntfy.sh/<topic>` or a self-hosted server's).
 */
ntfy: PushChannel, 
/**
 * A URL that takes a JSON POST per session that needs the user.
 */
webhook: PushChannel, };
