// Issue 37: text contrast ≥ 4.5:1 in both themes, the unread dot not the selection's colour,
// blocked and error told apart — read from the stylesheet's own variables.
import { describe, expect, it } from "vitest";
import { stylesheets } from "./test/stylesheets";

async function themes(): Promise<{ light: Record<string, string>; dark: Record<string, string> }> {
  const css = await stylesheets();
  const vars = (block: string) => Object.fromEntries([...block.matchAll(/(--[\w-]+):\s*(#[0-9a-f]{6})\s*;/gi)].map((m) => [m[1]!, m[2]!.toLowerCase()]));
  const light = vars(css.slice(css.indexOf(":root {"), css.indexOf("}", css.indexOf(":root {"))));
  const darkStart = css.indexOf(':root[data-theme="dark"] {');
  const dark = { ...light, ...vars(css.slice(darkStart, css.indexOf("}", darkStart))) };
  return { light, dark };
}

function luminance(hex: string): number {
  const [r, g, b] = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16) / 255).map((c) => (c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4));
  return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
}

/** `ink` drawn at `alpha` over `ground`, as a colour. */
function blend(ink: string, ground: string, alpha: number): string {
  const channel = (hex: string, i: number) => parseInt(hex.slice(i, i + 2), 16);
  return `#${[1, 3, 5]
    .map((i) => Math.round(channel(ink, i) * alpha + channel(ground, i) * (1 - alpha)).toString(16).padStart(2, "0"))
    .join("")}`;
}

export function contrast(a: string, b: string): number {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (hi! + 0.05) / (lo! + 0.05);
}

describe("legible in both themes (issue 37)", () => {
  it("secondary text and every status word reach 4.5:1 on the card and the board", async () => {
    for (const [name, theme] of Object.entries(await themes())) {
      const inks = ["--text", "--text-2", "--text-3", ...["working", "waiting", "blocked", "done", "error", "interrupted", "idle"].map((t) => `--c-${t}-ink`)];
      for (const ink of inks) {
        for (const ground of ["--surface", "--bg"]) {
          expect(contrast(theme[ink]!, theme[ground]!), `${name}: ${ink} on ${ground}`).toBeGreaterThanOrEqual(4.5);
        }
      }
    }
  });

  it("text made fainter with opacity still reaches 4.5:1, as the eye sees it (issue 44.7)", async () => {
    const css = await stylesheets();
    const { light, dark } = await themes();
    // Every rule that both colours text with a variable and lowers its opacity.
    const rules = [...css.matchAll(/([^{}]+)\{([^{}]*)\}/g)]
      .map(([, selector, body]) => ({
        selector: selector!.trim(),
        ink: /(?:^|;|\s)color:\s*var\((--[\w-]+)\)/.exec(body!)?.[1],
        opacity: Number(/(?:^|;|\s)opacity:\s*([\d.]+)/.exec(body!)?.[1] ?? "1"),
      }))
      // (Opacity 0 is hidden, not faint: shown on hover or focus.)
      .filter((rule) => rule.ink != null && rule.opacity > 0 && rule.opacity < 1);
    for (const [name, theme] of Object.entries({ light, dark })) {
      for (const rule of rules) {
        const ground = theme["--surface"]!;
        const seen = blend(theme[rule.ink!]!, ground, rule.opacity);
        expect(contrast(seen, ground), `${name}: ${rule.selector} (${rule.ink} at ${rule.opacity})`).toBeGreaterThanOrEqual(4.5);
      }
    }
  });

  it("a primary button's words read on the accent (issue 44: axe-core)", async () => {
    for (const [name, theme] of Object.entries(await themes())) {
      expect(contrast(theme["--accent-ink"]!, theme["--accent"]!), `${name}: --accent-ink on --accent`).toBeGreaterThanOrEqual(4.5);
    }
  });

  it("the unread dot is not the selection's colour, and blocked is not error", async () => {
    for (const theme of Object.values(await themes())) {
      expect(theme["--unread"]).toBeDefined();
      expect(theme["--unread"]).not.toBe(theme["--accent"]);
      expect(theme["--c-error"]).not.toBe(theme["--c-blocked"]);
      expect(theme["--c-error-ink"]).not.toBe(theme["--c-blocked-ink"]);
    }
  });
});
