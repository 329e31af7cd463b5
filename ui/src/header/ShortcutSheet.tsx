// The `?` sheet: every keyboard shortcut and what it does, from the one list in shortcuts.ts, and
// what each mark and colour on the board means (the legend: no colour is left to be guessed).
// A modal over the board: while it is open, keys are its own (Esc or `?` closes it), and a click
// outside it closes it too.
import "./ShortcutSheet.css";
import { useEffect, useRef } from "react";
import { useShortcutSheet } from "../state/shortcutSheet";
import { CloseIcon } from "../shared/icons";
import { FIELD_SHORTCUTS, SHORTCUT_HELP, SHORTCUT_SECTIONS, type ShortcutHelp } from "../shared/shortcuts";
import { LEGEND } from "../bindings/view";

/** Each status colour with the word the board puts beside it (Rust's legend, core/src/view/face.rs). */
export const LEGEND_TONES = LEGEND;

/** The other marks a card, the board and the minimap carry. */
export const LEGEND_MARKS: readonly { mark: string; what: string }[] = [
  { mark: "unread", what: "Unread: it finished, asked or failed while Switchboard was not in front (click the card to clear)" },
  { mark: "stripe", what: "A stripe on a card's left edge: it needs you; the stripe has its status colour" },
  { mark: "context", what: "The line along a card's foot: how full its context window is (amber when nearly full)" },
  { mark: "dirty", what: "The dot after a branch: uncommitted changes in its folder" },
  { mark: "minimap", what: "The minimap (bottom right): each session in its status colour, each project a region" },
];

function Legend() {
  return (
    <section className="sheet-section sheet-legend" data-testid="legend">
      <h3 className="sheet-section-title">What the colours and marks mean</h3>
      <ul className="sheet-list">
        {LEGEND_TONES.map(({ tone, word, what }) => (
          <li key={tone} className={`sheet-row tone-${tone}`} data-testid="legend-tone">
            <span className="legend-swatch" aria-hidden="true" />
            <span className="sheet-what">
              <strong className="legend-word">{word}</strong> — {what}
            </span>
          </li>
        ))}
        {LEGEND_MARKS.map(({ mark, what }) => (
          <li key={mark} className="sheet-row" data-testid="legend-mark">
            <span className={`legend-mark is-${mark}`} aria-hidden="true" />
            <span className="sheet-what">{what}</span>
          </li>
        ))}
      </ul>
    </section>
  );
}

function Keys({ keys }: { keys: readonly string[] }) {
  return (
    <span className="sheet-keys">
      {keys.map((key, i) =>
        key === "…" ? (
          <span key={i} className="sheet-keys-to">
            to
          </span>
        ) : (
          <kbd key={i}>{key}</kbd>
        ),
      )}
    </span>
  );
}

function Row({ help }: { help: ShortcutHelp }) {
  return (
    <li className="sheet-row" data-testid="shortcut-row">
      <Keys keys={help.keys} />
      <span className="sheet-what">{help.what}</span>
    </li>
  );
}

/** The sheet itself, when open; `?` (or the header's `?` button) opens it. */
export function ShortcutSheet() {
  const open = useShortcutSheet((s) => s.open);
  const setOpen = useShortcutSheet((s) => s.setOpen);
  const close = useRef<HTMLButtonElement>(null);

  useEffect(() => {
    if (!open) return;
    const before = document.activeElement as HTMLElement | null;
    close.current?.focus();
    // Capture: the board's own shortcuts do not act behind the sheet.
    const onKey = (event: KeyboardEvent) => {
      if (event.key === "Tab") return;
      event.stopPropagation();
      if (event.key === "Escape" || event.key === "?") {
        event.preventDefault();
        setOpen(false);
      }
    };
    window.addEventListener("keydown", onKey, true);
    return () => {
      window.removeEventListener("keydown", onKey, true);
      if (before && document.contains(before)) before.focus();
    };
  }, [open, setOpen]);

  if (!open) return null;
  return (
    <div className="sheet-backdrop" data-testid="shortcut-backdrop" onMouseDown={(event) => event.target === event.currentTarget && setOpen(false)}>
      <div className="shortcut-sheet" role="dialog" aria-modal="true" aria-labelledby="shortcut-sheet-title" data-testid="shortcut-sheet">
        <div className="drawer-head">
          <h2 className="drawer-title" id="shortcut-sheet-title">
            Keyboard shortcuts and legend
          </h2>
          <button ref={close} type="button" className="icon-button" aria-label="Close the shortcuts" title="Close (Esc)" onClick={() => setOpen(false)}>
            <CloseIcon />
          </button>
        </div>
        <div className="sheet-sections">
          {SHORTCUT_SECTIONS.map((section) => (
            <section key={section.title} className="sheet-section">
              <h3 className="sheet-section-title">{section.title}</h3>
              <ul className="sheet-list">
                {section.shortcuts.map((shortcut) => (
                  <Row key={shortcut} help={SHORTCUT_HELP[shortcut]} />
                ))}
              </ul>
            </section>
          ))}
          <section className="sheet-section">
            <h3 className="sheet-section-title">In a field</h3>
            <ul className="sheet-list">
              {FIELD_SHORTCUTS.map((help) => (
                <Row key={help.what} help={help} />
              ))}
            </ul>
          </section>
          <Legend />
        </div>
        <p className="sheet-foot">Shortcuts act on the board, not while you type in a field.</p>
      </div>
    </div>
  );
}

/** The header's `?` button: the sheet for those who do not know the key yet. */
export function ShortcutsButton() {
  const open = useShortcutSheet((s) => s.open);
  const setOpen = useShortcutSheet((s) => s.setOpen);
  return (
    <button
      type="button"
      className={open ? "header-action shortcuts-toggle is-on" : "header-action shortcuts-toggle"}
      data-testid="shortcuts-toggle"
      aria-haspopup="dialog"
      aria-expanded={open}
      aria-keyshortcuts="?"
      title="Keyboard shortcuts (?)"
      onClick={() => setOpen()}
    >
      <kbd aria-hidden="true">?</kbd>
      <span className="shortcuts-word">Shortcuts</span>
    </button>
  );
}
