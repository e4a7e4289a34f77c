/**
 * `/livez`, `/readyz` and `/healthz` with the embedded store, as Kubernetes probes call them:
 * live while serving, ready when the store answers, not ready while a shutdown drains.
 */
import assert from 'node:assert/strict';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { createServer } from '../../src/http/node-http.ts';
import { alphaAuth } from '../kit/e2e.ts';
import { startTestGateway, type TestGateway } from '../kit/test-gateway.ts';

let gateway: TestGateway;

before(async () => {
  gateway = await startTestGateway();
});

after(async () => {
  await gateway.close();
});

async function get(url: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(url);
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

test('/livez answers 200; /readyz 200 naming the store checked; /healthz ok', async () => {
  assert.deepEqual(await get(`${gateway.url}/livez`), { status: 200, body: { status: 'ok' } });
  assert.deepEqual(await get(`${gateway.url}/readyz`), {
    status: 200,
    body: { status: 'ready', checks: { store: 'ok' } },
  });
  assert.deepEqual(await get(`${gateway.url}/healthz`), { status: 200, body: { status: 'ok' } });
});

test('the probes take GET only: another method is a 405 with allow', async () => {
  for (const path of ['/livez', '/readyz']) {
    const response = await fetch(`${gateway.url}${path}`, { method: 'POST' });
    assert.equal(response.status, 405, path);
    assert.equal(response.headers.get('allow'), 'GET');
  }
});

test('/readyz answers 503 draining once a shutdown began, while a request is still in flight', async () => {
  const draining = await startTestGateway();
  // The same handler on a second listener: the gateway's own stops accepting at shutdown.
  const handler = draining.server.listeners('request')[0] as (
    request: IncomingMessage,
    response: ServerResponse,
  ) => void;
  const side = createServer(handler);
  await new Promise<void>((resolve) => side.listen(0, '127.0.0.1', resolve));
  const sideUrl = `http://127.0.0.1:${(side.address() as AddressInfo).port}`;
  try {
    assert.equal((await get(`${sideUrl}/readyz`)).status, 200);
    // A slow answer keeps the drain waiting.
    const slow = fetch(`${draining.url}/v1/chat/completions`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-simulate-latency-ms': '1500',
        ...alphaAuth(draining.key),
      },
      body: JSON.stringify({ model: 'A-2', messages: [{ role: 'user', content: 'Hello' }] }),
    });
    await new Promise((resolve) => setTimeout(resolve, 200));
    const closing = draining.close();
    const ready = await get(`${sideUrl}/readyz`);
    assert.deepEqual(ready, { status: 503, body: { status: 'draining' } });
    assert.equal((await get(`${sideUrl}/livez`)).status, 200);
    assert.equal((await slow).status, 200);
    await closing;
    const lines = draining.logs.map((line) => JSON.parse(line) as Record<string, unknown>);
    const started = lines.find((line) => line.message === 'drain started');
    assert.ok(started !== undefined && typeof started.inFlight === 'number' && started.inFlight >= 1);
    assert.ok(lines.some((line) => line.message === 'drain finished'));
  } finally {
    side.closeAllConnections();
    await new Promise((resolve) => side.close(resolve));
  }
});
