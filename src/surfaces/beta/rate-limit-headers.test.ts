import assert from 'node:assert/strict';
import { test } from 'node:test';
import { rateLimitHeaders } from './rate-limit-headers.ts';

test('B headers: limits, remaining and the RFC 3339 time of full replenishment', () => {
  const now = Date.parse('2025-08-21T12:40:00.250Z');
  const headers = rateLimitHeaders({
    now,
    requests: { limit: 50, remaining: 49, resetMs: 1200 },
    tokens: { limit: 100000, remaining: 99000, resetMs: 0 },
  });
  assert.deepEqual(headers, {
    'beta-ratelimit-requests-limit': '50',
    'beta-ratelimit-requests-remaining': '49',
    'beta-ratelimit-requests-reset': '2025-08-21T12:40:02Z',
    'beta-ratelimit-tokens-limit': '100000',
    'beta-ratelimit-tokens-remaining': '99000',
    'beta-ratelimit-tokens-reset': '2025-08-21T12:40:01Z',
  });
});
