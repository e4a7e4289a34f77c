/**
 * HTTP/1.0 clients (curl --http1.0, nginx's default proxy_http_version) get streams on every
 * surface: no chunked framing and no trailers, the end of the stream is the connection's close,
 * and each stream costs exactly one upstream call.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { rawRequest, startHostileSetup, type HostileSetup } from './test-kit.ts';
import { checkClientStream, rawText, streamRequest } from './streams.ts';
import { specFamilies } from '../kit/spec-families.ts';

let setup: HostileSetup;
before(async () => {
  setup = await startHostileSetup();
});
after(async () => {
  await setup.close();
});

const modelOf = { alpha: 'A-2', beta: 'B-1', gamma: 'C-1' } as const;

for (const surface of [...specFamilies, 'responses'] as const) {
  test(`HTTP/1.0 streaming on the ${surface} surface, from each family: whole, close-delimited, no trailers`, async () => {
    const host = new URL(setup.gateway.url).host;
    for (const family of specFamilies) {
      const before = setup.upstream.requests.length;
      const request = streamRequest(surface, modelOf[family], setup.gateway.key);
      const answer = await rawRequest(setup.gateway.url, rawText(request, host, '1.0'), 10_000);
      const label = `${surface} surface, ${family} model`;
      assert.equal(answer.status, 200, `${label}: ${answer.head}\n${answer.body.slice(0, 300)}`);
      assert.match(answer.head, /^HTTP\/1\.1 200/);
      assert.match(answer.head, /\r\ncontent-type: text\/event-stream/i);
      assert.doesNotMatch(answer.head, /\r\ntransfer-encoding:/i, label);
      assert.doesNotMatch(answer.head, /\r\ntrailer:/i, label);
      assert.match(answer.head, /\r\nconnection: close/i, label);
      const verdict = checkClientStream(surface, answer.body);
      assert.deepEqual(verdict.problems, [], `${label}: ${answer.body.slice(0, 400)}`);
      assert.equal(setup.upstream.requests.length - before, 1, `${label}: one upstream call`);
    }
  });
}

test('HTTP/1.0 with Connection: keep-alive: the stream still ends with the connection', async () => {
  const host = new URL(setup.gateway.url).host;
  const request = streamRequest('beta', 'A-2', setup.gateway.key);
  const answer = await rawRequest(
    setup.gateway.url,
    rawText(request, host, '1.0', { Connection: 'keep-alive' }),
    10_000,
  );
  assert.equal(answer.status, 200, answer.head);
  assert.doesNotMatch(answer.head, /\r\ntrailer:/i);
  assert.deepEqual(checkClientStream('beta', answer.body).problems, []);
});

test('HTTP/1.1 streams keep their chunked framing and the cost trailer', async () => {
  const host = new URL(setup.gateway.url).host;
  const request = streamRequest('alpha', 'A-2', setup.gateway.key);
  const answer = await rawRequest(
    setup.gateway.url,
    rawText(request, host, '1.1', { Connection: 'close' }),
    10_000,
  );
  assert.equal(answer.status, 200, answer.head);
  assert.match(answer.head, /\r\ntransfer-encoding: chunked/i);
  assert.match(answer.head, /\r\ntrailer: x-modelgate-cost-usd/i);
  assert.match(answer.body, /\r\n0\r\nx-modelgate-cost-usd: \d/);
});
