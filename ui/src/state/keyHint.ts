// Why a key did nothing: the hint the board shows at its foot (header/KeyHint.tsx), so a key that
// cannot act never fails silently (issue 44.1).
import { create } from "zustand";

/** How long a hint stays. */
export const HINT_MS = 4_000;

type HintState = { text: string | null; seq: number };

export const useKeyHint = create<HintState>(() => ({ text: null, seq: 0 }));

let timer: ReturnType<typeof setTimeout> | undefined;

/** Say why the key did nothing (replaces the last hint). */
export function keyHint(text: string): void {
  clearTimeout(timer);
  useKeyHint.setState((s) => ({ text, seq: s.seq + 1 }));
  timer = setTimeout(() => useKeyHint.setState({ text: null }), HINT_MS);
}

/** Forget the hint (tests). */
export function resetKeyHint(): void {
  clearTimeout(timer);
  useKeyHint.setState({ text: null, seq: 0 });
}
