import "./Header.css";
import { useState } from "react";
import { useSwitchboard } from "../state/store";
import type { Category } from "../shared/status";
import { ArchiveIcon, LogoMark } from "../shared/icons";
import * as ipc from "../shared/ipc";
import { ConnectionsToggle } from "../settings/Connections";
import { NewAgentButton } from "./NewAgent";
import { ShortcutsButton } from "./ShortcutSheet";
import { useClockText } from "../state/clock";
import { dayCost, formatCost, localMidnight } from "../shared/usage";
import { countEnded, countInCategory } from "../state/sessionLists";

const CHIPS: Array<{ category: Category; label: (n: number) => string; hint: string }> = [
  { category: "needs", label: (n) => (n === 1 ? "needs you" : "need you"), hint: "Asking you: a question, a permission or a failed turn" },
  { category: "working", label: () => "working", hint: "Busy: nothing for you yet" },
  { category: "done", label: () => "done", hint: "Finished their turn" },
];

function CountChip({ category, label, hint }: (typeof CHIPS)[number]) {
  const count = useSwitchboard((s) => countInCategory(s.sessions, category));
  const anyBlocked = useSwitchboard(
    (s) =>
      category === "needs" &&
      Object.values(s.sessions).some((x) => !x.ended && !x.archived && x.status === "blocked"),
  );
  const active = useSwitchboard((s) => s.filter.category === category);
  const toggleCategory = useSwitchboard((s) => s.toggleCategory);
  const classes = ["count-chip", `chip-${category}`];
  if (count === 0) classes.push("is-zero");
  if (anyBlocked) classes.push("has-blocked");
  if (active) classes.push("is-active");
  return (
    <button
      type="button"
      className={classes.join(" ")}
      data-testid={`count-${category}`}
      data-count={count}
      aria-pressed={active}
      // An active chip stays clickable at zero, so the filter can be turned off.
      disabled={count === 0 && !active}
      title={active ? `${hint}: click to show every session` : count > 0 ? `${hint}: click to show only these` : hint}
      onClick={() => toggleCategory(category)}
    >
      <span className="chip-dot" aria-hidden="true" />
      <span className="chip-count">{count}</span>{" "}
      <span className="chip-label">{label(count)}</span>
    </button>
  );
}

/** "Older (N)": sessions silent for a day; opens the drawer that lists them. */
function OlderToggle() {
  const count = useSwitchboard((s) => s.older.length);
  const open = useSwitchboard((s) => s.olderOpen);
  const setOlderOpen = useSwitchboard((s) => s.setOlderOpen);
  if (count === 0) return null;
  return (
    <button
      type="button"
      className={open ? "header-action is-on" : "header-action"}
      data-testid="older-toggle"
      data-count={count}
      aria-pressed={open}
      aria-controls="older-drawer"
      title="Sessions silent for a day or more; they come back to the canvas when they report"
      onClick={() => setOlderOpen()}
    >
      <ArchiveIcon />
      Older ({count})
    </button>
  );
}

/** "Clear ended (N)": removes every ended session (the Older ones too), as Rust counts them. */
function ClearEnded() {
  const count = useSwitchboard((s) => countEnded(s.sessions));
  const olderEnded = useSwitchboard((s) => s.older.filter((id) => s.sessions[id]?.ended).length);
  const [busy, setBusy] = useState(false);
  if (count === 0) return null;
  const clear = () => {
    setBusy(true);
    ipc
      .removeEnded()
      .catch((err: unknown) => console.warn("remove_ended failed", err))
      .finally(() => setBusy(false));
  };
  const hint =
    olderEnded > 0
      ? `Remove the ${count} ended sessions (${olderEnded} of them in Older)`
      : count === 1
        ? "Remove the ended session"
        : `Remove the ${count} ended sessions`;
  return (
    <button
      type="button"
      className="header-action"
      data-testid="clear-ended"
      data-count={count}
      disabled={busy}
      title={hint}
      onClick={clear}
    >
      Clear ended ({count})
    </button>
  );
}

/**
 * "$1.23 today": the estimated cost of the sessions active since local midnight; its tooltip
 * gives each project's share. Nothing until one of today's sessions has a price.
 */
export function TodayCost() {
  const sessions = useSwitchboard((s) => s.sessions);
  const projects = useSwitchboard((s) => s.projects);
  // Today's sessions change when a session does, or at midnight: not on every tick.
  const midnight = Number(useClockText((now) => String(localMidnight(now))));
  const today = dayCost(sessions, projects, midnight);
  if (today.priced === 0) return null;
  const lines = today.projects.map((p) => `${p.label}  ${formatCost(p.micros)}`);
  if (today.unpriced > 0) {
    lines.push(`${today.unpriced} more ${today.unpriced === 1 ? "session has" : "sessions have"} no price in pricing.json`);
  }
  const title = `Estimated cost of the sessions active today (prices from pricing.json):\n${lines.join("\n")}`;
  return (
    <span className="today-cost" data-testid="today-cost" data-micros={today.micros} title={title}>
      <span className="today-figure">{formatCost(today.micros)}</span> today
    </span>
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
      <TodayCost />
      <div className="header-actions">
        <NewAgentButton />
        <OlderToggle />
        <ClearEnded />
        <ConnectionsToggle />
        <ShortcutsButton />
      </div>
      <div className="key-hints" aria-label="Keyboard shortcuts" hidden={!hasSessions}>
        <span>
          <kbd>n</kbd> next that needs you
        </span>
        <span title="Enter opens the selected session (and marks it read); Enter again jumps to its terminal">
          <kbd>↵</kbd> open, then terminal
        </span>
        <span>
          <kbd>f</kbd> fit
        </span>
        <span>
          <kbd>/</kbd> filter
        </span>
      </div>
    </header>
  );
}
