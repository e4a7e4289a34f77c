/**
 * A request's settlement on Redis is one script call (issue 25, target 3): a gateway on a real
 * redis-server runs at most one admission script (fewer when leases serve some:
 * `bucket-leases.ts`) and one settle script per chat request sent one after another (the key's
 * spend and its token reconciliation together), whatever the key: a lifetime budget, none, or
 * unlimited. The one-step settle is exact and charges once when retried; when Redis cannot
 * answer, the tokens meet `onStoreFailure` as a lone adjustment did and the spend fails as before.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createClient } from 'redis';
import { GatewayError } from '../../src/ir/index.ts';
import type { Reservation } from '../../src/limits/budgets.ts';
import { RateLimiter } from '../../src/limits/rate-limiter.ts';
import { RedisBudgets } from '../../src/limits/redis/redis-budgets.ts';
import { RedisConnection } from '../../src/limits/redis/redis-connection.ts';
import { RedisRateLimitStore } from '../../src/limits/redis/redis-rate-limit-store.ts';
import { scripts } from '../../src/limits/redis/scripts.ts';
import { FailoverRateLimitStore, type StoreFailureMode } from '../../src/limits/store-failover.ts';
import { alphaAuth, post } from '../kit/e2e.ts';
import { freePort, missingBinary, startRedis, type RealRedis } from '../kit/real-servers.ts';
import { startTestGateway, testClientKey, type TestGateway } from '../kit/test-gateway.ts';
import { sleep } from './test-kit.ts';

const skip = missingBinary('redis-server');
const adminKey = 'mg-admin-settle-scale-0123456789';
const limits = { alpha: { requestsPerMinute: 100, tokensPerMinute: 10_000 } };

describe('settling on Redis', { skip }, () => {
  let redis: RealRedis;
  const connections: RedisConnection[] = [];

  const connection = async (url = redis.url): Promise<RedisConnection> => {
    const made = new RedisConnection({
      url,
      commandTimeoutMs: 1_000,
      breakerFailures: 3,
      breakerCooldownMs: 1_000,
    });
    await made.connect(url === redis.url ? 5_000 : 200);
    connections.push(made);
    return made;
  };
  const stores = async (
    prefix: string,
    url?: string,
    onError: (error: unknown) => void = () => undefined,
  ) => {
    const made = await connection(url);
    const buckets = new RedisRateLimitStore(made, prefix);
    const budgets = new RedisBudgets(made, {
      prefix,
      holdTtlMs: 60_000,
      initialSpend: new Map(),
      onError,
      buckets,
    });
    const settle = budgets.settleWithAdjust;
    assert.ok(settle !== undefined, 'a Redis budget store with buckets settles in one step');
    return { buckets, budgets, settle };
  };

  before(async () => {
    redis = await startRedis();
  });
  after(async () => {
    await Promise.all(connections.map((made) => made.close()));
    await redis.stop();
  });

  test('one chat request: one settle script after the answer, with or without a budget', async () => {
    const limitedStatic = 'mg-second-static-key-0123456789';
    const gateway: TestGateway = await startTestGateway({
      MODELGATE_ADMIN_KEY: adminKey,
      MODELGATE_REDIS_URL: redis.url,
      // The second static key is limited (the first, the test key, is declared unlimited).
      MODELGATE_KEYS: `${testClientKey},${limitedStatic}`,
    });
    const monitor = createClient({ url: redis.url });
    const stats = createClient({ url: redis.url });
    await Promise.all([monitor.connect(), stats.connect()]);
    const shas = new Map<string, number>();
    await monitor.monitor((line: string) => {
      const sha = /"EVALSHA" "([0-9a-f]{40})"/i.exec(line)?.[1];
      if (sha !== undefined) shas.set(sha, (shas.get(sha) ?? 0) + 1);
    });
    const scriptCalls = async (): Promise<number> => {
      const info = await stats.info('commandstats');
      const calls = (command: string): number =>
        Number(new RegExp(`cmdstat_${command}:calls=(\\d+)`).exec(info)?.[1] ?? 0);
      return calls('evalsha') + calls('eval');
    };
    const named = (name: keyof typeof scripts): number => shas.get(scripts[name].SHA1) ?? 0;
    try {
      const create = async (body: Record<string, unknown>): Promise<string> => {
        const created = await post(gateway.url, '/admin/keys', alphaAuth(adminKey), body);
        assert.equal(created.status, 201, created.text);
        return (created.json as { key: string }).key;
      };
      const requests = 12;
      // Per script, the calls per request: the admission (a created key's header screen peeks at
      // its windows before the body: one more), and one settle, the tokens reconciled with it.
      const cases = [
        {
          name: 'a static key (limited)',
          key: limitedStatic,
          expected: { modelgateBuckets: 1, modelgateSettleTokens: 1 },
        },
        {
          name: 'a static key (unlimited, metered after dispatch)',
          key: gateway.key,
          expected: { modelgateBuckets: 1, modelgateSettleTokens: 1 },
        },
        {
          name: 'a key with a lifetime budget',
          key: await create({ name: 'budgeted', budget_usd: 50 }),
          expected: { modelgateBuckets: 1, modelgateAdmit: 1, modelgateSettleTokens: 1 },
        },
        {
          name: 'a key without a budget',
          key: await create({ name: 'plain' }),
          expected: { modelgateBuckets: 2, modelgateSettleTokens: 1 },
        },
      ];
      for (const { name, key, expected } of cases) {
        shas.clear();
        const before = await scriptCalls();
        for (let index = 0; index < requests; index++) {
          const answer = await post(gateway.url, '/v1/chat/completions', alphaAuth(key), {
            model: 'A-1',
            messages: [{ role: 'user', content: `settle me ${index}` }],
          });
          assert.equal(answer.status, 200, answer.text);
        }
        // Settles run after the answer: wait for the last one, then a little more for any stray call.
        for (let tries = 0; tries < 100 && named('modelgateSettleTokens') < requests; tries++)
          await sleep(20);
        await sleep(200);
        // The bucket scripts (a draw, a peek, a lease: `bucket-leases.ts`) at most as many as
        // without leases: a lease taken saves later draws, and a live one answers the peek.
        const { modelgateBuckets: bucketScripts, ...others } = expected;
        const buckets = named('modelgateBuckets') + named('modelgateLease');
        assert.ok(
          buckets <= bucketScripts * requests,
          `${name}: ${buckets} bucket scripts for ${requests} requests`,
        );
        const seen = Object.fromEntries(
          Object.keys(scripts)
            .filter((script) => script !== 'modelgateBuckets' && script !== 'modelgateLease')
            .map((script) => [script, named(script as keyof typeof scripts) / requests])
            .filter(([, perRequest]) => perRequest !== 0),
        );
        assert.deepEqual(seen, others, `${name}: script calls per request`);
        const perRequest = Object.values(others).reduce((sum, calls) => sum + calls, 0);
        assert.equal(
          (await scriptCalls()) - before,
          perRequest * requests + buckets,
          `${name}: and no other script call`,
        );
      }
    } finally {
      await Promise.allSettled([monitor.close(), stats.close()]);
      await gateway.close();
    }
  });

  test('the one-step settle frees the hold, charges the cost, returns the tokens, and charges once', async () => {
    const prefix = 'exact:';
    const { buckets, budgets, settle } = await stores(prefix);
    const limiter = new RateLimiter(buckets, limits);
    const key = { id: 'k', rpm: undefined, tpm: undefined };
    const reserveWithDraws = budgets.reserveWithDraws;
    assert.ok(reserveWithDraws !== undefined);
    const admitted = await reserveWithDraws(
      { keyId: 'k', budgetUsd: 1, worstCaseUsd: 0.25 },
      limiter.draws(key, 'alpha', 4_000),
    );
    assert.ok(admitted.budget.admitted && admitted.draw.allowed);
    const reservation: Reservation = admitted.budget.reservation;
    const client = createClient({ url: redis.url });
    await client.connect();
    try {
      const account = async (): Promise<{ spent: number; held: number }> => {
        const { spent = '0', held = '0' } = await client.hGetAll(`${prefix}{k}:budget`);
        return { spent: Number(spent), held: Number(held) };
      };
      assert.deepEqual(await account(), { spent: 0, held: 250_000 });
      const tokens = limiter.reconciliation(key, 'alpha', 4_000, 1_000);
      assert.ok(tokens !== undefined);
      const failed: unknown[] = [];
      await settle({ keyId: 'k', reservation, costUsd: 0.01 }, tokens, (error) => failed.push(error));
      assert.deepEqual(await account(), { spent: 10_000, held: 0 });
      const afterSettle = (await limiter.state(key, 'alpha', Date.now())).tokens.remaining;
      assert.ok(afterSettle >= 8_999, `3,000 of the 4,000 tokens came back (${afterSettle} left)`);
      // A retry of the same settlement (its reply lost) changes neither the spend nor the tokens.
      await settle({ keyId: 'k', reservation, costUsd: 0.01 }, tokens, (error) => failed.push(error));
      assert.deepEqual(await account(), { spent: 10_000, held: 0 });
      const afterReplay = (await limiter.state(key, 'alpha', Date.now())).tokens.remaining;
      assert.ok(afterReplay < afterSettle + 100, 'the replay gave no tokens back');
      // Without a hold: the spend is recorded (a key without a budget) and the tokens adjusted.
      await settle(
        { keyId: 'k', reservation: undefined, costUsd: 0.002 },
        { ...tokens, amount: 500 },
        (error) => failed.push(error),
      );
      assert.equal((await account()).spent, 12_000);
      assert.deepEqual(failed, []);
    } finally {
      await client.quit();
    }
  });

  for (const mode of ['closed', 'local'] as const satisfies readonly StoreFailureMode[])
    test(`Redis down after the answer (${mode}): the tokens meet the failure policy, the spend fails as before`, async () => {
      const reported: unknown[] = [];
      const { buckets, settle } = await stores('down:', `redis://127.0.0.1:${await freePort()}`, (error) =>
        reported.push(error),
      );
      const failover = new FailoverRateLimitStore(buckets, {
        mode,
        instances: 2,
        onFallback: () => undefined,
      });
      const limiter = new RateLimiter(failover, limits);
      const key = { id: 'k', rpm: undefined, tpm: undefined };
      const tokens = limiter.reconciliation(key, 'alpha', 4_000, 1_000);
      assert.ok(tokens !== undefined);
      const tokensFailed: Promise<void>[] = [];
      const onTokens = (error: unknown): void => {
        const failure = limiter.adjustFailed(tokens, Date.now(), error);
        // Checked below; a settlement without a hold is answered a turn later (one call per turn).
        failure.catch(() => undefined);
        tokensFailed.push(failure);
      };
      if (mode === 'local') {
        // This process's share (10,000 ÷ 2) drawn while Redis was away: the reconciliation gives back.
        const drawn = await limiter.acquire(key, 'alpha', 4_000, Date.now());
        assert.equal(drawn.local, true);
        assert.ok(drawn.state.tokens.remaining <= 1_000);
      }
      const reservation = { keyId: 'k', amountUsd: 0.25, holdId: 'hold-1' };
      await assert.rejects(settle({ keyId: 'k', reservation, costUsd: 0.01 }, tokens, onTokens));
      await settle({ keyId: 'k', reservation: undefined, costUsd: 0.01 }, tokens, onTokens);
      assert.equal(reported.length, 1, 'a record that failed is reported, and resolves');
      assert.equal(tokensFailed.length, 2, 'the tokens part is handed to the failure policy each time');
      if (mode === 'closed')
        for (const failure of tokensFailed)
          await assert.rejects(
            failure,
            (error) => error instanceof GatewayError && error.kind === 'unavailable',
          );
      else {
        await Promise.all(tokensFailed);
        const state = await limiter.state(key, 'alpha', Date.now());
        assert.equal(state.tokens.remaining, 5_000, 'both reconciliations went to the local share');
      }
    });
});
