// Generated from the Rust types by ts-rs (src-tauri/core/src/bindings.rs). Do not edit.

export type GitInfo = { 
/**
 * The branch checked out; `null` when detached.
 */
branch: string | null, 
/**
 * The top of the working tree when it is a linked worktree (`git worktree add`), else `null`.
 */
worktree: string | null, 
/**
 * It has uncommitted changes (untracked files included).
 */
dirty: boolean, };
