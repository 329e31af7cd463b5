// The details panel's "Usage" section (issue 25): what the session spent (model, tokens, context,
// estimated cost), what its agent holds (CPU, memory, processes, uptime) and where it works
// (branch, worktree, uncommitted changes). Each row only when its figure is known; the section
// only when one is. An agent idle for hours while holding memory is pointed at "End agent".
import "./UsagePanel.css";
import type { ReactNode } from "react";
import type { Session } from "../bindings/Session";
import { canEnd } from "../shared/ending";
import { ContextBar } from "../card/UsageOnCard";
import { ClockText } from "../card/ClockText";
import { shortenHome } from "../shared/sessionLabels";
import {
  contextLine,
  formatBytes,
  formatCost,
  formatCpu,
  formatTokens,
  formatUptime,
  holdingText,
  holdsIdle,
} from "../shared/usage";

/** The panel's "End agent…" button, when it shows one (a local agent still running). */
function endAgentButton(from: HTMLElement | null): HTMLButtonElement | null {
  return from?.closest('[data-testid="details-panel"]')?.querySelector<HTMLButtonElement>('[data-testid="end-agent"]') ?? null;
}

function Row({ label, testId, title, children }: { label: string; testId: string; title?: string; children: ReactNode }) {
  return (
    <>
      <dt>{label}</dt>
      <dd data-testid={testId} title={title}>
        {children}
      </dd>
    </>
  );
}

const exact = (n: number) => n.toLocaleString("en-US");

export function UsagePanel({ session }: { session: Session }) {
  const { usage, footprint, git } = session;
  if (!usage && !footprint && !git) return null;
  const holding = holdsIdle(session);
  const cost = formatCost(usage?.costMicros);
  // The panel has an End agent control only for a local agent still running.
  const endable = canEnd(session);

  return (
    <section className="details-usage" data-testid="details-usage">
      <h3 className="details-subhead">Usage</h3>
      {holding && (
        <p className="usage-holding" data-testid="details-holding" role="note">
          <span>
            <ClockText text={(now) => holdingText(session, now)} />
          </span>
          {endable && (
            <>
              {" — "}
              <button
                type="button"
                className="link-button"
                data-testid="holding-end"
                title="Ask to end this agent (you confirm first)"
                onClick={(event) => endAgentButton(event.currentTarget)?.click()}
              >
                End agent?
              </button>
            </>
          )}
        </p>
      )}
      <dl className="usage-list">
        {usage && (
          <>
            {usage.model && (
              <Row label="Model" testId="usage-model">
                {usage.model}
              </Row>
            )}
            <Row
              label="Tokens"
              testId="usage-tokens"
              title={`Input ${exact(usage.inputTokens)} · cache read ${exact(usage.cacheReadTokens)} · cache write ${exact(usage.cacheWriteTokens)} · output ${exact(usage.outputTokens)} · ${exact(usage.requests)} ${usage.requests === 1 ? "response" : "responses"}`}
            >
              {formatTokens(usage.inputTokens + usage.cacheWriteTokens)} in · {formatTokens(usage.cacheReadTokens)} cached ·{" "}
              {formatTokens(usage.outputTokens)} out
            </Row>
            <Row label="Context" testId="usage-context">
              <span className="usage-context">
                <ContextBar usage={usage} place="panel" />
                <span>{contextLine(usage)}</span>
              </span>
            </Row>
            <Row label="Cost" testId="usage-cost">
              {cost != null ? (
                <>
                  <span className="usage-figure">{cost}</span> <span className="usage-aside">estimated</span>
                </>
              ) : (
                <span className="usage-aside">no price for {usage.model ?? "this model"}</span>
              )}
            </Row>
          </>
        )}
        {footprint && (
          <>
            <Row label="CPU" testId="usage-cpu" title="Of one core, over the last few seconds">
              {formatCpu(footprint.cpuTenths)}
            </Row>
            <Row label="Memory" testId="usage-memory" title={`${exact(footprint.rssBytes)} bytes resident`}>
              {formatBytes(footprint.rssBytes)} · {footprint.processes} {footprint.processes === 1 ? "process" : "processes"}
            </Row>
            <Row label="Running" testId="usage-uptime" title={new Date(footprint.startedAt).toLocaleString()}>
              <ClockText text={(now) => formatUptime(footprint.startedAt, now)} />
            </Row>
          </>
        )}
        {git && (
          <>
            <Row label="Branch" testId="usage-branch">
              {git.branch ?? <span className="usage-aside">detached HEAD</span>}
              {git.dirty && (
                <span className="usage-dirty" data-testid="usage-dirty">
                  {" "}
                  · <span className="dirty-dot" aria-hidden="true" /> uncommitted changes
                </span>
              )}
            </Row>
            {git.worktree && (
              <Row label="Worktree" testId="usage-worktree" title={git.worktree}>
                {shortenHome(git.worktree)}
              </Row>
            )}
          </>
        )}
      </dl>
      {usage && (
        <p className="details-note usage-note">
          {cost != null
            ? "Costs are estimates from pricing.json in Switchboard's state folder — edit it to match your plan."
            : "Add the model to pricing.json in Switchboard's state folder to see an estimated cost."}
        </p>
      )}
    </section>
  );
}
