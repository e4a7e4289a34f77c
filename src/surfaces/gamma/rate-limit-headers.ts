/**
 * Family C rate-limit headers. The spec names one trio, `x-ratelimit-{limit,remaining,reset}`,
 * and the real family sends none, so modelgate synthesises them for the requests-per-minute
 * window; the reset is the whole number of seconds until the window is full again.
 */
import { headerNumber } from '../surface.ts';
import type { RateLimitState } from '../surface.ts';

export function rateLimitHeaders(state: RateLimitState): Record<string, string> {
  return {
    'x-ratelimit-limit': headerNumber(state.requests.limit),
    'x-ratelimit-remaining': headerNumber(state.requests.remaining),
    'x-ratelimit-reset': headerNumber(Math.ceil(state.requests.resetMs / 1000)),
  };
}
