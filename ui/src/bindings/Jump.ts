// Generated from the Rust types by ts-rs (src-tauri/engine/src/bindings.rs). Do not edit.

export type Jump = { "how": "tmux", pane: string, } | { "how": "window", window: string, } | { "how": "tab", tty: string, } | { "how": "resume", command: string, } | { "how": "elsewhere", pid: number, tty: string | null, } | { "how": "refused", reason: string, } | { "how": "remote", host: string, command: string, opened: boolean, };
