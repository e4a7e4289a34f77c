/**
 * `/readyz` and `/healthz` against real servers going down: with PostgreSQL stopped the instance is
 * not ready (503 naming the store) while `/livez` and `/healthz` still answer 200 (`/healthz`
 * saying degraded); with Redis stopped it names Redis; both back, it is ready again.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import {
  missingBinary,
  missingPostgres,
  startPostgres,
  startRedis,
  type RealPostgres,
  type RealRedis,
} from '../kit/real-servers.ts';
import { startInstance, stopInstances, type Instance } from './test-kit.ts';

const skip = missingPostgres() ?? missingBinary('redis-server');

async function get(url: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(url);
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/** Polls `path` until it answers `status` (a server's stop or start takes a moment to show). */
async function until(
  url: string,
  status: number,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const answer = await get(url);
    if (answer.status === status || Date.now() > deadline) return answer;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

describe('readiness while PostgreSQL or Redis is down', { skip, timeout: 180_000 }, () => {
  let postgres: RealPostgres;
  let redis: RealRedis;
  let directory: string;
  let instance: Instance;
  let redisStopped = false;

  before(async () => {
    directory = mkdtempSync(join(tmpdir(), 'modelgate-readiness-'));
    postgres = await startPostgres();
    redis = await startRedis();
    instance = await startInstance({
      LOG_LEVEL: 'error',
      MODELGATE_KEYS: 'mg-readiness-static-key-0123456789',
      MODELGATE_DB: join(directory, 'local.db'),
      MODELGATE_DATABASE_URL: postgres.url,
      MODELGATE_REDIS_URL: redis.url,
    });
  });

  after(async () => {
    await stopInstances([instance]);
    await postgres.stop();
    if (!redisStopped) await redis.stop();
    rmSync(directory, { recursive: true, force: true });
  });

  test('ready with both; PostgreSQL stopped: 503 naming the store, /healthz degraded, /livez 200', async () => {
    assert.deepEqual(await get(`${instance.url}/readyz`), {
      status: 200,
      body: { status: 'ready', checks: { store: 'ok', redis: 'ok' } },
    });
    await postgres.pause();
    const down = await until(`${instance.url}/readyz`, 503);
    assert.equal(down.status, 503);
    assert.deepEqual(down.body.down, ['store']);
    assert.equal((await get(`${instance.url}/livez`)).status, 200);
    const health = await get(`${instance.url}/healthz`);
    assert.equal(health.status, 200);
    assert.equal(health.body.status, 'degraded');
    await postgres.start();
    assert.equal((await until(`${instance.url}/readyz`, 200)).status, 200);
  });

  test('Redis stopped: 503 naming Redis', async () => {
    await redis.stop();
    redisStopped = true;
    const down = await until(`${instance.url}/readyz`, 503);
    assert.equal(down.status, 503);
    assert.deepEqual(down.body.down, ['redis']);
  });
});
