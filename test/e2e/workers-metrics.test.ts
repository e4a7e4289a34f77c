/**
 * `GET /metrics` of `modelgate serve --workers 2` (on a real Redis, one store file), as Prometheus
 * scrapes it: whichever worker a scrape lands on, it shows the whole group — request counters equal
 * the traffic sent (every request on its own connection, so node:cluster spreads them over both
 * workers), token and cost counters equal the ledger's sums, process metrics come once per worker
 * under a `worker` label. A worker killed with SIGKILL is replaced and the counters do not go down.
 */
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import { openDatabase } from '../../src/store/sqlite/database.ts';
import { alphaAuth, betaAuth, gammaAuth, gammaPath } from '../kit/e2e.ts';
import { parseExposition, sum, type Sample } from '../kit/exposition.ts';
import { startGatewayProcess, type GatewayProcess } from '../kit/gateway-process.ts';
import { missingBinary, startRedis, type RealRedis } from '../kit/real-servers.ts';

const clientKey = 'mg-workers-metrics-client-0123456789';
const metricsToken = 'mg-workers-metrics-scraper-0123456789';
const hello = [{ role: 'user', content: 'Hello there, how are you?' }];

/** One HTTP exchange on a connection of its own (no keep-alive), so the cluster spreads them. */
function exchange(
  url: string,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: unknown,
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const outgoing = request(
      `${url}${path}`,
      { method, agent: false, headers: { ...headers, 'content-type': 'application/json' } },
      (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (text += chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, text }));
        response.on('error', reject);
      },
    );
    outgoing.on('error', reject);
    // A connection node:cluster handed to a worker as it was killed is never answered nor closed.
    outgoing.setTimeout(10_000, () => outgoing.destroy(new Error('no answer in 10 s')));
    outgoing.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

describe('metrics of serve --workers 2', { skip: missingBinary('redis-server'), timeout: 180_000 }, () => {
  let redis: RealRedis;
  let gateway: GatewayProcess;
  let directory: string;
  let databasePath: string;

  before(async () => {
    directory = mkdtempSync(join(tmpdir(), 'modelgate-workers-metrics-'));
    databasePath = join(directory, 'gateway.db');
    redis = await startRedis();
    // This suite is about counting, not about a loaded machine's Redis latency (the default 50 ms
    // command timeout answers 503 when Redis is slow to answer).
    writeFileSync(join(directory, 'config.yaml'), 'redis:\n  commandTimeoutMs: 5000\n');
    gateway = await startGatewayProcess(
      {
        MODELGATE_CONFIG: join(directory, 'config.yaml'),
        MODELGATE_DB: databasePath,
        MODELGATE_REDIS_URL: redis.url,
        MODELGATE_KEYS: clientKey,
        MODELGATE_METRICS_TOKEN: metricsToken,
      },
      ['--workers', '2'],
    );
  });

  after(async () => {
    if (gateway.child.exitCode === null) {
      gateway.child.kill('SIGTERM');
      await gateway.exited;
    }
    await gateway.close();
    await redis.stop();
    rmSync(directory, { recursive: true, force: true });
  });

  const scrape = async (): Promise<{ samples: Sample[]; ms: number }> => {
    const started = performance.now();
    const answer = await exchange(gateway.url, 'GET', '/metrics', {
      authorization: `Bearer ${metricsToken}`,
    });
    const ms = performance.now() - started;
    assert.equal(answer.status, 200, answer.text);
    return { samples: parseExposition(answer.text), ms };
  };

  /** The primary says it listens once the first worker does: wait for both (and for `victim` gone). */
  const bothWorkers = async (victim?: number): Promise<void> => {
    const deadline = Date.now() + 60_000;
    for (;;) {
      assert.ok(Date.now() < deadline, `two workers within a minute: ${gateway.stderr()}`);
      // A connection handed to the victim before the primary saw it die is reset: scrape again.
      const now = await scrape().then(
        ({ samples }) => samples,
        () => undefined,
      );
      if (now !== undefined) {
        const pids = now
          .filter((sample) => sample.name === 'modelgate_worker_info')
          .map((sample) => sample.labels.pid);
        if (pids.length === 2 && !pids.includes(String(victim))) return;
      }
      await delay(200);
    }
  };

  /** Eight requests on each surface: A plain, B streamed, C plain. */
  const traffic = async (): Promise<void> => {
    const sends = Array.from({ length: 8 }, () => [
      () =>
        exchange(gateway.url, 'POST', '/v1/chat/completions', alphaAuth(clientKey), {
          model: 'A-1',
          messages: hello,
        }),
      () =>
        exchange(gateway.url, 'POST', '/v1/messages', betaAuth(clientKey), {
          model: 'B-1',
          max_tokens: 64,
          messages: hello,
          stream: true,
        }),
      () =>
        exchange(gateway.url, 'POST', gammaPath('C-1', false), gammaAuth(clientKey), {
          contents: [{ parts: [{ text: 'Hi' }] }],
        }),
    ]).flat();
    // Four at a time: each on a new connection, so round-robin gives both workers their share.
    for (let index = 0; index < sends.length; index += 4) {
      const answers = await Promise.all(sends.slice(index, index + 4).map((send) => send()));
      for (const answer of answers) assert.equal(answer.status, 200, answer.text);
    }
  };

  const ledgerSums = async (requests: number) => {
    const database = openDatabase(databasePath);
    try {
      const read = () =>
        database
          .prepare(
            `SELECT SUM(final) AS requests, SUM(prompt_tokens) AS input, SUM(output_tokens) AS output,
               SUM(cost_usd) AS cost FROM usage_ledger`,
          )
          .get() as { requests: number | null; input: number; output: number; cost: number };
      const deadline = Date.now() + 20_000;
      while ((read().requests ?? 0) < requests && Date.now() < deadline) await delay(50);
      return read();
    } finally {
      database.close();
    }
  };

  /** Every scrape, whichever worker it lands on, shows the group's figures for `requests` requests. */
  const assertWhole = async (requests: number, t: { diagnostic(message: string): void }) => {
    const ledger = await ledgerSums(requests);
    assert.equal(ledger.requests, requests);
    const times: number[] = [];
    for (let round = 0; round < 6; round++) {
      const { samples, ms } = await scrape();
      times.push(ms);
      assert.equal(sum(samples, 'modelgate_requests_total'), requests, `scrape ${round}`);
      for (const surface of ['alpha', 'beta', 'gamma'])
        assert.equal(
          sum(samples, 'modelgate_requests_total', {
            modelgate_surface: surface,
            http_response_status_class: '2xx',
          }),
          requests / 3,
          `${surface}, scrape ${round}`,
        );
      assert.equal(sum(samples, 'gen_ai_server_request_duration_seconds_count'), requests);
      assert.equal(sum(samples, 'gen_ai_server_request_duration_seconds_bucket', { le: '+Inf' }), requests);
      assert.equal(sum(samples, 'gen_ai_server_time_to_first_token_seconds_count'), requests / 3);
      assert.equal(sum(samples, 'modelgate_tokens_total', { gen_ai_token_type: 'input' }), ledger.input);
      assert.equal(sum(samples, 'modelgate_tokens_total', { gen_ai_token_type: 'output' }), ledger.output);
      assert.ok(Math.abs(sum(samples, 'modelgate_cost_usd_total') - ledger.cost) < 1e-9, `${ledger.cost}`);
      assert.equal(sum(samples, 'modelgate_requests_in_flight'), 0);
      assert.equal(sum(samples, 'modelgate_workers', { state: 'answered' }), 2);
      const workers = new Set(
        samples
          .filter((sample) => sample.name === 'process_resident_memory_bytes')
          .map((sample) => sample.labels.worker),
      );
      assert.equal(workers.size, 2, 'process metrics once per worker');
    }
    times.sort((a, b) => a - b);
    t.diagnostic(`scrape of 2 workers: median ${times[3]?.toFixed(1)} ms, max ${times[5]?.toFixed(1)} ms`);
  };

  test('a scrape of either worker shows the whole group: counters = the traffic, tokens and cost = the ledger', async (t) => {
    await bothWorkers();
    await traffic();
    await assertWhole(24, t);
  });

  test('a worker killed with SIGKILL is replaced; the counters never go down', async (t) => {
    const { samples } = await scrape();
    const info = samples.filter((sample) => sample.name === 'modelgate_worker_info');
    assert.equal(info.length, 2);
    const victim = Number(info[0]?.labels.pid);
    process.kill(victim, 'SIGKILL');
    // The replacement answers once it listens; meanwhile every scrape shows at least what was counted.
    const watching = (async () => {
      for (let round = 0; round < 20; round++) {
        const now = await scrape().catch(() => undefined);
        if (now !== undefined) assert.ok(sum(now.samples, 'modelgate_requests_total') >= 24, 'never below');
        await delay(100);
      }
    })();
    await bothWorkers(victim);
    await watching;
    await assertWhole(24, t);
    await traffic();
    await assertWhole(48, t);
  });
});
