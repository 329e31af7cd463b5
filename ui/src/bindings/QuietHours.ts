// Generated from the Rust types by ts-rs (src-tauri/engine/src/bindings.rs). Do not edit.

export type QuietHours = { enabled: boolean, 
/**
 * `HH:MM`, local time; the window may cross midnight (22:00–07:00).
 */
from: string, to: string, };
