// Generated from the Rust types by ts-rs (src-tauri/engine/src/bindings.rs). Do not edit.

export type Delivered = { 
/**
 * The pane typed into; empty when answered through the hook.
 */
pane: string, 
/**
 * The keys as the user would read them (`2`, or the reply's text), or the answer given.
 */
typed: string, 
/**
 * Answered through the CLI's own hook (nothing typed).
 */
throughHook: boolean, 
/**
 * Given through the daemon that serves the session, in the CLI's own protocol (nothing
 * typed; Codex's app-server, issue 48). Absent from older boxes' answers.
 */
throughDaemon: boolean, };
