// Generated from the Rust types by ts-rs (src-tauri/core/src/bindings.rs). Do not edit.
import type { AgentStatus } from "./AgentStatus";
import type { Badge } from "./Badge";
import type { Reason } from "./Reason";

export type HistoryView = { badge: Badge, reason: Reason | null, at: number, status: AgentStatus, tool: string | null, question: string | null, message: string | null, interrupted: boolean, errored: boolean, };
