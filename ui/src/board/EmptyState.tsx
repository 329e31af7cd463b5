import "./EmptyState.css";
import { useEffect, useState } from "react";
import * as ipc from "../shared/ipc";
import { LogoMark } from "../shared/icons";
import { CopyButton, commandOf } from "../settings/Connections";
import type { DoctorReport } from "../bindings/DoctorReport";
import { AGENTS } from "../bindings/agents";
import { DecideSettings } from "../settings/DecideSettings";
import { useSavedSettings } from "../state/settings";
import { useConnections } from "../state/connections";

/** "Claude Code, Codex CLI and Gemini CLI": the CLIs Switchboard connects, from Rust's table. */
function cliList(): string {
  const names = AGENTS.filter((row) => row.installs).map((row) => row.name);
  return names.length < 2 ? names.join("") : `${names.slice(0, -1).join(", ")} and ${names[names.length - 1]}`;
}

/** Connect in two steps: what would change in which file (a dry run), then the change itself. */
type InstallState =
  | { phase: "idle" }
  | { phase: "previewing" }
  | { phase: "preview"; plan: string }
  | { phase: "running" }
  | { phase: "done"; summary: string }
  | { phase: "failed"; message: string };

export const INSTALL_COMMAND = "switchboard install";

/** Each CLI not on this machine, with the command that installs it (its check's fix). */
export function installSteps(report: DoctorReport): Array<{ agent: string; name: string; command: string }> {
  return report.agents.flatMap((agent) => {
    if (agent.found) return [];
    const fix = agent.checks.find((check) => check.id.endsWith(".path"))?.fix;
    return fix ? [{ agent: agent.agent, name: agent.name, command: commandOf(fix) }] : [];
  });
}

/** `olderCount`: sessions in the Older list. With some, the CLIs are clearly connected already. */
export function EmptyState({ olderCount = 0 }: { olderCount?: number }) {
  const [install, setInstall] = useState<InstallState>({ phase: "idle" });
  const report = useConnections((s) => s.report);
  const checking = useConnections((s) => s.checking);
  const refresh = useConnections((s) => s.refresh);
  const quiet = olderCount > 0;
  const noneHere = report != null && !report.agents.some((agent) => agent.found);

  // The checks say what is still missing; with sessions in Older the CLIs clearly work.
  useEffect(() => {
    if (!quiet) void refresh();
  }, [quiet, refresh]);

  const preview = async () => {
    setInstall({ phase: "previewing" });
    try {
      setInstall({ phase: "preview", plan: await ipc.installHooks("all", true) });
    } catch (err) {
      setInstall({ phase: "failed", message: ipc.toIpcError(err).message });
    }
  };

  const connect = async () => {
    setInstall({ phase: "running" });
    try {
      const summary = await ipc.installHooks("all");
      setInstall({ phase: "done", summary });
    } catch (err) {
      setInstall({ phase: "failed", message: ipc.toIpcError(err).message });
    }
    void refresh();
  };
  const busy = install.phase === "running" || install.phase === "previewing";

  if (quiet) {
    return (
      <section className="empty-state" data-testid="empty-state">
        <div className="empty-card">
          <LogoMark className="empty-mark" />
          <h1 className="empty-title">All quiet</h1>
          <p className="empty-lede">
            No agent has reported for a day.{" "}
            {olderCount === 1 ? "One earlier session is" : `${olderCount} earlier sessions are`} under{" "}
            <strong>Older</strong>; each comes back here when it reports again.
          </p>
          <WaitingFor what="the next agent" />
        </div>
      </section>
    );
  }

  return (
    <section className="empty-state" data-testid="empty-state">
      <div className="empty-card">
        <LogoMark className="empty-mark" />
        <h1 className="empty-title">No agents yet</h1>
        <p className="empty-lede">
          Switchboard shows every {cliList()} session on this machine and tells you the moment
          one of them needs you.
        </p>
        {report && noneHere ? (
          // Nothing to connect yet: the next step is installing one (connecting would fail).
          <div className="empty-install" data-testid="empty-install">
            <p className="empty-step">First install an agent CLI. Any of these, from a terminal:</p>
            <ul className="empty-install-list">
              {installSteps(report).map((step) => (
                <li key={step.agent} className="empty-install-row" data-testid="install-step" data-agent={step.agent}>
                  <span className="empty-install-name">{step.name}</span>
                  <code className="empty-install-command">{step.command}</code>
                  <CopyButton text={step.command} testId={`copy-install-${step.agent}`} />
                </li>
              ))}
            </ul>
            <p className="empty-step">
              Then connect it with <code>{INSTALL_COMMAND}</code>, or come back here.
            </p>
            <button type="button" className="header-action" data-testid="empty-check-again" disabled={checking} onClick={() => void refresh()}>
              {checking ? "Checking…" : "I installed one: check again"}
            </button>
          </div>
        ) : (
          <>
            <p className="empty-step">Connect your CLIs once, from a terminal:</p>
            <pre className="empty-command" data-testid="install-command">
              <code>{INSTALL_COMMAND}</code>
            </pre>
            {install.phase === "preview" ? (
              <div className="empty-preview" data-testid="install-preview">
                <p className="empty-step">Connecting changes these files (a backup of each is kept):</p>
                <pre className="empty-plan" data-testid="install-plan">{install.plan}</pre>
                <div className="empty-actions">
                  <button type="button" className="primary-button" data-testid="install-confirm" onClick={connect}>
                    Connect
                  </button>
                  <button type="button" className="header-action" data-testid="install-cancel" onClick={() => setInstall({ phase: "idle" })}>
                    Not now
                  </button>
                </div>
              </div>
            ) : (
              <div className="empty-actions">
                <span className="empty-or">or</span>
                <button type="button" className="primary-button" data-testid="install-hooks" onClick={preview} disabled={busy}>
                  {install.phase === "running" ? "Connecting…" : install.phase === "previewing" ? "Looking…" : "Connect my CLIs"}
                </button>
              </div>
            )}
          </>
        )}
        {install.phase === "done" && (
          <>
            <p className="install-result is-ok" role="status" data-testid="install-result">
              {install.summary}
            </p>
            <AfterConnect />
          </>
        )}
        {install.phase === "failed" && (
          <p className="install-result is-error" role="alert" data-testid="install-result">
            {install.message}
          </p>
        )}
        {report && (
          // The checks themselves are in Diagnostics: listed once, not here again.
          <p className="empty-diagnostics" aria-busy={checking}>
            {report.summary && !noneHere ? `${report.ok ? "Everything is connected." : report.summary} ` : ""}
            <button type="button" className="link-button" data-testid="empty-open-diagnostics" onClick={() => useConnections.getState().show("diagnostics")}>
              See every check in Diagnostics
            </button>
          </p>
        )}
        <WaitingFor what="the first agent" />
      </div>
    </section>
  );
}

/** Once connected: should the board answer their permission prompts? One switch and one sentence per CLI. */
function AfterConnect() {
  const settings = useSavedSettings();
  return (
    <div className="empty-after" data-testid="after-connect">
      <p className="empty-step">
        One more choice: when an agent asks permission for a tool, it can wait for Allow / Deny here instead of in
        its terminal. Off by default; change it any time in Settings.
      </p>
      <DecideSettings settings={settings} />
    </div>
  );
}

/** The quiet pulse that says the board is listening. */
function WaitingFor({ what }: { what: string }) {
  return (
    <p className="empty-waiting">
      <span className="waiting-pulse" aria-hidden="true" />
      Waiting for {what}…
    </p>
  );
}
