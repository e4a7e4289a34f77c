/**
 * Leases on the shared buckets (`src/limits/redis/bucket-leases.ts`) on a real redis-server: an
 * instance admits from a lease without a round trip, and still no window admits past its limit
 * across instances; leases shrink near the limit and stop (one by one there); what a lease did not
 * use goes back when it ends or at shutdown, and comes back on its own when its holder died; a
 * Redis error while a lease is held leaves the lease usable and fails the next draw that needs Redis.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createClient } from 'redis';
import { GatewayError } from '../../src/ir/index.ts';
import type { Bucket, Draw } from '../../src/limits/rate-limit-store.ts';
import { BucketLeases, type LeaseOptions } from '../../src/limits/redis/bucket-leases.ts';
import { RedisConnection } from '../../src/limits/redis/redis-connection.ts';
import { RedisRateLimitStore } from '../../src/limits/redis/redis-rate-limit-store.ts';
import { FailoverRateLimitStore } from '../../src/limits/store-failover.ts';
import { missingBinary, startRedis, type RealRedis } from '../kit/real-servers.ts';
import { sleep } from './test-kit.ts';

const skip = missingBinary('redis-server');

/** What each lease script answered: the room left after it and the extra requests it leased. */
class RecordingStore extends RedisRateLimitStore {
  readonly replies: { remaining: number; extra: number }[] = [];
  override async lease(
    ...args: Parameters<RedisRateLimitStore['lease']>
  ): ReturnType<RedisRateLimitStore['lease']> {
    const answer = await super.lease(...args);
    if (answer.result.allowed)
      this.replies.push({ remaining: answer.result.states[0]?.remaining ?? 0, extra: answer.extras[0] ?? 0 });
    return answer;
  }
}

function buckets(id: string, rpm: number, tpm: number, periodMs = 60_000): [Bucket, Bucket] {
  return [
    { id: `${id}:requests`, owner: id, limit: rpm, periodMs, kind: 'window' },
    { id: `${id}:tokens`, owner: id, limit: tpm, periodMs, kind: 'gcra' },
  ];
}

function draws([requests, tokens]: [Bucket, Bucket], tokenCount: number): Draw[] {
  return [
    { bucket: requests, amount: 1 },
    { bucket: tokens, amount: tokenCount },
  ];
}

describe('leases on the shared buckets', { skip }, () => {
  let redis: RealRedis;
  const connections: RedisConnection[] = [];
  const refundFailures: unknown[] = [];

  const instance = async (prefix: string, options: Partial<LeaseOptions> = {}, url = redis.url) => {
    const connection = new RedisConnection({
      url,
      commandTimeoutMs: 1_000,
      breakerFailures: 3,
      breakerCooldownMs: 1_000,
    });
    await connection.connect(5_000);
    connections.push(connection);
    const shared = new RecordingStore(connection, prefix);
    const leases = new BucketLeases(shared, {
      lifeMs: 50,
      maxRequests: 64,
      share: 8,
      onRefundFailed: (error) => refundFailures.push(error),
      ...options,
    });
    return { connection, shared, leases };
  };

  before(async () => {
    redis = await startRedis();
  });
  after(async () => {
    await Promise.all(connections.map((connection) => connection.close()));
    await redis.stop();
  });

  test('three instances, 3,000 concurrent draws on rpm 1,000: most from leases, never past the limit, nothing lost', async () => {
    const pair = buckets('exact', 1_000, 1_000_000);
    const instances = await Promise.all([1, 2, 3].map(() => instance('exact:')));
    const answers = await Promise.all(
      Array.from({ length: 3_000 }, (_, index) =>
        (instances[index % 3]?.leases as BucketLeases).draw(draws(pair, 10), Date.now()),
      ),
    );
    const admitted = answers.filter((answer) => answer.allowed).length;
    assert.ok(admitted <= 1_000, `${admitted} admitted`);
    const scripts = instances.reduce((sum, { shared }) => sum + shared.replies.length, 0);
    assert.ok(scripts < admitted / 2, `${scripts} lease scripts for ${admitted} admissions`);
    // Every lease given back: Redis holds exactly what was admitted, and the rest can still be had.
    await Promise.all(instances.map(({ leases }) => leases.close()));
    const [state] = await (instances[0]?.shared as RecordingStore).peek(pair, Date.now());
    assert.equal(state?.remaining, 1_000 - admitted);
    let more = 0;
    for (let index = 0; index < 1_000 - admitted; index++)
      if ((await (instances[1]?.shared as RecordingStore).draw(draws(pair, 10), Date.now())).allowed) more++;
    assert.equal(more, 1_000 - admitted);
    assert.equal(
      (await (instances[2]?.shared as RecordingStore).draw(draws(pair, 10), Date.now())).allowed,
      false,
    );
  });

  test('near the limit leases shrink and stop: every admission then goes to Redis one by one', async () => {
    const pair = buckets('near', 100, 1_000_000);
    const { shared, leases } = await instance('near:');
    const answers = await Promise.all(
      Array.from({ length: 150 }, () => leases.draw(draws(pair, 1), Date.now())),
    );
    assert.equal(answers.filter((answer) => answer.allowed).length, 100);
    assert.ok(
      shared.replies.some(({ extra }) => extra > 0),
      'leases were granted while there was room',
    );
    for (const { remaining, extra } of shared.replies) {
      // At most an eighth of the room left after the draw; none below eight units.
      assert.ok(extra <= Math.floor((remaining + extra) / 8), JSON.stringify({ remaining, extra }));
      if (remaining + extra < 8) assert.equal(extra, 0);
    }
    // The headers' remaining count went down to 0 and the refusals said so.
    const refused = answers.filter((answer) => !answer.allowed);
    assert.equal(refused.length, 50);
    for (const answer of refused) assert.equal(answer.states[0]?.remaining, 0);
    await leases.close();
  });

  test('a lease not used up within its life goes back; at shutdown the rest goes back too', async () => {
    const pair = buckets('back', 1_000, 1_000_000);
    const { shared, leases } = await instance('back:', { lifeMs: 500 });
    await Promise.all(Array.from({ length: 20 }, () => leases.draw(draws(pair, 5), Date.now())));
    await Promise.all(Array.from({ length: 20 }, () => leases.draw(draws(pair, 5), Date.now())));
    assert.equal(leases.held, 1);
    await sleep(700);
    assert.equal(leases.held, 0, 'the lease ended with its life');
    const [requests, tokens] = await shared.peek(pair, Date.now());
    assert.equal(requests?.remaining, 1_000 - 40, 'only the admissions stay in the window');
    assert.ok((tokens?.remaining ?? 0) >= 1_000_000 - 40 * 5, `${tokens?.remaining} tokens left`);
    // Taken again, then the process shuts down at once: `close` gives the lease back.
    await Promise.all(Array.from({ length: 40 }, () => leases.draw(draws(pair, 5), Date.now())));
    assert.equal(leases.held, 1);
    await leases.close();
    assert.equal(leases.held, 0);
    assert.equal((await shared.peek(pair, Date.now()))[0]?.remaining, 1_000 - 80);
  });

  test('a process that dies holding a lease: its units come back a period after the lease ends, not before', async () => {
    const periodMs = 2_000;
    const pair = buckets('dead', 100, 100_000, periodMs);
    const dying = await instance('dead:');
    const other = await instance('dead:');
    await Promise.all(Array.from({ length: 8 }, () => dying.leases.draw(draws(pair, 10), Date.now())));
    assert.equal(dying.leases.held, 1);
    const leased = 100 - 8 - ((await other.shared.peek(pair, Date.now()))[0]?.remaining ?? 0);
    assert.ok(leased > 0, 'a lease is held');
    // Killed: the connection goes, the lease is never given back.
    await dying.connection.close();
    await sleep(periodMs / 2);
    assert.equal((await other.shared.peek(pair, Date.now()))[0]?.remaining, 100 - 8 - leased, 'still held');
    await sleep(periodMs / 2 + 50 + 300);
    const [requests, tokens] = await other.shared.peek(pair, Date.now());
    assert.equal(requests?.remaining, 100, 'the window is whole again a period after the lease ended');
    assert.equal(tokens?.remaining, 100_000, 'the tokens refilled within a period after it');
  });

  test('Redis gone while a lease is held: the lease still admits, the next draw that needs Redis fails (503 when closed)', async () => {
    const own = await startRedis();
    try {
      const pair = buckets('gone', 1_000, 1_000_000);
      const { leases } = await instance('gone:', { lifeMs: 5_000 }, own.url);
      const store = new FailoverRateLimitStore(leases, {
        mode: 'closed',
        instances: 1,
        onFallback: () => undefined,
      });
      await Promise.all(Array.from({ length: 8 }, () => store.draw(draws(pair, 1), Date.now())));
      assert.equal(leases.held, 1);
      await own.stop();
      // The lease (64 requests, 7 used) keeps admitting without Redis.
      const answers = await Promise.all(
        Array.from({ length: 10 }, () => store.draw(draws(pair, 1), Date.now())),
      );
      assert.ok(answers.every((answer) => answer.allowed && answer.local !== true));
      // Shut down: the refund fails, is reported, and the lease's units are left to expire.
      const failuresBefore = refundFailures.length;
      await leases.close();
      assert.equal(refundFailures.length, failuresBefore + 1, 'the failed refund is reported');
      // The next draw needs Redis: refused with a 503 (`onStoreFailure: closed`).
      await assert.rejects(
        store.draw(draws(pair, 1), Date.now()),
        (error) => error instanceof GatewayError && error.kind === 'unavailable',
      );
    } finally {
      await own.stop().catch(() => undefined);
    }
  });

  test('a peek while a lease is live is answered from it (no round trip)', async () => {
    const pair = buckets('peek', 1_000, 1_000_000);
    const { leases } = await instance('peek:', { lifeMs: 5_000 });
    await Promise.all(Array.from({ length: 10 }, () => leases.draw(draws(pair, 1), Date.now())));
    const monitor = createClient({ url: redis.url });
    await monitor.connect();
    const stats = async (): Promise<number> =>
      Number(/cmdstat_evalsha:calls=(\d+)/.exec(await monitor.info('commandstats'))?.[1] ?? 0);
    try {
      const before = await stats();
      const [requests] = await leases.peek(pair, Date.now());
      assert.equal(await stats(), before, 'no script ran');
      assert.equal(requests?.remaining, 1_000 - 10);
    } finally {
      await monitor.quit();
      await leases.close();
    }
  });
});
