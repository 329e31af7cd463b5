// Connections: whether each agent CLI is wired to Switchboard (`switchboard doctor` in the app),
// which of them wait for Allow / Deny from the board, and the remotes followed. The header button
// opens a drawer with the switches and remotes on top and every check below, each failure with
// the one command that fixes it; the empty state shows the same checks.
import { useEffect, useState } from "react";
import { create } from "zustand";
import type { AgentReport } from "./bindings/AgentReport";
import type { Check } from "./bindings/Check";
import { AGENTS } from "./bindings/agents";
import type { DoctorReport } from "./bindings/DoctorReport";
import type { Outcome } from "./bindings/Outcome";
import type { Session } from "./bindings/Session";
import type { Settings } from "./bindings/Settings";
import type { Tone } from "./status";
import { CloseIcon, PlugIcon, StatusGlyph } from "./icons";
import * as ipc from "./ipc";
import { PathText } from "./jump";
import { ReachSettings } from "./Reach";
import { RemotesSettings } from "./Remotes";
import { useSavedSettings, type SavedSettings } from "./settings";
import { useSwitchboard } from "./store";

type ConnectionsState = {
  open: boolean;
  report: DoctorReport | null;
  checking: boolean;
  error: string | null;
  setOpen(open?: boolean): void;
  /** Runs the checks again (they take a moment: each CLI's `--version`, a test event). */
  refresh(): Promise<void>;
};

export const useConnections = create<ConnectionsState>((set, get) => ({
  open: false,
  report: null,
  checking: false,
  error: null,
  setOpen(open) {
    const next = open ?? !get().open;
    set({ open: next });
    if (next) void get().refresh();
  },
  async refresh() {
    if (get().checking) return;
    set({ checking: true, error: null });
    try {
      const report = await ipc.doctor();
      set({ report, checking: false });
    } catch (err) {
      set({ error: ipc.toIpcError(err).message, checking: false });
    }
  },
}));

const TONE: Record<Outcome, Tone> = { pass: "done", fail: "error", skip: "idle" };
const WORD: Record<Outcome, string> = { pass: "OK", fail: "Needs fixing", skip: "Skipped" };

type CopyState = "idle" | "copied" | "failed";

/** Copies `text` when clicked, and says whether it did: the clipboard can be missing, or refuse
 * (a window without the focus), and then the text is there to select. */
export function CopyButton({ text, testId = "copy-fix" }: { text: string; testId?: string }) {
  const [state, setState] = useState<CopyState>("idle");
  useEffect(() => {
    if (state === "idle") return;
    const timer = setTimeout(() => setState("idle"), state === "copied" ? 1500 : 4000);
    return () => clearTimeout(timer);
  }, [state]);
  const copy = () => {
    const clipboard = navigator.clipboard;
    if (!clipboard) {
      setState("failed");
      return;
    }
    clipboard.writeText(text).then(
      () => setState("copied"),
      (err: unknown) => {
        console.warn("copy failed", err);
        setState("failed");
      },
    );
  };
  return (
    <button
      type="button"
      className={state === "failed" ? "copy-button is-failed" : "copy-button"}
      data-testid={testId}
      data-copy={state}
      aria-label={`Copy: ${text}`}
      title={state === "failed" ? "The clipboard is not available: select the text and copy it" : "Copy to the clipboard"}
      onClick={copy}
    >
      {state === "copied" ? "Copied" : state === "failed" ? "Not copied" : "Copy"}
    </button>
  );
}

/** Text whose `backticked` parts are commands: shown as code, never with the backticks. A fix
 * with no backticks is a command as a whole (`whole`). A path breaks before a `/`, not inside a name. */
function WithCode({ text, whole = false }: { text: string; whole?: boolean }) {
  const parts = text.split("`");
  if (parts.length < 3) {
    return whole ? (
      <code>
        <PathText text={text} />
      </code>
    ) : (
      <PathText text={text} />
    );
  }
  return (
    <>
      {parts.map((part, i) =>
        i % 2 === 1 ? (
          <code key={i}>
            <PathText text={part} />
          </code>
        ) : (
          part && (
            <span key={i}>
              <PathText text={part} />
            </span>
          )
        ),
      )}
    </>
  );
}

/** What the copy button copies: the first `backticked` command of a fix, else the fix itself. */
export function commandOf(fix: string): string {
  const parts = fix.split("`");
  return parts.length >= 3 ? parts[1]! : fix;
}

/** A passing check is quiet (its detail beside the label, in grey); a failing or
 * skipped one says all it found, and what fixes it. */
function CheckRow({ check }: { check: Check }) {
  const brief = check.outcome === "pass";
  return (
    <li
      className={`check-row tone-${TONE[check.outcome]}${brief ? " is-brief" : ""}`}
      data-testid="check"
      data-check={check.id}
      data-outcome={check.outcome}
    >
      <StatusGlyph tone={TONE[check.outcome]} className="check-glyph" />
      <div className="check-body">
        <span className="check-label">{check.label}</span>
        <span className="visually-hidden">: {WORD[check.outcome]}</span>
        <span className="check-detail" title={check.detail}>
          <WithCode text={check.detail} />
        </span>
        {check.fix && (
          <div className="check-fix">
            <span className="check-command" data-testid="check-fix">
              <WithCode text={check.fix} whole />
            </span>
            <CopyButton text={commandOf(check.fix)} />
          </div>
        )}
      </div>
    </li>
  );
}

function AgentSection({ agent }: { agent: AgentReport }) {
  return (
    <section className="check-group" data-testid="check-group" data-agent={agent.agent}>
      <h3 className="check-heading" title={agent.version ? `${agent.name} ${agent.version}` : agent.name}>
        <span className="check-name">{agent.name}</span>
        {agent.version && <span className="check-version">{agent.version}</span>}
      </h3>
      <ul className="check-list">
        {agent.checks.map((check) => (
          <CheckRow key={check.id} check={check} />
        ))}
      </ul>
    </section>
  );
}

/** Every check of a report, grouped by CLI, then Switchboard itself. */
export function DoctorChecks({ report }: { report: DoctorReport }) {
  return (
    <div className="doctor-checks" data-testid="doctor-checks" data-ok={report.ok}>
      {report.agents.map((agent) => (
        <AgentSection key={agent.agent} agent={agent} />
      ))}
      <section className="check-group" data-testid="check-group" data-agent="switchboard">
        <h3 className="check-heading">
          <span className="check-name">Switchboard</span>
        </h3>
        <ul className="check-list">
          {report.switchboard.map((check) => (
            <CheckRow key={check.id} check={check} />
          ))}
        </ul>
      </section>
    </div>
  );
}

function failures(report: DoctorReport | null): number {
  if (!report) return 0;
  return [...report.agents.flatMap((a) => a.checks), ...report.switchboard].filter((c) => c.outcome === "fail")
    .length;
}

/** One line: all good, or how many checks need fixing. */
export function DoctorSummary({ report }: { report: DoctorReport }) {
  const failed = failures(report);
  return (
    <p className={failed ? "doctor-summary is-failing" : "doctor-summary is-ok"} data-testid="doctor-summary">
      {report.ok ? "Everything is connected." : report.summary}
    </p>
  );
}

/** The remotes whose link is down (a session of theirs is unreachable), by name, one per line. */
function unreachableHosts(sessions: Record<string, Session>): string {
  const hosts = new Set<string>();
  for (const session of Object.values(sessions)) {
    if (session.unreachableSince != null) hosts.add(session.host);
  }
  return [...hosts].sort().join("\n");
}

/** "devbox is unreachable", "devbox and gpu are unreachable", "a, b and c are unreachable". */
function unreachableWords(hosts: string[]): string {
  const names = hosts.length > 1 ? `${hosts.slice(0, -1).join(", ")} and ${hosts[hosts.length - 1]}` : hosts[0];
  return `${names} ${hosts.length > 1 ? "are" : "is"} unreachable`;
}

/** The header button. A dot marks failing checks once they have been run, and a remote that is down. */
export function ConnectionsToggle() {
  const open = useConnections((s) => s.open);
  const failed = useConnections((s) => failures(s.report));
  const setOpen = useConnections((s) => s.setOpen);
  // A string, so that the selector's answer is equal while the same remotes are down.
  const down = useSwitchboard((s) => unreachableHosts(s.sessions));
  const hosts = down === "" ? [] : down.split("\n");
  const alerts = [
    failed > 0 ? `${failed} failing` : null,
    hosts.length > 0 ? unreachableWords(hosts) : null,
  ].filter((a): a is string => a != null);
  const hint = "Which agent CLIs are connected, and how to fix the ones that are not";
  const why = [
    failed > 0 ? `${failed} ${failed === 1 ? "check" : "checks"} failing` : null,
    hosts.length > 0 ? `${unreachableWords(hosts)}: ${hosts.length > 1 ? "their" : "its"} sessions show what was last known` : null,
  ].filter((a): a is string => a != null);
  return (
    <button
      type="button"
      className={open ? "header-action is-on" : "header-action"}
      data-testid="connections-toggle"
      aria-pressed={open}
      aria-controls="connections-drawer"
      title={why.length > 0 ? `${why.join("; ")}. ${hint}` : hint}
      onClick={() => setOpen()}
    >
      <PlugIcon />
      Connections
      {alerts.length > 0 && (
        <span className="connections-alert" data-testid="connections-alert" role="img" aria-label={alerts.join("; ")} />
      )}
    </button>
  );
}

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

export const MIN_HOLD_SECONDS = 5;
export const MAX_HOLD_SECONDS = 120;

/** Opt-in per CLI: its permission prompts wait for Allow / Deny on the board. */
export function DecideSettings({ settings }: { settings: SavedSettings }) {
  const { saved, saving } = settings;
  const [hold, setHold] = useState("");
  const [error, setError] = useState<string | null>(null);

  // Show the wait as saved: once read, and after each save (by this section or another).
  const savedHold = saved?.holdSeconds;
  useEffect(() => {
    if (savedHold != null) setHold(String(savedHold));
  }, [savedHold]);

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

/** The switches, the remotes and reach: all save the one settings file, so they share what was read. */
function SettingsSections() {
  const settings = useSavedSettings();
  return (
    <>
      <DecideSettings settings={settings} />
      <RemotesSettings settings={settings} />
      <ReachSettings settings={settings} />
    </>
  );
}

/**
 * One scroll area for the whole panel: the title, the summary and Check again stay on top; the
 * switches come first (a few lines, so they are in view at once), then every check.
 */
export function ConnectionsDrawer() {
  const open = useConnections((s) => s.open);
  const report = useConnections((s) => s.report);
  const checking = useConnections((s) => s.checking);
  const error = useConnections((s) => s.error);
  const setOpen = useConnections((s) => s.setOpen);
  const refresh = useConnections((s) => s.refresh);
  if (!open) return null;
  return (
    <aside
      className="connections-drawer"
      id="connections-drawer"
      data-testid="connections-drawer"
      aria-label="Connections"
      aria-busy={checking}
    >
      <div className="connections-top">
        <div className="drawer-head">
          <h2 className="drawer-title">Connections</h2>
          <button
            type="button"
            className="icon-button"
            aria-label="Close Connections"
            title="Close"
            onClick={() => setOpen(false)}
          >
            <CloseIcon />
          </button>
        </div>
        <div className="connections-actions">
          {report ? <DoctorSummary report={report} /> : <span />}
          <button
            type="button"
            className="header-action"
            data-testid="connections-refresh"
            disabled={checking}
            onClick={() => void refresh()}
          >
            {checking ? "Checking…" : "Check again"}
          </button>
        </div>
      </div>
      {error && (
        <p className="install-result is-error connections-error" role="alert">
          {error}
        </p>
      )}
      <SettingsSections />
      <section className="connections-checks" aria-label="Checks">
        <p className="drawer-note">
          The same checks as <code>switchboard doctor</code>. Each failing one shows what fixes it.
        </p>
        {report ? (
          <DoctorChecks report={report} />
        ) : (
          !error && <p className="drawer-note">{checking ? "Checking…" : "Not available outside the app."}</p>
        )}
      </section>
    </aside>
  );
}
