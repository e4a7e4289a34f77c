import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { MemoryRateLimitStore, type Bucket } from './rate-limit-store.ts';
import { RateLimiter, type FamilyLimits } from './rate-limiter.ts';
import type { FamilyId } from '../ir/index.ts';

const limits: Record<FamilyId, FamilyLimits> = {
  alpha: { requestsPerMinute: 500, tokensPerMinute: 10_000 },
  beta: { requestsPerMinute: 50, tokensPerMinute: 100_000 },
  gamma: { requestsPerMinute: 60, tokensPerMinute: 32_000 },
};
const key = { id: 'k1', rpm: undefined, tpm: undefined };
const t0 = Date.parse('2026-01-01T00:00:00Z');

test('B: 50 requests pass at once, the 51st is refused with retry-after, and one passes again 1.2 s later', async () => {
  const limiter = new RateLimiter(new MemoryRateLimitStore(), limits);
  for (let index = 0; index < 50; index++) {
    const admitted = await limiter.acquire(key, 'beta', 10, t0);
    assert.equal(admitted.refusal, undefined, `request ${index + 1}`);
    assert.equal(admitted.state.requests.remaining, 49 - index);
  }
  const refused = await limiter.acquire(key, 'beta', 10, t0);
  assert.deepEqual(refused.refusal, {
    dimension: 'requests',
    retryAfterSeconds: 2,
    exceedsLimit: false,
    requested: 1,
  });
  assert.equal(refused.state.requests.remaining, 0);
  assert.equal(refused.state.requests.resetMs, 60_000, 'full again one minute after the burst');
  assert.ok((await limiter.acquire(key, 'beta', 10, t0 + 1_199)).refusal, 'not yet');
  assert.equal((await limiter.acquire(key, 'beta', 10, t0 + 1_200)).refusal, undefined);
});

test('families and keys have separate windows; a key override replaces the family default', async () => {
  const limiter = new RateLimiter(new MemoryRateLimitStore(), limits);
  const small = { id: 'small', rpm: 2, tpm: undefined };
  assert.equal((await limiter.acquire(small, 'alpha', 1, t0)).state.requests.limit, 2);
  await limiter.acquire(small, 'alpha', 1, t0);
  assert.equal((await limiter.acquire(small, 'alpha', 1, t0)).refusal?.dimension, 'requests');
  assert.equal((await limiter.acquire(small, 'gamma', 1, t0)).refusal, undefined, 'other family');
  assert.equal((await limiter.acquire(key, 'alpha', 1, t0)).refusal, undefined, 'other key');
});

test('tokens: reserved before, reconciled after; a refusal takes nothing from either window', async () => {
  const limiter = new RateLimiter(new MemoryRateLimitStore(), limits);
  const first = await limiter.acquire(key, 'alpha', 8_000, t0);
  assert.equal(first.state.tokens.remaining, 2_000);
  const refused = await limiter.acquire(key, 'alpha', 2_001, t0);
  assert.equal(refused.refusal?.dimension, 'tokens');
  assert.equal(refused.refusal.retryAfterSeconds, 1, '1 token refills every 6 ms');
  assert.equal(refused.state.requests.remaining, 499, 'the refused request took no request either');
  await limiter.reconcile(key, 'alpha', 8_000, 500, t0);
  const after = await limiter.state(key, 'alpha', t0);
  assert.equal(after.tokens.remaining, 9_500);
  assert.equal(after.tokens.resetMs, 3_000, '500 tokens at 6 ms each');
  // Usage above the estimate (images are not counted before) overdraws the window.
  await limiter.reconcile(key, 'alpha', 0, 12_000, t0);
  assert.equal((await limiter.state(key, 'alpha', t0)).tokens.remaining, 0);
  assert.equal((await limiter.acquire(key, 'alpha', 1, t0 + 15_000)).refusal?.dimension, 'tokens');
});

test('a request needing more tokens than the limit is refused as never admissible', async () => {
  const limiter = new RateLimiter(new MemoryRateLimitStore(), limits);
  const refused = await limiter.acquire(key, 'alpha', 10_001, t0);
  assert.equal(refused.refusal?.exceedsLimit, true);
  assert.equal(refused.refusal.requested, 10_001);
  assert.equal(refused.refusal.retryAfterSeconds, 60);
});

test('concurrent draws at one instant: exactly the limit is admitted', async () => {
  const limiter = new RateLimiter(new MemoryRateLimitStore(), limits);
  const results = await Promise.all(
    Array.from({ length: 200 }, () => limiter.acquire(key, 'gamma', 100, t0)),
  );
  assert.equal(results.filter((result) => result.refusal === undefined).length, 60);
});

test('GCRA bound: admitted units up to time t never exceed limit + t × limit / period', () => {
  fc.assert(
    fc.property(
      fc.integer({ min: 1, max: 100 }),
      fc.array(
        fc.record({ gap: fc.integer({ min: 0, max: 5_000 }), amount: fc.integer({ min: 1, max: 40 }) }),
        {
          maxLength: 300,
        },
      ),
      (limit, draws) => {
        const store = new MemoryRateLimitStore();
        const bucket: Bucket = { id: 'b', limit, periodMs: 60_000 };
        let now = t0;
        let admitted = 0;
        for (const { gap, amount } of draws) {
          now += gap;
          if (store.drawNow([{ bucket, amount }], now).allowed) admitted += amount;
          assert.ok(admitted <= limit + ((now - t0) * limit) / 60_000 + 1e-6);
        }
      },
    ),
  );
});

test('keys declared unlimited are metered, never refused: the headers still count down', async () => {
  const limiter = new RateLimiter(new MemoryRateLimitStore(), limits);
  const metered = { id: 'static-1', rpm: 2, tpm: undefined };
  const states = [];
  for (let index = 0; index < 3; index++) states.push(await limiter.charge(metered, 'beta', 10, t0));
  assert.deepEqual(
    states.map((state) => state.requests.remaining),
    [1, 0, 0],
  );
  assert.equal(states[2]?.requests.resetMs, 90_000, 'over-drawn: full again after 3 × 30 s');
});
