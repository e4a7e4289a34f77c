import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { test } from 'node:test';
import { createNodeSink } from './node-sink.ts';

/** Starts a server whose one answer is produced by `answer`, and returns the raw bytes a client got. */
async function rawAnswer(
  answer: (sink: ReturnType<typeof createNodeSink>) => Promise<void>,
  complete: (received: string) => boolean,
  version: '1.0' | '1.1' = '1.1',
): Promise<string> {
  const server = createServer((_request, response) => {
    void answer(createNodeSink(response, { 'x-request-id': 'req_1' }));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const socket = connect((server.address() as AddressInfo).port, '127.0.0.1');
  socket.write(`POST / HTTP/${version}\r\nHost: x\r\nContent-Length: 0\r\n\r\n`);
  let received = '';
  socket.setEncoding('latin1');
  socket.on('data', (text: string) => {
    received += text;
  });
  const deadline = Date.now() + 2_000;
  while (!complete(received) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  socket.destroy();
  server.close();
  return received;
}

const tick = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 2));

test('a stream written over several ticks arrives whole and in order, its trailer last', async () => {
  const raw = await rawAnswer(
    async (sink) => {
      sink.startStream({ 'x-extra': 'yes' }, ['x-modelgate-cost-usd']);
      await sink.write('data: one\n\n');
      await tick();
      await sink.write('data: two\n\n');
      await sink.write('data: three\n\n');
      await tick();
      await sink.write('data: [DONE]\n\n');
      sink.end({ 'x-modelgate-cost-usd': '0.0001' });
    },
    (received) => /\r\n0\r\n[^]*\r\n\r\n$/.test(received),
  );
  const [head = '', body = ''] = raw.split(/\r\n\r\n(.*)/s);
  assert.match(head, /^HTTP\/1\.1 200 OK/);
  assert.match(head, /\r\nx-request-id: req_1\r\n/);
  assert.match(head, /\r\nx-extra: yes\r\n/);
  assert.match(head, /\r\ntrailer: x-modelgate-cost-usd\r\n/i);
  assert.match(head, /\r\ncontent-type: text\/event-stream; charset=utf-8\r\n/);
  const events = [...body.matchAll(/data: [^\n]+\n\n/g)].map((match) => match[0].trim());
  assert.deepEqual(events, ['data: one', 'data: two', 'data: three', 'data: [DONE]']);
  // The terminating chunk and the trailer come after every event.
  assert.ok(body.indexOf('\r\n0\r\n') > body.indexOf('data: [DONE]'), body);
  assert.match(body, /\r\n0\r\nx-modelgate-cost-usd: 0\.0001\r\n\r\n$/);
});

test('a JSON answer carries the shared and extra headers with its length', async () => {
  const raw = await rawAnswer(
    (sink) => {
      sink.sendJson(200, '{"ok":"é"}', { 'x-modelgate-cost-usd': '0.5' });
      return Promise.resolve();
    },
    (received) => received.endsWith('}'),
  );
  assert.match(raw, /\r\nx-request-id: req_1\r\n/);
  assert.match(raw, /\r\nx-modelgate-cost-usd: 0\.5\r\n/);
  assert.match(raw, /\r\ncontent-length: 11\r\n/);
  assert.ok(raw.endsWith('\r\n\r\n{"ok":"Ã©"}'), raw); // latin1 view of the UTF-8 bytes
});

test('an HTTP/1.0 client: no trailer announced or sent, the stream ends with the connection', async () => {
  const raw = await rawAnswer(
    async (sink) => {
      sink.startStream({}, ['x-modelgate-cost-usd']);
      await sink.write('data: one\n\n');
      await tick();
      await sink.write('data: [DONE]\n\n');
      sink.end({ 'x-modelgate-cost-usd': '0.0001' });
    },
    (received) => received.endsWith('data: [DONE]\n\n'),
    '1.0',
  );
  const [head = '', body = ''] = raw.split(/\r\n\r\n(.*)/s);
  assert.match(head, /^HTTP\/1\.1 200 OK/);
  assert.doesNotMatch(head, /\r\ntrailer:/i);
  assert.doesNotMatch(head, /\r\ntransfer-encoding:/i);
  assert.match(head, /\r\nconnection: close/i);
  assert.equal(body, 'data: one\n\ndata: [DONE]\n\n');
});

test('header values node:http refuses (CR/LF, non-Latin-1) are percent-encoded, not thrown', async () => {
  const raw = await rawAnswer(
    (sink) => {
      sink.sendJson(200, '{}', { 'x-note': 'a\r\nx-injected: 中', 'x-list': ['ok', 'bad\u0000'] });
      return Promise.resolve();
    },
    (received) => received.endsWith('{}'),
  );
  assert.match(raw, /^HTTP\/1\.1 200 OK/);
  assert.match(raw, /\r\nx-note: a%0D%0Ax-injected: %E4%B8%AD\r\n/);
  assert.match(raw, /\r\nx-list: ok\r\nx-list: bad%00\r\n/);
  assert.doesNotMatch(raw, /\r\nx-injected:/);
});
