/**
 * The file's resilience sections with their defaults: the schema is the one statement of their
 * shape, so `Config`'s `timeouts`, `retry`, `breaker` and `upstreamLimits` are its output types.
 */
import { z } from 'zod';
import { strictSection } from './did-you-mean.ts';

const positiveInteger = z.number().int().positive();
const wholeNumber = z.number().int().min(0);

const timeoutFields = {
  /** TCP/TLS connect to the upstream. */
  connectMs: positiveInteger,
  /** From sending the request to the first byte of the answer's body (headers included): time to first token. */
  firstByteMs: positiveInteger,
  /** Between two body chunks; a flowing stream has no total cap. */
  idleMs: positiveInteger,
};

/** A model's own timers (`models[].timeouts`): each one overrides the global one. */
export const timeoutOverridesSchema = strictSection(timeoutFields).partial();

/** `timeouts`: the three upstream timers of every model that sets none of its own. */
export const timeoutsSchema = strictSection({
  connectMs: timeoutFields.connectMs.default(10_000),
  firstByteMs: timeoutFields.firstByteMs.default(120_000),
  idleMs: timeoutFields.idleMs.default(120_000),
}).prefault({});
export type TimeoutConfig = z.output<typeof timeoutsSchema>;

/** `retry`. */
export const retrySchema = strictSection({
  /** Upstream calls per model in one request (first call + retries), across its deployments. */
  attempts: positiveInteger.max(20).default(3),
  /** Upstream calls per client request, fallbacks included: the attempt budget. */
  maxAttempts: positiveInteger.max(50).default(6),
  /** Wall time to get an answer started; no new attempt or backoff wait beyond it. */
  budgetMs: positiveInteger.default(30_000),
  /** Exponential backoff base (doubled per retry of a deployment already tried, with jitter). */
  backoffMs: wholeNumber.default(250),
  maxBackoffMs: wholeNumber.default(4_000),
  /** A deployment's `retry-after` up to this is waited out; longer ones end the retries on it. */
  maxRetryAfterMs: wholeNumber.default(2_000),
}).prefault({});
export type RetryConfig = z.output<typeof retrySchema>;

/** `breaker`. */
export const breakerSchema = strictSection({
  /** Consecutive failures that open a deployment's circuit; 0 disables the breaker. */
  failureThreshold: wholeNumber.default(5),
  /** How long an open circuit skips its deployment before one probe request is let through. */
  cooldownMs: positiveInteger.default(30_000),
}).prefault({});
export type BreakerConfig = z.output<typeof breakerSchema>;

/** `upstreamLimits`: what one upstream answer may make the gateway hold. */
export const upstreamLimitsSchema = strictSection({
  /** A non-streamed answer or an error body, in bytes; beyond it the read is aborted (502). */
  maxResponseBytes: positiveInteger.default(32 * 1024 * 1024),
  /** One SSE event (its lines so far), in bytes; beyond it the stream ends with an error event. */
  maxEventBytes: positiveInteger.default(1024 * 1024),
}).prefault({});
export type UpstreamLimits = z.output<typeof upstreamLimitsSchema>;
