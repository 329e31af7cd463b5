// The usage a full card shows (issue 25), quietly: the branch beside the folder, the cost at the
// right of that line, context use as a thin bar along the card's foot, and a mark on an agent
// idle for hours while holding memory. The compact forms show none of it.
import "./UsageOnCard.css";
import type { GitInfo } from "../bindings/GitInfo";
import type { Usage } from "../bindings/Usage";
import { BranchIcon } from "../shared/icons";
import { contextLine, contextPercent, contextWarns, formatCost, formatTokens } from "../shared/usage";

/** "main" with a dot when the tree has uncommitted changes; nothing when the branch is not known. */
export function CardBranch({ git }: { git: GitInfo | null }) {
  if (!git?.branch) return null;
  const tip = `On branch ${git.branch}${git.worktree ? ` (worktree ${git.worktree})` : ""}${git.dirty ? " · uncommitted changes" : ""}`;
  return (
    <span className="node-branch" data-testid="node-branch" data-dirty={git.dirty ? "true" : "false"} title={tip}>
      <BranchIcon />
      <span className="node-branch-name">{git.branch}</span>
      {git.dirty && (
        <span className="dirty-dot" role="img" aria-label="uncommitted changes" />
      )}
    </span>
  );
}

/** The estimated cost at the right of the meta line; nothing when the model has no price. */
export function CardCost({ usage }: { usage: Usage | null }) {
  const cost = formatCost(usage?.costMicros);
  if (!usage || cost == null) return null;
  const tip = `Estimated cost ${cost} · ${formatTokens(usage.inputTokens + usage.cacheReadTokens + usage.cacheWriteTokens)} in, ${formatTokens(usage.outputTokens)} out${usage.model ? ` · ${usage.model}` : ""}`;
  return (
    <span className="node-cost" data-testid="node-cost" data-micros={usage.costMicros ?? undefined} title={tip}>
      {cost}
    </span>
  );
}

/**
 * Context use as a bar: on the card a thin line along its foot, in the panel a short gauge
 * beside the words. Amber from {@link CONTEXT_WARN_PERCENT}. Nothing when the window is not known.
 */
export function ContextBar({ usage, place }: { usage: Usage | null; place: "card" | "panel" }) {
  const percent = contextPercent(usage);
  if (!usage || percent == null) return null;
  const warn = contextWarns(percent);
  const line = contextLine(usage);
  return (
    <div
      className={`context-bar is-${place}${warn ? " is-warning" : ""}`}
      data-testid={place === "card" ? "node-context" : "details-context-bar"}
      data-percent={percent}
      role="meter"
      aria-label="Context used"
      aria-valuemin={0}
      aria-valuemax={100}
      aria-valuenow={percent}
      aria-valuetext={line}
      title={`Context: ${formatTokens(usage.contextTokens)} of ${formatTokens(usage.contextWindow ?? 0)} tokens (${percent} %)${warn ? " — nearly full" : ""}`}
    >
      <span className="context-fill" style={{ width: `${Math.max(percent, 1)}%` }} />
    </div>
  );
}
