/**
 * Size and time limits on what a client sends: nesting depth, body size, header size, and a
 * client that sends its headers slowly (slowloris). Each answers in the surface's error shape
 * where there is a surface to speak of, and nothing reaches an upstream.
 */
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { after, before, test } from 'node:test';
import { maxJsonDepth } from '../../src/http/read-body.ts';
import { alphaAuth, betaAuth, gammaAuth, post } from '../kit/e2e.ts';
import { rawRequest, startHostileSetup, type HostileSetup } from './test-kit.ts';

let setup: HostileSetup;
// The slowloris case gets its own gateway with a 300 ms header deadline: on a loaded machine a
// deadline that short would also cut the other cases' ordinary requests (a 408 instead of their answer).
let slowHeaders: HostileSetup;
before(async () => {
  setup = await startHostileSetup(`
server: { bodyLimitBytes: 65536, maxHeaderBytes: 8192 }
`);
  slowHeaders = await startHostileSetup(`
server: { headersTimeoutMs: 300 }
`);
});
after(async () => {
  await Promise.all([setup.close(), slowHeaders.close()]);
});

/** JSON text nested `depth` levels deep (built as text: JSON.stringify itself overflows far sooner). */
function nestedText(depth: number): string {
  return '[{"x":'.repeat(depth / 2) + '"deep"' + '}]'.repeat(depth / 2);
}

const surfaces = [
  { name: 'alpha', path: '/v1/chat/completions', auth: alphaAuth, status: 'invalid_request_error' },
  { name: 'beta', path: '/v1/messages', auth: betaAuth, status: 'invalid_request_error' },
  { name: 'gamma', path: '/v1/models/C-1:generateContent', auth: gammaAuth, status: 'INVALID_ARGUMENT' },
] as const;

test(`JSON nested deeper than ${maxJsonDepth} levels: 400 in each shape, before any work`, async () => {
  const before = setup.upstream.requests.length;
  for (const surface of surfaces) {
    for (const depth of [maxJsonDepth + 10, 10_000]) {
      const body = `{"model":"B-1","max_tokens":20,"messages":[{"role":"user","content":"Hi"}],"metadata":${nestedText(depth)}}`;
      const answer = await post(setup.gateway.url, surface.path, surface.auth(setup.gateway.key), body);
      assert.equal(answer.status, 400, `${surface.name} depth ${depth}: ${answer.text.slice(0, 200)}`);
      assert.match(answer.text, new RegExp(surface.status));
      assert.match(answer.text, /nests deeper than/);
    }
  }
  // Within the cap: an ordinary (if odd) request.
  const fine = await post(setup.gateway.url, '/v1/chat/completions', alphaAuth(setup.gateway.key), {
    model: 'A-2',
    max_tokens: 20,
    messages: [{ role: 'user', content: 'Hi' }],
    metadata: { note: nestedText(500) },
  });
  assert.equal(fine.status, 200, fine.text);
  assert.equal(setup.upstream.requests.length, before + 1);
});

test('a body over the limit: 413 in each shape (checked while reading)', async () => {
  for (const surface of surfaces) {
    const answer = await post(setup.gateway.url, surface.path, surface.auth(setup.gateway.key), {
      model: 'B-1',
      messages: [{ role: 'user', content: 'x'.repeat(70_000) }],
    });
    assert.equal(answer.status, 413, surface.name);
  }
});

test('request headers over maxHeaderBytes: 431, connection closed, nothing upstream', async () => {
  const before = setup.upstream.requests.length;
  const answer = await rawRequest(
    setup.gateway.url,
    `POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${setup.gateway.key}\r\nX-Big: ${'a'.repeat(10_000)}\r\nContent-Length: 2\r\n\r\n{}`,
  );
  assert.equal(answer.status, 431, answer.head);
  assert.equal(setup.upstream.requests.length, before);
});

test('headers sent slowly (slowloris): the connection is closed after headersTimeoutMs', async () => {
  const { hostname, port } = new URL(slowHeaders.gateway.url);
  const started = performance.now();
  const closedAfter = await new Promise<number>((resolve) => {
    const socket = connect(Number(port), hostname);
    let data = '';
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => (data += chunk));
    socket.on('error', () => undefined);
    socket.write('POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\n');
    // One header byte every 100 ms, never finishing.
    const drip = setInterval(() => socket.write('X'), 100);
    socket.on('close', () => {
      clearInterval(drip);
      assert.match(data, /^(HTTP\/1\.1 408|$)/);
      resolve(performance.now() - started);
    });
    setTimeout(() => socket.destroy(), 10_000);
  });
  // 300 ms allowed, checked every 300 ms: closed well before the 10 s safety net.
  assert.ok(closedAfter < 2000, `closed after ${Math.round(closedAfter)} ms`);
});
