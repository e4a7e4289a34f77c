/**
 * The dashboard's live tail with a viewer that stops reading while traffic flows. The slow viewer
 * is a raw socket that sends its request and then reads nothing; the fast one reads everything.
 * Once the slow viewer's socket holds more than the tail's bound (256 KiB) beyond what the kernel
 * takes, the gateway drops it: when it reads again it gets what was already on its way and then
 * the end of the stream, far less than the traffic made. Meanwhile every request is answered and
 * the fast viewer gets every row, during and after the drop.
 *
 * How much the kernel itself takes for a socket that is not read (its send and receive buffers,
 * several MB on Linux's loopback) is measured first, so the traffic is sure to outgrow it.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, request, type IncomingMessage } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import { alphaAuth, post } from '../kit/e2e.ts';
import { startTestGateway, type TestGateway } from '../kit/test-gateway.ts';

const adminKey = 'mg-admin-live-tail-test-0123456789';
const tailBound = 256 * 1024;
/** Each request fans out to 128 upstream calls (B has no `n`): 128 ledger rows, 128 tail events. */
const rowsPerRequest = 128;

/** Bytes the kernel holds for a loopback connection whose reader stopped reading, before a writer's buffer grows. */
async function kernelBuffering(): Promise<number> {
  const server = createServer((incoming, response) => {
    response.writeHead(200);
    let written = 0;
    const chunk = Buffer.alloc(16 * 1024, 120);
    const write = (): void => {
      // Small writes over time, as the tail makes them, so the kernel grows its buffers as it would.
      for (let index = 0; index < 4; index++) {
        response.write(chunk);
        written += chunk.length;
      }
      if (response.writableLength > 1024 * 1024) {
        server.emit('measured', written - response.writableLength);
        response.destroy();
      } else setTimeout(write, 1);
    };
    write();
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const socket = connect((server.address() as AddressInfo).port, '127.0.0.1');
  socket.write('GET / HTTP/1.1\r\nhost: localhost\r\n\r\n');
  socket.once('data', () => socket.pause());
  const [held] = (await once(server, 'measured')) as [number];
  socket.destroy();
  server.close();
  return held;
}

describe('the live tail drops a viewer that does not read', () => {
  let gateway: TestGateway;
  let cookie: string;

  before(async () => {
    gateway = await startTestGateway({ MODELGATE_ADMIN_KEY: adminKey });
    const signIn = await fetch(`${gateway.url}/dashboard/login`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'sec-fetch-site': 'same-origin' },
      body: new URLSearchParams({ key: adminKey }).toString(),
    });
    assert.equal(signIn.status, 303);
    cookie = (signIn.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
    assert.match(cookie, /^modelgate_session=/);
  });

  after(async () => {
    await gateway.close();
  });

  test('a viewer that stops reading is dropped past the bound; requests and the other viewer go on', async (t) => {
    const kernel = await kernelBuffering();
    const { port, hostname } = new URL(gateway.url);

    // The slow viewer: a raw socket that reads the answer's head, then nothing.
    const slow: Socket = connect(Number(port), hostname);
    slow.write(`GET /dashboard/api/tail HTTP/1.1\r\nhost: ${hostname}:${port}\r\ncookie: ${cookie}\r\n\r\n`);
    const slowChunks: Buffer[] = [];
    await new Promise<void>((resolve) => {
      slow.once('data', (chunk: Buffer) => {
        slow.pause();
        slowChunks.push(chunk);
        resolve();
      });
    });
    assert.match(Buffer.concat(slowChunks).toString(), /^HTTP\/1\.1 200 [^]*modelgate live tail/);
    const slowClosed = once(slow, 'close').then(() => true);

    // The fast viewer reads every event as it comes.
    const fast = { bytes: 0, rows: 0, tail: '' };
    const fastResponse = await new Promise<IncomingMessage>((resolve, reject) => {
      request(`${gateway.url}/dashboard/api/tail`, { headers: { cookie } }, resolve)
        .on('error', reject)
        .end();
    });
    assert.equal(fastResponse.statusCode, 200);
    fastResponse.setEncoding('utf8');
    fastResponse.on('data', (chunk: string) => {
      fast.bytes += Buffer.byteLength(chunk);
      // Rows counted across chunk boundaries: keep the unfinished event's text.
      const text = fast.tail + chunk;
      const events = text.split('\n\n');
      fast.tail = events.pop() ?? '';
      for (const event of events) if (event.startsWith('event: row\n')) fast.rows++;
    });

    // Traffic until far more than the kernel and the bound could hold was sent to every viewer.
    const target = kernel + tailBound + 1024 * 1024;
    let requests = 0;
    const started = performance.now();
    while (fast.bytes < target) {
      const answers = await Promise.all(
        Array.from({ length: 4 }, () =>
          post(gateway.url, '/v1/chat/completions', alphaAuth(gateway.key), {
            model: 'B-1',
            n: rowsPerRequest,
            max_tokens: 4,
            messages: [{ role: 'user', content: 'Hi' }],
          }),
        ),
      );
      for (const answer of answers) assert.equal(answer.status, 200, answer.text);
      requests += answers.length;
      // The fast viewer keeps up: every row of the answered requests reaches it.
      const deadline = Date.now() + 10_000;
      while (fast.rows < requests * rowsPerRequest && Date.now() < deadline) await delay(5);
      assert.equal(fast.rows, requests * rowsPerRequest, 'the fast viewer got every row');
    }
    t.diagnostic(
      `kernel held ${(kernel / 1e6).toFixed(2)} MB; ${requests} requests, ${fast.rows} rows, ${(fast.bytes / 1e6).toFixed(2)} MB to each viewer in ${Math.round(performance.now() - started)} ms`,
    );

    // The slow viewer reads again: what was on its way, then the end of the stream.
    slow.on('data', (chunk: Buffer) => slowChunks.push(chunk));
    slow.resume();
    const slowEnded = await Promise.race([slowClosed, delay(20_000).then(() => false)]);
    assert.ok(slowEnded, 'the slow viewer was dropped: its stream ended');
    const slowBytes = Buffer.concat(slowChunks).length;
    const slowRows = (
      Buffer.concat(slowChunks)
        .toString()
        .match(/event: row\n/g) ?? []
    ).length;
    t.diagnostic(
      `the slow viewer got ${(slowBytes / 1e6).toFixed(2)} MB (${slowRows} rows) before its stream ended`,
    );
    assert.ok(slowRows < fast.rows, `${slowRows} rows < ${fast.rows}`);
    assert.ok(
      slowBytes < fast.bytes - 512 * 1024,
      `dropped, not buffered: ${slowBytes} bytes of ${fast.bytes}`,
    );

    // The fast viewer is still live.
    const answer = await post(gateway.url, '/v1/chat/completions', alphaAuth(gateway.key), {
      model: 'A-1',
      messages: [{ role: 'user', content: 'still there?' }],
    });
    assert.equal(answer.status, 200);
    const before = fast.rows;
    const waitUntil = Date.now() + 10_000;
    while (fast.rows === before && Date.now() < waitUntil) await delay(10);
    assert.equal(fast.rows, before + 1);
    fastResponse.destroy();
  });
});
