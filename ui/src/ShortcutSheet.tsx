// The `?` sheet: every keyboard shortcut and what it does, from the one list in shortcuts.ts.
// A modal over the board: while it is open, keys are its own (Esc or `?` closes it), and a click
// outside it closes it too.
import { useEffect, useRef } from "react";
import { create } from "zustand";
import { CloseIcon } from "./icons";
import { FIELD_SHORTCUTS, SHORTCUT_HELP, SHORTCUT_SECTIONS, type ShortcutHelp } from "./shortcuts";

type SheetState = { open: boolean; setOpen(open?: boolean): void };

export const useShortcutSheet = create<SheetState>((set, get) => ({
  open: false,
  setOpen(open) {
    set({ open: open ?? !get().open });
  },
}));

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
            Keyboard shortcuts
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
