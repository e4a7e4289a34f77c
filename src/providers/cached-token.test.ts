import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CachedToken, type ExpiringToken } from './cached-token.ts';

/** A token source on a hand-moved clock that counts its fetches. */
function source(lifetimeMs: number | undefined) {
  const clock = { now: 1_000_000 };
  let fetches = 0;
  let failNext = false;
  const fetch = (): Promise<ExpiringToken> => {
    fetches += 1;
    if (failNext) {
      failNext = false;
      return Promise.reject(new Error('token endpoint down'));
    }
    return Promise.resolve({
      token: `t${fetches}`,
      expiresAt: lifetimeMs === undefined ? undefined : clock.now + lifetimeMs,
    });
  };
  const cached = new CachedToken(fetch, () => clock.now);
  return {
    clock,
    cached,
    fetches: () => fetches,
    failNext: () => {
      failNext = true;
    },
  };
}

test('an hour-long token is reused, then renewed five minutes before it expires', async () => {
  const { clock, cached, fetches } = source(3_600_000);
  assert.deepEqual(await Promise.all([cached.get(), cached.get(), cached.get()]), ['t1', 't1', 't1']);
  clock.now += 3_600_000 - 5 * 60_000 - 1;
  assert.equal(await cached.get(), 't1');
  clock.now += 1;
  assert.deepEqual(await Promise.all([cached.get(), cached.get()]), ['t2', 't2']);
  assert.equal(fetches(), 2);
});

test('a short-lived token is renewed half-way, not on every call', async () => {
  const { clock, cached, fetches } = source(60_000);
  await cached.get();
  clock.now += 29_000;
  await cached.get();
  assert.equal(fetches(), 1);
  clock.now += 1_000;
  assert.equal(await cached.get(), 't2');
});

test('a failed fetch fails the waiting calls and the next call tries again', async () => {
  const { cached, failNext } = source(3_600_000);
  failNext();
  await assert.rejects(Promise.all([cached.get(), cached.get()]), /token endpoint down/);
  assert.equal(await cached.get(), 't2');
});

test('a token of unknown lifetime is asked for again after a minute', async () => {
  const { clock, cached, fetches } = source(undefined);
  await cached.get();
  clock.now += 59_999;
  await cached.get();
  assert.equal(fetches(), 1);
  clock.now += 1;
  await cached.get();
  assert.equal(fetches(), 2);
});
