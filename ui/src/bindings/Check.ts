// Generated from the Rust types by ts-rs (src-tauri/engine/src/bindings.rs). Do not edit.
import type { Outcome } from "./Outcome";

export type Check = { 
/**
 * Stable: `<agent>.path|hooks|enabled|trust|folder`, `switchboard.running|roundTrip`.
 */
id: string, 
/**
 * What is checked, in a few words: "Hooks installed".
 */
label: string, outcome: Outcome, 
/**
 * What was found.
 */
detail: string, 
/**
 * The one command or step that fixes a failure (for a skip: how to get started).
 */
fix: string | null, };
