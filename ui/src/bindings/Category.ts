// Generated from the Rust types by ts-rs (src-tauri/core/src/bindings.rs). Do not edit.

export type Category = "needs" | "working" | "done";
