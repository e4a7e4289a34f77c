import assert from 'node:assert/strict';
import { test } from 'node:test';
import { goDuration, rateLimitHeaders } from './rate-limit-headers.ts';

test('A headers: six integer and Go-duration values', () => {
  const headers = rateLimitHeaders({
    now: 0,
    requests: { limit: 500, remaining: 499, resetMs: 120 },
    tokens: { limit: 10000, remaining: 9000, resetMs: 6000 },
  });
  assert.deepEqual(headers, {
    'x-ratelimit-limit-requests': '500',
    'x-ratelimit-remaining-requests': '499',
    'x-ratelimit-reset-requests': '120ms',
    'x-ratelimit-limit-tokens': '10000',
    'x-ratelimit-remaining-tokens': '9000',
    'x-ratelimit-reset-tokens': '6s',
  });
});

test('Go durations as the family writes them', () => {
  assert.equal(goDuration(0), '0s');
  assert.equal(goDuration(0.4), '1ms');
  assert.equal(goDuration(12), '12ms');
  assert.equal(goDuration(1000), '1s');
  assert.equal(goDuration(1200), '1.2s');
  assert.equal(goDuration(60_000), '1m0s');
  assert.equal(goDuration(360_000), '6m0s');
  assert.equal(goDuration(61_500), '1m1.5s');
  assert.equal(goDuration(3_723_000), '1h2m3s');
});
