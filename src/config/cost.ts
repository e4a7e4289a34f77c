/** What a request cost, from its usage and the model's catalog prices (USD per 1M tokens). */
import type { ModelPricing } from './catalog.ts';
import { uncachedInputTokens, type Usage } from '../ir/index.ts';

export function costUsd(usage: Usage, pricing: ModelPricing): number {
  const micro =
    uncachedInputTokens(usage) * pricing.inputPerMillion +
    usage.cacheReadTokens * pricing.cacheReadPerMillion +
    usage.cacheWriteTokens * pricing.cacheWritePerMillion +
    usage.outputTokens * pricing.outputPerMillion;
  return micro / 1_000_000;
}

/** A header value: fixed-point, no exponent, trailing zeros trimmed (e.g. `0.000123`). */
export function formatUsd(value: number): string {
  return value.toFixed(10).replace(/\.?0+$/, '') || '0';
}
