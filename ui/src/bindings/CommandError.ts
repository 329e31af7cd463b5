// Generated from the Rust types by ts-rs (src-tauri/lib.rs). Do not edit.

export type CommandError = { kind: string, message: string, };
