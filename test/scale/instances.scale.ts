/**
 * Several gateway instances as an operator runs them: three `modelgate serve --workers 2`
 * processes on one real Redis, with one store file and again with one real PostgreSQL, requests
 * spread over all of them. Rate limits and budgets hold as if there were one gateway, the spend in
 * Redis equals the ledger's sum, and a key revoked through one instance is refused by another
 * within a second.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { after, before, describe, test } from 'node:test';
import { createClient } from 'redis';
import { defaultCatalog } from '../../src/config/catalog.ts';
import { connectPostgres } from '../../src/store/postgres/connection.ts';
import { countTextTokens } from '../../src/tokenizer/count-tokens.ts';
import { alphaAuth, betaAuth, post } from '../kit/e2e.ts';
import {
  missingBinary,
  missingPostgres,
  startPostgres,
  startRedis,
  type RealPostgres,
  type RealRedis,
} from '../kit/real-servers.ts';
import { startRecordingUpstream, type RecordingUpstream } from '../kit/recording-upstream.ts';
import { startInstance, startInstances, stopInstances, waitForKey, type Instance } from './test-kit.ts';

const skip = missingBinary('redis-server');
const skipPostgres = skip ?? missingPostgres();
const clientKey = 'mg-scale-static-key-0123456789';
const adminKey = 'mg-scale-admin-key-0123456789abcdef';
const hello = [{ role: 'user' as const, content: 'Hello there' }];

/** The ledger's count and cost of a key's answered requests, wherever the instances keep it. */
type LedgerSum = (keyId: string) => Promise<{ n: number; cost: number }>;

for (const store of ['store file', 'PostgreSQL'] as const)
  describe(
    `three instances × two workers on one Redis and one ${store}`,
    {
      skip: store === 'PostgreSQL' ? skipPostgres : skip,
      timeout: 300_000,
    },
    () => {
      let redis: RealRedis;
      let postgres: RealPostgres | undefined;
      let ledgerSum: LedgerSum;
      let upstream: RecordingUpstream;
      let directory: string;
      let instances: Instance[] = [];
      let closeLedger: (() => Promise<void>) | undefined;

      const start = (): Promise<Instance> =>
        startInstance(
          {
            LOG_LEVEL: 'warn',
            MODELGATE_KEYS: clientKey,
            MODELGATE_ADMIN_KEY: adminKey,
            MODELGATE_DB: join(directory, 'shared.db'),
            ...(postgres === undefined ? {} : { MODELGATE_DATABASE_URL: postgres.url }),
            MODELGATE_REDIS_URL: redis.url,
            MODELGATE_CONFIG: join(directory, 'config.yaml'),
            BETA_BASE_URL: upstream.url,
            BETA_API_KEY: 'up-beta-scale-secret',
            // Alpha stays on each instance's simulator, slow to answer: the budget scenario's
            // reservations are all made before any of them settles.
            SIMULATOR_TTFT_MS: '3000',
            // A real B upstream turns the simulator off unless asked for.
            MODELGATE_SIMULATOR: '1',
          },
          { workers: 2 },
        );

      before(async () => {
        directory = mkdtempSync(join(tmpdir(), 'modelgate-scale-'));
        // A generous command timeout: these scenarios are about exact numbers on a machine that may
        // be loaded (the frozen-Redis scenario in redis-stores.scale.ts exercises the short default).
        writeFileSync(
          join(directory, 'config.yaml'),
          'limits:\n  instances: 6\nredis:\n  commandTimeoutMs: 2000\n',
        );
        redis = await startRedis();
        if (store === 'PostgreSQL') {
          const server = await startPostgres();
          postgres = server;
          const connection = await connectPostgres(server.url, undefined);
          closeLedger = () => connection.close();
          ledgerSum = async (keyId) => {
            const [row] = await connection.query<{ n: number; cost: number | null }>(
              "SELECT count(*) AS n, sum(cost_usd) AS cost FROM usage_ledger WHERE key_id = $1 AND outcome = 'ok'",
              [keyId],
            );
            return { n: row?.n ?? 0, cost: row?.cost ?? 0 };
          };
        } else
          ledgerSum = (keyId) => {
            const database = new DatabaseSync(join(directory, 'shared.db'), { readOnly: true });
            const row = database
              .prepare(
                "SELECT count(*) AS n, sum(cost_usd) AS cost FROM usage_ledger WHERE key_id = ? AND outcome = 'ok'",
              )
              .get(keyId) as { n: number; cost: number | null };
            database.close();
            return Promise.resolve({ n: row.n, cost: row.cost ?? 0 });
          };
        upstream = await startRecordingUpstream();
        // All three at once, on one fresh store file: as a service manager starts them.
        instances = await startInstances(3, start);
      });

      after(async () => {
        await stopInstances(instances);
        await upstream.close();
        await redis.stop();
        await closeLedger?.();
        await postgres?.stop();
        rmSync(directory, { recursive: true, force: true });
      });

      const instance = (index: number): Instance => instances[index % instances.length] as Instance;

      test('500 concurrent B requests on one static key with rpm 50, spread over every instance: exactly 50 reach the upstream, 450 are 429s', async (t) => {
        const before = upstream.requests.length;
        const started = Date.now();
        const answers = await Promise.all(
          Array.from({ length: 500 }, (_, index) =>
            post(instance(index).url, '/v1/messages', betaAuth(clientKey), {
              model: 'B-1',
              max_tokens: 16,
              messages: hello,
            }),
          ),
        );
        const elapsedMs = Date.now() - started;
        const admitted = answers.filter((answer) => answer.status === 200).length;
        const refused = answers.filter((answer) => answer.status === 429);
        t.diagnostic(`${admitted} admitted, ${refused.length} refused in ${elapsedMs} ms`);
        // The request window is exact: however long the burst takes (well under its minute), no
        // slot comes back before the first admission leaves it.
        assert.ok(elapsedMs < 50_000, `the burst took ${elapsedMs} ms`);
        assert.equal(admitted, 50);
        assert.equal(refused.length, 450);
        assert.equal(upstream.requests.length - before, 50, 'no refused request reached the upstream');
        for (const answer of refused) {
          // B's shape, and a wait until the first admission leaves the window.
          assert.equal((answer.json as { type: string }).type, 'error');
          assert.equal((answer.json as { error: { type: string } }).error.type, 'rate_limit_error');
          const retryAfter = Number(answer.headers.get('retry-after'));
          assert.ok(
            Number.isInteger(retryAfter) &&
              retryAfter <= 60 &&
              retryAfter >= 60 - Math.ceil(elapsedMs / 1000) - 1,
            `retry-after ${retryAfter}`,
          );
          assert.equal(answer.headers.get('beta-ratelimit-requests-remaining'), '0');
        }
      });

      test('a budget of 9.5 worst-case requests, 50 concurrent requests across instances: exactly 10 admitted; Redis spend equals the ledger', async () => {
        const entry = defaultCatalog().find((model) => model.name === 'A-3');
        assert.ok(entry !== undefined);
        const maxTokens = 16;
        const prompt = countTextTokens('Hello there');
        const inputPrice = Math.max(entry.pricing.inputPerMillion, entry.pricing.cacheWritePerMillion);
        const worstCase = (prompt * inputPrice + maxTokens * entry.pricing.outputPerMillion) / 1e6;
        const created = await post(instance(0).url, '/admin/keys', alphaAuth(adminKey), {
          name: 'scale-budget',
          budget_usd: 9.5 * worstCase,
        });
        assert.equal(created.status, 201, created.text);
        const { key, id } = created.json as { key: string; id: string };
        // Known everywhere first (within a second of its creation, tested below): a process that
        // has not read it yet would answer 401, not decide on the budget.
        await waitForKey(instances, alphaAuth(key));
        const answers = await Promise.all(
          Array.from({ length: 50 }, (_, index) =>
            post(instance(index).url, '/v1/chat/completions', alphaAuth(key), {
              model: 'A-3',
              max_tokens: maxTokens,
              messages: hello,
            }),
          ),
        );
        const admitted = answers.filter((answer) => answer.status === 200).length;
        // The rule: a request is admitted while spent + held < budget, so 10 (the 10th takes the
        // committed spend to 10 worst cases); the rest are 429 insufficient_quota.
        assert.equal(admitted, 10, answers.map((answer) => answer.status).join(' '));
        assert.ok(
          answers.every((answer) => answer.status === 200 || answer.status === 429),
          answers
            .filter((answer) => answer.status !== 200 && answer.status !== 429)
            .map((answer) => `${answer.status} ${answer.text.slice(0, 200)}`)
            .join('\n'),
        );

        const client = createClient({ url: redis.url });
        await client.connect();
        try {
          // Settling is off the request's path and the ledger is written in batches: wait for both.
          const deadline = Date.now() + 10_000;
          for (;;) {
            const held = Number((await client.hGet(`mg:{${id}}:budget`, 'held')) ?? 0);
            const spent = Number((await client.hGet(`mg:{${id}}:budget`, 'spent')) ?? 0) / 1e6;
            const row = await ledgerSum(id);
            if (held === 0 && row.n === 10 && Math.abs(spent - row.cost) <= 10e-6) {
              assert.ok(spent > 0);
              break;
            }
            assert.ok(
              Date.now() < deadline,
              `held ${held}, spent ${spent}, ledger ${row.n} rows ${row.cost}`,
            );
            await new Promise((resolve) => setTimeout(resolve, 100));
          }
        } finally {
          await client.close();
        }
      });

      test('a key revoked through instance 1 is refused by instance 3 within 1 s', async () => {
        const created = await post(instance(0).url, '/admin/keys', alphaAuth(adminKey), {
          name: 'scale-revoke',
        });
        assert.equal(created.status, 201, created.text);
        const { key, id } = created.json as { key: string; id: string };
        const call = (): Promise<number> =>
          post(instance(2).url, '/v1/chat/completions', alphaAuth(key), {
            model: 'A-3',
            max_tokens: 1,
            messages: hello,
            stream: true,
          }).then((answer) => answer.status);
        // Known on instance 3 within 1 s of its creation: at once on one store file; pushed over
        // Redis (or read by the 250 ms poll) with PostgreSQL. A refused call is answered at once, an
        // accepted one after the simulator's 3 s: the call that is accepted must start within 1 s.
        const createdAt = Date.now();
        for (;;) {
          const startedAt = Date.now();
          const status = await call();
          if (status === 200) {
            assert.ok(startedAt - createdAt < 1_000 + 500, 'accepted within 1 s');
            break;
          }
          assert.equal(status, 401);
          assert.ok(Date.now() - createdAt < 1_000 + 500, 'accepted within 1 s');
        }
        // Then by every worker, before the revoke.
        for (let index = 0; index < 4; index++) assert.equal(await call(), 200);
        const revoked = await fetch(`${instance(0).url}/admin/keys/${id}`, {
          method: 'DELETE',
          headers: alphaAuth(adminKey),
        });
        assert.equal(revoked.status, 200);
        const revokedAt = Date.now();
        // Both workers of instance 3 must refuse it: several calls in a row all get 401, and no call
        // that started 1 s after the revoke or later is accepted (an accepted call takes 3 s).
        let refusedInRow = 0;
        while (refusedInRow < 4) {
          const startedAt = Date.now();
          const status = await call();
          refusedInRow = status === 401 ? refusedInRow + 1 : 0;
          if (status !== 401) assert.ok(startedAt - revokedAt < 1_000, 'refused everywhere within 1 s');
          assert.ok(Date.now() - revokedAt < 10_000);
        }
      });
    },
  );
