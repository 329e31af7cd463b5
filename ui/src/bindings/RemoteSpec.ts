// Generated from the Rust types by ts-rs (src-tauri/engine/src/bindings.rs). Do not edit.

export type RemoteSpec = { name: string, command: Array<string>, };
