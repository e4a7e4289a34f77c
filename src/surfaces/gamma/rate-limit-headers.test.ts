import assert from 'node:assert/strict';
import { test } from 'node:test';
import { rateLimitHeaders } from './rate-limit-headers.ts';

test('C headers: the spec trio for requests per minute, reset in whole seconds', () => {
  const headers = rateLimitHeaders({
    now: 0,
    requests: { limit: 60, remaining: 58, resetMs: 2001 },
    tokens: { limit: 32000, remaining: 1, resetMs: 60000 },
  });
  assert.deepEqual(headers, {
    'x-ratelimit-limit': '60',
    'x-ratelimit-remaining': '58',
    'x-ratelimit-reset': '3',
  });
});
