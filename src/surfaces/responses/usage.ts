/** Canonical usage ↔ the Responses `usage` object (input includes cached tokens, as on chat). */
import { isJsonObject, type Usage } from '../../ir/index.ts';
import type { ResponsesUsage } from './wire.ts';

export function encodeUsage(usage: Usage): ResponsesUsage {
  return {
    input_tokens: usage.inputTokens,
    input_tokens_details: { cached_tokens: usage.cacheReadTokens },
    output_tokens: usage.outputTokens,
    output_tokens_details: { reasoning_tokens: usage.reasoningTokens ?? 0 },
    total_tokens: usage.inputTokens + usage.outputTokens,
  };
}

function count(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : 0;
}

export function decodeUsage(value: unknown): Usage {
  if (!isJsonObject(value))
    return { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 };
  const input = isJsonObject(value.input_tokens_details) ? value.input_tokens_details : {};
  const output = isJsonObject(value.output_tokens_details) ? value.output_tokens_details : {};
  const usage: Usage = {
    inputTokens: count(value.input_tokens),
    outputTokens: count(value.output_tokens),
    cacheReadTokens: count(input.cached_tokens),
    cacheWriteTokens: 0,
  };
  if (typeof output.reasoning_tokens === 'number') usage.reasoningTokens = count(output.reasoning_tokens);
  return usage;
}
