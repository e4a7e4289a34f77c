/**
 * Streaming through Debian's nginx with a default `proxy_pass` config (HTTP/1.0 to the gateway,
 * buffering on): every surface, from every family, arrives whole and well-formed. Skipped only
 * when nginx is not installed outside CI; in CI (CI=true) a missing nginx is a failure.
 */
import assert from 'node:assert/strict';
import type { IncomingMessage } from 'node:http';
import { after, before, describe, test } from 'node:test';
import { startHostileSetup, type HostileSetup } from './test-kit.ts';
import { findNginx, startNginx, type RunningNginx } from './nginx.ts';
import { checkClientStream, streamRequest } from './streams.ts';
import { specFamilies } from '../kit/spec-families.ts';

const binary = findNginx();
const inCi = process.env.CI === 'true';
const skip =
  binary === undefined && !inCi
    ? 'nginx is not installed (apt-get install -y nginx); CI installs it and runs this test'
    : false;

const modelOf = { alpha: 'A-2', beta: 'B-1', gamma: 'C-1' } as const;

describe('streaming behind a default nginx', { skip }, () => {
  let setup: HostileSetup;
  let nginx: RunningNginx;
  /** HTTP versions the gateway saw, to prove nginx spoke HTTP/1.0 to it. */
  const versions = new Set<string>();

  before(async () => {
    assert.ok(binary !== undefined, 'CI=true: nginx must be installed (see .ci/run)');
    setup = await startHostileSetup();
    setup.gateway.server.prependListener('request', (request: IncomingMessage) => {
      versions.add(request.httpVersion);
    });
    nginx = await startNginx(binary, setup.gateway.url);
  });
  after(async () => {
    await nginx.close();
    await setup.close();
  });

  for (const surface of [...specFamilies, 'responses'] as const) {
    test(`the ${surface} surface streams from every family through nginx`, async () => {
      for (const family of specFamilies) {
        const before = setup.upstream.requests.length;
        const request = streamRequest(surface, modelOf[family], setup.gateway.key);
        const response = await fetch(nginx.url + request.path, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...request.headers },
          body: request.body,
        });
        const text = await response.text();
        const label = `${surface} surface, ${family} model`;
        assert.equal(response.status, 200, `${label}: ${text.slice(0, 300)}\n${nginx.errors()}`);
        assert.match(response.headers.get('content-type') ?? '', /^text\/event-stream/);
        const verdict = checkClientStream(surface, text);
        assert.deepEqual(verdict.problems, [], `${label}: ${text.slice(0, 400)}\n${nginx.errors()}`);
        assert.equal(setup.upstream.requests.length - before, 1, `${label}: one upstream call`);
      }
      assert.deepEqual([...versions], ['1.0'], 'nginx spoke HTTP/1.0 to the gateway');
    });
  }

  test('twelve streams at once through nginx, every one whole', async () => {
    const results = await Promise.all(
      Array.from({ length: 12 }, async (_, index) => {
        const surface = specFamilies[index % 3] ?? 'alpha';
        const request = streamRequest(
          surface,
          modelOf[specFamilies[(index + 1) % 3] ?? 'alpha'],
          setup.gateway.key,
          `Hi ${index}`,
        );
        const response = await fetch(nginx.url + request.path, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...request.headers },
          body: request.body,
        });
        return { surface, status: response.status, text: await response.text() };
      }),
    );
    for (const result of results) {
      assert.equal(result.status, 200, result.text.slice(0, 200));
      assert.deepEqual(checkClientStream(result.surface, result.text).problems, []);
    }
  });

  test('a JSON answer and an error answer pass through nginx unchanged in shape', async () => {
    const ok = await fetch(`${nginx.url}/v1/messages`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-api-key': setup.gateway.key,
        'beta-version': '2023-06-01',
      },
      body: JSON.stringify({ model: 'A-2', max_tokens: 20, messages: [{ role: 'user', content: 'Hi' }] }),
    });
    const message = (await ok.json()) as { type?: string };
    assert.equal(ok.status, 200);
    assert.equal(message.type, 'message');
    const denied = await fetch(`${nginx.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer wrong-key' },
      body: JSON.stringify({ model: 'A-2', stream: true, messages: [{ role: 'user', content: 'Hi' }] }),
    });
    assert.equal(denied.status, 401);
    assert.equal(((await denied.json()) as { error?: { code?: string } }).error?.code, 'invalid_api_key');
  });
});
