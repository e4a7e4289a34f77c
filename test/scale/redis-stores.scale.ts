/**
 * The Redis stores against a real redis-server: the same trace gives the same decisions as the
 * embedded store (a burst that GCRA would refill included, and refunds), concurrent admissions from several connections (as from several instances)
 * are exact, budget holds expire and settle once, and a frozen Redis costs a bounded wait:
 * `closed` refuses with a 503 error, `local` admits the per-process share.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createClient } from 'redis';
import { GatewayError } from '../../src/ir/index.ts';
import { MemoryRateLimitStore } from '../../src/limits/memory-rate-limit-store.ts';
import { RateLimiter, type Acquisition } from '../../src/limits/rate-limiter.ts';
import { RedisBudgets } from '../../src/limits/redis/redis-budgets.ts';
import { RedisConnection } from '../../src/limits/redis/redis-connection.ts';
import { RedisRateLimitStore } from '../../src/limits/redis/redis-rate-limit-store.ts';
import { FailoverRateLimitStore } from '../../src/limits/store-failover.ts';
import { missingBinary, startRedis, type RealRedis } from '../kit/real-servers.ts';

const skip = missingBinary('redis-server');
const limits = {
  alpha: { requestsPerMinute: 500, tokensPerMinute: 10_000 },
  beta: { requestsPerMinute: 50, tokensPerMinute: 100_000 },
  gamma: { requestsPerMinute: 60, tokensPerMinute: 32_000 },
};

describe('Redis stores', { skip }, () => {
  let redis: RealRedis;
  const connections: RedisConnection[] = [];
  let prefixCount = 0;

  const connection = async (commandTimeoutMs = 1_000): Promise<RedisConnection> => {
    const made = new RedisConnection({
      url: redis.url,
      commandTimeoutMs,
      breakerFailures: 3,
      breakerCooldownMs: 1_000,
    });
    await made.connect();
    connections.push(made);
    return made;
  };
  /** A fresh key space per test. */
  const prefix = (): string => `t${++prefixCount}:`;

  before(async () => {
    redis = await startRedis();
  });
  after(async () => {
    await Promise.all(connections.map((made) => made.close()));
    await redis.stop();
  });

  test('the same request trace gives the same admit/refuse decisions as the embedded store', async () => {
    const shared = new RateLimiter(new RedisRateLimitStore(await connection(), prefix()), limits);
    const embedded = new RateLimiter(new MemoryRateLimitStore(), limits);
    const keys = [
      { id: 'k1', rpm: 5, tpm: 400 },
      { id: 'k2', rpm: undefined, tpm: 1_000 },
      { id: 'k3', rpm: 3, tpm: undefined },
    ];
    // Deterministic mixed trace: keys, families and token sizes vary; a few give tokens back.
    const decisions: [string, string][] = [];
    for (let index = 0; index < 120; index++) {
      const key = keys[index % 3] as (typeof keys)[number];
      const family = (['alpha', 'beta', 'gamma'] as const)[(index * 7) % 3] ?? 'alpha';
      const tokens = ((index * 37) % 150) + 1;
      const now = Date.now();
      const [a, b] = await Promise.all([
        shared.acquire(key, family, tokens, now),
        embedded.acquire(key, family, tokens, now),
      ]);
      // Decisions only: the remaining counts refill on each store's own clock (Redis uses its server's).
      decisions.push([a.refusal?.dimension ?? 'admit', b.refusal?.dimension ?? 'admit']);
      if (index % 5 === 0 && a.refusal === undefined) {
        await shared.reconcile(key, family, tokens, Math.floor(tokens / 2), now);
        await embedded.reconcile(key, family, tokens, Math.floor(tokens / 2), now);
      }
    }
    assert.deepEqual(
      decisions.map(([a]) => a),
      decisions.map(([, b]) => b),
    );
    assert.ok(
      decisions.some(([a]) => a === 'requests'),
      'the trace meets the request limit',
    );
    assert.ok(
      decisions.some(([a]) => a === 'tokens'),
      'and the token limit',
    );
  });

  test('a burst of 50 on rpm 50, then 2.5 s later (two slots back under GCRA): both stores still refuse until the first leaves the window; a refund frees one slot in both', async () => {
    const shared = new RateLimiter(new RedisRateLimitStore(await connection(), prefix()), limits);
    const embedded = new RateLimiter(new MemoryRateLimitStore(), limits);
    const key = { id: 'burst', rpm: undefined, tpm: undefined };
    const both = async (): Promise<[Acquisition, Acquisition]> => {
      const now = Date.now();
      return Promise.all([shared.acquire(key, 'beta', 10, now), embedded.acquire(key, 'beta', 10, now)]);
    };
    const started = Date.now();
    const burst: [Acquisition, Acquisition][] = [];
    for (let index = 0; index < 52; index++) burst.push(await both());
    const decision = ([a, b]: [Acquisition, Acquisition]): [string, string] => [
      a.refusal?.dimension ?? 'admit',
      b.refusal?.dimension ?? 'admit',
    ];
    assert.deepEqual(burst.map(decision), [
      ...Array.from({ length: 50 }, () => ['admit', 'admit']),
      ['requests', 'requests'],
      ['requests', 'requests'],
    ]);
    for (const acquired of burst[50] ?? []) {
      const retryAfter = acquired.refusal?.retryAfterSeconds ?? 0;
      assert.ok(
        retryAfter >= 55 && retryAfter <= 60,
        `retry-after ${retryAfter}: when the first leaves the window`,
      );
      assert.equal(acquired.state.requests.remaining, 0);
    }
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, 2_500 - (Date.now() - started))));
    const after = [await both(), await both(), await both()];
    assert.deepEqual(
      after.map(decision),
      Array.from({ length: 3 }, () => ['requests', 'requests']),
    );

    // The burst's first request never went out: each store takes back the admission it recorded.
    const [sharedFirst, embeddedFirst] = burst[0] ?? [];
    assert.ok(sharedFirst !== undefined && embeddedFirst !== undefined);
    const now = Date.now();
    await shared.release(key, 'beta', 10, sharedFirst.at, now);
    await embedded.release(key, 'beta', 10, embeddedFirst.at, now);
    const refunded = [await both(), await both()];
    assert.deepEqual(refunded.map(decision), [
      ['admit', 'admit'],
      ['requests', 'requests'],
    ]);
  });

  test('a window in Redis: a list of at most `limit` admission times expiring a period after its newest; headers from it', async () => {
    const space = prefix();
    const made = await connection();
    const limiter = new RateLimiter(new RedisRateLimitStore(made, space), limits);
    const key = { id: 'listed', rpm: 3, tpm: undefined };
    const client = createClient({ url: redis.url });
    await client.connect();
    try {
      const listKey = `${space}{listed}:listed:beta:requests:window`;
      const first = await limiter.acquire(key, 'beta', 10, Date.now());
      await new Promise((resolve) => setTimeout(resolve, 20));
      await limiter.acquire(key, 'beta', 10, Date.now());
      // A metered key draws without a check: still only `limit` entries are kept.
      const charged = await limiter.charge(key, 'beta', 10, Date.now(), 5);
      assert.equal(await client.lLen(listKey), 3);
      assert.equal(charged.requests.remaining, 0);
      const ttl = await client.pTTL(listKey);
      assert.ok(ttl > 55_000 && ttl <= 60_000, `ttl ${ttl}`);
      const [oldest] = await client.lRange(listKey, 0, 0);
      assert.ok(Number(oldest) > first.at, 'the first admission was pushed out by the metered ones');
      assert.ok(charged.requests.resetMs > 55_000 && charged.requests.resetMs <= 60_000);
    } finally {
      await client.quit();
    }
  });

  test('500 concurrent admissions from three connections on one key with rpm 50: exactly 50', async () => {
    const space = prefix();
    const limiters = await Promise.all(
      [1, 2, 3].map(async () => new RateLimiter(new RedisRateLimitStore(await connection(), space), limits)),
    );
    const key = { id: 'busy', rpm: 50, tpm: undefined };
    const results = await Promise.all(
      Array.from({ length: 500 }, (_, index) =>
        (limiters[index % 3] as RateLimiter).acquire(key, 'beta', 10, Date.now()),
      ),
    );
    assert.equal(results.filter((result) => result.refusal === undefined).length, 50);
    // No refill: a refused request waits for the first admission to leave the window.
    const refused = results.filter((result) => result.refusal !== undefined);
    assert.equal(refused.length, 450);
    assert.ok(refused.every((result) => (result.refusal?.retryAfterSeconds ?? 0) >= 50));
  });

  test('a budget of 9.5 worst cases under 50 concurrent reservations from three connections: exactly 10 admitted; settles charge once', async () => {
    const space = prefix();
    const budgets = await Promise.all(
      [1, 2, 3].map(
        async () =>
          new RedisBudgets(await connection(), {
            prefix: space,
            holdTtlMs: 60_000,
            initialSpend: new Map(),
            onError: () => undefined,
          }),
      ),
    );
    const worst = 0.01;
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, index) =>
        (budgets[index % 3] as RedisBudgets).reserve('team', 9.5 * worst, worst),
      ),
    );
    const admitted = results.flatMap((result) => (result.admitted ? [result.reservation] : []));
    // The rule: admitted while spent + held < budget, so 10 (the 10th takes it to 10 × worst).
    assert.equal(admitted.length, 10);
    // Each settles at 0.004; settled twice (a retried settle): charged once.
    for (const reservation of admitted) {
      await (budgets[0] as RedisBudgets).settle(reservation, 0.004);
      await (budgets[1] as RedisBudgets).settle(reservation, 0.004);
    }
    const next = await (budgets[2] as RedisBudgets).reserve('team', 9.5 * worst, worst);
    assert.ok(next.admitted, 'holds freed: 0.04 spent of 0.095');
    assert.equal((budgets[2] as RedisBudgets).spent('team'), 0.04);
  });

  test('a hold that is never settled (a crashed instance) expires and frees its budget', async () => {
    const budgets = new RedisBudgets(await connection(), {
      prefix: prefix(),
      holdTtlMs: 200,
      initialSpend: new Map([['crash', 0.5]]),
      onError: () => undefined,
    });
    const first = await budgets.reserve('crash', 1, 0.6);
    assert.ok(first.admitted);
    const during = await budgets.reserve('crash', 1, 0.1);
    assert.equal(during.admitted, false, '0.5 spent (from the ledger) + 0.6 held ≥ 1');
    await new Promise((resolve) => setTimeout(resolve, 300));
    const later = await budgets.reserve('crash', 1, 0.1);
    assert.ok(later.admitted, 'the expired hold no longer counts');
  });

  test('Redis frozen: closed answers a 503 error within the timeout, local admits limit ÷ instances; a dead Redis then costs nothing (breaker)', async () => {
    const space = prefix();
    const closed = new RateLimiter(
      new FailoverRateLimitStore(new RedisRateLimitStore(await connection(50), space), {
        mode: 'closed',
        instances: 3,
        onFallback: () => undefined,
      }),
      limits,
    );
    const local = new RateLimiter(
      new FailoverRateLimitStore(new RedisRateLimitStore(await connection(50), space), {
        mode: 'local',
        instances: 3,
        onFallback: () => undefined,
      }),
      limits,
    );
    const key = { id: 'frozen', rpm: 30, tpm: undefined };
    redis.freeze();
    try {
      const started = performance.now();
      await assert.rejects(closed.acquire(key, 'beta', 1, Date.now()), (error: unknown) => {
        assert.ok(error instanceof GatewayError);
        assert.equal(error.kind, 'unavailable');
        assert.equal(error.retryAfterSeconds, 1);
        return true;
      });
      assert.ok(performance.now() - started < 1_000, 'no hang');
      const results = await Promise.all(
        Array.from({ length: 40 }, () => local.acquire(key, 'beta', 1, Date.now())),
      );
      const admitted = results.filter((result) => result.refusal === undefined);
      assert.equal(admitted.length, 10, '30 ÷ 3 instances');
      assert.ok(admitted.every((result) => result.local));
      // The breaker is open: the next refusal takes no command timeout.
      for (let index = 0; index < 3; index++)
        await closed.acquire(key, 'beta', 1, Date.now()).catch(() => undefined);
      const fast = performance.now();
      await closed.acquire(key, 'beta', 1, Date.now()).catch(() => undefined);
      assert.ok(performance.now() - fast < 20, 'failing fast once the breaker is open');
    } finally {
      redis.thaw();
    }
  });
  test('a request with a budget is one round trip: the hold and the buckets are taken together or not at all', async () => {
    const space = prefix();
    const made = await connection();
    const buckets = new RedisRateLimitStore(made, space);
    const budgets = new RedisBudgets(made, {
      prefix: space,
      holdTtlMs: 60_000,
      initialSpend: new Map(),
      onError: () => undefined,
      buckets,
    });
    const together = budgets.reserveWithDraws;
    assert.ok(together !== undefined, 'a Redis budget store with buckets admits in one step');
    const limiter = new RateLimiter(buckets, limits);
    const client = createClient({ url: redis.url });
    await client.connect();
    try {
      const evalCalls = async (): Promise<number> => {
        const stats = await client.info('commandstats');
        return Number(/cmdstat_evalsha:calls=(\d+)/.exec(stats)?.[1] ?? 0);
      };
      const held = async (keyId: string): Promise<number> =>
        Number((await client.hGet(`${space}{${keyId}}:budget`, 'held')) ?? 0) / 1e6;
      const admit = (key: { id: string; rpm: number; tpm: undefined }, budgetUsd: number) =>
        together({ keyId: key.id, budgetUsd, worstCaseUsd: 0.3 }, limiter.draws(key, 'beta', 100));

      // Two requests a minute, a budget of 1 USD at 0.3 a request: the third is refused by its
      // window while the budget still has room, and takes no hold.
      const windowed = { id: 'windowed', rpm: 2, tpm: undefined };
      const before = await evalCalls();
      const first = await admit(windowed, 1);
      assert.equal((await evalCalls()) - before, 1, 'one EVALSHA for the hold and both buckets');
      assert.ok(first.budget.admitted && first.draw.allowed);
      assert.ok((await admit(windowed, 1)).draw.allowed);
      const third = await admit(windowed, 1);
      assert.equal(third.draw.allowed, false);
      assert.equal(third.draw.refusedBy, 0, 'refused by the requests window');
      assert.equal(await held('windowed'), 0.6, 'the refused request holds nothing');

      // A budget of 0.5 USD: admitted while spent + held < budget, so two; the third is refused by
      // the budget and draws nothing from the windows.
      const budgeted = { id: 'budgeted', rpm: 10, tpm: undefined };
      assert.ok((await admit(budgeted, 0.5)).draw.allowed);
      assert.ok((await admit(budgeted, 0.5)).draw.allowed);
      const refused = await admit(budgeted, 0.5);
      assert.equal(refused.budget.admitted, false);
      assert.equal(await held('budgeted'), 0.6);
      const state = await limiter.state(budgeted, 'beta', Date.now());
      assert.equal(state.requests.remaining, 8, 'two requests drawn, the refused one none');
    } finally {
      await client.quit();
    }
  });
});
