/**
 * A hostile upstream must not take the gateway's memory. A non-streamed
 * answer of 3,000 MiB took RSS from 180 MB to 8 GB (no answer, no log line, a held shutdown); an
 * SSE line of 50 MiB without a newline was buffered whole and re-scanned on every chunk. Now the
 * read stops at `upstreamLimits.maxResponseBytes` (502 in the surface's shape, the attempt in the
 * ledger) and an event at `upstreamLimits.maxEventBytes` (the stream ends with the surface's
 * error event). The gateway runs as its own process, so its peak RSS (VmHWM) is its own.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { startFakeUpstream, type FakeUpstream } from '../chaos/fake-upstream.ts';
import { alphaAuth, betaAuth, post } from '../kit/e2e.ts';
import { startGatewayProcess, type GatewayProcess } from '../kit/gateway-process.ts';

const key = 'mg-hostile-memory-client-0123456789';
const adminKey = 'mg-hostile-memory-admin-0123456789';
const mib = 1024 * 1024;
let upstream: FakeUpstream;
let gateway: GatewayProcess;

before(async () => {
  upstream = await startFakeUpstream();
  gateway = await startGatewayProcess({
    MODELGATE_KEYS: key,
    MODELGATE_ADMIN_KEY: adminKey,
    ALPHA_BASE_URL: upstream.url,
    ALPHA_API_KEY: 'up-alpha-memory-secret',
  });
});

after(async () => {
  await gateway.close();
  await upstream.close();
});

/** The gateway process's resident set (`VmRSS`) or its peak so far (`VmHWM`), in MB. */
function memory(field: 'VmRSS' | 'VmHWM'): number {
  const status = readFileSync(`/proc/${gateway.child.pid}/status`, 'utf8');
  const kilobytes = Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? Number.NaN);
  return kilobytes / 1024;
}

const chat = { model: 'A-2', max_tokens: 10, messages: [{ role: 'user', content: 'Hi' }] };

test('a 3,000 MiB answer: 502 in the surface shape, read aborted, RSS bounded, the attempt in the ledger', async (context) => {
  const warm = await post(gateway.url, '/v1/chat/completions', alphaAuth(key), chat);
  assert.equal(warm.status, 200, warm.text);
  const baseline = memory('VmRSS');
  const flooded = { bytes: 0 };
  upstream.behave = () => ({ kind: 'flood', format: 'json', bytes: 3_000 * mib, flooded });

  const started = performance.now();
  const alpha = await post(gateway.url, '/v1/chat/completions', alphaAuth(key), chat);
  assert.equal(alpha.status, 502, alpha.text.slice(0, 300));
  assert.match(alpha.text, /"type":"(?:server_error|api_error)"|exceeded the gateway's limit/);
  assert.match(alpha.text, /exceeded the gateway's limit of 33554432 bytes/);
  // The same through the B surface: its own error shape.
  const beta = await post(gateway.url, '/v1/messages', betaAuth(key), chat);
  assert.equal(beta.status, 502, beta.text.slice(0, 300));
  assert.match(beta.text, /"type":"error".*"api_error"/s);
  assert.ok(performance.now() - started < 30_000, 'answered promptly');
  assert.ok(
    flooded.bytes < 1_000 * mib,
    `the upstream wrote ${flooded.bytes} bytes: the read was not aborted`,
  );

  const growth = memory('VmHWM') - baseline;
  context.diagnostic(
    `peak RSS growth ${growth.toFixed(0)} MB; the upstream wrote ${(flooded.bytes / mib).toFixed(0)} MiB`,
  );
  assert.ok(growth < 300, `RSS grew by ${growth.toFixed(0)} MB`);

  // Billed as the upstream's 200 says: one ledger row per attempt, an error for the client.
  await new Promise((resolve) => setTimeout(resolve, 300));
  const usage = await fetch(`${gateway.url}/admin/usage?by=model`, { headers: alphaAuth(adminKey) });
  const report = (await usage.json()) as { total: { requests: number; errors: number } };
  assert.equal(report.total.requests, 3);
  assert.equal(report.total.errors, 2);
});

const firstChunk = `data: ${JSON.stringify({
  id: 'chatcmpl-1',
  object: 'chat.completion.chunk',
  created: 1,
  model: 'A-2',
  choices: [{ index: 0, delta: { role: 'assistant', content: 'Hello' }, finish_reason: null }],
})}\n\n`;

test('an SSE line of 50 MiB without a newline: the stream ends with an error event, RSS bounded', async (context) => {
  const baseline = memory('VmRSS');
  const flooded = { bytes: 0 };
  upstream.behave = () => ({ kind: 'flood', format: 'sse', bytes: 50 * mib, flooded, first: firstChunk });
  const healthz: number[] = [];
  const timer = setInterval(() => {
    const started = performance.now();
    void fetch(`${gateway.url}/healthz`).then(async (answer) => {
      await answer.arrayBuffer();
      healthz.push(performance.now() - started);
    });
  }, 50);
  const answer = await post(gateway.url, '/v1/chat/completions', alphaAuth(key), { ...chat, stream: true });
  clearInterval(timer);
  assert.equal(answer.status, 200);
  assert.match(answer.text, /Hello/);
  assert.match(answer.text, /"error":\{[^}]*exceeded the gateway's limit of 1048576 bytes/);
  assert.ok(flooded.bytes < 40 * mib, `the upstream wrote ${flooded.bytes} bytes: the call was not aborted`);
  const growth = memory('VmHWM') - baseline;
  context.diagnostic(
    `peak RSS growth ${growth.toFixed(0)} MB; the upstream wrote ${(flooded.bytes / mib).toFixed(0)} MiB`,
  );
  assert.ok(growth < 300, `RSS grew by ${growth.toFixed(0)} MB`);
  assert.ok(Math.max(0, ...healthz) < 1_000, `/healthz took ${Math.max(...healthz).toFixed(0)} ms`);
});

test('the same line before anything was sent: 502 in the surface shape, nothing retried', async () => {
  const before = upstream.stats.requests;
  upstream.behave = () => ({ kind: 'flood', format: 'sse', bytes: 50 * mib });
  const answer = await post(gateway.url, '/v1/messages', betaAuth(key), { ...chat, stream: true });
  assert.equal(answer.status, 502, answer.text.slice(0, 300));
  assert.match(answer.text, /"api_error".*exceeded the gateway's limit of 1048576 bytes/s);
  assert.equal(upstream.stats.requests - before, 1, 'one upstream call: its answer was billable');
});

test('SIGTERM during a flood ends the process promptly (the read does not hold the shutdown)', async () => {
  upstream.behave = () => ({ kind: 'flood', format: 'json', bytes: 3_000 * mib });
  const pending = post(gateway.url, '/v1/chat/completions', alphaAuth(key), chat).catch(() => undefined);
  await new Promise((resolve) => setTimeout(resolve, 200));
  const signalled = performance.now();
  gateway.child.kill('SIGTERM');
  const exit = await gateway.exited;
  await pending;
  assert.equal(exit.code, 0, gateway.stderr());
  assert.ok(performance.now() - signalled < 10_000, 'exited within the drain timeout');
});
