// Generated from the Rust types by ts-rs (src-tauri/core/src/bindings.rs). Do not edit.

export type Footprint = { 
/**
 * CPU use since the previous sample, in tenths of a percent of one core (125 = 12.5 %).
 */
cpuTenths: number, 
/**
 * Resident memory of the agent and every process under it.
 */
rssBytes: number, processes: number, 
/**
 * When the agent's process started (Unix ms).
 */
startedAt: number, };
