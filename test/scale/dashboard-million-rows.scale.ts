/**
 * The dashboard at a million ledger rows, on each store: rows over the last seven days (20 keys,
 * 8 models, every surface, some errors and retries) are bulk-inserted — in one SQLite transaction,
 * or in PostgreSQL by one `INSERT … SELECT` over `generate_series` — and the rollups rebuilt from
 * them in SQL (the migrations' backfill; usage/rollups.test.ts and dashboard-postgres.scale.ts
 * check that the ledger's own writers keep them the same); then every page and API the dashboard
 * serves is timed through HTTP on a running gateway. Each answers in ≤ 200 ms at p95 (a generous
 * bound: the measured figures are printed and given in README). The rollups must agree with the
 * ledger. Part of `npm run test:scale` (seeding takes about a minute per store); PostgreSQL's half
 * starts a server of its own and is skipped where PostgreSQL is not installed (never in CI).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { KeyStore } from '../../src/keys/key-store.ts';
import { SqliteKeyStore } from '../../src/store/sqlite/sqlite-key-store.ts';
import { openDatabase } from '../../src/store/sqlite/database.ts';
import { connectPostgres } from '../../src/store/postgres/connection.ts';
import { migratePostgres } from '../../src/store/postgres/migrations.ts';
import { PgKeyStore } from '../../src/store/postgres/pg-key-store.ts';
import { rebuildPgRollups } from '../../src/store/postgres/pg-rollups.ts';
import { rebuildRollups } from '../../src/store/rollup-backfill.ts';
import { missingPostgres, startPostgres, type RealPostgres } from '../kit/real-servers.ts';
import { startTestGateway, type TestGateway } from '../kit/test-gateway.ts';

const rows = 1_000_000;
const adminKey = 'mg-admin-million-rows-0123456789';
const models = ['A-1', 'A-2', 'A-3', 'B-1', 'B-2', 'C-1', 'C-2', 'C-3'];
const surfaces = ['alpha', 'beta', 'gamma', 'unified', 'responses'];
const span = 7 * 24 * 3_600_000;
const noLimits = {
  periodBudget: undefined,
  models: undefined,
  budgetUsd: undefined,
  rpm: undefined,
  tpm: undefined,
  expiresAt: undefined,
};

/** Twenty keys, as an operator's store would hold them. */
async function createKeys(store: KeyStore, now: number): Promise<string[]> {
  const keyIds: string[] = [];
  for (let index = 0; index < 20; index++)
    keyIds.push((await store.create(`team-${index}`, noLimits, now)).record.id);
  return keyIds;
}

/** Seeds the embedded store's file; returns the gateway's environment for it. */
async function seedEmbedded(directory: string, now: number): Promise<Record<string, string>> {
  const databasePath = join(directory, 'gateway.db');
  const database = openDatabase(databasePath);
  const keyIds = await createKeys(new SqliteKeyStore(database), now);
  const started = performance.now();
  // A fixed pseudo-random sequence (mulberry32): the same rows every run.
  let seed = 42;
  const next = (): number => {
    seed = (seed + 0x6d2b79f5) | 0;
    let mixed = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    mixed = (mixed + Math.imul(mixed ^ (mixed >>> 7), 61 | mixed)) ^ mixed;
    return ((mixed ^ (mixed >>> 14)) >>> 0) / 4_294_967_296;
  };
  const chunk = 100;
  const insert = database.prepare(
    `INSERT INTO usage_ledger (request_id, attempt, final, created_at, key_id, surface, model, family,
       stream, status, upstream_status, outcome, error, prompt_tokens, cached_tokens,
       cache_write_tokens, output_tokens, cost_usd, latency_ms, ttft_ms, overhead_ms)
     VALUES ${Array.from({ length: chunk }, () => `(${Array.from({ length: 21 }, () => '?').join(', ')})`).join(', ')}`,
  );
  database.exec('BEGIN');
  const values: (string | number | null)[] = [];
  for (let index = 0; index < rows; index++) {
    const failed = next() < 0.03;
    const model = models[Math.floor(next() * models.length)] as string;
    values.push(
      `req_${index}`,
      !failed && next() < 0.02 ? 2 : 1,
      1,
      // Time-ordered, as a ledger is written.
      now - span + Math.floor((index * span) / rows),
      keyIds[Math.floor(next() * keyIds.length)] as string,
      surfaces[index % surfaces.length] as string,
      model,
      model.startsWith('A') ? 'alpha' : model.startsWith('B') ? 'beta' : 'gamma',
      index % 2,
      failed ? 502 : 200,
      failed ? 500 : 200,
      failed ? 'failed' : 'ok',
      failed ? 'upstream' : null,
      100 + (index % 900),
      index % 3 === 0 ? 64 : 0,
      0,
      20 + (index % 400),
      0.0001 * (1 + (index % 7)),
      Math.round((50 + next() * 3_000) * 100) / 100,
      Math.round((20 + next() * 500) * 100) / 100,
      Math.round((0.5 + next()) * 100) / 100,
    );
    if (values.length === chunk * 21) {
      insert.run(...values);
      values.length = 0;
    }
  }
  database.exec('COMMIT');
  const inserted = (performance.now() - started) / 1000;
  rebuildRollups(database);
  const seconds = (performance.now() - started) / 1000;
  const rollupRows = (database.prepare('SELECT COUNT(*) AS n FROM usage_rollup').get() as { n: number }).n;
  console.log(
    `embedded: seeded ${rows} ledger rows in ${inserted.toFixed(1)} s, rolled up (${rollupRows} rows) in ${(seconds - inserted).toFixed(1)} s`,
  );
  database.close();
  return { MODELGATE_DB: databasePath };
}

/** Seeds PostgreSQL on the server (rows made by the server itself, the same mix); returns the gateway's environment. */
async function seedPostgres(postgres: RealPostgres, now: number): Promise<Record<string, string>> {
  const connection = await connectPostgres(postgres.url, undefined, { statementTimeoutMs: 300_000 });
  try {
    await migratePostgres(connection);
    const keyIds = await createKeys(new PgKeyStore(connection), now);
    const started = performance.now();
    await connection.transaction(async (query) => {
      await query('SELECT setseed(0.42)');
      await query(
        `INSERT INTO usage_ledger (request_id, attempt, final, created_at, key_id, surface, model, family,
           stream, status, upstream_status, outcome, error, prompt_tokens, cached_tokens,
           cache_write_tokens, output_tokens, cost_usd, usage_estimated, latency_ms, ttft_ms, overhead_ms)
         SELECT 'req_' || i, CASE WHEN NOT failed AND random() < 0.02 THEN 2 ELSE 1 END, true,
           $1::bigint - $2::bigint + (i * $2::bigint) / $3::int,
           ($4::text[])[1 + floor(random() * 20)::int], ($5::text[])[1 + i % 5], model,
           CASE left(model, 1) WHEN 'A' THEN 'alpha' WHEN 'B' THEN 'beta' ELSE 'gamma' END,
           i % 2 = 1, CASE WHEN failed THEN 502 ELSE 200 END, CASE WHEN failed THEN 500 ELSE 200 END,
           CASE WHEN failed THEN 'failed' ELSE 'ok' END, CASE WHEN failed THEN 'upstream' END,
           100 + i % 900, CASE WHEN i % 3 = 0 THEN 64 ELSE 0 END, 0, 20 + i % 400, 0.0001 * (1 + i % 7),
           false, round((50 + random() * 3000)::numeric, 2), round((20 + random() * 500)::numeric, 2),
           round((0.5 + random())::numeric, 2)
         FROM (SELECT i, random() < 0.03 AS failed, ($6::text[])[1 + floor(random() * 8)::int] AS model
               FROM generate_series(0, $3::int - 1) AS i) AS generated`,
        [now, span, rows, keyIds, surfaces, models],
      );
    });
    const inserted = (performance.now() - started) / 1000;
    await rebuildPgRollups(connection);
    await connection.query('VACUUM ANALYZE usage_ledger');
    await connection.query('VACUUM ANALYZE usage_rollup');
    await connection.query('VACUUM ANALYZE latency_rollup');
    const seconds = (performance.now() - started) / 1000;
    const [counted] = await connection.query<{ n: number }>('SELECT count(*) AS n FROM usage_rollup');
    console.log(
      `postgres: seeded ${rows} ledger rows in ${inserted.toFixed(1)} s, rolled up (${counted?.n ?? 0} rows) and analysed in ${(seconds - inserted).toFixed(1)} s`,
    );
  } finally {
    await connection.close();
  }
  return { MODELGATE_DATABASE_URL: postgres.url };
}

const pages = (now: number): string[] => [
  '/dashboard',
  '/dashboard/api/overview?range=1h',
  '/dashboard/api/overview?range=24h',
  '/dashboard/api/overview?range=7d',
  '/dashboard/api/overview?range=30d',
  '/dashboard/api/usage?range=24h&by=key',
  '/dashboard/api/usage?range=7d&by=model',
  '/dashboard/api/usage?range=30d&by=family',
  '/dashboard/api/models?range=24h',
  '/dashboard/api/models?range=7d',
  '/dashboard/api/keys?all=true',
  '/dashboard/api/requests',
  '/dashboard/api/requests?key=team-3',
  '/dashboard/api/requests?model=C-3&outcome=error',
  `/dashboard/api/requests?surface=beta&before=${now - 3 * 86_400_000}.999999999`,
];

for (const store of ['embedded', 'postgres'] as const) {
  const skip = store === 'postgres' ? missingPostgres() : undefined;
  describe(`the dashboard at a million ledger rows (${store})`, { skip, timeout: 300_000 }, () => {
    let directory: string;
    let postgres: RealPostgres | undefined;
    let gateway: TestGateway;
    let cookie: string;
    const timings: Record<string, number> = {};

    before(async () => {
      directory = mkdtempSync(join(tmpdir(), 'modelgate-million-'));
      const now = Date.now();
      let environment: Record<string, string>;
      if (store === 'embedded') environment = await seedEmbedded(directory, now);
      else {
        postgres = await startPostgres();
        environment = await seedPostgres(postgres, now);
      }
      gateway = await startTestGateway({ MODELGATE_ADMIN_KEY: adminKey, ...environment });
      const signIn = await fetch(`${gateway.url}/dashboard/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: `key=${adminKey}`,
        redirect: 'manual',
      });
      cookie = (signIn.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
      assert.match(cookie, /^modelgate_session=/);
    });

    after(async () => {
      console.log(`${store}: p95 ms at ${rows} rows: ${JSON.stringify(timings)}`);
      await gateway.close();
      await postgres?.stop();
      rmSync(directory, { recursive: true, force: true });
    });

    const timed = async (path: string): Promise<number> => {
      const samples: number[] = [];
      for (let run = 0; run < 20; run++) {
        const started = performance.now();
        const response = await fetch(`${gateway.url}${path}`, { headers: { cookie } });
        await response.arrayBuffer();
        samples.push(performance.now() - started);
        assert.equal(response.status, 200, path);
      }
      samples.sort((left, right) => left - right);
      const p95 = Math.round((samples[Math.ceil(samples.length * 0.95) - 1] ?? 0) * 10) / 10;
      timings[path.replace('/dashboard/api/', '')] = p95;
      return p95;
    };

    test('every page and API answers in ≤ 200 ms at p95', async () => {
      for (const path of pages(Date.now())) {
        const p95 = await timed(path);
        assert.ok(p95 <= 200, `${path}: p95 ${p95} ms`);
      }
    });

    test('the rollups agree with the ledger', async () => {
      const overview = (await (
        await fetch(`${gateway.url}/dashboard/api/overview?range=30d`, { headers: { cookie } })
      ).json()) as { totals: { requests: number; prompt_tokens: number; output_tokens: number } };
      const usage = (await (
        await fetch(`${gateway.url}/admin/usage?since=30d`, {
          headers: { authorization: `Bearer ${adminKey}` },
        })
      ).json()) as { total: { requests: number; prompt_tokens: number; output_tokens: number } };
      assert.equal(overview.totals.requests, rows);
      assert.equal(overview.totals.requests, usage.total.requests);
      assert.equal(overview.totals.prompt_tokens, usage.total.prompt_tokens);
      assert.equal(overview.totals.output_tokens, usage.total.output_tokens);
    });
  });
}
