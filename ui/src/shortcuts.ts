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
  | "option";

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
