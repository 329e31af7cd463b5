// Generated from the Rust types by ts-rs (src-tauri/engine/src/bindings.rs). Do not edit.

/** The CLIs whose permission prompts can wait for Allow / Deny from Switchboard. */
export const DECIDING_CLIS: readonly string[] = ["claude", "codex", "qwen", "copilot", "pi", "opencode"];
