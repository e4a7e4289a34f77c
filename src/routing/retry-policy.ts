/**
 * What may be retried, and when. Retries happen only before any byte reached the client, and only
 * for failures that say nothing about the request itself: connection failures, first-byte
 * timeouts, and the upstream statuses 429, 500, 503 and 529. Every other 4xx (the request is at
 * fault) and any failure after the answer started is final. How long the upstream asked to wait
 * is read with its error (`codecs/shared/upstream-errors.ts`).
 */
import type { RetryConfig } from '../config/config.ts';

/** Upstream statuses worth another attempt. */
export function isRetryableStatus(status: number): boolean {
  return status === 429 || status === 500 || status === 503 || status === 529;
}

/** Statuses that say the deployment is unhealthy (they count toward its circuit breaker). */
export function isUnhealthyStatus(status: number): boolean {
  return status >= 500;
}

/**
 * Exponential backoff with "equal jitter": half the exponential step for sure, the other half
 * random, so concurrent retries spread out yet always wait a little. `retry` counts from 1.
 */
export function backoffMs(retry: number, policy: RetryConfig, random: () => number): number {
  const step = Math.min(policy.maxBackoffMs, policy.backoffMs * 2 ** Math.max(0, retry - 1));
  return Math.round(step / 2 + (random() * step) / 2);
}
