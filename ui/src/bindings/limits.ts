// Generated from the Rust types by ts-rs (src-tauri/engine/src/bindings.rs). Do not edit.

/** The shortest and longest a held permission may wait for the board (seconds). */
export const MIN_HOLD_SECONDS = 5;
export const MAX_HOLD_SECONDS = 120;
