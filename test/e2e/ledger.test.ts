/**
 * The usage ledger loses nothing and agrees with what clients were told: one row per upstream
 * attempt (retries included), upstream errors, a client leaving mid-stream (tokens so far), the
 * `usage` CLI and `GET /admin/usage` adding up to the cost headers and trailers and the usage in
 * the bodies, and a SIGTERM during 100 streams in flight leaving exactly 100 rows and exit code 0.
 */
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { openDatabase } from '../../src/store/sqlite/database.ts';
import { alphaAuth, betaAuth, gammaAuth, gammaPath, post, sseJson, writeTempConfig } from '../kit/e2e.ts';
import { startTestGateway, type TestGateway } from '../kit/test-gateway.ts';
import { staticKeyId } from '../../src/keys/client-keys.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));
const main = join(root, 'src/cli/main.ts');
const adminKey = 'mg-admin-ledger-test-0123456789';

let directory: string;
let databasePath: string;
let gateway: TestGateway;
let config: { path: string; remove(): void };

before(async () => {
  directory = mkdtempSync(join(tmpdir(), 'modelgate-ledger-e2e-'));
  databasePath = join(directory, 'ledger.db');
  // C-2 on two deployments (a fault-injected request tries each once); streams slow enough
  // (5 ms a token) to leave mid-way.
  config = writeTempConfig(
    'ledger.yaml',
    'models:\n  - name: C-2\n    deployments:\n      - id: c2-east\n      - id: c2-west\n',
  );
  gateway = await startTestGateway(
    { MODELGATE_ADMIN_KEY: adminKey, MODELGATE_DB: databasePath, SIMULATOR_TOKEN_DELAY_MS: '5' },
    config.path,
  );
});

after(async () => {
  await gateway.close();
  config.remove();
  rmSync(directory, { recursive: true, force: true });
});

interface LedgerRow {
  request_id: string;
  attempt: number;
  final: number;
  key_id: string;
  surface: string;
  model: string;
  family: string;
  upstream_model: string | null;
  deployment: string | null;
  stream: number;
  status: number;
  upstream_status: number | null;
  outcome: string;
  error: string | null;
  prompt_tokens: number;
  cached_tokens: number;
  output_tokens: number;
  cost_usd: number;
  usage_estimated: number;
  latency_ms: number | null;
  ttft_ms: number | null;
  overhead_ms: number | null;
}

function rowsOf(requestId: string, path = databasePath): LedgerRow[] {
  const database = openDatabase(path);
  try {
    return database
      .prepare('SELECT * FROM usage_ledger WHERE request_id = ? ORDER BY attempt')
      .all(requestId) as unknown as LedgerRow[];
  } finally {
    database.close();
  }
}

/** The request's rows once its batch is written (within the 100 ms flush window). */
async function settledRows(requestId: string, count = 1): Promise<LedgerRow[]> {
  const deadline = Date.now() + 3000;
  for (;;) {
    const rows = rowsOf(requestId);
    if (rows.length >= count) return rows;
    if (Date.now() > deadline) throw new Error(`no ledger rows for ${requestId}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

interface StreamAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
  trailers: NodeJS.Dict<string>;
}

/** A streamed request read to its end with node:http (fetch does not expose trailers). */
function stream(
  url: string,
  path: string,
  headers: Record<string, string>,
  body: unknown,
): Promise<StreamAnswer> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      `${url}${path}`,
      { method: 'POST', headers: { 'content-type': 'application/json', ...headers } },
      (response) => {
        let text = '';
        response.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
        response.on('end', () =>
          resolve({
            status: response.statusCode ?? 0,
            headers: response.headers,
            body: text,
            trailers: response.trailers,
          }),
        );
        response.on('error', reject);
      },
    );
    request.on('error', reject);
    request.end(JSON.stringify(body));
  });
}

const hello = [{ role: 'user', content: 'Hello, ledger' }];

describe('one row per attempt, figures as clients were told', () => {
  test('success, stream, upstream errors with retries: rows, then the usage CLI and admin API add up to the headers', async () => {
    const told = { cost: 0, prompt: 0, output: 0, requests: 0 };
    // JSON, A surface → B model: cost header and usage in the body.
    const json = await post(gateway.url, '/v1/chat/completions', alphaAuth(gateway.key), {
      model: 'B-1',
      messages: hello,
      max_tokens: 20,
    });
    assert.equal(json.status, 200);
    const jsonUsage = (json.json as { usage: { prompt_tokens: number; completion_tokens: number } }).usage;
    told.cost += Number(json.headers.get('x-modelgate-cost-usd'));
    told.prompt += jsonUsage.prompt_tokens;
    told.output += jsonUsage.completion_tokens;
    told.requests++;
    const [jsonRow] = await settledRows(json.headers.get('x-request-id')!);
    assert.deepEqual(
      {
        attempt: jsonRow!.attempt,
        final: jsonRow!.final,
        key: jsonRow!.key_id,
        surface: jsonRow!.surface,
        model: jsonRow!.model,
        family: jsonRow!.family,
        upstream: jsonRow!.upstream_model,
        stream: jsonRow!.stream,
        status: jsonRow!.status,
        upstreamStatus: jsonRow!.upstream_status,
        outcome: jsonRow!.outcome,
        prompt: jsonRow!.prompt_tokens,
        output: jsonRow!.output_tokens,
        estimated: jsonRow!.usage_estimated,
      },
      {
        attempt: 1,
        final: 1,
        key: staticKeyId(gateway.key),
        surface: 'alpha',
        model: 'B-1',
        family: 'beta',
        upstream: 'B-1',
        stream: 0,
        status: 200,
        upstreamStatus: 200,
        outcome: 'ok',
        prompt: jsonUsage.prompt_tokens,
        output: jsonUsage.completion_tokens,
        estimated: 0,
      },
    );
    assert.ok(Math.abs(jsonRow!.cost_usd - Number(json.headers.get('x-modelgate-cost-usd'))) < 1e-12);
    assert.equal(jsonRow!.overhead_ms, Number(json.headers.get('x-modelgate-overhead-ms')));
    assert.ok(jsonRow!.latency_ms! > 0 && jsonRow!.ttft_ms! > 0);

    // Stream on the unified path → C model: usage in the last chunk, cost in the trailer.
    const streamed = await stream(gateway.url, '/api/alpha/v1/chat/completions', alphaAuth(gateway.key), {
      model: 'C-2',
      messages: hello,
      max_tokens: 12,
      stream: true,
      stream_options: { include_usage: true },
    });
    assert.equal(streamed.status, 200);
    const chunks = sseJson(streamed.body) as {
      usage?: { prompt_tokens: number; completion_tokens: number } | null;
    }[];
    const streamUsage = chunks.at(-1)!.usage!;
    told.cost += Number(streamed.trailers['x-modelgate-cost-usd']);
    told.prompt += streamUsage.prompt_tokens;
    told.output += streamUsage.completion_tokens;
    told.requests++;
    const [streamRow] = await settledRows(String(streamed.headers['x-request-id']));
    assert.deepEqual(
      [streamRow!.surface, streamRow!.stream, streamRow!.outcome, streamRow!.output_tokens],
      ['unified', 1, 'ok', streamUsage.completion_tokens],
    );

    // An upstream 503 on both deployments: one row per attempt, the last carries the client's 503.
    const failing = await post(
      gateway.url,
      gammaPath('C-2', false),
      { ...gammaAuth(gateway.key), 'x-simulate-error': '503' },
      {
        contents: [{ parts: [{ text: 'Hi' }] }],
      },
    );
    assert.equal(failing.status, 503);
    told.requests++;
    const failedRows = await settledRows(failing.headers.get('x-request-id')!, 2);
    assert.deepEqual(
      failedRows.map((row) => [
        row.attempt,
        row.final,
        row.status,
        row.upstream_status,
        row.outcome,
        row.error,
      ]),
      [
        [1, 0, 503, 503, 'failed', 'overloaded'],
        [2, 1, 503, 503, 'failed', 'overloaded'],
      ],
    );
    assert.deepEqual(failedRows.map((row) => row.deployment).sort(), ['c2-east', 'c2-west']);

    // A 400 from the upstream is not retried.
    const rejected = await post(
      gateway.url,
      '/v1/messages',
      { ...betaAuth(gateway.key), 'x-simulate-error': '400' },
      {
        model: 'B-4',
        max_tokens: 8,
        messages: hello,
      },
    );
    assert.equal(rejected.status, 400);
    told.requests++;
    const [rejectedRow] = await settledRows(rejected.headers.get('x-request-id')!);
    assert.deepEqual(
      [rejectedRow!.status, rejectedRow!.outcome, rejectedRow!.error],
      [400, 'failed', 'invalid_request'],
    );

    // The same figures from the admin API and the CLI.
    const report = (await (
      await fetch(`${gateway.url}/admin/usage?key=${staticKeyId(gateway.key)}&by=model`, {
        headers: alphaAuth(adminKey),
      })
    ).json()) as {
      total: {
        requests: number;
        errors: number;
        prompt_tokens: number;
        output_tokens: number;
        cost_usd: number;
      };
    };
    assert.equal(report.total.requests, told.requests);
    assert.equal(report.total.errors, 2);
    assert.equal(report.total.prompt_tokens, told.prompt);
    assert.equal(report.total.output_tokens, told.output);
    assert.ok(Math.abs(report.total.cost_usd - told.cost) < 1e-9, `${report.total.cost_usd} vs ${told.cost}`);
    const cli = await promisify(execFile)(
      process.execPath,
      [main, 'usage', '--key', staticKeyId(gateway.key), '--by', 'model', '--json'],
      {
        cwd: root,
        env: { ...process.env, MODELGATE_DB: databasePath },
      },
    );
    assert.deepEqual((JSON.parse(cli.stdout) as { total: unknown }).total, report.total);
    const table = await promisify(execFile)(process.execPath, [main, 'usage', '--by', 'key'], {
      cwd: root,
      env: { ...process.env, MODELGATE_DB: databasePath },
    });
    assert.match(
      table.stdout,
      /^key\s+requests\s+errors\s+prompt\s+cached\s+cache_write\s+output\s+cost_usd$/m,
    );
    assert.match(table.stdout, new RegExp(`^${staticKeyId(gateway.key)}\\s+4\\s+2\\s`, 'm'));
  });

  test('a client leaving mid-stream: the row says so and carries the tokens it received', async () => {
    const controller = new AbortController();
    const response = await fetch(`${gateway.url}/v1/messages`, {
      method: 'POST',
      signal: controller.signal,
      headers: { 'content-type': 'application/json', ...betaAuth(gateway.key) },
      body: JSON.stringify({
        model: 'A-3',
        max_tokens: 200,
        stream: true,
        messages: [{ role: 'user', content: 'Tell me a long story' }],
      }),
    });
    const requestId = response.headers.get('x-request-id')!;
    const reader = response.body!.getReader();
    let received = '';
    while ((received.match(/content_block_delta/g) ?? []).length < 5) {
      const { value } = await reader.read();
      received += new TextDecoder().decode(value);
    }
    controller.abort();
    const [row] = await settledRows(requestId);
    assert.equal(row!.outcome, 'aborted');
    assert.equal(row!.error, 'client_abort');
    assert.equal(row!.status, 200);
    assert.equal(row!.usage_estimated, 1);
    assert.ok(row!.prompt_tokens > 0, 'the prompt was sent upstream');
    assert.ok(row!.output_tokens > 0 && row!.output_tokens < 200, `output ${row!.output_tokens}`);
    assert.ok(row!.cost_usd > 0);
  });
});

describe('graceful shutdown', () => {
  test('a stream outlasting the drain timeout is cut and recorded with what it delivered', async () => {
    const path = join(directory, 'drain.db');
    const drainConfig = writeTempConfig('drain.yaml', 'shutdown:\n  drainTimeoutMs: 100\n');
    const slow = await startTestGateway(
      { MODELGATE_DB: path, SIMULATOR_TOKEN_DELAY_MS: '50' },
      drainConfig.path,
    );
    try {
      const response = await fetch(`${slow.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...alphaAuth(slow.key) },
        body: JSON.stringify({ model: 'A-3', max_tokens: 400, stream: true, messages: hello }),
      });
      const requestId = response.headers.get('x-request-id')!;
      const reader = response.body!.getReader();
      await reader.read();
      const started = performance.now();
      const received = (async () => {
        try {
          while (!(await reader.read()).done);
        } catch {
          // The connection is closed under the client: that is the point.
        }
      })();
      await slow.close();
      assert.ok(performance.now() - started < 3000, 'shutdown did not wait for the 20 s stream');
      await received;
      const [row] = rowsOf(requestId, path);
      assert.deepEqual([row?.outcome, row?.error, row?.usage_estimated], ['aborted', 'shutdown', 1]);
      assert.ok(row!.output_tokens > 0 && row!.output_tokens < 400);
    } finally {
      drainConfig.remove();
    }
  });

  test('SIGTERM during 100 streams in flight: every stream completes, exactly 100 rows, exit code 0', async () => {
    const database = join(directory, 'sigterm.db');
    const environment: NodeJS.ProcessEnv = {};
    for (const [name, value] of Object.entries(process.env))
      if (!/^(MODELGATE_|ALPHA_|BETA_|GAMMA_|SIMULATOR_|HOST$|PORT$|LOG_LEVEL$|NODE_TEST)/.test(name))
        environment[name] = value;
    const child = spawn(process.execPath, [main, 'serve'], {
      cwd: root,
      env: {
        ...environment,
        HOST: '127.0.0.1',
        PORT: '0',
        LOG_LEVEL: 'warn',
        MODELGATE_KEYS: 'mg-sigterm-test-key',
        // 100 B streams at once: over B's 50 requests a minute unless the key is declared unlimited.
        MODELGATE_UNLIMITED_KEYS: 'static-1',
        MODELGATE_DB: database,
        SIMULATOR_TOKEN_DELAY_MS: '20',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    const url = await new Promise<string>((resolve, reject) => {
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
        stdout += chunk;
        const match = /listening on (http:\/\/[^\s"]+)/.exec(stdout);
        if (match !== null) resolve(match[1]!);
      });
      void exited.then(() => reject(new Error(`exited early: ${stderr}`)));
    });
    let started = 0;
    const allStarted = Promise.withResolvers<undefined>();
    const streams = Array.from(
      { length: 100 },
      () =>
        new Promise<StreamAnswer>((resolve, reject) => {
          const request = httpRequest(
            `${url}/v1/messages`,
            {
              method: 'POST',
              headers: { 'content-type': 'application/json', ...betaAuth('mg-sigterm-test-key') },
            },
            (response) => {
              let text = '';
              response.setEncoding('utf8').on('data', (chunk: string) => {
                if (text === '' && ++started === 100) allStarted.resolve(undefined);
                text += chunk;
              });
              response.on('end', () =>
                resolve({
                  status: response.statusCode ?? 0,
                  headers: response.headers,
                  body: text,
                  trailers: response.trailers,
                }),
              );
              response.on('error', reject);
            },
          );
          request.on('error', reject);
          request.end(JSON.stringify({ model: 'B-4', max_tokens: 30, stream: true, messages: hello }));
        }),
    );
    await allStarted.promise;
    child.kill('SIGTERM');
    const answers = await Promise.all(streams);
    assert.equal(await exited, 0, stderr);
    for (const answer of answers) {
      assert.equal(answer.status, 200);
      assert.match(answer.body, /event: message_stop/, 'drained: the stream ran to its end');
    }
    const ledger = openDatabase(database);
    const rows = ledger.prepare('SELECT outcome, output_tokens FROM usage_ledger').all() as unknown as {
      outcome: string;
      output_tokens: number;
    }[];
    ledger.close();
    assert.equal(rows.length, 100);
    assert.ok(rows.every((row) => row.outcome === 'ok' && row.output_tokens > 0));
  });
});
