/**
 * Converse usage ↔ IR usage. Converse's `inputTokens` excludes cache reads and writes (as B's
 * does; `totalTokens` = input + output + both cache counts), so decoding adds them back.
 */
import { isJsonObject, uncachedInputTokens, type Usage } from '../../ir/index.ts';
import type { ConverseUsage } from './wire.ts';

function count(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : 0;
}

export function decodeUsage(value: unknown): Usage {
  if (!isJsonObject(value))
    return { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 };
  const cacheReadTokens = count(value.cacheReadInputTokens);
  const cacheWriteTokens = count(value.cacheWriteInputTokens);
  return {
    inputTokens: count(value.inputTokens) + cacheReadTokens + cacheWriteTokens,
    outputTokens: count(value.outputTokens),
    cacheReadTokens,
    cacheWriteTokens,
  };
}

export function encodeUsage(usage: Usage): ConverseUsage {
  const wire: ConverseUsage = {
    inputTokens: uncachedInputTokens(usage),
    outputTokens: usage.outputTokens,
    totalTokens: usage.inputTokens + usage.outputTokens,
  };
  if (usage.cacheReadTokens > 0) wire.cacheReadInputTokens = usage.cacheReadTokens;
  if (usage.cacheWriteTokens > 0) wire.cacheWriteInputTokens = usage.cacheWriteTokens;
  return wire;
}
