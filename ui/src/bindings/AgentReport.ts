// Generated from the Rust types by ts-rs (src-tauri/engine/src/bindings.rs). Do not edit.
import type { Check } from "./Check";

export type AgentReport = { 
/**
 * The agent id: `claude`, `codex`, `gemini`.
 */
agent: string, 
/**
 * The product's name: "Claude Code".
 */
name: string, 
/**
 * On `PATH`, or its config folder exists: it is used on this machine.
 */
found: boolean, 
/**
 * Where it is on `PATH`.
 */
path: string | null, 
/**
 * What `<cli> --version` said (the release number when there is one).
 */
version: string | null, checks: Array<Check>, };
