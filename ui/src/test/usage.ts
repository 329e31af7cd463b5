import type { Usage } from "../bindings/Usage";

/** A session's usage as the meter would report it (1 200 tokens of claude-sonnet); override what the test is about. */
export function makeUsage(fields: Partial<Usage> = {}): Usage {
  return {
    model: "claude-sonnet-4-5",
    inputTokens: 1_000,
    outputTokens: 200,
    cacheReadTokens: 0,
    cacheWriteTokens: 0,
    contextTokens: 1_200,
    contextWindow: 200_000,
    costMicros: 6_000,
    requests: 1,
    ...fields,
  };
}
