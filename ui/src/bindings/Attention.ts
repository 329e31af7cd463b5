// Generated from the Rust types by ts-rs (src-tauri/core/src/bindings.rs). Do not edit.

export type Attention = { 
/**
 * 0: it asks (blocked, waiting, or its turn failed); 1: it finished and the user has not looked.
 */
rank: number, 
/**
 * When it started to need the user (its last status change).
 */
since: number, };
