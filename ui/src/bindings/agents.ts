// Generated from the Rust types by ts-rs (src-tauri/engine/src/bindings.rs). Do not edit.

/** One agent CLI, from its row in Rust's table. */
export type AgentRow = {
  id: string;
  name: string;
  short: string;
  letter: string;
  decides: boolean;
  whyNotDecided: string | null;
  heldNote: string | null;
  starts: boolean;
  installs: boolean;
};

export const AGENTS: readonly AgentRow[] = [
  { id: "claude", name: "Claude Code", short: "Claude", letter: "C", decides: true, whyNotDecided: null, heldNote: "its own prompt stays on screen meanwhile", starts: true, installs: true },
  { id: "codex", name: "Codex CLI", short: "Codex", letter: "X", decides: true, whyNotDecided: null, heldNote: "its own prompt appears only when the wait ends", starts: true, installs: true },
  { id: "gemini", name: "Gemini CLI", short: "Gemini", letter: "G", decides: false, whyNotDecided: "no hook of Gemini CLI 0.61 can approve a tool", heldNote: null, starts: true, installs: true },
  { id: "qwen", name: "Qwen Code", short: "Qwen", letter: "Q", decides: true, whyNotDecided: null, heldNote: "its own dialog appears only if the board does not answer", starts: true, installs: true },
  { id: "copilot", name: "Copilot CLI", short: "Copilot", letter: "P", decides: true, whyNotDecided: null, heldNote: "its own dialog appears only if the board does not answer", starts: true, installs: true },
  { id: "pi", name: "pi", short: "pi", letter: "π", decides: true, whyNotDecided: null, heldNote: "pi asks in its own dialog only if the board does not answer", starts: true, installs: true },
  { id: "opencode", name: "OpenCode", short: "OpenCode", letter: "O", decides: true, whyNotDecided: null, heldNote: "its own dialog shows too; whichever answer comes first wins", starts: true, installs: true },
  { id: "custom", name: "Custom", short: "Custom", letter: "?", decides: false, whyNotDecided: "a custom agent has no permission hook", heldNote: null, starts: false, installs: false },
];
