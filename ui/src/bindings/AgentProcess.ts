// Generated from the Rust types by ts-rs (src-tauri/core/src/bindings.rs). Do not edit.

export type AgentProcess = { pid: number, 
/**
 * The process's start time (clock ticks since boot), so a reused pid is told apart.
 */
start: number, 
/**
 * Its controlling terminal, e.g. `/dev/pts/3`.
 */
tty: string | null, 
/**
 * `$TMUX_PANE` (`%3`) and the tmux socket from `$TMUX`.
 */
tmuxPane: string | null, tmuxSocket: string | null, 
/**
 * `$WINDOWID`: the X11 terminal window.
 */
windowId: string | null, 
/**
 * `$TERM_PROGRAM`.
 */
termProgram: string | null, };
