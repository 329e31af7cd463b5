import { describe, expect, it } from "vitest";
import { isTypingTarget, optionOf, shortcutFor } from "./shortcuts";

const key = (k: string, extra: Partial<KeyboardEvent> = {}) =>
  ({ key: k, shiftKey: false, ctrlKey: false, metaKey: false, altKey: false, repeat: false, target: document.body, ...extra }) as KeyboardEvent;

describe("canvas shortcuts", () => {
  it("maps n, Shift+n, Enter, f and Escape", () => {
    expect(shortcutFor(key("n"))).toBe("next");
    expect(shortcutFor(key("N", { shiftKey: true }))).toBe("previous");
    expect(shortcutFor(key("Enter"))).toBe("open");
    expect(shortcutFor(key("f"))).toBe("fit");
    expect(shortcutFor(key("Escape"))).toBe("close");
    expect(shortcutFor(key("x"))).toBeNull();
  });

  it("opens the filter with Ctrl+K, Cmd+K and /, and moves the selection with the arrows", () => {
    expect(shortcutFor(key("k", { ctrlKey: true }))).toBe("filter");
    expect(shortcutFor(key("k", { metaKey: true }))).toBe("filter");
    expect(shortcutFor(key("/"))).toBe("filter");
    expect(shortcutFor(key("ArrowLeft"))).toBe("left");
    expect(shortcutFor(key("ArrowRight"))).toBe("right");
    expect(shortcutFor(key("ArrowUp"))).toBe("up");
    expect(shortcutFor(key("ArrowDown"))).toBe("down");
    expect(shortcutFor(key("ArrowDown", { ctrlKey: true }))).toBeNull();
  });

  it("answers with a and d, once per press, and leaves Ctrl+A, Shift+A and Cmd+D alone", () => {
    expect(shortcutFor(key("a"))).toBe("allow");
    expect(shortcutFor(key("d"))).toBe("deny");
    expect(shortcutFor(key("a", { repeat: true }))).toBeNull();
    expect(shortcutFor(key("d", { repeat: true }))).toBeNull();
    expect(shortcutFor(key("a", { ctrlKey: true }))).toBeNull();
    expect(shortcutFor(key("A", { shiftKey: true }))).toBeNull();
    expect(shortcutFor(key("d", { metaKey: true }))).toBeNull();
  });

  it("picks an option with 1–9, once per press, and leaves Shift and Ctrl digits alone", () => {
    expect(shortcutFor(key("1"))).toBe("option");
    expect(shortcutFor(key("9"))).toBe("option");
    expect(optionOf(key("2"))).toBe(2);
    expect(shortcutFor(key("0"))).toBeNull();
    expect(optionOf(key("0"))).toBeNull();
    expect(shortcutFor(key("2", { repeat: true }))).toBeNull();
    expect(shortcutFor(key("2", { ctrlKey: true }))).toBeNull();
    expect(shortcutFor(key("2", { shiftKey: true }))).toBeNull();
  });

  it("leaves modified keys to the system (Ctrl+N, Cmd+F)", () => {
    expect(shortcutFor(key("n", { ctrlKey: true }))).toBeNull();
    expect(shortcutFor(key("f", { metaKey: true }))).toBeNull();
  });

  it("leaves Enter on a button to the button", () => {
    const button = document.createElement("button");
    expect(shortcutFor(key("Enter", { target: button }))).toBeNull();
  });

  it("knows when the user is typing", () => {
    const input = document.createElement("input");
    const area = document.createElement("textarea");
    const div = document.createElement("div");
    expect(isTypingTarget(input)).toBe(true);
    expect(isTypingTarget(area)).toBe(true);
    expect(isTypingTarget(div)).toBe(false);
    expect(isTypingTarget(null)).toBe(false);
  });
});
