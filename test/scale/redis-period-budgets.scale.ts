/**
 * Periodic budgets across instances: two gateways sharing one store and one real redis-server.
 * A daily budget spent through one instance refuses on the other, naming the day and its reset;
 * after UTC midnight (both gateways' clocks moved on) the key is served again, and the new day's
 * spend is again one account for both. The day's account
 * in Redis expires on its own (two days after its period), a lifetime account never does.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { createClient } from 'redis';
import { alphaAuth, post, type HttpAnswer } from '../kit/e2e.ts';
import { missingBinary, startRedis, type RealRedis } from '../kit/real-servers.ts';
import { startTestGateway, type TestGateway } from '../kit/test-gateway.ts';

const skip = missingBinary('redis-server');
const adminKey = 'mg-admin-period-scale-0123456789';

describe('periodic budgets on two instances sharing Redis', { skip }, () => {
  let redis: RealRedis;
  let directory: string;
  const gateways: TestGateway[] = [];
  let now = Date.parse('2026-11-27T22:00:00Z');

  before(async () => {
    redis = await startRedis();
    directory = mkdtempSync(join(tmpdir(), 'modelgate-period-scale-'));
    for (let index = 0; index < 2; index++)
      gateways.push(
        await startTestGateway(
          {
            MODELGATE_ADMIN_KEY: adminKey,
            MODELGATE_DB: join(directory, 'shared.db'),
            MODELGATE_REDIS_URL: redis.url,
          },
          undefined,
          { clock: () => now },
        ),
      );
  });
  after(async () => {
    await Promise.all(gateways.map((gateway) => gateway.close()));
    await redis.stop();
    rmSync(directory, { recursive: true, force: true });
  });

  const chat = (gateway: TestGateway, key: string): Promise<HttpAnswer> =>
    post(gateway.url, '/v1/chat/completions', alphaAuth(key), {
      model: 'A-1',
      messages: [{ role: 'user', content: 'spend a little' }],
    });

  test('spent through one instance, refused on the other until the next UTC day', async () => {
    const [first, second] = gateways as [TestGateway, TestGateway];
    const created = await post(first.url, '/admin/keys', alphaAuth(adminKey), {
      name: 'shared-daily',
      budget_usd: 5,
      period_budget_usd: 0.00001,
      budget_period: 'daily',
    });
    assert.equal(created.status, 201, created.text);
    const { key, id } = created.json as { key: string; id: string };
    // The key reaches the second instance within its recheck.
    await new Promise((resolve) => setTimeout(resolve, 600));
    assert.equal((await chat(first, key)).status, 200);
    let refused: HttpAnswer | undefined;
    for (let tries = 0; tries < 50 && refused === undefined; tries++) {
      const answer = await chat(second, key);
      if (answer.status === 429) refused = answer;
      else await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert.ok(refused !== undefined, 'the day spent through the first instance refuses on the second');
    assert.match(
      (refused.json as { error: { message: string } }).error.message,
      /daily budget.*this day \(UTC\)/,
    );
    assert.equal(refused.headers.get('retry-after'), '7200');

    const client = createClient({ url: redis.url });
    await client.connect();
    try {
      const [dayAccount] = await client.keys(`*{${id}/day:2026-11-27}:budget`);
      assert.ok(dayAccount !== undefined, 'the day has its own account in Redis');
      const expiresAt = await client.pExpireTime(dayAccount);
      assert.equal(expiresAt, Date.parse('2026-11-30T00:00:00Z'), 'forgotten two days after the day');
      const [lifetime] = await client.keys(`*{${id}}:budget`);
      assert.ok(lifetime !== undefined);
      assert.equal(await client.pTTL(lifetime), -1, 'a lifetime account never expires');
    } finally {
      await client.close();
    }

    now = Date.parse('2026-11-28T00:00:05Z');
    assert.equal((await chat(second, key)).status, 200, 'a new day on the second instance');
    // That request spent the new day's budget too: the first instance sees it (one account).
    let refusedAgain: HttpAnswer | undefined;
    for (let tries = 0; tries < 50 && refusedAgain === undefined; tries++) {
      const answer = await chat(first, key);
      if (answer.status === 429) refusedAgain = answer;
      else await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert.ok(refusedAgain !== undefined);
    assert.match(refusedAgain.text, /resets at 2026-11-29T00:00:00\.000Z/);
  });
});
