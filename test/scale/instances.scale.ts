/**
 * Several gateway instances as an operator runs them: three `modelgate serve --workers 2`
 * processes on one real Redis and one store file, requests spread over all of them. Rate limits
 * and budgets hold as if there were one gateway, and a key revoked through one instance is
 * refused by another within a second.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { after, before, describe, test } from 'node:test';
import { createClient } from 'redis';
import { defaultCatalog } from '../../src/config/catalog.ts';
import { countTextTokens } from '../../src/tokenizer/count-tokens.ts';
import { alphaAuth, betaAuth, post } from '../helpers/e2e.ts';
import { missingBinary, startRedis, type RealRedis } from '../helpers/real-servers.ts';
import { startRecordingUpstream, type RecordingUpstream } from '../helpers/recording-upstream.ts';

const skip = missingBinary('redis-server');
const root = join(import.meta.dirname, '../..');
const clientKey = 'mg-scale-static-key-0123456789';
const adminKey = 'mg-scale-admin-key-0123456789abcdef';
const hello = [{ role: 'user' as const, content: 'Hello there' }];

interface Instance {
  url: string;
  child: ChildProcess;
}

describe('three instances × two workers on one Redis', { skip, timeout: 300_000 }, () => {
  let redis: RealRedis;
  let upstream: RecordingUpstream;
  let directory: string;
  let instances: Instance[] = [];

  const start = async (): Promise<Instance> => {
    const child = spawn(process.execPath, [join(root, 'src/cli/main.ts'), 'serve', '--workers', '2'], {
      cwd: root,
      env: {
        PATH: process.env.PATH ?? '',
        HOST: '127.0.0.1',
        PORT: '0',
        LOG_LEVEL: 'warn',
        MODELGATE_KEYS: clientKey,
        MODELGATE_ADMIN_KEY: adminKey,
        MODELGATE_DB: join(directory, 'shared.db'),
        MODELGATE_REDIS_URL: redis.url,
        MODELGATE_CONFIG: join(directory, 'config.yaml'),
        BETA_BASE_URL: upstream.url,
        BETA_API_KEY: 'up-beta-scale-secret',
        // Alpha stays on each instance's simulator, slow to answer: the budget scenario's
        // reservations are all made before any of them settles.
        SIMULATOR_TTFT_MS: '3000',
      },
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    let output = '';
    child.stdout.setEncoding('utf8');
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no start: ${output}`)), 120_000);
      child.stdout.on('data', (chunk: string) => {
        output += chunk;
        const found = /listening on (http:\/\/\S+)/.exec(output);
        if (found?.[1] !== undefined) {
          clearTimeout(timer);
          resolve(found[1]);
        }
      });
      child.once('exit', (code) => reject(new Error(`exited ${String(code)}: ${output}`)));
    });
    return { url, child };
  };

  before(async () => {
    directory = mkdtempSync(join(tmpdir(), 'modelgate-scale-'));
    // A generous command timeout: these scenarios are about exact numbers on a machine that may
    // be loaded (the frozen-Redis scenario in redis-stores.scale.ts exercises the short default).
    writeFileSync(
      join(directory, 'config.yaml'),
      'limits:\n  instances: 6\nredis:\n  commandTimeoutMs: 2000\n',
    );
    redis = await startRedis();
    upstream = await startRecordingUpstream();
    instances = await Promise.all([start(), start(), start()]);
  });

  after(async () => {
    await Promise.all(
      instances.map(async ({ child }) => {
        if (child.exitCode !== null) return;
        const exited = once(child, 'exit');
        child.kill('SIGTERM');
        await exited;
      }),
    );
    await upstream.close();
    await redis.stop();
    rmSync(directory, { recursive: true, force: true });
  });

  const instance = (index: number): Instance => instances[index % instances.length] as Instance;

  test('500 concurrent B requests on one static key with rpm 50, spread over every instance: 50 reach the upstream', async (t) => {
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
    // A B request slot refills every 1.2 s: on a loaded machine a burst that outlasts it may
    // rightly admit one more per 1.2 s (the embedded store does the same).
    const refills = Math.floor((Date.now() - started) / 1_200);
    const admitted = answers.filter((answer) => answer.status === 200).length;
    const refused = answers.filter((answer) => answer.status === 429);
    t.diagnostic(`${admitted} admitted in ${Date.now() - started} ms`);
    assert.equal(admitted + refused.length, 500, 'every answer is a 200 or a 429');
    assert.ok(admitted >= 50 && admitted <= 50 + refills, `${admitted} admitted, ${refills} refills`);
    assert.equal(upstream.requests.length - before, admitted, 'no refused request reached the upstream');
    assert.ok(refused.every((answer) => Number(answer.headers.get('retry-after')) >= 1));
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
    assert.ok(answers.every((answer) => answer.status === 200 || answer.status === 429));

    const client = createClient({ url: redis.url });
    await client.connect();
    try {
      // Settling is off the request's path and the ledger is written in batches: wait for both.
      const deadline = Date.now() + 10_000;
      for (;;) {
        const held = Number((await client.hGet(`mg:{${id}}:budget`, 'held')) ?? 0);
        const spent = Number((await client.hGet(`mg:{${id}}:budget`, 'spent')) ?? 0) / 1e6;
        const database = new DatabaseSync(join(directory, 'shared.db'), { readOnly: true });
        const row = database
          .prepare(
            "SELECT count(*) AS n, sum(cost_usd) AS cost FROM usage_ledger WHERE key_id = ? AND outcome = 'ok'",
          )
          .get(id) as { n: number; cost: number | null };
        database.close();
        if (held === 0 && row.n === 10 && Math.abs(spent - (row.cost ?? 0)) <= 10e-6) {
          assert.ok(spent > 0);
          break;
        }
        assert.ok(
          Date.now() < deadline,
          `held ${held}, spent ${spent}, ledger ${row.n} rows ${String(row.cost)}`,
        );
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    } finally {
      await client.close();
    }
  });

  test('a key revoked through instance 1 is refused by instance 3 within 1 s', async () => {
    const created = await post(instance(0).url, '/admin/keys', alphaAuth(adminKey), { name: 'scale-revoke' });
    assert.equal(created.status, 201, created.text);
    const { key, id } = created.json as { key: string; id: string };
    const call = (): Promise<number> =>
      post(instance(2).url, '/v1/chat/completions', alphaAuth(key), {
        model: 'A-3',
        max_tokens: 1,
        messages: hello,
        stream: true,
      }).then((answer) => answer.status);
    // Known on instance 3 (every worker) before the revoke.
    for (let index = 0; index < 4; index++) assert.equal(await call(), 200);
    const revoked = await fetch(`${instance(0).url}/admin/keys/${id}`, {
      method: 'DELETE',
      headers: alphaAuth(adminKey),
    });
    assert.equal(revoked.status, 200);
    const started = Date.now();
    // Both workers of instance 3 must refuse it: several calls in a row all get 401.
    let refusedInRow = 0;
    while (refusedInRow < 4) {
      refusedInRow = (await call()) === 401 ? refusedInRow + 1 : 0;
      assert.ok(Date.now() - started < 1_000 + 500, 'refused everywhere within 1 s');
    }
  });
});
