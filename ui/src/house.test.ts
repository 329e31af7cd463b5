// Issue 46: no production file of the web view over 450 lines — TypeScript, TSX or CSS — so each
// stays one job a reader can hold (the Rust side has the same test, tests/docs.rs). Tests, test
// helpers and the generated bindings may be longer.
import { describe, expect, it } from "vitest";

const MAX_LINES = 450;

const FILES = Object.entries(
  import.meta.glob<string>(
    ["./**/*.{ts,tsx,css}", "!./bindings/**", "!./test/**", "!./**/*.test.{ts,tsx}"],
    { query: "?raw", import: "default", eager: true },
  ),
);

describe("the web view's files", () => {
  it("are found, stylesheets among them", () => {
    expect(FILES.length).toBeGreaterThan(40);
    expect(FILES.some(([path]) => path.endsWith(".css"))).toBe(true);
  });

  it(`are each at most ${MAX_LINES} lines`, () => {
    const long = FILES.map(([path, text]) => [path, text.split("\n").length] as const).filter(
      ([, lines]) => lines > MAX_LINES,
    );
    expect(long).toEqual([]);
  });
});
