// What the board remembers of answers typed into agents' panes: the option sent per question,
// the replies on their way, and each one's note for a while. Its rules are in panel/Answer.tsx.
import { create } from "zustand";

/** How long "Typed 2 into pane %3" stays. */
export const TYPED_NOTE_MS = 8_000;
/** A refusal stays longer: it says what to do instead (Jump). */
export const REFUSED_NOTE_MS = 15_000;

export type AnswerNote = {
  text: string;
  /** The whole message, for a clipped note's tooltip. */
  full: string;
  failed: boolean;
};

export type Sent = {
  /** The question it went out for ({@link questionKey}): its buttons stay off until Rust moves on. */
  key: string;
  option: number;
  /** Rust said it typed it (else it is on its way). */
  typed: boolean;
};

type AnswerState = {
  sent: Record<string, Sent>;
  /** The last option's result per session; cleared after a while. */
  optionNotes: Record<string, AnswerNote>;
  /** Sessions whose reply is on its way. */
  replying: Record<string, true>;
  /** The last reply's result per session. */
  replyNotes: Record<string, AnswerNote>;
};

export const useAnswers = create<AnswerState>(() => ({ sent: {}, optionNotes: {}, replying: {}, replyNotes: {} }));

type NoteKind = "optionNotes" | "replyNotes";
const noteTimers = new Map<string, ReturnType<typeof setTimeout>>();

export function setNote(kind: NoteKind, sessionId: string, note: AnswerNote | null) {
  const timer = `${kind}:${sessionId}`;
  clearTimeout(noteTimers.get(timer));
  noteTimers.delete(timer);
  useAnswers.setState((s) => {
    const notes = { ...s[kind] };
    if (note) notes[sessionId] = note;
    else delete notes[sessionId];
    return { [kind]: notes };
  });
  if (note) {
    const ms = note.failed ? REFUSED_NOTE_MS : TYPED_NOTE_MS;
    noteTimers.set(timer, setTimeout(() => setNote(kind, sessionId, null), ms));
  }
}

export function plain(text: string, failed: boolean): AnswerNote {
  return { text, full: text, failed };
}

export function useOptionNote(sessionId: string): AnswerNote | null {
  return useAnswers((s) => s.optionNotes[sessionId] ?? null);
}

export function useReplyNote(sessionId: string): AnswerNote | null {
  return useAnswers((s) => s.replyNotes[sessionId] ?? null);
}

/** The last answer or reply from the board was refused: the terminal is the way (Jump). */
export function useRefused(sessionId: string): boolean {
  return useAnswers((s) => Boolean(s.optionNotes[sessionId]?.failed || s.replyNotes[sessionId]?.failed));
}

/** Forget every answer and note (tests). */
export function resetAnswers() {
  for (const timer of noteTimers.values()) clearTimeout(timer);
  noteTimers.clear();
  useAnswers.setState({ sent: {}, optionNotes: {}, replying: {}, replyNotes: {} });
}
