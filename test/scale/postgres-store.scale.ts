/**
 * The PostgreSQL store on a real server of its own: migrations (once, even from several processes
 * at once), keys with the embedded store's rules, the key copy the gateway reads, the ledger
 * shipped idempotently from its outbox (a replayed batch inserts and charges nothing twice), usage
 * reports equal to the embedded store's for the same rows, stored answers, an outage that loses
 * nothing, and the `migrate`, `keys` and `usage` commands against it.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { after, before, describe, test } from 'node:test';
import { emptyPolicy, KeyStoreError } from '../../src/keys/key-store.ts';
import { connectPostgres, type PgConnection } from '../../src/store/postgres/connection.ts';
import { LedgerOutbox } from '../../src/store/postgres/ledger-outbox.ts';
import { LedgerShipper, shipRows } from '../../src/store/postgres/ledger-shipper.ts';
import { migratePostgres, postgresMigrations } from '../../src/store/postgres/migrations.ts';
import { PgKeyCopy } from '../../src/store/postgres/pg-key-copy.ts';
import { PgKeyStore } from '../../src/store/postgres/pg-key-store.ts';
import { PgResponseStore } from '../../src/store/postgres/pg-response-store.ts';
import { PgUsageReports } from '../../src/store/postgres/pg-usage-reports.ts';
import { StoreUnavailableError } from '../../src/store/store-errors.ts';
import { embeddedStores } from '../../src/store/stores.ts';
import type { LedgerRow } from '../../src/usage/ledger.ts';
import { missingPostgres, startPostgres, type RealPostgres } from '../kit/real-servers.ts';

const skip = missingPostgres();
const root = join(import.meta.dirname, '../..');

function row(index: number, overrides: Partial<LedgerRow> = {}): LedgerRow {
  return {
    requestId: `req_${index}`,
    attempt: 1,
    final: true,
    createdAt: Date.parse('2026-03-01T10:00:00Z') + index * 3_600_000,
    keyId: index % 3 === 0 ? 'key-a' : 'key-b',
    surface: 'beta',
    model: index % 2 === 0 ? 'B-1' : 'A-2',
    family: 'beta',
    upstreamModel: 'B-1',
    deployment: undefined,
    stream: index % 2 === 0,
    status: index % 5 === 0 ? 429 : 200,
    upstreamStatus: 200,
    outcome: index % 5 === 0 ? 'rejected' : 'ok',
    error: index % 5 === 0 ? 'rate_limited' : undefined,
    promptTokens: 10 + index,
    cachedTokens: index % 4,
    cacheWriteTokens: 1,
    outputTokens: 5 + index,
    reasoningTokens: index % 2,
    costUsd: index % 5 === 0 ? 0 : 0.000105 * index,
    usageEstimated: false,
    latencyMs: 12.345,
    ttftMs: undefined,
    overheadMs: 0.41,
    traceId: index.toString(16).padStart(32, '0'),
    ...overrides,
  };
}

describe('the PostgreSQL store on a real server', { skip, timeout: 300_000 }, () => {
  let postgres: RealPostgres;
  let connection: PgConnection;
  let directory: string;

  before(async () => {
    postgres = await startPostgres();
    connection = await connectPostgres(postgres.url, undefined, { connectTimeoutMs: 2_000 });
    directory = mkdtempSync(join(tmpdir(), 'modelgate-pg-store-'));
  });

  after(async () => {
    await connection.close();
    await postgres.stop();
    rmSync(directory, { recursive: true, force: true });
  });

  test('migrations: five processes migrating at once apply each version exactly once; a rerun does nothing', async () => {
    const connections = await Promise.all(
      Array.from({ length: 5 }, () => connectPostgres(postgres.url, undefined)),
    );
    try {
      const results = await Promise.all(connections.map((each) => migratePostgres(each)));
      assert.equal(results.filter((result) => result.from === 0).length, 1, 'one of them migrated');
      assert.ok(results.every((result) => result.to === postgresMigrations.length));
      const versions = await connection.query<{ version: number }>(
        'SELECT version FROM modelgate_migrations ORDER BY version',
      );
      assert.deepEqual(
        versions.map((entry) => entry.version),
        postgresMigrations.map((_, index) => index + 1),
      );
      const again = await migratePostgres(connection);
      assert.deepEqual(again, {
        from: postgresMigrations.length,
        to: postgresMigrations.length,
        latest: postgresMigrations.length,
      });
      await assert.rejects(
        migratePostgres(connection, postgresMigrations.slice(0, -1)),
        /newer than this modelgate/,
      );
    } finally {
      await Promise.all(connections.map((each) => each.close()));
    }
  });

  test('keys: the embedded store’s rules; two instances creating one name at once: one wins, one conflicts', async () => {
    const store = new PgKeyStore(connection);
    const { key, record } = await store.create(
      'team-a',
      {
        models: ['A-2', 'B-1'],
        budgetUsd: 10,
        periodBudget: { period: 'daily', usd: 2 },
        rpm: 5,
        tpm: 1000,
        expiresAt: 9_000,
      },
      1_000,
    );
    assert.match(key, /^mg-[A-Za-z0-9_-]{32}$/);
    assert.deepEqual(
      { ...record, id: '' },
      {
        id: '',
        name: 'team-a',
        createdAt: 1_000,
        updatedAt: undefined,
        revokedAt: undefined,
        models: ['A-2', 'B-1'],
        budgetUsd: 10,
        periodBudget: { period: 'daily', usd: 2 },
        rpm: 5,
        tpm: 1000,
        expiresAt: 9_000,
        spentUsd: 0,
      },
    );
    const raw = JSON.stringify(await connection.query('SELECT * FROM client_keys'));
    assert.ok(!raw.includes(key), 'only the hash is stored');
    const updated = await store.update('team-a', { rpm: null, budgetUsd: 2, models: ['C-1'] }, 2_000);
    assert.equal(updated.rpm, undefined);
    assert.deepEqual(updated.models, ['C-1']);
    assert.equal((await store.find(record.id))?.name, 'team-a');
    const revoked = await store.revoke('team-a', 3_000);
    assert.equal(revoked.revokedAt, 3_000);
    assert.equal((await store.revoke(revoked.id, 4_000)).revokedAt, 3_000, 'idempotent');
    await assert.rejects(store.update(revoked.id, { rpm: 1 }, 5_000), { kind: 'conflict' });
    assert.equal((await store.create('team-a', emptyPolicy, 6_000)).record.name, 'team-a', 'name free again');
    for (const bad of [
      () => store.create('team-a', emptyPolicy, 1),
      () => store.create('  ', emptyPolicy, 1),
      () => store.create('y', { ...emptyPolicy, rpm: 1.5 }, 1),
      () => store.revoke('nope', 1),
    ])
      await assert.rejects(bad(), KeyStoreError);
    const hostile = "'; DROP TABLE client_keys; --";
    await store.create(hostile, emptyPolicy, 1);
    assert.equal((await store.find(hostile))?.name, hostile);

    const other = await connectPostgres(postgres.url, undefined);
    try {
      const results = await Promise.allSettled([
        store.create('raced', emptyPolicy, 7_000),
        new PgKeyStore(other).create('raced', emptyPolicy, 7_000),
      ]);
      assert.equal(results.filter((result) => result.status === 'fulfilled').length, 1);
      const refused = results.find((result) => result.status === 'rejected');
      assert.ok(refused?.reason instanceof KeyStoreError && refused.reason.kind === 'conflict');
    } finally {
      await other.close();
    }
    assert.ok((await store.names()).get(record.id) === 'team-a');
  });

  test('the key copy: read at once after a change here, within the poll interval after a change elsewhere', async () => {
    const copy = new PgKeyCopy(connection);
    await copy.refresh();
    const before = copy.generation();
    const elsewhere = await connectPostgres(postgres.url, undefined);
    try {
      const created = await new PgKeyStore(elsewhere).create('copied', emptyPolicy, 1);
      assert.ok(!copy.activeKeys().some((key) => key.id === created.record.id), 'not read yet');
      copy.start(50);
      const deadline = Date.now() + 5_000;
      while (!copy.activeKeys().some((key) => key.id === created.record.id)) {
        assert.ok(Date.now() < deadline, 'the poll read the new key');
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      assert.ok(copy.generation() > before);
      await new PgKeyStore(elsewhere).revoke('copied', 2);
      await copy.refresh();
      assert.ok(!copy.activeKeys().some((key) => key.id === created.record.id), 'revoked: gone');
    } finally {
      copy.stop();
      await elsewhere.close();
    }
  });

  test('ledger: a replayed batch inserts and charges nothing twice; reports equal the embedded store’s', async () => {
    const rows = Array.from({ length: 300 }, (_, index) => row(index + 1));
    assert.equal(await shipRows(connection, rows.slice(0, 200)), 200);
    // The first 200 again (a crash between the server's commit and the outbox's delete), plus new ones.
    assert.equal(await shipRows(connection, rows), 100);
    const [counted] = await connection.query<{ n: number; cost: number }>(
      'SELECT count(*) AS n, sum(cost_usd) AS cost FROM usage_ledger',
    );
    assert.equal(counted?.n, 300);
    const spend = await new PgKeyStore(connection).spend();
    const expected = new Map<string, number>();
    for (const each of rows) expected.set(each.keyId, (expected.get(each.keyId) ?? 0) + each.costUsd);
    for (const [keyId, cost] of expected) assert.ok(Math.abs((spend.get(keyId) ?? 0) - cost) < 1e-9, keyId);

    const embedded = embeddedStores(':memory:');
    const ledger = embedded.ledger({});
    for (const each of rows) ledger.append(each);
    await ledger.close();
    const names = new Map([['key-a', 'Team A']]);
    const reports = new PgUsageReports(connection);
    for (const query of [
      { by: 'model' as const, since: 0 },
      { by: 'key' as const, since: 0 },
      { by: 'day' as const, since: 0 },
      { by: 'model' as const, since: rows[100]?.createdAt ?? 0, until: rows[200]?.createdAt ?? 0 },
      { by: 'day' as const, since: 0, keyIds: ['key-b'] },
      { by: 'model' as const, since: 0, keyIds: [] },
    ])
      assert.deepEqual(
        await reports.report(query, names),
        await embedded.usage.report(query, names),
        JSON.stringify(query),
      );
    await embedded.close();
  });

  test('stored answers: per key, retention, purge', async () => {
    let now = 1_700_000_000_000;
    const store = new PgResponseStore(connection, 1_000, () => now);
    const stored = {
      id: 'resp_1',
      inputItems: [{ role: 'user', content: 'hi', zeta: 1, alpha: 2 }],
      response: { id: 'resp_1', object: 'response', output: [] },
    };
    await store.put('key-a', stored);
    assert.deepEqual(await store.get('resp_1', 'key-a'), stored);
    assert.equal(
      JSON.stringify((await store.get('resp_1', 'key-a'))?.inputItems),
      JSON.stringify(stored.inputItems),
      'read back byte for byte (key order kept)',
    );
    assert.equal(await store.get('resp_1', 'key-b'), undefined);
    assert.equal(await store.delete('resp_1', 'key-b'), false);
    now += 1_000;
    assert.equal(await store.get('resp_1', 'key-a'), undefined, 'expired');
    assert.equal(await store.purge(), 1);
    await store.put('key-a', { ...stored, id: 'resp_2' });
    assert.equal(await store.delete('resp_2', 'key-a'), true);
  });

  test('a transaction whose connection the server ends between two queries fails as unavailable; the process lives on', async () => {
    let terminated = false;
    const outcome = connection.transaction(async (query) => {
      const [row] = await query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
      // Ended from another connection while this one runs no query: pg reports it as an 'error'
      // event on the checked-out client, which nobody listening for would crash the process.
      await connection.query('SELECT pg_terminate_backend($1)', [row?.pid]);
      terminated = true;
      await new Promise((resolve) => setTimeout(resolve, 300));
      await query('SELECT 1');
    });
    await assert.rejects(outcome, StoreUnavailableError);
    assert.ok(terminated);
    // The pool gives out a healthy connection afterwards.
    assert.deepEqual(await connection.query<{ one: number }>('SELECT 1 AS one'), [{ one: 1 }]);
  });

  test('an outage: rows wait in the outbox and arrive once after the restart; store calls fail as unavailable', async () => {
    const outbox = new LedgerOutbox(join(directory, 'outbox.db'));
    const shipper = new LedgerShipper(outbox, connection, { idleMs: 20, maxBackoffMs: 200 });
    shipper.start();
    const [{ n: before } = { n: 0 }] = await connection.query<{ n: number }>(
      'SELECT count(*) AS n FROM usage_ledger',
    );
    await postgres.pause();
    const rows = Array.from({ length: 2_500 }, (_, index) => row(10_000 + index));
    for (let index = 0; index < rows.length; index += 250) {
      outbox.write(rows.slice(index, index + 250));
      shipper.wake();
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    assert.equal(outbox.count(), 2_500, 'every row waits on disk');
    await assert.rejects(new PgKeyStore(connection).list(), StoreUnavailableError);
    await postgres.start();
    const deadline = Date.now() + 30_000;
    while (outbox.count() > 0) {
      assert.ok(Date.now() < deadline, `${outbox.count()} rows still waiting`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const [{ n: afterwards } = { n: 0 }] = await connection.query<{ n: number }>(
      'SELECT count(*) AS n FROM usage_ledger',
    );
    assert.equal(afterwards - before, 2_500);
    assert.equal(await shipper.drain(1_000), 0);
    outbox.close();
  });

  test('a row the server refuses for what it holds is set aside; the rows around it are shipped', async () => {
    const path = join(directory, 'poison.db');
    const outbox = new LedgerOutbox(path);
    const shipper = new LedgerShipper(outbox, connection, { idleMs: 20 });
    // PostgreSQL text cannot hold NUL: the server refuses this row whatever the batch.
    outbox.write([row(20_001), row(20_002, { error: 'bad\u0000kind' }), row(20_003)]);
    shipper.start();
    assert.equal(await shipper.drain(10_000), 0);
    const shipped = await connection.query<{ request_id: string }>(
      "SELECT request_id FROM usage_ledger WHERE request_id IN ('req_20001', 'req_20002', 'req_20003') ORDER BY 1",
    );
    assert.deepEqual(
      shipped.map((entry) => entry.request_id),
      ['req_20001', 'req_20003'],
    );
    outbox.close();
    const file = new DatabaseSync(path, { readOnly: true });
    const rejected = file.prepare('SELECT row, reason FROM rejected').all() as {
      row: string;
      reason: string;
    }[];
    file.close();
    assert.equal(rejected.length, 1);
    assert.equal((JSON.parse(rejected[0]?.row ?? '{}') as LedgerRow).requestId, 'req_20002');
  });

  test('modelgate migrate, keys and usage work against it', () => {
    const env = {
      PATH: process.env.PATH ?? '',
      MODELGATE_DATABASE_URL: postgres.url,
      MODELGATE_DB: join(directory, 'unused.db'),
    };
    const cli = (...args: string[]): { status: number | null; stdout: string; stderr: string } =>
      spawnSync(process.execPath, [join(root, 'src/cli/main.ts'), ...args], {
        cwd: root,
        env,
        encoding: 'utf8',
      });
    const migrated = cli('migrate', '--json');
    assert.equal(migrated.status, 0, migrated.stderr);
    assert.deepEqual(JSON.parse(migrated.stdout), {
      object: 'migration',
      store: 'postgres',
      location: postgres.url,
      from: postgresMigrations.length,
      to: postgresMigrations.length,
      latest: postgresMigrations.length,
    });
    const created = cli('keys', 'create', '--name', 'from-cli', '--rpm', '7', '--json');
    assert.equal(created.status, 0, created.stderr);
    const listed = cli('keys', 'list', '--json');
    assert.ok(
      (JSON.parse(listed.stdout) as { data: { name: string }[] }).data.some((key) => key.name === 'from-cli'),
    );
    const usage = cli('usage', '--since', '2026-01-01', '--by', 'key', '--json');
    assert.equal(usage.status, 0, usage.stderr);
    assert.ok((JSON.parse(usage.stdout) as { total: { requests: number } }).total.requests > 0);
    const unreachable = spawnSync(process.execPath, [join(root, 'src/cli/main.ts'), 'keys', 'list'], {
      cwd: root,
      env: { ...env, MODELGATE_DATABASE_URL: 'postgres://modelgate:s3cret-pw@127.0.0.1:1/none' },
      encoding: 'utf8',
    });
    assert.equal(unreachable.status, 1);
    assert.match(
      unreachable.stderr,
      /PostgreSQL at postgres:\/\/modelgate@127\.0\.0\.1:1\/none is unreachable/,
    );
    assert.ok(!unreachable.stderr.includes('s3cret-pw'), 'no password in the message');
  });
});
