// What the last Jump to terminal did, per session, for a while: shown on the node and in the
// panel (the words are made in shared/jump.ts).
import { create } from "zustand";

/** How long the result of a jump stays on the node (long enough to read a resume command). */
export const JUMP_NOTE_MS = 6_000;
/** A resume command that is not on the clipboard stays longer: the user copies it by hand. */
export const UNCOPIED_NOTE_MS = 15_000;

export type JumpNote = {
  /** The whole message: what a clipped note shows in its tooltip. */
  text: string;
  /** What happened, before the command (the whole message when there is no command). */
  lead: string;
  /** The resume command the message names, if any. */
  command: string | null;
  /** There is a command and it is on the clipboard. */
  copied: boolean;
  failed: boolean;
  /** What the node says when the whole would not fit there (a command to copy by hand). */
  brief: string | null;
};

/** The latest jump's result per session; cleared after {@link JUMP_NOTE_MS}. */
export const useJumpNotes = create<Record<string, JumpNote>>(() => ({}));

const noteTimers = new Map<string, ReturnType<typeof setTimeout>>();

export function setNote(sessionId: string, note: JumpNote | null) {
  clearTimeout(noteTimers.get(sessionId));
  noteTimers.delete(sessionId);
  useJumpNotes.setState((notes) => {
    const next = { ...notes };
    if (note) next[sessionId] = note;
    else delete next[sessionId];
    return next;
  }, true);
  if (!note) return;
  const ms = note.command && !note.copied ? UNCOPIED_NOTE_MS : JUMP_NOTE_MS;
  noteTimers.set(sessionId, setTimeout(() => setNote(sessionId, null), ms));
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
