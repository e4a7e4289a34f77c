/**
 * The dashboard on the PostgreSQL store, on a real server of its own: the rollups the ledger
 * shipper keeps equal the embedded store's for the same rows and the ones rebuilt from the ledger;
 * a replayed batch leaves them unchanged; the migration that adds them fills them from a ledger
 * already there. Two gateway instances on one database: after traffic through all three surfaces
 * (the official SDKs, spread over both), the dashboard's figures equal what `modelgate usage`
 * prints for the same database; a session made on one instance is valid on the other (and signing
 * out on either ends it); each instance's live tail shows its own rows.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import OpenAI from 'openai';
import { openDatabase } from '../../src/store/sqlite/database.ts';
import { connectPostgres, type PgConnection } from '../../src/store/postgres/connection.ts';
import { shipRows, shipValues, shipSql } from '../../src/store/postgres/ledger-shipper.ts';
import { migratePostgres, postgresMigrations } from '../../src/store/postgres/migrations.ts';
import { rebuildPgRollups } from '../../src/store/postgres/pg-rollups.ts';
import { SqliteLedgerWriter } from '../../src/store/sqlite/sqlite-ledger-writer.ts';
import { dumpRollups, rollupDifference, sampleLedgerRows } from '../../src/store/sqlite/test-kit.ts';
import { missingPostgres, startPostgres, type RealPostgres } from '../kit/real-servers.ts';
import { trafficOnEverySurface } from '../kit/surface-traffic.ts';
import { startTestGateway, type TestGateway } from '../kit/test-gateway.ts';

const skip = missingPostgres();
const root = join(import.meta.dirname, '../..');
const adminKey = 'mg-admin-dashboard-postgres-0123456789';

/** PostgreSQL's rollups in the shape of `dumpRollups` (the embedded store's). */
async function dumpPgRollups(connection: PgConnection): Promise<unknown[]> {
  const usage = (
    await connection.query<Record<string, number | string>>(
      'SELECT * FROM usage_rollup ORDER BY period, dimension, bucket, value',
    )
  ).map((row) => ({
    ...row,
    cost_usd: Math.round(Number(row.cost_usd) * 1e9),
    overhead_ms: Math.round(Number(row.overhead_ms) * 1e3),
  }));
  const latency = await connection.query(
    `SELECT period, model, bucket, metric, json_object_agg(bin, count) AS counts FROM latency_rollup
     GROUP BY period, model, bucket, metric ORDER BY period, model, bucket, metric`,
  );
  return [usage, latency];
}

describe('the dashboard on PostgreSQL', { skip, timeout: 300_000 }, () => {
  let postgres: RealPostgres;
  let server: PgConnection;
  const opened: PgConnection[] = [];

  /** A database of its own on the server: its URL and a connection to it. */
  const database = async (name: string): Promise<{ url: string; connection: PgConnection }> => {
    await server.query(`CREATE DATABASE ${name}`);
    const url = postgres.url.replace(/\/postgres$/, `/${name}`);
    const connection = await connectPostgres(url, undefined);
    opened.push(connection);
    return { url, connection };
  };

  before(async () => {
    postgres = await startPostgres();
    server = await connectPostgres(postgres.url, undefined);
  });

  after(async () => {
    await Promise.all(opened.map((connection) => connection.close()));
    await server.close();
    await postgres.stop();
  });

  test('rollups: the shipper’s equal the embedded store’s and the rebuilt ones; a replay changes nothing; the migration fills them', async () => {
    const { connection } = await database('rollups');
    await migratePostgres(connection);
    const rows = sampleLedgerRows(2_000, Date.UTC(2026, 10, 20, 10, 0, 0));
    // The same batches on both stores (one of them splits a request's attempts).
    const embedded = openDatabase(':memory:');
    const writer = new SqliteLedgerWriter(embedded);
    for (let index = 0; index < rows.length; index += 333) {
      const batch = rows.slice(index, index + 333);
      writer.write(batch);
      assert.equal(await shipRows(connection, batch), batch.length);
    }
    const kept = await dumpPgRollups(connection);
    assert.ok((kept[0] as unknown[]).length > 100);
    assert.equal(
      rollupDifference(kept, dumpRollups(embedded)),
      undefined,
      'the same rollups as the embedded store',
    );
    embedded.close();

    // A crash between the server's commit and the outbox's delete: the batches come again.
    assert.equal(await shipRows(connection, rows.slice(333, 666)), 0);
    assert.equal(await shipRows(connection, rows.slice(100, 1_500)), 0);
    assert.equal(
      rollupDifference(await dumpPgRollups(connection), kept),
      undefined,
      'a replayed batch counts nothing',
    );

    await rebuildPgRollups(connection);
    assert.equal(
      rollupDifference(await dumpPgRollups(connection), kept),
      undefined,
      'rebuilt from the ledger: the same',
    );

    // A ledger shipped before the dashboard existed (schema 2), then migrated.
    const older = (await database('older')).connection;
    await migratePostgres(older, postgresMigrations.slice(0, 2));
    await older.query(shipSql, shipValues(rows));
    const migrated = await migratePostgres(older);
    assert.deepEqual({ from: migrated.from, to: migrated.to }, { from: 2, to: postgresMigrations.length });
    assert.equal(
      rollupDifference(await dumpPgRollups(older), kept),
      undefined,
      'the migration filled them from the ledger',
    );
  });

  describe('two instances on one database', () => {
    let url: string;
    let connection: PgConnection;
    let instances: TestGateway[] = [];

    before(async () => {
      ({ url, connection } = await database('instances'));
      for (let index = 0; index < 2; index++)
        instances.push(
          await startTestGateway({ MODELGATE_ADMIN_KEY: adminKey, MODELGATE_DATABASE_URL: url }),
        );
    });

    after(async () => {
      await Promise.all(instances.map((instance) => instance.close()));
      instances = [];
    });

    const instance = (index: number): TestGateway => instances[index] as TestGateway;

    const signIn = async (on: TestGateway): Promise<string> => {
      const answer = await fetch(`${on.url}/dashboard/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: `key=${adminKey}`,
        redirect: 'manual',
      });
      assert.equal(answer.status, 303);
      const cookie = (answer.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
      assert.match(cookie, /^modelgate_session=/);
      return cookie;
    };

    const api = async <T>(on: TestGateway, cookie: string, path: string): Promise<T> => {
      const answer = await fetch(`${on.url}/dashboard/api/${path}`, { headers: { cookie } });
      assert.equal(answer.status, 200, path);
      return (await answer.json()) as T;
    };

    const usageCli = async (by: string): Promise<UsageJson> => {
      const { stdout } = await promisify(execFile)(
        process.execPath,
        [join(root, 'src/cli/main.ts'), 'usage', '--by', by, '--json'],
        { cwd: root, env: { PATH: process.env.PATH ?? '', MODELGATE_DATABASE_URL: url } },
      );
      return JSON.parse(stdout) as UsageJson;
    };

    test('after traffic on all three surfaces, the dashboard’s figures equal `modelgate usage`’s', async () => {
      let sent = 0;
      for (const on of instances) sent += await trafficOnEverySurface(on.url, on.key);
      // Each instance ships its own outbox: wait until every row is on the server.
      const deadline = Date.now() + 30_000;
      for (;;) {
        const [row] = await connection.query<{ n: number }>('SELECT count(*) AS n FROM usage_ledger');
        if (row?.n === sent) break;
        assert.ok(Date.now() < deadline, `${row?.n ?? 0} of ${sent} rows shipped`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }

      const cookie = await signIn(instance(0));
      const overview = await api<{ totals: Record<string, number> }>(
        instance(1),
        cookie,
        'overview?range=1h',
      );
      const byKey = await usageCli('key');
      assert.equal(byKey.total.requests, sent);
      assert.equal(byKey.total.errors, 2);
      for (const field of ['requests', 'errors', 'prompt_tokens', 'cached_tokens', 'output_tokens'] as const)
        assert.equal(overview.totals[field], byKey.total[field], field);
      // Sums of the same costs in another order: equal to the report's ten decimals.
      assert.ok(Math.abs((overview.totals.cost_usd ?? 0) - byKey.total.cost_usd) < 1e-9);
      assert.ok(byKey.total.cost_usd > 0);
      const byModel = await usageCli('model');
      const dashboardModels = await api<{
        data: {
          model: string;
          requests: number;
          prompt_tokens: number;
          output_tokens: number;
          cost_usd: number;
        }[];
      }>(instance(0), cookie, 'usage?range=24h&by=model');
      assert.deepEqual(
        dashboardModels.data
          .map(({ model, requests, prompt_tokens, output_tokens, cost_usd }) => ({
            model,
            requests,
            prompt_tokens,
            output_tokens,
            cost_usd,
          }))
          .sort((left, right) => left.model.localeCompare(right.model)),
        byModel.data.map(({ model, requests, prompt_tokens, output_tokens, cost_usd }) => ({
          model,
          requests,
          prompt_tokens,
          output_tokens,
          cost_usd,
        })),
      );
      const models = await api<{ data: { model: string; requests: number; errors: number }[] }>(
        instance(1),
        cookie,
        'models?range=1h',
      );
      assert.equal(
        models.data.reduce((sum, row) => sum + row.requests, 0),
        sent,
      );

      // The requests page: every row, newest first, paged with its cursor; filters.
      const all = await api<{
        data: { id: number; created_at: string; final: boolean }[];
        next_before: string | null;
      }>(instance(0), cookie, 'requests');
      assert.equal(all.data.length, sent);
      assert.ok(all.data.every((row) => row.final));
      const first = await api<{ data: { id: number }[]; next_before: string }>(
        instance(1),
        cookie,
        'requests?limit=3',
      );
      const second = await api<{ data: { id: number }[] }>(
        instance(1),
        cookie,
        `requests?limit=3&before=${first.next_before}`,
      );
      assert.deepEqual(
        [...first.data, ...second.data].map((row) => row.id),
        all.data.slice(0, 6).map((row) => row.id),
      );
      const failed = await api<{ data: { outcome: string }[] }>(
        instance(0),
        cookie,
        'requests?model=A-1&outcome=error',
      );
      assert.equal(failed.data.length, 2);
    });

    test('a session made on one instance is valid on the other; signing out there ends it everywhere', async () => {
      const cookie = await signIn(instance(0));
      const page = await fetch(`${instance(1).url}/dashboard`, { headers: { cookie } });
      assert.equal(page.status, 200);
      const csrf = /<meta name="csrf-token" content="([^"]+)">/.exec(await page.text())?.[1];
      assert.ok(csrf !== undefined);
      const out = await fetch(`${instance(1).url}/dashboard/logout`, {
        method: 'POST',
        headers: { cookie, 'x-csrf-token': csrf },
      });
      assert.equal(out.status, 200);
      const refused = await fetch(`${instance(0).url}/dashboard/api/overview`, { headers: { cookie } });
      assert.equal(refused.status, 401);
    });

    test('each instance’s live tail shows the rows that instance records', async () => {
      const cookie = await signIn(instance(0));
      const controller = new AbortController();
      const tail = await fetch(`${instance(0).url}/dashboard/api/tail`, {
        headers: { cookie },
        signal: controller.signal,
      });
      assert.equal(tail.status, 200);
      const reader = (tail.body as ReadableStream<Uint8Array>)
        .pipeThrough(new TextDecoderStream())
        .getReader();
      const elsewhere = new OpenAI({
        apiKey: instance(1).key,
        baseURL: `${instance(1).url}/v1`,
        maxRetries: 0,
      });
      await elsewhere.chat.completions.create({
        model: 'A-3',
        messages: [{ role: 'user', content: 'not here' }],
      });
      const here = new OpenAI({ apiKey: instance(0).key, baseURL: `${instance(0).url}/v1`, maxRetries: 0 });
      await here.chat.completions.create({ model: 'C-2', messages: [{ role: 'user', content: 'tail me' }] });
      let text = '';
      while (!text.includes('"model":"C-2"')) {
        const read = await reader.read();
        if (read.done) assert.fail('the tail ended early');
        text += read.value;
      }
      assert.ok(!text.includes('"model":"A-3"'), 'another instance’s row is not in this tail');
      controller.abort();
    });

    test('with PostgreSQL out of reach the dashboard answers 503 store_unavailable, and again once it is back', async () => {
      const cookie = await signIn(instance(1));
      await postgres.pause();
      try {
        const answer = await fetch(`${instance(1).url}/dashboard/api/overview`, { headers: { cookie } });
        assert.equal(answer.status, 503);
        assert.equal(((await answer.json()) as { error: { code: string } }).error.code, 'store_unavailable');
      } finally {
        await postgres.start();
      }
      const deadline = Date.now() + 30_000;
      for (;;) {
        const answer = await fetch(`${instance(1).url}/dashboard/api/overview`, { headers: { cookie } });
        if (answer.status === 200) break;
        assert.ok(Date.now() < deadline, `still ${answer.status}`);
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    });
  });
});

interface UsageJson {
  data: { model: string; requests: number; prompt_tokens: number; output_tokens: number; cost_usd: number }[];
  total: {
    requests: number;
    errors: number;
    prompt_tokens: number;
    cached_tokens: number;
    output_tokens: number;
    cost_usd: number;
  };
}
