import { beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { act, fireEvent, render, screen, within } from "@testing-library/react";
import { ReactFlowProvider } from "@xyflow/react";
import { Canvas } from "../board/Canvas";
import { ShortcutSheet, ShortcutsButton } from "./ShortcutSheet";
import { SHORTCUT_HELP, SHORTCUT_SECTIONS, shortcutFor, type Shortcut } from "../shared/shortcuts";
import { selectSelectedId, useSwitchboard } from "../state/store";
import { installFlowStubs } from "../test/flow";
import { makeSession } from "../test/sessions";
import { useShortcutSheet } from "../state/shortcutSheet";
import { initialData } from "../state/data";

vi.mock("../shared/ipc", () => ({
  clearUnread: vi.fn(() => Promise.resolve()),
  removeSession: vi.fn(() => Promise.resolve()),
  setPosition: vi.fn(() => Promise.resolve()),
  sessionHistory: vi.fn(() => Promise.resolve([])),
}));

beforeAll(installFlowStubs);

beforeEach(() => {
  useSwitchboard.setState(initialData());
  useShortcutSheet.setState({ open: false });
});

function board() {
  useSwitchboard.getState().applySnapshot([
    makeSession({ sessionId: "ask", status: "waiting", question: "Which DB?" }),
    makeSession({ sessionId: "work", status: "working" }),
  ]);
  return render(
    <>
      <ShortcutsButton />
      <ReactFlowProvider>
        <Canvas />
      </ReactFlowProvider>
      <ShortcutSheet />
    </>,
  );
}

const press = (key: string, extra: KeyboardEventInit = {}) => act(() => void fireEvent.keyDown(document.body, { key, ...extra }));

describe("the ? sheet", () => {
  it("lists every shortcut the board knows, each once, with what it does", () => {
    const listed = SHORTCUT_SECTIONS.flatMap((section) => section.shortcuts);
    expect([...listed].sort()).toEqual((Object.keys(SHORTCUT_HELP) as Shortcut[]).sort());
    expect(new Set(listed).size).toBe(listed.length);
    for (const help of Object.values(SHORTCUT_HELP)) expect(help.what.length).toBeGreaterThan(10);
  });

  it("? opens it over the board; Esc closes it", () => {
    expect(shortcutFor({ key: "?", shiftKey: true, ctrlKey: false, metaKey: false, altKey: false, repeat: false, target: document.body })).toBe("help");
    board();
    expect(screen.queryByTestId("shortcut-sheet")).toBeNull();
    press("?", { shiftKey: true });
    const sheet = screen.getByTestId("shortcut-sheet");
    expect(within(sheet).getAllByTestId("shortcut-row").length).toBeGreaterThanOrEqual(Object.keys(SHORTCUT_HELP).length);
    expect(sheet).toHaveTextContent("Next session that needs you");
    expect(sheet).toHaveTextContent("Allow the selected session's permission");
    press("Escape");
    expect(screen.queryByTestId("shortcut-sheet")).toBeNull();
  });

  it("a click outside it closes it; a click inside does not", () => {
    board();
    fireEvent.click(screen.getByTestId("shortcuts-toggle"));
    fireEvent.mouseDown(screen.getByTestId("shortcut-sheet"));
    expect(screen.getByTestId("shortcut-sheet")).toBeInTheDocument();
    fireEvent.mouseDown(screen.getByTestId("shortcut-backdrop"));
    expect(screen.queryByTestId("shortcut-sheet")).toBeNull();
  });

  it("while it is open, the board's keys do nothing behind it", () => {
    board();
    press("?", { shiftKey: true });
    press("n");
    expect(selectSelectedId(useSwitchboard.getState())).toBeNull();
    press("Escape");
    press("n");
    expect(selectSelectedId(useSwitchboard.getState())).toBe("ask");
  });
});

describe("the legend", () => {
  it("names every status colour the board uses with its word, and every mark", async () => {
    const { LEGEND_TONES, LEGEND_MARKS } = await import("./ShortcutSheet");
    board();
    act(() => useShortcutSheet.getState().setOpen(true));
    const legend = screen.getByTestId("legend");
    const tones = within(legend).getAllByTestId("legend-tone");
    // Every tone a card can show (status.ts's Tone) has a row with its word beside the colour.
    const all = ["working", "waiting", "blocked", "done", "error", "interrupted", "idle"];
    expect(tones.map((row) => [...row.classList].find((c) => c.startsWith("tone-")))).toEqual(
      expect.arrayContaining(all.map((tone) => `tone-${tone}`)),
    );
    expect(tones).toHaveLength(LEGEND_TONES.length);
    for (const { word } of LEGEND_TONES) expect(legend).toHaveTextContent(word);
    const marks = within(legend).getAllByTestId("legend-mark");
    expect(marks).toHaveLength(LEGEND_MARKS.length);
    for (const words of ["Unread", "stripe", "context window", "uncommitted changes", "minimap"]) {
      expect(legend).toHaveTextContent(words);
    }
  });
});
