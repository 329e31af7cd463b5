// Generated from the Rust types by ts-rs (src-tauri/core/src/bindings.rs). Do not edit.
import type { TurnPart } from "./TurnPart";

export type TurnItem = { part: TurnPart, text: string, };
