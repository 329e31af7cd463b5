// Generated from the Rust types by ts-rs (src-tauri/core/src/bindings.rs). Do not edit.

export type EditSummary = { 
/**
 * The file's path as the CLI gave it (the first one, for a patch of several).
 */
file: string, 
/**
 * Lines added and removed.
 */
added: number, removed: number, 
/**
 * How many files the edit touches (a patch may touch several).
 */
files: number, };
