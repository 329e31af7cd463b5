// Settings and Diagnostics, one drawer with a tab each. Settings: which CLIs wait for Allow / Deny
// from the board, the remotes followed, how a session reaches the user. Diagnostics: whether each
// agent CLI is wired to Switchboard (`switchboard doctor` in the app), every check with the one
// command that fixes a failure, and Check again. The header button opens Settings; a blocked card
// and the first run open the tab they are about.
import "./Connections.css";
import { useEffect, useLayoutEffect, useRef, useState } from "react";
import type { AgentReport } from "../bindings/AgentReport";
import type { Check } from "../bindings/Check";
import type { DoctorReport } from "../bindings/DoctorReport";
import type { Outcome } from "../bindings/Outcome";
import type { Session } from "../bindings/Session";
import type { Tone } from "../shared/status";
import { CloseIcon, PlugIcon, StatusGlyph } from "../shared/icons";
import { PathText } from "../shared/jump";
import { DecideSettings } from "./DecideSettings";
import { RemotesSettings } from "./Remotes";
// After the two above: Reach restyles their controls (its sheet must come after theirs).
import { ReachSettings } from "../reach/Reach";
import { AppearanceSettings } from "./Appearance";
import { useSavedSettings } from "../state/settings";
import { useSwitchboard } from "../state/store";
import { useConnections, type DrawerTab } from "../state/connections";

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

/**
 * The label a check is shown with. Whether a CLI is there reads as "Installed" / "Not installed"
 * (as Rust labels it now; an older instance said "On PATH" whatever it found).
 */
export function checkLabel(check: Check): string {
  if (!check.id.endsWith(".path")) return check.label;
  if (check.outcome === "pass") return "Installed";
  return check.fix ? "Not installed" : "Not on PATH";
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
        <span className="check-label">{checkLabel(check)}</span>
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

/** What the report says as a whole: all good, checks failing, or no agent CLI here at all. */
export function reportState(report: DoctorReport): "ok" | "failing" | "none" {
  if (failures(report) > 0) return "failing";
  if (!report.agents.some((agent) => agent.found)) return "none";
  return report.ok ? "ok" : "failing";
}

/** One line: all good, or how many checks need fixing, or that no CLI is installed (not a success). */
export function DoctorSummary({ report }: { report: DoctorReport }) {
  const state = reportState(report);
  return (
    <p className={`doctor-summary is-${state}`} data-testid="doctor-summary" data-state={state}>
      {state === "ok" ? "Everything is connected." : report.summary}
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

/** The header button: opens Settings. A dot marks failing checks once they have been run, and a remote that is down. */
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
  const hint = "Settings (Allow / Deny, remotes, reach) and Diagnostics (which agent CLIs are connected, and how to fix the ones that are not)";
  const why = [
    failed > 0 ? `${failed} ${failed === 1 ? "check" : "checks"} failing: see Diagnostics` : null,
    hosts.length > 0 ? `${unreachableWords(hosts)}: ${hosts.length > 1 ? "their" : "its"} sessions show what was last known` : null,
  ].filter((a): a is string => a != null);
  return (
    <button
      type="button"
      className={open ? "header-action is-on" : "header-action"}
      data-testid="connections-toggle"
      aria-pressed={open}
      // Only while it is there: an id that names nothing is an error to assistive tech.
      aria-controls={open ? "connections-drawer" : undefined}
      title={why.length > 0 ? `${why.join("; ")}. ${hint}` : hint}
      onClick={() => setOpen()}
    >
      <PlugIcon />
      Settings
      {alerts.length > 0 && (
        <span className="connections-alert" data-testid="connections-alert" role="img" aria-label={alerts.join("; ")}>
          {/* Not by colour alone: a mark that reads as a warning. */}
          !
        </span>
      )}
    </button>
  );
}

/** The switches, the remotes and reach (they save the one settings file, so they share what was read), and the look. */
function SettingsSections() {
  const settings = useSavedSettings();
  return (
    <>
      {/* The look first: the one setting every user meets (issue 44.5). */}
      <AppearanceSettings />
      <DecideSettings settings={settings} />
      <RemotesSettings settings={settings} />
      <ReachSettings settings={settings} />
    </>
  );
}

/** "Checked at 14:05:12": Check again's answer, so that a run that changed nothing still shows it ran. */
function checkedWhen(at: number): string {
  const d = new Date(at);
  const two = (n: number) => String(n).padStart(2, "0");
  return `Checked at ${two(d.getHours())}:${two(d.getMinutes())}:${two(d.getSeconds())}`;
}

/** The Diagnostics tab: the summary, Check again with what it did, and every check. */
function Diagnostics() {
  const report = useConnections((s) => s.report);
  const checking = useConnections((s) => s.checking);
  const checkedAt = useConnections((s) => s.checkedAt);
  const error = useConnections((s) => s.error);
  const refresh = useConnections((s) => s.refresh);
  return (
    <section className="connections-checks" aria-label="Diagnostics" aria-busy={checking} data-testid="diagnostics">
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
      <p className="drawer-note checked-at" role="status" data-testid="checked-at">
        {checking ? "Running every check…" : checkedAt != null ? checkedWhen(checkedAt) : ""}
      </p>
      {error && (
        <p className="install-result is-error connections-error" role="alert">
          {error}
        </p>
      )}
      <p className="drawer-note">
        The same checks as <code>switchboard doctor</code>. Each failing one shows what fixes it.
      </p>
      {report ? (
        <div className={checking ? "diagnostics-list is-checking" : "diagnostics-list"}>
          <DoctorChecks report={report} />
        </div>
      ) : (
        !error && <p className="drawer-note">{checking ? "Checking…" : "Not available outside the app."}</p>
      )}
    </section>
  );
}

const TABS: ReadonlyArray<{ tab: DrawerTab; label: string }> = [
  { tab: "settings", label: "Settings" },
  { tab: "diagnostics", label: "Diagnostics" },
];

/**
 * One scroll area for the whole panel: the title and the tabs stay on top; Settings (a few lines
 * of switches first) or Diagnostics (the summary, Check again, every check) below.
 */
export function ConnectionsDrawer() {
  const open = useConnections((s) => s.open);
  const tab = useConnections((s) => s.tab);
  const failed = useConnections((s) => failures(s.report));
  const setOpen = useConnections((s) => s.setOpen);
  const setTab = useConnections((s) => s.setTab);
  const drawer = useRef<HTMLElement>(null);
  // Each tab opens at its top (Diagnostics' headline, Settings' first section), not where the
  // other one was scrolled to.
  useLayoutEffect(() => {
    if (drawer.current) drawer.current.scrollTop = 0;
  }, [tab, open]);
  if (!open) return null;
  return (
    <aside
      ref={drawer}
      className="connections-drawer"
      // Esc closes it wherever the focus is in it (a switch, a field).
      onKeyDown={(event) => {
        if (event.key !== "Escape") return;
        event.preventDefault();
        event.stopPropagation();
        setOpen(false);
      }} id="connections-drawer" data-testid="connections-drawer" data-tab={tab} aria-label="Settings and diagnostics">
      <div className="connections-top">
        <div className="drawer-head">
          <div className="drawer-tabs" role="tablist" aria-label="Settings and diagnostics">
            {TABS.map(({ tab: id, label }) => (
              <button
                key={id}
                type="button"
                role="tab"
                id={`drawer-tab-${id}`}
                className={tab === id ? "drawer-tab is-on" : "drawer-tab"}
                data-testid={`drawer-tab-${id}`}
                aria-selected={tab === id}
                aria-controls={`drawer-panel-${id}`}
                onClick={() => setTab(id)}
              >
                {label}
                {id === "diagnostics" && failed > 0 && (
                  <span className="drawer-tab-count" aria-label={`, ${failed} failing`}>
                    {failed}
                  </span>
                )}
              </button>
            ))}
          </div>
          <button type="button" className="icon-button" aria-label="Close Settings" title="Close" onClick={() => setOpen(false)}>
            <CloseIcon />
          </button>
        </div>
      </div>
      <div role="tabpanel" id={`drawer-panel-${tab}`} aria-labelledby={`drawer-tab-${tab}`}>
        {tab === "settings" ? <SettingsSections /> : <Diagnostics />}
      </div>
    </aside>
  );
}
