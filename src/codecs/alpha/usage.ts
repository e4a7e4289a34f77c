/** A `usage` ↔ canonical usage (brief: prompt_tokens = all input, cache reads and writes included). */
import { isJsonObject, type Usage } from '../../ir/index.ts';
import type { AlphaUsage } from './wire.ts';

function count(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : 0;
}

/** Tolerant: OpenAI-compatible servers omit the detail objects or send nulls. */
export function decodeUsage(value: unknown): Usage {
  if (!isJsonObject(value))
    return { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 };
  const prompt = isJsonObject(value.prompt_tokens_details) ? value.prompt_tokens_details : undefined;
  const completion = isJsonObject(value.completion_tokens_details)
    ? value.completion_tokens_details
    : undefined;
  const usage: Usage = {
    inputTokens: count(value.prompt_tokens),
    outputTokens: count(value.completion_tokens),
    // The spec's flat `cached_tokens` is the fallback for servers that follow it instead of the SDK.
    cacheReadTokens: count(prompt?.cached_tokens ?? value.cached_tokens),
    cacheWriteTokens: count(prompt?.cache_write_tokens),
  };
  if (typeof completion?.reasoning_tokens === 'number')
    usage.reasoningTokens = count(completion.reasoning_tokens);
  return usage;
}

export function encodeUsage(usage: Usage): AlphaUsage {
  const encoded: AlphaUsage = {
    prompt_tokens: usage.inputTokens,
    completion_tokens: usage.outputTokens,
    total_tokens: usage.inputTokens + usage.outputTokens,
    prompt_tokens_details: { cached_tokens: usage.cacheReadTokens },
  };
  if (usage.cacheWriteTokens > 0) encoded.prompt_tokens_details.cache_write_tokens = usage.cacheWriteTokens;
  if (usage.reasoningTokens !== undefined) {
    encoded.completion_tokens_details = { reasoning_tokens: usage.reasoningTokens };
  }
  if (usage.cacheReadTokens > 0) encoded.cached_tokens = usage.cacheReadTokens;
  return encoded;
}
