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

/**
 * A header value: fixed-point, no exponent, trailing zeros trimmed (e.g. `0.000123`): what
 * `toFixed(10).replace(/\.?0+$/, '') || '0'` gives, without a regular expression's replace on every
 * answer (the trailing zeros and the point before them cut by hand).
 */
export function formatUsd(value: number): string {
  const fixed = value.toFixed(10);
  let end = fixed.length;
  while (end > 0 && fixed.charCodeAt(end - 1) === zero) end--;
  if (end === fixed.length) return fixed;
  if (end > 0 && fixed.charCodeAt(end - 1) === point) end--;
  return end === 0 ? '0' : fixed.slice(0, end);
}

const zero = 0x30;
const point = 0x2e;
