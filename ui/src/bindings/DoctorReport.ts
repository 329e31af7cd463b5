// Generated from the Rust types by ts-rs (src-tauri/engine/src/bindings.rs). Do not edit.
import type { AgentReport } from "./AgentReport";
import type { Check } from "./Check";

export type DoctorReport = { 
/**
 * No check failed.
 */
ok: boolean, 
/**
 * Claude Code, Codex CLI and Gemini CLI, in that order.
 */
agents: Array<AgentReport>, 
/**
 * The running instance and the test event.
 */
switchboard: Array<Check>, };
