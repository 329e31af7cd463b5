// Generated from the Rust types by ts-rs (src-tauri/core/src/bindings.rs). Do not edit.
import type { Session } from "./Session";

export type Snapshot = { sessions: Array<Session>, 
/**
 * What the user should know about the instance itself (e.g. sessions are not being
 * saved), with the fix; absent when all is well.
 */
notices?: Array<string>, };
