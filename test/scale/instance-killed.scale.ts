/**
 * `kill -9` of one instance under load: three `serve --workers 2` instances on one Redis and one
 * PostgreSQL, each with its own outbox file (as on three machines), steady load on a key with a
 * budget over all three. The primary of one is killed as an operator's `kill -9 <pid>` does: its
 * workers go with it (node:cluster: a worker whose primary is gone exits), the other instances
 * keep answering 200, the killed instance's budget holds expire within their TTL, and its ledger
 * rows are lost at most for the flush window — none once it is started again on its outbox file.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { after, before, describe, test } from 'node:test';
import { createClient } from 'redis';
import { connectPostgres, type PgConnection } from '../../src/store/postgres/connection.ts';
import { flushWindowMs } from '../../src/usage/ledger.ts';
import { alphaAuth, post } from '../kit/e2e.ts';
import {
  missingBinary,
  missingPostgres,
  startPostgres,
  startRedis,
  type RealPostgres,
  type RealRedis,
} from '../kit/real-servers.ts';
import {
  alive,
  childPids,
  sleep,
  startInstance,
  steadyLoad,
  stopInstances,
  waitForKey,
  type Instance,
} from './test-kit.ts';

const skip = missingBinary('redis-server') ?? missingPostgres();
const adminKey = 'mg-killed-admin-key-0123456789abcdef';
/** Short, so the test can wait it out: how long an unsettled budget hold lives. */
const holdTtlMs = 10_000;
/** The simulator's time to first token: every request holds its budget this long at least. */
const ttftMs = 400;

describe('kill -9 of one instance of three under load', { skip, timeout: 300_000 }, () => {
  let redis: RealRedis;
  let postgres: RealPostgres;
  let connection: PgConnection;
  let directory: string;
  let instances: Instance[] = [];

  const start = (index: number): Promise<Instance> => {
    const own = join(directory, `instance-${index}`);
    mkdirSync(own, { recursive: true });
    return startInstance(
      {
        LOG_LEVEL: 'warn',
        MODELGATE_ADMIN_KEY: adminKey,
        MODELGATE_DB: join(own, 'local.db'),
        MODELGATE_OUTBOX: join(own, 'ledger-outbox.db'),
        MODELGATE_DATABASE_URL: postgres.url,
        MODELGATE_REDIS_URL: redis.url,
        MODELGATE_CONFIG: join(directory, 'config.yaml'),
        SIMULATOR_TTFT_MS: String(ttftMs),
      },
      { workers: 2 },
    );
  };

  before(async () => {
    directory = mkdtempSync(join(tmpdir(), 'modelgate-killed-'));
    writeFileSync(
      join(directory, 'config.yaml'),
      `limits:\n  instances: 6\nredis:\n  commandTimeoutMs: 2000\n  holdTtlMs: ${holdTtlMs}\n`,
    );
    [redis, postgres] = await Promise.all([startRedis(), startPostgres()]);
    // One first, so the others find the schema migrated (they would wait on its lock anyway).
    instances = [await start(0)];
    instances.push(...(await Promise.all([start(1), start(2)])));
    connection = await connectPostgres(postgres.url, undefined);
  });

  after(async () => {
    await stopInstances(instances);
    await connection.close();
    await Promise.all([redis.stop(), postgres.stop()]);
    rmSync(directory, { recursive: true, force: true });
  });

  test('the others keep answering 200; its holds expire within their TTL; its ledger rows are all in PostgreSQL once it restarts', async (t) => {
    const created = await post(instances[0]?.url ?? '', '/admin/keys', alphaAuth(adminKey), {
      name: 'killed-load',
      budget_usd: 1_000,
      rpm: 1_000_000,
      tpm: 100_000_000,
    });
    assert.equal(created.status, 201, created.text);
    const { key, id } = created.json as { key: string; id: string };
    // Other processes learn of a new key within a second: the load starts once all know it.
    await waitForKey(instances, alphaAuth(key));
    const load = steadyLoad(
      () => instances,
      24,
      (url) =>
        post(url, '/v1/chat/completions', alphaAuth(key), {
          model: 'A-3',
          max_tokens: 8,
          messages: [{ role: 'user', content: 'Hello there' }],
        }),
    );
    const client = createClient({ url: redis.url });
    await client.connect();
    try {
      await sleep(5_000);
      const victim = instances[2] as Instance;
      const workers = childPids(victim.pid);
      assert.equal(workers.length, 2, 'a primary and its two workers');
      // The load balancer takes it out of the pool as it dies; its requests in flight are cut.
      load.targets = [0, 1];
      const killedAt = Date.now();
      process.kill(victim.pid, 'SIGKILL');
      await victim.exited;
      // Its workers do not outlive it: each exits as its channel to the primary closes.
      for (;;) {
        const left = workers.filter(alive);
        if (left.length === 0) break;
        assert.ok(Date.now() - killedAt < 5_000, `workers ${left.join(', ')} still running`);
        await sleep(50);
      }
      const workersGoneMs = Date.now() - killedAt;
      await sleep(3_000);
      await load.stop();

      const answers = load.answers;
      const survivors = answers.filter((answer) => answer.instance !== 2);
      const afterKill = survivors.filter((answer) => answer.sentAt > killedAt);
      assert.deepEqual(
        [...new Set(survivors.map((answer) => answer.error ?? answer.status))],
        [200],
        'the other instances answered every request 200, during and after',
      );
      assert.ok(afterKill.some((answer) => answer.instance === 0));
      assert.ok(afterKill.some((answer) => answer.instance === 1));
      const victims = answers.filter((answer) => answer.instance === 2);
      const cut = victims.filter((answer) => answer.error !== undefined);
      const answered = victims.filter((answer) => answer.status === 200);
      assert.ok(
        victims.every((answer) => answer.status === 200 || answer.error !== undefined),
        `the killed instance answered 200 or not at all: ${victims.map((answer) => answer.error ?? answer.status).join(' ')}`,
      );

      // Holds: once the survivors settled theirs, what is held is the killed instance's, and it
      // stays held until its TTL, then frees itself.
      const budget = `mg:{${id}}:budget`;
      const held = async (): Promise<number> => Number((await client.hGet(budget, 'held')) ?? 0);
      await sleep(1_000);
      const orphans = await client.zRangeWithScores(`${budget}:holds`, 0, -1);
      const orphaned = await held();
      assert.ok(orphans.length > 0 && orphaned > 0, 'the killed instance held budget when it died');
      assert.ok(
        orphans.every((hold) => hold.score <= killedAt + holdTtlMs + 1_000),
        'every orphan hold expires within the TTL of the kill',
      );
      // A request through a survivor frees expired holds (each admission does, atomically): probe
      // until nothing is held, then the reserved amount is back to the settled spend.
      let releasedAt = 0;
      for (;;) {
        const probe = await post(instances[0]?.url ?? '', '/v1/chat/completions', alphaAuth(key), {
          model: 'A-3',
          max_tokens: 1,
          messages: [{ role: 'user', content: 'Hello' }],
        });
        assert.equal(probe.status, 200);
        await sleep(200);
        if ((await held()) === 0) {
          releasedAt = Date.now();
          break;
        }
        assert.ok(Date.now() - killedAt < holdTtlMs + 10_000, 'the orphan holds expire');
        await sleep(300);
      }
      const releasedMs = releasedAt - killedAt;
      assert.ok(releasedMs >= holdTtlMs - ttftMs - 2_000, `held until near the TTL (${releasedMs} ms)`);
      assert.ok(releasedMs <= holdTtlMs + 5_000, `released within the TTL (${releasedMs} ms)`);

      // Ledger: the killed instance's answered requests against its rows in PostgreSQL.
      const ids = answered.map((answer) => answer.requestId ?? '');
      const inPostgres = async (): Promise<Set<string>> =>
        new Set(
          (
            await connection.query<{ request_id: string }>(
              'SELECT request_id FROM usage_ledger WHERE final AND request_id = ANY($1::text[])',
              [ids],
            )
          ).map((row) => row.request_id),
        );
      const shippedBefore = (await inPostgres()).size;
      const outbox = new DatabaseSync(join(directory, 'instance-2', 'ledger-outbox.db'));
      const waiting = (outbox.prepare('SELECT count(*) AS n FROM outbox').get() as { n: number }).n;
      outbox.close();
      // Started again on its own outbox file: it ships what waits there.
      const restartedAt = Date.now();
      instances[2] = await start(2);
      let found = new Set<string>();
      for (;;) {
        found = await inPostgres();
        if (found.size === ids.length || Date.now() - restartedAt > 30_000) break;
        await sleep(200);
      }
      const lost = answered.filter((answer) => !found.has(answer.requestId ?? ''));
      const lostWindowMs = lost.map((answer) => killedAt - answer.answeredAt);
      t.diagnostic(
        `${answers.length} requests; the killed instance answered ${answered.length} (200), ${cut.length} cut; ` +
          `its workers were gone ${workersGoneMs} ms after the kill; ${orphans.length} orphan holds ` +
          `(${orphaned / 1e6} USD) freed ${releasedMs} ms after the kill (TTL ${holdTtlMs} ms); ` +
          `its rows: ${shippedBefore} in PostgreSQL at the kill, ${waiting} waiting in its outbox file, ` +
          `${lost.length} lost (answered ${lostWindowMs.join(', ')} ms before the kill)`,
      );
      assert.ok(answered.length > 0 && waiting >= 0);
      assert.ok(
        lostWindowMs.every((ms) => ms <= flushWindowMs + 1_000),
        'only rows of the last flush window may be lost',
      );
      assert.equal(lost.length, 0, 'the restarted instance shipped every row its outbox file kept');
    } finally {
      await load.stop();
      await client.close();
    }
  });
});
