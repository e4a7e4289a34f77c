import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MemoryRateLimitStore } from './memory-rate-limit-store.ts';
import type { Bucket } from './rate-limit-store.ts';

const t0 = Date.parse('2026-01-01T00:00:00Z');
const minute = 60_000;

test('idle buckets are swept: 25,001 keys (50,002 buckets) that made one request each a minute ago leave nothing behind', () => {
  const store = new MemoryRateLimitStore();
  const bucketsOf = (index: number): [Bucket, Bucket] => [
    { id: `k${index}:requests`, limit: 50, periodMs: minute, kind: 'window' },
    { id: `k${index}:tokens`, limit: 1_000, periodMs: minute, kind: 'gcra' },
  ];
  for (let index = 0; index < 25_001; index++) {
    const [requests, tokens] = bucketsOf(index);
    assert.ok(
      store.drawNow(
        [
          { bucket: requests, amount: 1 },
          { bucket: tokens, amount: 10 },
        ],
        t0,
      ).allowed,
    );
  }
  assert.equal(store.size, 50_002);
  // Past the sweep threshold: the next draw, a minute later, drops every bucket that went idle.
  const [requests, tokens] = bucketsOf(25_001);
  store.drawNow(
    [
      { bucket: requests, amount: 1 },
      { bucket: tokens, amount: 10 },
    ],
    t0 + minute,
  );
  assert.equal(store.size, 2, 'only the new key’s buckets');
});

test('a busy store is not swept on every draw: the next sweep waits for twice as many buckets', () => {
  const store = new MemoryRateLimitStore();
  const draw = (index: number, now: number): void => {
    store.drawNow(
      [{ bucket: { id: `w${index}`, limit: 5, periodMs: minute, kind: 'window' }, amount: 1 }],
      now,
    );
  };
  for (let index = 0; index <= 50_000; index++) draw(index, t0);
  // All still in their window: a sweep keeps them all and the threshold moves to 100,002.
  draw(50_001, t0 + 1);
  assert.equal(store.size, 50_002);
  for (let index = 50_002; index <= 100_002; index++) draw(index, t0 + minute + 1);
  assert.equal(store.size, 100_003, 'idle since t0 + 1, but not swept before the count doubled');
  draw(100_003, t0 + minute + 1);
  assert.equal(store.size, 50_002, 'then swept: the 50,002 of t0 and t0 + 1 are gone');
});
