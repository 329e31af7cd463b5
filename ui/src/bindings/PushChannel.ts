// Generated from the Rust types by ts-rs (src-tauri/engine/src/bindings.rs). Do not edit.

export type PushChannel = { enabled: boolean, url: string, 
/**
 * The privacy switch: only when on does a message carry the session's words — its title,
 * project, question or command, and folder. Off: agent, status, host and a short id.
 */
includeText: boolean, };
