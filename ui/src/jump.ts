// Jump to terminal: from the details panel, the node's button and Enter on an open node. Rust
// picks the way (tmux pane, terminal window, or the resume command); the result is told briefly,
// on the node and in the panel, instead of in a dialog to dismiss.
import { create } from "zustand";
import type { Jump } from "./bindings/Jump";
import * as ipc from "./ipc";

/** How long the result of a jump stays on the node (long enough to read a resume command). */
export const JUMP_NOTE_MS = 6_000;

export type JumpNote = { text: string; failed: boolean };

/** The latest jump's result per session; cleared after {@link JUMP_NOTE_MS}. */
export const useJumpNotes = create<Record<string, JumpNote>>(() => ({}));

const noteTimers = new Map<string, ReturnType<typeof setTimeout>>();

function setNote(sessionId: string, note: JumpNote | null) {
  clearTimeout(noteTimers.get(sessionId));
  noteTimers.delete(sessionId);
  useJumpNotes.setState((notes) => {
    const next = { ...notes };
    if (note) next[sessionId] = note;
    else delete next[sessionId];
    return next;
  }, true);
  if (note) noteTimers.set(sessionId, setTimeout(() => setNote(sessionId, null), JUMP_NOTE_MS));
}

export function jumpMessage(jump: Jump, copied: boolean): string {
  switch (jump.how) {
    case "tmux":
      return `Switched tmux to pane ${jump.pane}.`;
    case "window":
      return "Brought its terminal window forward.";
    case "resume":
      return copied
        ? `No terminal to show; copied: ${jump.command}`
        : `No terminal to show. To resume it, run: ${jump.command}`;
    case "elsewhere":
      return `It runs in a terminal Switchboard cannot bring forward (pid ${jump.pid}${jump.tty ? ` on ${jump.tty}` : ""}).`;
  }
}

/** Brings the session's terminal forward (or copies its resume command) and notes the result. */
export async function jump(sessionId: string): Promise<void> {
  try {
    const result = await ipc.jumpToTerminal(sessionId);
    if (!result) return;
    let copied = false;
    if (result.how === "resume") {
      copied =
        (await navigator.clipboard?.writeText(result.command).then(
          () => true,
          () => false,
        )) ?? false;
    }
    setNote(sessionId, { text: jumpMessage(result, copied), failed: false });
  } catch (err) {
    setNote(sessionId, { text: `Could not jump: ${ipc.toIpcError(err).message}`, failed: true });
  }
}

/** The result of this session's last jump while it shows, or nothing. */
export function useJumpNote(sessionId: string): JumpNote | null {
  return useJumpNotes((notes) => notes[sessionId] ?? null);
}

/** Forget every note (tests). */
export function resetJump() {
  for (const timer of noteTimers.values()) clearTimeout(timer);
  noteTimers.clear();
  useJumpNotes.setState({}, true);
}
