/**
 * `GET /metrics` as a Prometheus scraper sees it: authenticated by default (the metrics token or
 * the admin key, never a client key), open only by config; traffic through every surface shows
 * up under the conventions' names with bounded labels (catalog models or `other`, no raw paths);
 * retries, refusals, streams' time to first token are counted; and the token and cost counters
 * equal the usage ledger's sums for the same traffic.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import { openDatabase } from '../../src/store/sqlite/database.ts';
import { alphaAuth, betaAuth, gammaAuth, gammaPath, post, writeTempConfig } from '../kit/e2e.ts';
import { startTestGateway, type TestGateway } from '../kit/test-gateway.ts';
import { parseExposition, sum } from '../kit/exposition.ts';
import { staticKeyId } from '../../src/keys/client-keys.ts';

const adminKey = 'mg-admin-metrics-test-0123456789';
const metricsToken = 'mg-metrics-scraper-token-0123456789';
const clientTraceId = '4bf92f3577b34da6a3ce929d0e0e4736';

async function scrape(url: string, token?: string): Promise<{ status: number; text: string; type: string }> {
  const response = await fetch(`${url}/metrics`, {
    headers: token === undefined ? {} : { authorization: `Bearer ${token}` },
  });
  return {
    status: response.status,
    text: await response.text(),
    type: response.headers.get('content-type') ?? '',
  };
}

describe('metrics, authenticated by default', () => {
  let gateway: TestGateway;
  let config: { path: string; remove(): void };
  let directory: string;
  let databasePath: string;

  before(async () => {
    directory = mkdtempSync(join(tmpdir(), 'modelgate-metrics-e2e-'));
    databasePath = join(directory, 'metrics.db');
    // C-2 on two deployments: a fault-injected request fails on one, is retried on the other.
    config = writeTempConfig(
      'metrics.yaml',
      'models:\n  - name: C-2\n    deployments:\n      - id: c2-east\n      - id: c2-west\n',
    );
    gateway = await startTestGateway(
      { MODELGATE_ADMIN_KEY: adminKey, MODELGATE_METRICS_TOKEN: metricsToken, MODELGATE_DB: databasePath },
      config.path,
    );
  });

  after(async () => {
    await gateway.close();
    config.remove();
    rmSync(directory, { recursive: true, force: true });
  });

  test('a scrape needs the metrics token or the admin key; a client key is refused', async () => {
    const none = await scrape(gateway.url);
    assert.equal(none.status, 401);
    assert.equal((await scrape(gateway.url, gateway.key)).status, 401);
    assert.equal((await scrape(gateway.url, 'mg-wrong-token-000000000000')).status, 401);
    const withToken = await scrape(gateway.url, metricsToken);
    assert.equal(withToken.status, 200);
    assert.match(withToken.type, /^text\/plain; version=0\.0\.4/);
    assert.equal((await scrape(gateway.url, adminKey)).status, 200);
    assert.ok(!none.text.includes('modelgate_requests_total'), 'nothing leaks without the credential');
    const posted = await post(gateway.url, '/metrics', { authorization: `Bearer ${metricsToken}` }, {});
    assert.equal(posted.status, 405);
  });

  test('traffic on every surface is counted; tokens and cost equal the ledger’s sums', async () => {
    const key = gateway.key;
    const hello = [{ role: 'user', content: 'Hello there, how are you?' }];
    const answers = await Promise.all([
      post(
        gateway.url,
        '/v1/chat/completions',
        { ...alphaAuth(key), traceparent: `00-${clientTraceId}-00f067aa0ba902b7-01` },
        { model: 'A-1', messages: hello },
      ),
      post(gateway.url, '/v1/chat/completions', alphaAuth(key), {
        model: 'B-1',
        messages: hello,
        stream: true,
      }),
      post(gateway.url, '/v1/messages', betaAuth(key), {
        model: 'B-1',
        max_tokens: 64,
        messages: hello,
        stream: true,
      }),
      post(gateway.url, gammaPath('C-2', true), gammaAuth(key), { contents: [{ parts: [{ text: 'Hi' }] }] }),
      post(gateway.url, '/v1/responses', alphaAuth(key), { model: 'A-2', input: 'Hello' }),
      post(gateway.url, '/api/alpha/v1/chat/completions', alphaAuth(key), { model: 'C-1', messages: hello }),
    ]);
    for (const answer of answers) assert.equal(answer.status, 200, answer.text);
    // Retried on the second deployment, then the error.
    const failed = await post(
      gateway.url,
      gammaPath('C-2', false),
      { ...gammaAuth(key), 'x-simulate-error': '503' },
      { contents: [{ parts: [{ text: 'Hi' }] }] },
    );
    assert.equal(failed.status, 503);
    // Bounded labels: a raw path and an unknown model never become label values.
    assert.equal(
      (await post(gateway.url, '/v1/zz-unknown-path', alphaAuth(key), { model: 'A-1' })).status,
      404,
    );
    assert.equal(
      (
        await post(gateway.url, '/v1/chat/completions', alphaAuth(key), {
          model: 'zz-no-such-model',
          messages: hello,
        })
      ).status,
      404,
    );
    assert.equal(
      (await post(gateway.url, '/v1/chat/completions', alphaAuth('mg-nope'), { model: 'A-1' })).status,
      401,
    );
    // A key allowed one request a minute on A: the second is a refusal.
    const created = await post(gateway.url, '/admin/keys', alphaAuth(adminKey), {
      name: 'metrics-rpm',
      rpm: 1,
    });
    assert.equal(created.status, 201, created.text);
    const limited = (created.json as { key: string }).key;
    const first = await post(gateway.url, '/v1/chat/completions', alphaAuth(limited), {
      model: 'A-1',
      messages: hello,
    });
    assert.equal(first.status, 200, first.text);
    const refused = await post(gateway.url, '/v1/chat/completions', alphaAuth(limited), {
      model: 'A-1',
      messages: hello,
    });
    assert.equal(refused.status, 429);

    const database = openDatabase(databasePath);
    const ledgerSums = (): {
      requests: number | null;
      input: number;
      output: number;
      cacheRead: number;
      cacheWrite: number;
      reasoning: number;
      cost: number;
    } =>
      database
        .prepare(
          `SELECT SUM(final) AS requests, SUM(prompt_tokens) AS input, SUM(output_tokens) AS output,
             SUM(cached_tokens) AS cacheRead, SUM(cache_write_tokens) AS cacheWrite,
             SUM(reasoning_tokens) AS reasoning, SUM(cost_usd) AS cost FROM usage_ledger`,
        )
        .get() as never;
    // Rows reach the store within the ledger's write window. Nine requests have a final row: six
    // answers, the failure, the limited key's two (the 404s and the 401 never reached admission).
    const deadline = Date.now() + 10_000;
    while ((ledgerSums().requests ?? 0) < 9 && Date.now() < deadline) await delay(50);
    const ledger = ledgerSums();
    // The client's trace id is on its ledger row and its log line.
    const traced = database.prepare('SELECT model FROM usage_ledger WHERE trace_id = ?').all(clientTraceId);
    database.close();
    assert.deepEqual(
      traced.map((row) => row.model),
      ['A-1'],
    );
    assert.ok(gateway.logs.some((line) => line.includes(`"traceId":"${clientTraceId}"`)));
    assert.equal(ledger.requests, 9);

    const { text } = await scrape(gateway.url, metricsToken);
    const samples = parseExposition(text);
    const tokens = (type: string): number =>
      sum(samples, 'modelgate_tokens_total', { gen_ai_token_type: type });
    assert.ok(ledger.input > 0 && ledger.output > 0);
    assert.equal(tokens('input'), ledger.input);
    assert.equal(tokens('output'), ledger.output);
    assert.equal(tokens('cache_read'), ledger.cacheRead);
    assert.equal(tokens('cache_creation'), ledger.cacheWrite);
    assert.equal(tokens('reasoning'), ledger.reasoning);
    assert.ok(Math.abs(sum(samples, 'modelgate_cost_usd_total') - ledger.cost) < 1e-9, `${ledger.cost}`);

    for (const surface of ['alpha', 'beta', 'gamma', 'responses', 'unified'])
      assert.ok(
        sum(samples, 'modelgate_requests_total', {
          modelgate_surface: surface,
          http_response_status_class: '2xx',
        }) >= 1,
        surface,
      );
    assert.equal(
      sum(samples, 'gen_ai_server_request_duration_seconds_count'),
      sum(samples, 'modelgate_requests_total'),
    );
    assert.equal(sum(samples, 'modelgate_requests_total', { error_type: 'authentication' }), 1);
    assert.equal(
      sum(samples, 'modelgate_requests_total', { gen_ai_request_model: 'none', error_type: 'not_found' }),
      1,
    );
    assert.equal(
      sum(samples, 'modelgate_refusals_total', { reason: 'rate_limit', modelgate_surface: 'alpha' }),
      1,
    );
    assert.equal(sum(samples, 'modelgate_retries_total', { gen_ai_request_model: 'C-2' }), 1);
    assert.equal(
      sum(samples, 'gen_ai_client_operation_duration_seconds_count', {
        gen_ai_provider_name: 'gamma',
        modelgate_attempt: 'retry',
        error_type: 'overloaded',
      }),
      1,
    );
    // Three streams answered: each has a time to first token; time per output token when >1 token.
    assert.equal(sum(samples, 'gen_ai_server_time_to_first_token_seconds_count'), 3);
    assert.ok(sum(samples, 'gen_ai_server_time_per_output_token_seconds_count') >= 1);
    assert.ok(sum(samples, 'modelgate_gateway_overhead_seconds_count') >= 10);
    assert.equal(sum(samples, 'modelgate_breaker_state', { modelgate_deployment: 'c2-east' }), 1);
    assert.ok(samples.some((sample) => sample.name === 'modelgate_requests_in_flight'));
    assert.ok(samples.some((sample) => sample.name === 'modelgate_ledger_queue_rows'));
    assert.ok(samples.some((sample) => sample.name === 'nodejs_eventloop_lag_seconds'));
    assert.ok(samples.some((sample) => sample.name === 'process_resident_memory_bytes'));
    assert.ok(!text.includes('zz-'), 'no raw path or unknown model in a label');
    assert.ok(!text.includes('modelgate_key_id'), 'no per-key labels unless enabled');
    assert.ok(!text.includes(gateway.key) && !text.includes(limited), 'no client key');
  });
});

describe('metrics, open by config, with per-key labels', () => {
  test('open: no credential needed; per-key labels on the token counters', async () => {
    const config = writeTempConfig('metrics-open.yaml', 'metrics:\n  open: true\n  perKeyLabels: true\n');
    const gateway = await startTestGateway({}, config.path);
    try {
      const answer = await post(gateway.url, '/v1/chat/completions', alphaAuth(gateway.key), {
        model: 'A-1',
        messages: [{ role: 'user', content: 'Hi' }],
      });
      assert.equal(answer.status, 200);
      const { status, text } = await scrape(gateway.url);
      assert.equal(status, 200);
      const samples = parseExposition(text);
      assert.ok(sum(samples, 'modelgate_tokens_total', { modelgate_key_id: staticKeyId(gateway.key) }) > 0);
      assert.ok(
        !samples.some(
          (sample) => sample.name === 'modelgate_requests_total' && 'modelgate_key_id' in sample.labels,
        ),
      );
    } finally {
      await gateway.close();
      config.remove();
    }
  });

  test('no credential configured and not open: 404 that says what to set', async () => {
    const gateway = await startTestGateway();
    try {
      const { status, text } = await scrape(gateway.url);
      assert.equal(status, 404);
      assert.match(text, /MODELGATE_METRICS_TOKEN/);
    } finally {
      await gateway.close();
    }
  });
});
