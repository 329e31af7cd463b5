// Generated from the Rust types by ts-rs (src-tauri/engine/src/bindings.rs). Do not edit.

export type PushOutcome = { 
/**
 * A 2xx answer.
 */
ok: boolean, status: number | null, 
/**
 * Why it failed (the connection, the deadline, a refusal), in words.
 */
error: string | null, attempts: number, };
