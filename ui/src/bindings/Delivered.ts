// Generated from the Rust types by ts-rs (src-tauri/engine/src/bindings.rs). Do not edit.

export type Delivered = { pane: string, 
/**
 * The keys as the user would read them (`2`, or the reply's text).
 */
typed: string, };
