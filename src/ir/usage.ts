/** Token usage, normalised once here so every family maps to and from the same meaning. */
export interface Usage {
  /** All prompt tokens, cache reads and writes included (A `prompt_tokens`, C `promptTokenCount`). */
  inputTokens: number;
  /** All output tokens, reasoning included. */
  outputTokens: number;
  /** Prompt tokens served from a cache (A `cached_tokens`, B `cache_read_input_tokens`, C `cachedContentTokenCount`). */
  cacheReadTokens: number;
  /** Prompt tokens written to a cache (B `cache_creation_input_tokens`). */
  cacheWriteTokens: number;
  /** Reasoning tokens, a subset of outputTokens, when the family reports them. */
  reasoningTokens?: number;
}

export const emptyUsage: Readonly<Usage> = Object.freeze({
  inputTokens: 0,
  outputTokens: 0,
  cacheReadTokens: 0,
  cacheWriteTokens: 0,
});

/** Uncached, unwritten prompt tokens: B's `input_tokens`. */
export function uncachedInputTokens(usage: Usage): number {
  return Math.max(0, usage.inputTokens - usage.cacheReadTokens - usage.cacheWriteTokens);
}

export function addUsage(left: Usage, right: Usage): Usage {
  const sum: Usage = {
    inputTokens: left.inputTokens + right.inputTokens,
    outputTokens: left.outputTokens + right.outputTokens,
    cacheReadTokens: left.cacheReadTokens + right.cacheReadTokens,
    cacheWriteTokens: left.cacheWriteTokens + right.cacheWriteTokens,
  };
  if (left.reasoningTokens !== undefined || right.reasoningTokens !== undefined) {
    sum.reasoningTokens = (left.reasoningTokens ?? 0) + (right.reasoningTokens ?? 0);
  }
  return sum;
}
