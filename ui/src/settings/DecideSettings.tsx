// Connections → "Answer permissions from Switchboard": opt in per CLI (its row in Rust's table says
// whether it can be, and what its screen does meanwhile) and how long a permission waits.
import "./DecideSettings.css";
import { useState } from "react";
import { MAX_HOLD_SECONDS, MIN_HOLD_SECONDS } from "../bindings/limits";
import { AGENTS } from "../bindings/agents";
import type { Settings } from "../bindings/Settings";
import * as ipc from "../shared/ipc";
import type { SavedSettings } from "../state/settings";

/**
 * Each installable CLI (its row in Rust's table): whether its permission prompts can wait for an
 * answer from Switchboard, and what its terminal shows meanwhile — or why they cannot.
 */
export const DECIDE_AGENTS: ReadonlyArray<{ agent: string; name: string; note: string; unsupported: boolean }> = AGENTS.filter(
  (row) => row.installs,
).map((row) => ({
  agent: row.id,
  name: row.name,
  note: (row.decides ? row.heldNote : row.whyNotDecided) ?? "",
  unsupported: !row.decides,
}));


/** Opt-in per CLI: its permission prompts wait for Allow / Deny on the board. */
export function DecideSettings({ settings }: { settings: SavedSettings }) {
  const { saved, saving } = settings;
  const [hold, setHold] = useState("");
  const [error, setError] = useState<string | null>(null);

  // Show the wait as saved: once read, and after each save (by this section or another).
  const savedHold = saved?.holdSeconds;
  const [shownHold, setShownHold] = useState<number | undefined>(undefined);
  if (savedHold !== shownHold) {
    setShownHold(savedHold);
    if (savedHold != null) setHold(String(savedHold));
  }

  const save = async (next: Settings) => {
    setError(null);
    try {
      const kept = await settings.save(next);
      setHold(String(kept.holdSeconds));
    } catch (err) {
      setError(ipc.toIpcError(err).message);
      if (saved) setHold(String(saved.holdSeconds));
    }
  };

  const toggle = (agent: string, on: boolean) => {
    if (!saved) return;
    const decide = on ? [...saved.decide.filter((a) => a !== agent), agent] : saved.decide.filter((a) => a !== agent);
    void save({ ...saved, decide });
  };

  const commitHold = () => {
    if (!saved) return;
    const seconds = Math.round(Number(hold));
    if (hold.trim() === "" || !Number.isFinite(seconds)) {
      setHold(String(saved.holdSeconds));
      return;
    }
    if (seconds !== saved.holdSeconds) void save({ ...saved, holdSeconds: seconds });
  };

  return (
    <section className="decide-settings" data-testid="decide-settings" aria-busy={saving}>
      <h3 className="check-heading">
        <span className="check-name">Answer permissions from Switchboard</span>
      </h3>
      <ul className="decide-settings-agents">
        {DECIDE_AGENTS.map(({ agent, name, note, unsupported }) => (
          <li key={agent} className={unsupported ? "decide-setting-row is-unsupported" : "decide-setting-row"} title={`${name}: ${note}`}>
            <label className="decide-setting">
              <input
                type="checkbox"
                data-testid={`decide-setting-${agent}`}
                aria-describedby={`decide-note-${agent}`}
                checked={!unsupported && (saved?.decide.includes(agent) ?? false)}
                disabled={unsupported || !saved || saving}
                onChange={(event) => toggle(agent, event.target.checked)}
              />
              <span className="decide-setting-name">{name}</span>
            </label>
            <span className="decide-setting-note" id={`decide-note-${agent}`}>
              {note}
            </span>
          </li>
        ))}
      </ul>
      <label className="decide-setting decide-hold">
        Wait up to
        <input
          type="number"
          data-testid="decide-hold-seconds"
          min={MIN_HOLD_SECONDS}
          max={MAX_HOLD_SECONDS}
          step={1}
          value={hold}
          disabled={!saved || saving}
          onChange={(event) => setHold(event.target.value)}
          onBlur={commitHold}
          onKeyDown={(event) => {
            if (event.key === "Enter") commitHold();
          }}
        />
        seconds
      </label>
      <p className="decide-settings-note">
        When on, that CLI&apos;s permission prompt waits {saved ? `up to ${saved.holdSeconds} s` : "a while"} for Allow / Deny here or in the notification;
        answering in the terminal still works, and if Switchboard is closed nothing waits.
      </p>
      {(error ?? settings.loadError) && (
        <p className="install-result is-error decide-settings-error" role="alert" data-testid="decide-settings-error">
          {error ?? settings.loadError}
        </p>
      )}
    </section>
  );
}

