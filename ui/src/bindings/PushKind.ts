// Generated from the Rust types by ts-rs (src-tauri/engine/src/bindings.rs). Do not edit.

export type PushKind = "ntfy" | "webhook";
