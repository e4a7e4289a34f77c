/**
 * A burst against a healthy Redis while this process's event loop is busy: every admission is
 * admitted or refused by the limits (a client's 200 or 429), never "Rate limits cannot be checked
 * right now" (529/503). The command timeout (50 ms, the default) once counted the time a command
 * sat unwritten and its reply sat unread behind the gateway's own event loop, so a busy gateway
 * declared a healthy Redis down.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { GatewayError } from '../../src/ir/index.ts';
import { RateLimiter } from '../../src/limits/rate-limiter.ts';
import { RedisConnection } from '../../src/limits/redis/redis-connection.ts';
import { RedisRateLimitStore } from '../../src/limits/redis/redis-rate-limit-store.ts';
import { FailoverRateLimitStore } from '../../src/limits/store-failover.ts';
import { missingBinary, startRedis, type RealRedis } from '../kit/real-servers.ts';

const skip = missingBinary('redis-server');
const limits = {
  alpha: { requestsPerMinute: 100_000, tokensPerMinute: 10_000_000 },
  beta: { requestsPerMinute: 100_000, tokensPerMinute: 10_000_000 },
  gamma: { requestsPerMinute: 100_000, tokensPerMinute: 10_000_000 },
};

/** Holds the event loop as a busy gateway does (parsing, translating), longer than the timeout. */
function busy(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // spinning on purpose
  }
}

describe('Redis burst on a busy gateway', { skip }, () => {
  let redis: RealRedis;
  let connection: RedisConnection;

  before(async () => {
    redis = await startRedis();
    connection = new RedisConnection({
      url: redis.url,
      commandTimeoutMs: 50,
      breakerFailures: 5,
      breakerCooldownMs: 1_000,
    });
    await connection.connect();
  });
  after(async () => {
    await connection.close();
    await redis.stop();
  });

  test('concurrent admissions while the event loop is held: only admitted or refused, never unavailable', async () => {
    const limiter = new RateLimiter(
      new FailoverRateLimitStore(new RedisRateLimitStore(connection, 'burst:'), {
        mode: 'closed',
        instances: 1,
        onFallback: () => undefined,
      }),
      limits,
    );
    const keys = [
      { id: 'roomy', rpm: 10_000, tpm: undefined },
      { id: 'tight', rpm: 50, tpm: undefined },
    ];
    const answers: Promise<string>[] = [];
    for (let wave = 0; wave < 8; wave++) {
      for (let index = 0; index < 250; index++) {
        const key = keys[index % 2] ?? keys[0];
        if (key === undefined) continue;
        answers.push(
          limiter.acquire(key, 'alpha', 1, Date.now()).then(
            (acquisition) => (acquisition.refusal === undefined ? '200' : '429'),
            (error: unknown) =>
              error instanceof GatewayError && error.kind === 'unavailable'
                ? `529 ${String(error.cause)}`
                : `error ${String(error)}`,
          ),
        );
      }
      // Right after sending, the loop is held past the command timeout, and again between waves.
      busy(120);
      await new Promise((resolve) => setImmediate(resolve));
      busy(120);
    }
    const counts = new Map<string, number>();
    for (const answer of await Promise.all(answers)) counts.set(answer, (counts.get(answer) ?? 0) + 1);
    assert.deepEqual([...counts.keys()].sort(), ['200', '429'], JSON.stringify([...counts]));
    // The tight key admitted exactly its 50 a minute; the roomy one every request.
    assert.equal(counts.get('429'), 1_000 - 50);
    assert.ok(connection.healthy);
  });
});
