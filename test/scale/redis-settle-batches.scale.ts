/**
 * Settlements without a budget hold, on a real redis-server, are gathered per key for one
 * event-loop turn (`src/limits/redis/settle-batches.ts`): one script call settles them all, the
 * spend and the tokens exactly the sum of theirs; `flush` (at shutdown) sends them at once.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createClient } from 'redis';
import { RateLimiter } from '../../src/limits/rate-limiter.ts';
import { RedisBudgets } from '../../src/limits/redis/redis-budgets.ts';
import { RedisConnection } from '../../src/limits/redis/redis-connection.ts';
import { RedisRateLimitStore } from '../../src/limits/redis/redis-rate-limit-store.ts';
import { missingBinary, startRedis, type RealRedis } from '../kit/real-servers.ts';

const skip = missingBinary('redis-server');
const limits = { alpha: { requestsPerMinute: 1_000, tokensPerMinute: 100_000 } };

describe('settlements gathered per turn', { skip }, () => {
  let redis: RealRedis;
  let connection: RedisConnection;

  before(async () => {
    redis = await startRedis();
    connection = new RedisConnection({
      url: redis.url,
      commandTimeoutMs: 1_000,
      breakerFailures: 3,
      breakerCooldownMs: 1_000,
    });
    await connection.connect(5_000);
  });
  after(async () => {
    await connection.close();
    await redis.stop();
  });

  test('twenty settlements of one key in one turn: one call, their spend and tokens summed; flushed at once on demand', async () => {
    const buckets = new RedisRateLimitStore(connection, 'batch:');
    const budgets = new RedisBudgets(connection, {
      prefix: 'batch:',
      holdTtlMs: 60_000,
      initialSpend: new Map(),
      onError: () => undefined,
      buckets,
    });
    const settle = budgets.settleWithAdjust;
    assert.ok(settle !== undefined);
    const limiter = new RateLimiter(buckets, limits);
    const key = { id: 'k', rpm: undefined, tpm: undefined };
    // Twenty requests admitted with 1,000 tokens each; each used 400.
    for (let index = 0; index < 20; index++) await limiter.acquire(key, 'alpha', 1_000, Date.now());
    const client = createClient({ url: redis.url });
    await client.connect();
    const calls = async (): Promise<number> =>
      Number(/cmdstat_evalsha:calls=(\d+)/.exec(await client.info('commandstats'))?.[1] ?? 0);
    try {
      const before = await calls();
      const tokens = limiter.reconciliation(key, 'alpha', 1_000, 400);
      assert.ok(tokens !== undefined);
      const settled = Array.from({ length: 20 }, () =>
        settle({ keyId: 'k', reservation: undefined, costUsd: 0.000_123 }, tokens, () => undefined),
      );
      // Shutting down: sent now, not a turn later.
      await budgets.flush();
      assert.equal((await calls()) - before, 1, 'one settle script');
      await Promise.all(settled);
      const { spent = '0' } = await client.hGetAll('batch:{k}:budget');
      assert.equal(Number(spent), 20 * 123, 'micro-dollars: each settlement counted once');
      const state = await limiter.state(key, 'alpha', Date.now());
      assert.ok(
        state.tokens.remaining >= 100_000 - 20 * 400 - 50,
        `the 12,000 unused tokens came back (${state.tokens.remaining} left)`,
      );
    } finally {
      await client.quit();
    }
  });
});
