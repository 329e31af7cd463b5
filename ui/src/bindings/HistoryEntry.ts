// Generated from the Rust types by ts-rs (src-tauri/core/src/bindings.rs). Do not edit.
import type { AgentStatus } from "./AgentStatus";

export type HistoryEntry = { at: number, status: AgentStatus, tool: string | null, question: string | null, message: string | null, interrupted: boolean, errored: boolean, };
