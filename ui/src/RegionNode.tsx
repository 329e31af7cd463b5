import { memo } from "react";
import type { Node, NodeProps } from "@xyflow/react";
import type { Region } from "./layout";

export type RegionData = Pick<Region, "kind" | "label" | "path" | "count" | "needsYou">;
export type RegionNodeType = Node<RegionData, "region">;

/** A labelled area behind a group of nodes: the "Needs you" lane, or one project. */
export const RegionNode = memo(function RegionNode({ data }: NodeProps<RegionNodeType>) {
  const { kind, label, path, count, needsYou } = data;
  return (
    <div className={`canvas-region region-${kind}`} data-testid="region" data-kind={kind}>
      <div className="region-label" title={path ?? undefined}>
        <span className="region-name">{label}</span>
        <span className="region-count">{count}</span>
        {path && path !== label && <span className="region-path">{path}</span>}
        {needsYou > 0 && <span className="region-needs">+{needsYou} in Needs you</span>}
      </div>
    </div>
  );
});
