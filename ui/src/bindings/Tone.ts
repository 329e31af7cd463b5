// Generated from the Rust types by ts-rs (src-tauri/core/src/bindings.rs). Do not edit.

export type Tone = "working" | "waiting" | "blocked" | "done" | "error" | "interrupted" | "idle";
