// Generated from the Rust types by ts-rs (src-tauri/engine/src/bindings.rs). Do not edit.
import type { AgentReport } from "./AgentReport";
import type { Check } from "./Check";

export type DoctorReport = { 
/**
 * No check failed, and at least one agent CLI is on this machine.
 */
ok: boolean, 
/**
 * Claude Code, Codex CLI and Gemini CLI, in that order.
 */
agents: Array<AgentReport>, 
/**
 * The running instance and the test event.
 */
switchboard: Array<Check>, 
/**
 * The report in one line, the same for `doctor` and the app: how many checks failed, or
 * that all passed, or that no agent CLI is on this machine at all.
 */
summary: string, };
