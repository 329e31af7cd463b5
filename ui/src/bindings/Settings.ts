// Generated from the Rust types by ts-rs (src-tauri/engine/src/bindings.rs). Do not edit.

export type Settings = { 
/**
 * CLIs whose permission prompts wait for Allow / Deny from Switchboard (off by default).
 */
decide: Array<string>, 
/**
 * How long such a prompt waits before the CLI asks in its own terminal as usual.
 */
holdSeconds: number, };
