/**
 * B usage ↔ IR usage. B's `input_tokens` excludes cache reads and writes; the IR's `inputTokens`
 * includes them, so decoding adds the three and encoding subtracts them again.
 */
import type { Usage } from '../../ir/index.ts';
import { isJsonObject, uncachedInputTokens } from '../../ir/index.ts';
import type { BetaUsage } from './wire.ts';

/** A non-negative count, or undefined when absent / null / not a number. */
export function count(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : undefined;
}

/** Reads `output_tokens_details.thinking_tokens` (1.x) when present. */
export function thinkingTokens(usage: Record<string, unknown>): number | undefined {
  const details = usage.output_tokens_details;
  return isJsonObject(details) ? count(details.thinking_tokens) : undefined;
}

export function decodeUsage(value: unknown): Usage {
  if (!isJsonObject(value))
    return { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 };
  const cacheReadTokens = count(value.cache_read_input_tokens) ?? 0;
  const cacheWriteTokens = count(value.cache_creation_input_tokens) ?? 0;
  const usage: Usage = {
    inputTokens: (count(value.input_tokens) ?? 0) + cacheReadTokens + cacheWriteTokens,
    outputTokens: count(value.output_tokens) ?? 0,
    cacheReadTokens,
    cacheWriteTokens,
  };
  const reasoning = thinkingTokens(value);
  if (reasoning !== undefined) usage.reasoningTokens = reasoning;
  return usage;
}

export function encodeUsage(usage: Usage): BetaUsage {
  return withThinkingTokens(
    {
      input_tokens: uncachedInputTokens(usage),
      output_tokens: usage.outputTokens,
      cache_creation_input_tokens: usage.cacheWriteTokens,
      cache_read_input_tokens: usage.cacheReadTokens,
    },
    usage,
  );
}

/** Thinking tokens (part of `output_tokens`) as SDK 1.x reads them, when there were any. */
export function withThinkingTokens<T extends object>(wire: T, usage: Usage): T {
  const thinking = usage.reasoningTokens ?? 0;
  return thinking > 0 ? { ...wire, output_tokens_details: { thinking_tokens: thinking } } : wire;
}
