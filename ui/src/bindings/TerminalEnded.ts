// Generated from the Rust types by ts-rs (src-tauri/app/bindings.rs). Do not edit.

export type TerminalEnded = { ended: string, };
