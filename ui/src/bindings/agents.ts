// Generated from the Rust types by ts-rs (src-tauri/engine/src/bindings.rs). Do not edit.

/** One agent CLI, from its row in Rust's table. */
export type AgentRow = { id: string; name: string; decides: boolean; whyNotDecided: string | null };

export const AGENTS: readonly AgentRow[] = [
  { id: "claude", name: "Claude Code", decides: true, whyNotDecided: null },
  { id: "codex", name: "Codex CLI", decides: true, whyNotDecided: null },
  { id: "gemini", name: "Gemini CLI", decides: false, whyNotDecided: "no hook of Gemini CLI 0.61 can approve a tool" },
  { id: "custom", name: "Custom", decides: false, whyNotDecided: "a custom agent has no permission hook" },
];
