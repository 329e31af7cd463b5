// Generated from the Rust types by ts-rs (src-tauri/engine/src/bindings.rs). Do not edit.
import type { Reach } from "./Reach";
import type { RemoteSpec } from "./RemoteSpec";

export type Settings = { 
/**
 * CLIs whose permission prompts wait for Allow / Deny from Switchboard (off by default).
 */
decide: Array<string>, 
/**
 * How long such a prompt waits before the CLI asks in its own terminal as usual.
 */
holdSeconds: number, 
/**
 * Other machines whose agents are on this board (issue 23), each reached by its command.
 */
remotes: Array<RemoteSpec>, 
/**
 * How a session that needs the user reaches them away from the board (issue 25).
 */
reach: Reach, };
