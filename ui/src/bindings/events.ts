// Generated from the Rust types by ts-rs (src-tauri/app/bindings.rs). Do not edit.

export const SESSIONS_CHANGED = "sessions-changed";
export const FOCUS_SESSION = "focus-session";
export const NOTICES_CHANGED = "notices-changed";
export const CHIME = "chime";
