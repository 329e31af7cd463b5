// Connections: whether each agent CLI is wired to Switchboard (`switchboard doctor` in the app),
// which of them wait for Allow / Deny from the board, and the remotes followed. The header button
// opens a drawer with the switches and remotes on top and every check below, each failure with
// the one command that fixes it; the empty state shows the same checks.
import { useEffect, useState } from "react";
import { create } from "zustand";
import type { AgentReport } from "./bindings/AgentReport";
import type { Check } from "./bindings/Check";
import type { DoctorReport } from "./bindings/DoctorReport";
import type { Outcome } from "./bindings/Outcome";
import type { Session } from "./bindings/Session";
import type { Tone } from "./status";
import { CloseIcon, PlugIcon, StatusGlyph } from "./icons";
import * as ipc from "./ipc";
import { PathText } from "./jump";
import { ReachSettings } from "./Reach";
import { RemotesSettings } from "./Remotes";
import { DecideSettings } from "./DecideSettings";
import { useSavedSettings } from "./settings";
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
