import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { MemoryRateLimitStore } from './memory-rate-limit-store.ts';
import type { Bucket } from './rate-limit-store.ts';
import { RateLimiter, type FamilyLimits } from './rate-limiter.ts';
import type { FamilyId } from '../ir/index.ts';

const limits: Record<FamilyId, FamilyLimits> = {
  alpha: { requestsPerMinute: 500, tokensPerMinute: 10_000 },
  beta: { requestsPerMinute: 50, tokensPerMinute: 100_000 },
  gamma: { requestsPerMinute: 60, tokensPerMinute: 32_000 },
};
const key = { id: 'k1', rpm: undefined, tpm: undefined };
const t0 = Date.parse('2026-01-01T00:00:00Z');

test('B: 50 requests pass at once; the 51st is refused, still at +1.2 s, until the first leaves the window', async () => {
  const limiter = new RateLimiter(new MemoryRateLimitStore(), limits);
  for (let index = 0; index < 50; index++) {
    const admitted = await limiter.acquire(key, 'beta', 10, t0);
    assert.equal(admitted.refusal, undefined, `request ${index + 1}`);
    assert.equal(admitted.state.requests.remaining, 49 - index);
  }
  const refused = await limiter.acquire(key, 'beta', 10, t0);
  assert.deepEqual(refused.refusal, {
    dimension: 'requests',
    retryAfterSeconds: 60,
    exceedsLimit: false,
    requested: 1,
  });
  assert.equal(refused.state.requests.remaining, 0);
  assert.equal(refused.state.requests.resetMs, 60_000, 'full again one minute after the burst');
  const later = await limiter.acquire(key, 'beta', 10, t0 + 1_200);
  assert.equal(later.refusal?.retryAfterSeconds, 59, 'no refill: the window still holds 50');
  assert.equal(later.state.requests.resetMs, 58_800);
  assert.ok((await limiter.acquire(key, 'beta', 10, t0 + 59_999)).refusal, 'not yet');
  const again = await limiter.acquire(key, 'beta', 10, t0 + 60_000);
  assert.equal(again.refusal, undefined, 'the burst left the window');
  assert.equal(again.state.requests.remaining, 49);
});

test('requests spread over the minute: the 51st waits for the oldest to leave, then one more each time one does', async () => {
  const limiter = new RateLimiter(new MemoryRateLimitStore(), limits);
  for (let index = 0; index < 50; index++)
    assert.equal((await limiter.acquire(key, 'beta', 10, t0 + index * 1_000)).refusal, undefined);
  const refused = await limiter.acquire(key, 'beta', 10, t0 + 50_000);
  assert.equal(refused.refusal?.retryAfterSeconds, 10, 'the first (at 0 s) leaves at 60 s');
  assert.equal(refused.state.requests.resetMs, 59_000, 'full again when the newest (at 49 s) leaves');
  assert.equal((await limiter.acquire(key, 'beta', 10, t0 + 60_000)).refusal, undefined);
  const next = await limiter.acquire(key, 'beta', 10, t0 + 60_000);
  assert.equal(next.refusal?.retryAfterSeconds, 1, 'the second (at 1 s) leaves at 61 s');
  const screened = await limiter.waitForAny(key, 'beta', t0 + 60_000);
  assert.equal(screened.waitMs, 1_000);
  assert.equal(screened.dimension, 'requests');
});

test('a refund frees a slot: the request it admitted leaves the window, not another one', async () => {
  const limiter = new RateLimiter(new MemoryRateLimitStore(), limits);
  const first = await limiter.acquire(key, 'beta', 10, t0);
  for (let index = 1; index < 25; index++) await limiter.acquire(key, 'beta', 10, t0);
  for (let index = 0; index < 25; index++) await limiter.acquire(key, 'beta', 10, t0 + 30_000);
  assert.ok((await limiter.acquire(key, 'beta', 10, t0 + 31_000)).refusal, 'full');
  // The first request never went out (e.g. its dispatch was refused): it is given back.
  await limiter.release(key, 'beta', 10, first.at, t0 + 31_000);
  const refilled = await limiter.acquire(key, 'beta', 10, t0 + 31_000);
  assert.equal(refilled.refusal, undefined, 'the refund freed one slot');
  assert.ok((await limiter.acquire(key, 'beta', 10, t0 + 31_000)).refusal, 'only one');
  // At 60 s the 24 left of the burst at 0 s leave: 26 remain (25 at 30 s, 1 at 31 s).
  assert.equal((await limiter.state(key, 'beta', t0 + 60_000)).requests.remaining, 24);
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

test('GCRA (tokens) bound: admitted units up to time t never exceed limit + t × limit / period', () => {
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
        const bucket: Bucket = { id: 'b', limit, periodMs: 60_000, kind: 'gcra' };
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

test('window (requests): the same decisions as counting every admission of the last period, refunds included', () => {
  fc.assert(
    fc.property(
      fc.integer({ min: 1, max: 30 }),
      fc.array(
        fc.record({
          gap: fc.integer({ min: 0, max: 20_000 }),
          amount: fc.integer({ min: 1, max: 4 }),
          refund: fc.boolean(),
        }),
        { maxLength: 200 },
      ),
      (limit, steps) => {
        const periodMs = 60_000;
        const store = new MemoryRateLimitStore();
        const bucket: Bucket = { id: 'w', limit, periodMs, kind: 'window' };
        // The oracle: every admission ever made, with its time; a refund deletes its own.
        let admissions: { at: number; amount: number }[] = [];
        const inWindow = (now: number): number =>
          admissions.filter(({ at }) => at > now - periodMs).reduce((sum, { amount }) => sum + amount, 0);
        let now = t0;
        for (const { gap, amount, refund } of steps) {
          now += gap;
          const expected = inWindow(now) + amount <= limit;
          const result = store.drawNow([{ bucket, amount }], now);
          assert.equal(result.allowed, expected);
          assert.equal(
            result.states[0]?.remaining,
            Math.max(0, limit - inWindow(now) - (expected ? amount : 0)),
          );
          if (!expected) {
            // The wait it names is exact: a millisecond earlier still refused, then admitted.
            if (amount > limit) assert.equal(result.retryAfterMs, Number.POSITIVE_INFINITY);
            else {
              assert.ok(inWindow(now + result.retryAfterMs) + amount <= limit);
              assert.ok(inWindow(now + result.retryAfterMs - 1) + amount > limit);
            }
            continue;
          }
          admissions.push({ at: result.at, amount });
          if (refund) {
            const back = admissions[Math.floor(admissions.length / 2)];
            if (back === undefined) continue;
            store.adjustNow({ bucket, amount: -back.amount, at: back.at }, now);
            admissions = admissions.filter((admission) => admission !== back);
          }
        }
        // No period, wherever it starts, holds more than the limit.
        for (const { at } of admissions)
          assert.ok(
            admissions
              .filter((other) => other.at >= at && other.at < at + periodMs)
              .reduce((sum, other) => sum + other.amount, 0) <= limit,
          );
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
  assert.equal(states[2]?.requests.resetMs, 60_000, 'over-drawn: full again when the last leaves the window');
  assert.equal((await limiter.state(metered, 'beta', t0 + 59_999)).requests.remaining, 0);
  assert.equal((await limiter.state(metered, 'beta', t0 + 60_000)).requests.remaining, 2);
});

test('the memory store answers at once as it does through a promise: the same admissions and refusals', async () => {
  const now = new RateLimiter(new MemoryRateLimitStore(), limits);
  const later = new RateLimiter(new MemoryRateLimitStore(), limits);
  for (let index = 0; index < 52; index++) {
    const at = t0 + index * 100;
    assert.deepEqual(now.acquireNow(key, 'beta', 10, at), await later.acquire(key, 'beta', 10, at));
  }
  const draw = { bucket: now.draws(key, 'beta', 0)[1]?.bucket as Bucket, amount: -5 };
  assert.equal(now.adjustNow(draw, t0 + 6_000), true);
  await later.adjust(draw, t0 + 6_000);
  assert.deepEqual(await now.state(key, 'beta', t0 + 7_000), await later.state(key, 'beta', t0 + 7_000));
});
