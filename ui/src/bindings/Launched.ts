// Generated from the Rust types by ts-rs (src-tauri/engine/src/bindings.rs). Do not edit.

export type Launched = { 
/**
 * The tmux session (`tmux -L switchboard attach -t <session>` shows it).
 */
session: string, pane: string, cwd: string, 
/**
 * The command that attaches a terminal to it.
 */
attach: string, };
