/**
 * Family B rate-limit headers: `beta-ratelimit-{requests,tokens}-{limit,remaining,reset}`, the
 * reset as the RFC 3339 time (whole seconds, UTC) at which the window is full again.
 */
import { headerNumber } from '../surface.ts';
import type { RateLimitState } from '../surface.ts';

export function rateLimitHeaders(state: RateLimitState): Record<string, string> {
  return {
    'beta-ratelimit-requests-limit': headerNumber(state.requests.limit),
    'beta-ratelimit-requests-remaining': headerNumber(state.requests.remaining),
    'beta-ratelimit-requests-reset': rfc3339(state.now + state.requests.resetMs),
    'beta-ratelimit-tokens-limit': headerNumber(state.tokens.limit),
    'beta-ratelimit-tokens-remaining': headerNumber(state.tokens.remaining),
    'beta-ratelimit-tokens-reset': rfc3339(state.now + state.tokens.resetMs),
  };
}

/** `2025-08-21T12:40:59Z`: rounded up to the second, as the family sends it. */
function rfc3339(unixMs: number): string {
  return new Date(Math.ceil(unixMs / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}
