/**
 * Family A rate-limit headers: `x-ratelimit-{limit,remaining,reset}-{requests,tokens}`, the reset
 * as a Go-style duration until the window is full again (`"1s"`, `"6m0s"`, `"120ms"`).
 */
import { headerNumber } from '../surface.ts';
import type { RateLimitState } from '../surface.ts';

export function rateLimitHeaders(state: RateLimitState): Record<string, string> {
  return {
    'x-ratelimit-limit-requests': headerNumber(state.requests.limit),
    'x-ratelimit-remaining-requests': headerNumber(state.requests.remaining),
    'x-ratelimit-reset-requests': goDuration(state.requests.resetMs),
    'x-ratelimit-limit-tokens': headerNumber(state.tokens.limit),
    'x-ratelimit-remaining-tokens': headerNumber(state.tokens.remaining),
    'x-ratelimit-reset-tokens': goDuration(state.tokens.resetMs),
  };
}

/** Go's `time.Duration.String()` at millisecond precision: `0s`, `120ms`, `1.2s`, `1m0s`, `1h2m3s`. */
export function goDuration(milliseconds: number): string {
  const total = Math.max(0, Math.ceil(milliseconds));
  if (total === 0) return '0s';
  if (total < 1000) return `${headerNumber(total)}ms`;
  const hours = Math.floor(total / 3_600_000);
  const minutes = Math.floor((total % 3_600_000) / 60_000);
  const millis = total % 60_000;
  const seconds =
    millis % 1000 === 0 ? headerNumber(millis / 1000) : (millis / 1000).toFixed(3).replace(/0+$/, '');
  if (hours > 0) return `${headerNumber(hours)}h${headerNumber(minutes)}m${seconds}s`;
  if (minutes > 0) return `${headerNumber(minutes)}m${seconds}s`;
  return `${seconds}s`;
}
