// Every display rule lives once, in Rust (core/src/view.rs): the web view draws the badge, chip,
// rank and reason Rust stamps on each session. This fails when a status word or a rank number
// turns up in the web view's own code again, where it would drift from Rust's.
import { describe, expect, it } from "vitest";

// Every production source of the web view, as text (Vite reads them; generated bindings and test
// helpers aside).
const SOURCES = Object.entries(
  import.meta.glob<string>(["./**/*.{ts,tsx}", "!./bindings/**", "!./test/**", "!./**/*.test.{ts,tsx}"], {
    query: "?raw",
    import: "default",
    eager: true,
  }),
);

/** Source text without comments, so a comment may still name what Rust stamps. */
function code(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/(^|[^:"'`])\/\/.*$/gm, "$1");
}

const STATUS_WORDS = [
  /["'`](Working|Done|Error|Idle|Starting|Interrupted|Finished)["'`]/,
  /Needs permission|Has a question|Waiting for your answer|ended with an error|Using \$\{/,
];
const RANK_NUMBERS = /\b(boardRank|rank)\s*(===?|!==?|<=?|>=?)\s*\d/;

describe("the web view decides nothing about status", () => {
  it("finds the web view's sources", () => {
    expect(SOURCES.length).toBeGreaterThan(20);
  });

  it("names no status word of its own", () => {
    const found = SOURCES.flatMap(([path, text]) =>
      code(text)
        .split("\n")
        .filter((line) => STATUS_WORDS.some((word) => word.test(line)))
        .map((line) => `${path}: ${line.trim()}`),
    );
    expect(found).toEqual([]);
  });

  it("compares no rank with a number of its own", () => {
    const found = SOURCES.flatMap(([path, text]) =>
      code(text)
        .split("\n")
        .filter((line) => RANK_NUMBERS.test(line))
        .map((line) => `${path}: ${line.trim()}`),
    );
    expect(found).toEqual([]);
  });
});
