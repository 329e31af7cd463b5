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
webhook: PushChannel, 
/**
 * Answer from the phone (issue 49): a push the board could answer carries its buttons, and
 * a tap comes back through the reply topic on the ntfy channel's server. Off by default.
 */
answerFromPhone: boolean, 
/**
 * The reply topic's name: 128 random bits in hex, made when the switch is first turned on.
 */
replyTopic: string, 
/**
 * An access token for the reply topic on a server with access control (the phone sends it
 * with each tap, the desktop subscribes with it); empty for none.
 */
replyToken: string, };
