import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { checkStreamEvents } from '../ir/check-stream-events.ts';
import { foldStream } from '../ir/fold-stream.ts';
import { type ChatRequest } from '../ir/index.ts';
import { startSimulatorServer, type SimulatorServer } from './server.ts';
import { chatRequest, decodeJson, decodeStream, fixedIds, upstreamInput } from './test-kit.ts';
import { createSimulatorTransport } from './transport.ts';
import { createSimulator } from './simulator.ts';
import { upstreamError } from '../codecs/shared/upstream-errors.ts';
import { codecs, specFamilies, type SpecFamily } from '../../test/kit/spec-families.ts';

async function post(
  server: SimulatorServer,
  family: SpecFamily,
  request: ChatRequest,
  signal?: AbortSignal,
): Promise<Response> {
  const input = upstreamInput(family, request);
  return fetch(server.url + input.path, {
    method: 'POST',
    headers: input.headers as Record<string, string>,
    body: input.body,
    ...(signal === undefined ? {} : { signal }),
  });
}

async function readChunks(response: Response): Promise<string[]> {
  const chunks: string[] = [];
  const decoder = new TextDecoder();
  assert.ok(response.body !== null);
  for await (const chunk of response.body) chunks.push(decoder.decode(chunk, { stream: true }));
  return chunks;
}

describe('standalone server', () => {
  let server: SimulatorServer;
  before(async () => {
    server = await startSimulatorServer({ host: '127.0.0.1', port: 0, ...fixedIds });
  });
  after(async () => {
    await server.close();
  });

  test('port 0 binds a real port', () => {
    assert.match(server.url, /^http:\/\/127\.0\.0\.1:\d+$/);
    assert.notEqual(new URL(server.url).port, '0');
  });

  for (const family of specFamilies) {
    test(`${family}: JSON and SSE over real HTTP`, async () => {
      const json = await post(server, family, chatRequest());
      assert.equal(json.status, 200);
      assert.equal(json.headers.get('content-type'), 'application/json');
      const whole = decodeJson(family, await json.text());
      assert.match(
        whole.choices[0]?.content[0]?.type === 'text' ? whole.choices[0].content[0].text : '',
        /^Simulated reply from sim-model: /,
      );

      const sse = await post(server, family, chatRequest({ stream: true }));
      assert.equal(sse.status, 200);
      assert.equal(sse.headers.get('content-type'), 'text/event-stream');
      const events = decodeStream(family, await readChunks(sse));
      assert.deepEqual(checkStreamEvents(events), []);
      const folded = foldStream(events);
      assert.deepEqual(folded.choices, whole.choices);
      assert.deepEqual(folded.usage, whole.usage);
    });

    test(`${family}: errors keep their status, body and retry-after`, async () => {
      const input = upstreamInput(family, chatRequest(), { 'x-simulate-error': '429' });
      const response = await fetch(server.url + input.path, {
        method: 'POST',
        headers: input.headers as Record<string, string>,
        body: input.body,
      });
      assert.equal(response.status, 429);
      assert.equal(response.headers.get('retry-after'), '1');
      assert.equal(
        upstreamError(429, codecs[family].decodeErrorBody(await response.text())).kind,
        'rate_limited',
      );
    });
  }

  test('unknown paths are 404; /healthz answers', async () => {
    const missing = await fetch(`${server.url}/nowhere`, { method: 'POST', body: '{}' });
    assert.equal(missing.status, 404);
    assert.equal(((await missing.json()) as { error: { type: string } }).error.type, 'invalid_request_error');
    const health = await fetch(`${server.url}/healthz`);
    assert.equal(health.status, 200);
  });
});

test('a client that hangs up stops the generation', async () => {
  const server = await startSimulatorServer({ port: 0, interTokenDelayMs: 20 });
  try {
    const controller = new AbortController();
    const response = await post(server, 'beta', chatRequest({ stream: true }), controller.signal);
    assert.ok(response.body !== null);
    const reader = response.body.getReader();
    await reader.read();
    assert.equal(server.simulator.stats.activeStreams, 1);
    controller.abort();
    const deadline = Date.now() + 2000;
    const active = (): number => server.simulator.stats.activeStreams;
    while (active() > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
    assert.equal(server.simulator.stats.activeStreams, 0);
    const generated = server.simulator.stats.tokensGenerated;
    assert.ok(generated < 10, `generated ${generated}`);
    await new Promise((resolve) => setTimeout(resolve, 60));
    assert.equal(server.simulator.stats.tokensGenerated, generated);
  } finally {
    await server.close();
  }
});

test('close() ends open streams promptly', async () => {
  const server = await startSimulatorServer({ port: 0, interTokenDelayMs: 50 });
  const response = await post(server, 'alpha', chatRequest({ stream: true }));
  assert.ok(response.body !== null);
  const reader = response.body.getReader();
  await reader.read();
  const started = Date.now();
  await server.close();
  assert.ok(Date.now() - started < 1000);
  await assert.rejects(async () => {
    for (;;) if ((await reader.read()).done) throw new Error('ended without error');
  });
});

test('in-process transport: lower-cases header names and forwards path and body', async () => {
  const transport = createSimulatorTransport(createSimulator(fixedIds));
  const input = upstreamInput('beta', chatRequest());
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(input.headers)) headers[name.toUpperCase()] = String(value);
  const response = await transport.send(
    'http://ignored',
    { path: input.path, headers, body: input.body, warnings: [] },
    new AbortController().signal,
  );
  assert.equal(response.status, 200);
  assert.equal(decodeJson('beta', await response.text()).choices.length, 1);
  await transport.close();
});
