// Why a key did nothing: a short line at the foot of the board (and for screen readers), so a
// key that cannot act never fails silently (issue 44.1).
import "./KeyHint.css";
import { useKeyHint } from "../state/keyHint";

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
