/**
 * Family C `usageMetadata` ↔ IR usage. C counts cached tokens inside `promptTokenCount` (as the IR
 * does) and leaves thoughts out of `candidatesTokenCount` (the IR includes them in outputTokens).
 */
import { emptyUsage, isJsonObject, type Usage } from '../../ir/index.ts';
import type { GammaUsageMetadata } from './wire.ts';

function count(metadata: Record<string, unknown>, key: string): number {
  const value = metadata[key];
  return typeof value === 'number' && Number.isFinite(value) ? value : 0;
}

export function decodeUsage(metadata: unknown): Usage {
  if (!isJsonObject(metadata)) return { ...emptyUsage };
  const thoughts = metadata.thoughtsTokenCount;
  const usage: Usage = {
    // Tool-use prompt tokens are prompt tokens the caller pays for (the family bills them as input).
    inputTokens: count(metadata, 'promptTokenCount') + count(metadata, 'toolUsePromptTokenCount'),
    outputTokens: count(metadata, 'candidatesTokenCount') + count(metadata, 'thoughtsTokenCount'),
    cacheReadTokens: count(metadata, 'cachedContentTokenCount'),
    cacheWriteTokens: 0,
  };
  if (typeof thoughts === 'number') usage.reasoningTokens = thoughts;
  return usage;
}

export function encodeUsage(usage: Usage): GammaUsageMetadata {
  const reasoning = usage.reasoningTokens ?? 0;
  const metadata: GammaUsageMetadata = {
    promptTokenCount: usage.inputTokens,
    candidatesTokenCount: Math.max(0, usage.outputTokens - reasoning),
    totalTokenCount: usage.inputTokens + usage.outputTokens,
  };
  if (usage.cacheReadTokens > 0) metadata.cachedContentTokenCount = usage.cacheReadTokens;
  if (reasoning > 0) metadata.thoughtsTokenCount = reasoning;
  return metadata;
}
