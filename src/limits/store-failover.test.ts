import assert from 'node:assert/strict';
import { test } from 'node:test';
import { GatewayError } from '../ir/index.ts';
import type { Bucket, BucketState, Draw, DrawResult, RateLimitStore } from './rate-limit-store.ts';
import { RateLimiter } from './rate-limiter.ts';
import { scaledBucket } from './redis/redis-rate-limit-store.ts';
import { FailoverRateLimitStore } from './store-failover.ts';

/** A shared store that cannot answer (what a dead or frozen Redis looks like after its timeout). */
class DeadStore implements RateLimitStore {
  calls = 0;
  draw(_draws: readonly Draw[], _now: number): Promise<DrawResult> {
    return this.#fail();
  }
  adjust(_draw: Draw, _now: number): Promise<void> {
    return this.#fail();
  }
  take(_draws: readonly Draw[], _now: number): Promise<BucketState[]> {
    return this.#fail();
  }
  peek(_buckets: readonly Bucket[], _now: number): Promise<BucketState[]> {
    return this.#fail();
  }
  #fail(): Promise<never> {
    this.calls++;
    return Promise.reject(new Error('no answer within 50 ms'));
  }
}

const limits = {
  alpha: { requestsPerMinute: 500, tokensPerMinute: 10_000 },
  beta: { requestsPerMinute: 50, tokensPerMinute: 100_000 },
  gamma: { requestsPerMinute: 60, tokensPerMinute: 32_000 },
};
const key = { id: 'k', rpm: undefined, tpm: undefined };

test('shared store down, closed: a 503 unavailable error with retry-after 1, nothing admitted', async () => {
  const limiter = new RateLimiter(
    new FailoverRateLimitStore(new DeadStore(), {
      mode: 'closed',
      instances: 3,
      onFallback: () => undefined,
    }),
    limits,
  );
  await assert.rejects(limiter.acquire(key, 'beta', 10, 0), (error: unknown) => {
    assert.ok(error instanceof GatewayError);
    assert.equal(error.kind, 'unavailable');
    assert.equal(error.retryAfterSeconds, 1);
    return true;
  });
});

test('shared store down, local: each process admits limit ÷ instances, flagged local', async () => {
  let fallbacks = 0;
  const limiter = new RateLimiter(
    new FailoverRateLimitStore(new DeadStore(), {
      mode: 'local',
      instances: 3,
      onFallback: () => {
        fallbacks++;
      },
    }),
    limits,
  );
  const results = [];
  for (let index = 0; index < 30; index++) results.push(await limiter.acquire(key, 'beta', 10, 1_000));
  const admitted = results.filter((result) => result.refusal === undefined);
  assert.equal(admitted.length, 16, '50 ÷ 3 rounded down');
  assert.ok(results.every((result) => result.local));
  assert.equal(results[0]?.state.requests.limit, 16, 'the headers show the local share');
  assert.equal(fallbacks, 30);
});

test('buckets in whole numbers: a unit and a millisecond of refill are both integers, capacity = limit units', () => {
  assert.deepEqual(scaledBucket(50, 60_000), { step: 1_200, leak: 1, cap: 60_000 });
  assert.deepEqual(scaledBucket(100_000, 60_000), { step: 3, leak: 5, cap: 300_000 });
  assert.deepEqual(scaledBucket(32_000, 60_000), { step: 15, leak: 8, cap: 480_000 });
  const huge = scaledBucket(1_000_000_000_000, 60_000);
  assert.ok(
    Number.isSafeInteger(huge.cap) && Number.isSafeInteger(huge.step) && Number.isSafeInteger(huge.leak),
  );
  for (const limit of [1, 7, 499, 10_000, 123_457]) {
    const { step, leak, cap } = scaledBucket(limit, 60_000);
    assert.equal(cap / step, limit, 'capacity in units');
    assert.equal((60_000 * leak) / step, limit, 'a minute refills the whole limit');
  }
});
