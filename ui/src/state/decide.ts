// What the board remembers of Allow / Deny answers: which hold each answer went out for, why the
// last one failed (for a while), and whose command's end has been seen. Its rules are in
// panel/Decide.tsx.
import { create } from "zustand";

/** How long a failed answer's note stays on the node. */
export const NOTE_MS = 5_000;

export type DecideNote = { text: string; full: string };

type DecideState = {
  /** The hold each session's answer went out for: its buttons stay off until Rust moves on. */
  sent: Record<string, number>;
  /** Why the last answer did not go through, per session; cleared after {@link NOTE_MS}. */
  notes: Record<string, DecideNote>;
  /** The hold whose command's end has been on screen, per session: only then is Allow immediate. */
  seen: Record<string, number>;
};

export const useDecide = create<DecideState>(() => ({ sent: {}, notes: {}, seen: {} }));

const noteTimers = new Map<string, ReturnType<typeof setTimeout>>();

export function setNote(sessionId: string, note: DecideNote | null) {
  clearTimeout(noteTimers.get(sessionId));
  noteTimers.delete(sessionId);
  useDecide.setState((s) => {
    const notes = { ...s.notes };
    if (note) notes[sessionId] = note;
    else delete notes[sessionId];
    return { notes };
  });
  if (note) noteTimers.set(sessionId, setTimeout(() => setNote(sessionId, null), NOTE_MS));
}

/** Forget every answer and note (tests). */
export function resetDecide() {
  for (const timer of noteTimers.values()) clearTimeout(timer);
  noteTimers.clear();
  useDecide.setState({ sent: {}, notes: {}, seen: {} });
}

/** The note of a failed answer for this session, or nothing. */
export function useDecideNote(sessionId: string): DecideNote | null {
  return useDecide((s) => s.notes[sessionId] ?? null);
}
