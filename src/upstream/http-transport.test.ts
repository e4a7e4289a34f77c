import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { GatewayError } from '../ir/index.ts';
import { createHttpTransport } from './http-transport.ts';
import type { UpstreamResponse } from './transport.ts';

type Route = (request: IncomingMessage, response: ServerResponse) => void;
const routes = new Map<string, Route>();
const closed: string[] = [];
let server: Server;
let baseUrl: string;
const transport = createHttpTransport({ connectMs: 2_000, connections: 4 });

before(async () => {
  server = createServer((request, response) => {
    const path = request.url ?? '';
    response.once('close', () => {
      if (!response.writableFinished) closed.push(path);
    });
    const route = routes.get(path);
    if (route === undefined) {
      response.writeHead(404).end(path);
      return;
    }
    route(request, response);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

after(async () => {
  await transport.close();
  server.closeAllConnections();
  server.close();
});

function post(
  path: string,
  signal = new AbortController().signal,
  base = baseUrl,
): Promise<UpstreamResponse> {
  return transport.send(
    base,
    { path, headers: { 'content-type': 'application/json' }, body: '{}', warnings: [] },
    signal,
  );
}

async function readAll(response: UpstreamResponse): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of response.body) chunks.push(Buffer.from(chunk));
  return Buffer.concat(chunks);
}

test('a JSON answer in several chunks, a character split between them, reads whole (BOM dropped)', async () => {
  const bytes = Buffer.from('\uFEFF{"text":"héllo ✓"}', 'utf8');
  const split = bytes.indexOf(Buffer.from('✓')) + 1; // inside the 3-byte character
  routes.set('/v1/json', (_request, response) => {
    response.writeHead(200, { 'content-type': 'application/json', 'x-upstream': 'yes' });
    response.write(bytes.subarray(0, split));
    setTimeout(() => response.end(bytes.subarray(split)), 5);
  });
  const response = await post('/v1/json');
  assert.equal(response.status, 200);
  assert.equal(response.headers['x-upstream'], 'yes');
  assert.deepEqual(JSON.parse(await response.text()), { text: 'héllo ✓' });
});

test('textNow: nothing until the body has arrived whole, then the same text as text()', async () => {
  let finish: (() => void) | undefined;
  routes.set('/v1/later', (_request, response) => {
    response.writeHead(200, { 'content-type': 'application/json' });
    response.write('\uFEFF{"text":');
    finish = () => response.end('"héllo"}');
  });
  const response = await post('/v1/later');
  assert.equal(response.textNow?.(), undefined, 'half a body is not read');
  finish?.();
  let text: string | undefined;
  // However long the rest takes to arrive on a busy machine: polled, not timed.
  while ((text = response.textNow?.()) === undefined) await sleep(10);
  assert.deepEqual(JSON.parse(text), { text: 'héllo' });
});

test('the base URL path goes before the request path; the status and body of an error come through', async () => {
  routes.set('/proxy/v1/chat', (request, response) => {
    response.writeHead(429, { 'retry-after': '3' }).end(`{"path":"${request.url ?? ''}"}`);
  });
  const response = await post('/v1/chat', undefined, `${baseUrl}/proxy/`);
  assert.equal(response.status, 429);
  assert.equal(response.headers['retry-after'], '3');
  assert.equal(await response.text(), '{"path":"/proxy/v1/chat"}');
});

test('a large stream read slowly arrives complete and in order, the upstream held back meanwhile', async () => {
  const chunk = Buffer.alloc(65_536);
  const count = 256; // 16 MiB: far more than the socket buffers hold
  let written = 0;
  routes.set('/v1/big', (_request, response) => {
    response.writeHead(200, { 'content-type': 'text/event-stream' });
    const writeMore = (): void => {
      while (written < count) {
        const part = Buffer.alloc(chunk.length, written % 251);
        written++;
        if (!response.write(part)) {
          response.once('drain', writeMore);
          return;
        }
      }
      response.end();
    };
    writeMore();
  });
  const response = await post('/v1/big');
  // Nobody reads for a while: the gateway must pause the connection, not buffer 16 MiB.
  await new Promise((resolve) => setTimeout(resolve, 150));
  assert.ok(written < count * 0.75, `the upstream wrote ${written} of ${count} chunks unread`);
  const received: Buffer[] = [];
  for await (const part of response.body) received.push(Buffer.from(part));
  const all = Buffer.concat(received);
  assert.equal(all.length, chunk.length * count);
  for (let index = 0; index < count; index++) assert.equal(all[index * chunk.length], index % 251);
});

test('an abort before the headers rejects with the reason and closes the upstream request', async () => {
  routes.set('/v1/slow', () => {
    // Never answers.
  });
  const controller = new AbortController();
  const pending = post('/v1/slow', controller.signal);
  await new Promise((resolve) => setTimeout(resolve, 20));
  const timeout = new GatewayError('timeout', 'the upstream did not start answering in time');
  controller.abort(timeout);
  await assert.rejects(pending, (error) => error === timeout);
  await waitFor(() => closed.includes('/v1/slow'));
});

test('an already aborted signal sends nothing', async () => {
  let called = false;
  routes.set('/v1/never', (_request, response) => {
    called = true;
    response.end();
  });
  const controller = new AbortController();
  controller.abort('client_abort');
  await assert.rejects(post('/v1/never', controller.signal), /cancelled/);
  await new Promise((resolve) => setTimeout(resolve, 20));
  assert.equal(called, false);
});

test('cancelling mid-stream closes the upstream request; iteration ends quietly', async () => {
  routes.set('/v1/endless', (_request, response) => {
    response.writeHead(200, { 'content-type': 'text/event-stream' });
    const timer = setInterval(() => response.write('data: x\n\n'), 2);
    response.once('close', () => clearInterval(timer));
  });
  const response = await post('/v1/endless');
  let chunks = 0;
  for await (const part of response.body) {
    assert.ok(part.length > 0);
    if (++chunks === 3) break; // `return()` cancels
  }
  await waitFor(() => closed.includes('/v1/endless'));
  response.cancel(); // twice is harmless
  assert.deepEqual(await readAll(response), Buffer.alloc(0));
});

test('an upstream that dies mid-body: the chunks received, then an upstream error', async () => {
  routes.set('/v1/dies', (_request, response) => {
    response.writeHead(200, { 'content-type': 'text/event-stream' });
    response.write('data: first\n\n');
    setTimeout(() => response.socket?.destroy(), 10);
  });
  const response = await post('/v1/dies');
  const seen: string[] = [];
  await assert.rejects(
    (async () => {
      for await (const part of response.body) seen.push(Buffer.from(part).toString());
    })(),
    (error) => error instanceof GatewayError && error.kind === 'upstream',
  );
  assert.deepEqual(seen, ['data: first\n\n']);
});

test('nothing listening: a client-safe upstream error (no address in the message)', async () => {
  const probe = createServer();
  probe.listen(0, '127.0.0.1');
  await once(probe, 'listening');
  const port = (probe.address() as AddressInfo).port;
  probe.close();
  await once(probe, 'close');
  await assert.rejects(post('/v1/x', undefined, `http://127.0.0.1:${port}`), (error) => {
    assert.ok(error instanceof GatewayError);
    assert.equal(error.kind, 'upstream');
    assert.doesNotMatch(error.message, /127\.0\.0\.1|ECONNREFUSED/);
    return true;
  });
});

async function waitFor(condition: () => boolean): Promise<void> {
  const deadline = Date.now() + 2_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in 2 s');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
