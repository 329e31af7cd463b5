// Why a key did nothing: a short line at the foot of the board (and for screen readers), so a
// key that cannot act never fails silently (issue 44.1).
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

/** The live region, always in the DOM so a screen reader hears each new hint. */
export function KeyHint() {
  const { text, seq } = useKeyHint();
  return (
    <div className="key-hint-region" role="status" aria-live="polite">
      {text && (
        <p className="key-hint" data-testid="key-hint" key={seq}>
          {text}
        </p>
      )}
    </div>
  );
}
