import { useSwitchboard, countInCategory } from "./store";
import type { Category } from "./status";
import { LogoMark } from "./icons";

const CHIPS: Array<{ category: Category; label: (n: number) => string; hint: string }> = [
  { category: "needs", label: (n) => (n === 1 ? "needs you" : "need you"), hint: "Has a question or needs permission" },
  { category: "working", label: () => "working", hint: "Working" },
  { category: "done", label: () => "done", hint: "Done" },
];

function CountChip({ category, label, hint }: (typeof CHIPS)[number]) {
  const count = useSwitchboard((s) => countInCategory(s.sessions, category));
  const anyBlocked = useSwitchboard(
    (s) => category === "needs" && Object.values(s.sessions).some((x) => !x.ended && x.status === "blocked"),
  );
  const cycle = useSwitchboard((s) => s.cycle);
  const classes = ["count-chip", `chip-${category}`];
  if (count === 0) classes.push("is-zero");
  if (anyBlocked) classes.push("has-blocked");
  return (
    <button
      type="button"
      className={classes.join(" ")}
      data-testid={`count-${category}`}
      data-count={count}
      disabled={count === 0}
      title={count > 0 ? `${hint}: click to step through them` : hint}
      onClick={() => cycle(category)}
    >
      <span className="chip-dot" aria-hidden="true" />
      <span className="chip-count">{count}</span>{" "}
      <span className="chip-label">{label(count)}</span>
    </button>
  );
}

export function Header() {
  const hasSessions = useSwitchboard((s) => s.order.length > 0);
  return (
    <header className="app-header">
      <div className="brand">
        <LogoMark className="brand-mark" />
        <span className="brand-name">Switchboard</span>
      </div>
      <nav className="counts" aria-label="Sessions by state">
        {CHIPS.map((chip, i) => (
          <span key={chip.category} className="count-slot">
            {i > 0 && (
              <span className="count-sep" aria-hidden="true">
                ·
              </span>
            )}
            <CountChip {...chip} />
          </span>
        ))}
      </nav>
      <div className="key-hints" aria-label="Keyboard shortcuts" hidden={!hasSessions}>
        <span>
          <kbd>n</kbd> next that needs you
        </span>
        <span>
          <kbd>↵</kbd> mark read
        </span>
        <span>
          <kbd>f</kbd> fit
        </span>
      </div>
    </header>
  );
}
