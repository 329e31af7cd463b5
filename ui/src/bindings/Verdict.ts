// Generated from the Rust types by ts-rs (src-tauri/engine/src/doctor.rs). Do not edit.

export type Verdict = "allow" | "deny";
