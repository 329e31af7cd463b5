// Generated from the Rust types by ts-rs (src-tauri/core/src/bindings.rs). Do not edit.
import type { Session } from "./Session";

export type Snapshot = { sessions: Array<Session>, };
