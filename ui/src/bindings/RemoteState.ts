// Generated from the Rust types by ts-rs (src-tauri/engine/src/bindings.rs). Do not edit.
import type { LinkState } from "./LinkState";

export type RemoteState = { name: string, command: Array<string>, state: LinkState, 
/**
 * Connected since, or unreachable since (Unix ms).
 */
since: number | null, 
/**
 * Its sessions on the board.
 */
sessions: number, 
/**
 * The last update number applied (of the remote instance's current run).
 */
lastSeq: number | null, 
/**
 * How long its last change took from its agent's event to this board (includes any clock
 * difference between the machines).
 */
lagMs: number | null, 
/**
 * Why it is not connected (the command's own words, when it said any).
 */
error: string | null, 
/**
 * The Switchboard version running there.
 */
version: string | null, };
