// Generated from the Rust types by ts-rs (src-tauri/app/bindings.rs). Do not edit.
import type { ErrorKind } from "./ErrorKind";

export type CommandError = { kind: ErrorKind, message: string, };
