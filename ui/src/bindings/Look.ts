// Generated from the Rust types by ts-rs (src-tauri/core/src/bindings.rs). Do not edit.

export type Look = "attention" | "box" | "quiet";
