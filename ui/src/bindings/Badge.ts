// Generated from the Rust types by ts-rs (src-tauri/core/src/bindings.rs). Do not edit.
import type { Tone } from "./Tone";

export type Badge = { tone: Tone, word: string, };
