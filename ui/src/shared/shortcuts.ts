// Canvas keyboard shortcuts: which key means what, and when keys belong to something else.

export type Shortcut =
  | "next"
  | "previous"
  | "open"
  | "fit"
  | "close"
  | "filter"
  | "left"
  | "right"
  | "up"
  | "down"
  | "allow"
  | "deny"
  | "option"
  | "help";

const ARROWS: Record<string, Shortcut> = { ArrowLeft: "left", ArrowRight: "right", ArrowUp: "up", ArrowDown: "down" };

/** Keys typed into a field, or pressed on a button, are not canvas shortcuts. */
export function isTypingTarget(target: EventTarget | null): boolean {
  if (!target || typeof (target as Element).closest !== "function") return false;
  const el = target as HTMLElement;
  if (el.isContentEditable) return true;
  return el.closest("input, textarea, select, [contenteditable=''], [contenteditable='true']") != null;
}

type KeyLike = Pick<KeyboardEvent, "key" | "shiftKey" | "ctrlKey" | "metaKey" | "altKey" | "target" | "repeat">;

export function shortcutFor(event: KeyLike): Shortcut | null {
  // Ctrl+K (Cmd+K on a Mac) opens the filter, like a command palette.
  if ((event.ctrlKey || event.metaKey) && !event.altKey && !event.shiftKey && (event.key === "k" || event.key === "K")) {
    return "filter";
  }
  if (event.ctrlKey || event.metaKey || event.altKey) return null;
  if (ARROWS[event.key] && !event.shiftKey) return ARROWS[event.key]!;
  switch (event.key) {
    case "/":
      return "filter";
    // Shift+/ on most layouts: the sheet of every shortcut.
    case "?":
      return event.repeat ? null : "help";
    case "n":
    case "N":
      return event.shiftKey ? "previous" : "next";
    case "f":
      return event.shiftKey ? null : "fit";
    // Answer the selected node's held permission; a held-down key answers nothing twice.
    case "a":
      return event.repeat ? null : "allow";
    case "d":
      return event.repeat ? null : "deny";
    // Pick that option of the question on screen (see `optionOf`); once per press.
    case "1":
    case "2":
    case "3":
    case "4":
    case "5":
    case "6":
    case "7":
    case "8":
    case "9":
      return event.repeat || event.shiftKey ? null : "option";
    case "Escape":
      return "close";
    case "Enter": {
      // Opens the selected node; again, on the open node, jumps to its terminal (see Canvas).
      // Enter on a button or link activates that control, not the selected node.
      const el = event.target as Element | null;
      if (el && typeof el.closest === "function" && el.closest("button, a")) return null;
      return event.repeat ? null : "open";
    }
    default:
      return null;
  }
}

/** The option a digit key picks (1–9), for the "option" shortcut. */
export function optionOf(event: Pick<KeyboardEvent, "key">): number | null {
  return /^[1-9]$/.test(event.key) ? Number(event.key) : null;
}

/** One line of the `?` sheet: the keys, as shown, and what they do. */
export type ShortcutHelp = { keys: readonly string[]; what: string };

/**
 * What every canvas shortcut does, for the `?` sheet. A record over {@link Shortcut}: a new
 * shortcut without its line here does not compile.
 */
export const SHORTCUT_HELP: Readonly<Record<Shortcut, ShortcutHelp>> = {
  next: { keys: ["n"], what: "Next session that needs you, in the order the Needs you lane shows them" },
  previous: { keys: ["Shift", "n"], what: "Previous session that needs you" },
  left: { keys: ["←"], what: "Select the nearest session to the left" },
  right: { keys: ["→"], what: "Select the nearest session to the right" },
  up: { keys: ["↑"], what: "Select the nearest session above" },
  down: { keys: ["↓"], what: "Select the nearest session below" },
  open: { keys: ["Enter"], what: "Open the selected session (marks it read); again: jump to its terminal" },
  close: { keys: ["Esc"], what: "Close the details panel, the Older list, the filter or this sheet" },
  fit: { keys: ["f"], what: "Fit the whole board in the window" },
  filter: { keys: ["/"], what: "Filter the sessions by what their cards say (also Ctrl+K, ⌘K)" },
  allow: { keys: ["a"], what: "Allow the selected session's permission, when Switchboard holds it" },
  deny: { keys: ["d"], what: "Deny the selected session's permission, when Switchboard holds it" },
  option: { keys: ["1", "…", "9"], what: "Pick that option of the question on screen" },
  help: { keys: ["?"], what: "Show this list of shortcuts" },
};

/** The sheet's sections, in the order a newcomer needs them; every shortcut is in exactly one. */
export const SHORTCUT_SECTIONS: ReadonlyArray<{ title: string; shortcuts: readonly Shortcut[] }> = [
  { title: "Move around", shortcuts: ["next", "previous", "left", "right", "up", "down", "open", "close"] },
  { title: "The board", shortcuts: ["fit", "filter", "help"] },
  { title: "Answer from the board", shortcuts: ["allow", "deny", "option"] },
];

/** Keys that work in one place only, listed on the sheet after the board's own. */
export const FIELD_SHORTCUTS: readonly ShortcutHelp[] = [
  { keys: ["Ctrl", "Enter"], what: "In New agent's first prompt: start the agent" },
  { keys: ["Enter"], what: "In the filter: show the matching sessions" },
  { keys: ["Esc"], what: "In the filter or New agent: close it" },
];
