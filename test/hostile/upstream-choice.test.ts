/**
 * A request never chooses where it goes: body fields naming hosts, and model names built to look
 * like paths, URLs or header injections, change neither the upstream origin nor its path. The
 * only host ever contacted is the configured one; the trap (any other host) gets nothing.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { alphaAuth, betaAuth, gammaAuth, post } from '../kit/e2e.ts';
import { startHostileSetup, type HostileSetup } from './test-kit.ts';

let setup: HostileSetup;
before(async () => {
  setup = await startHostileSetup();
});
after(async () => {
  await setup.close();
});

type Surface = 'alpha' | 'unified' | 'beta' | 'gamma';
const surfaces: Surface[] = ['alpha', 'unified', 'beta', 'gamma'];

/** The upstream paths a request for a model of each family may take (nothing else). */
const allowedPath =
  /^\/v1\/(chat\/completions|messages|models\/[A-Za-z0-9._:@+/-]+:(generateContent|streamGenerateContent\?alt=sse))$/;

function send(surface: Surface, model: string, extra: Record<string, unknown>, stream = false) {
  const { gateway } = setup;
  if (surface === 'gamma') {
    return post(
      gateway.url,
      `/v1/models/${encodeURIComponent(model)}:generateContent`,
      gammaAuth(gateway.key),
      {
        contents: [{ role: 'user', parts: [{ text: 'Hi' }] }],
        ...extra,
      },
    );
  }
  const path =
    surface === 'beta'
      ? '/v1/messages'
      : surface === 'alpha'
        ? '/v1/chat/completions'
        : '/api/alpha/v1/chat/completions';
  const auth = surface === 'beta' ? betaAuth(gateway.key) : alphaAuth(gateway.key);
  return post(gateway.url, path, auth, {
    model,
    stream,
    max_tokens: 20,
    messages: [{ role: 'user', content: 'Hi' }],
    ...extra,
  });
}

/** Everything the upstream saw since `from` went to its own host, on an allowed path. */
function assertContained(from: number, label: string): void {
  const { upstream, trap } = setup;
  assert.equal(trap.hits, 0, `${label}: another host was contacted`);
  const host = new URL(upstream.url).host;
  for (const request of upstream.requests.slice(from)) {
    assert.equal(request.headers.host, host, `${label}: Host header`);
    assert.match(request.path, allowedPath, `${label}: upstream path`);
    assert.doesNotMatch(request.path, /\.\.|%2e|%2f|%0d|%0a|#/i, `${label}: upstream path`);
  }
}

const hostFields = [
  'api_base',
  'base_url',
  'baseURL',
  'api_url',
  'url',
  'endpoint',
  'host',
  'upstream',
  'proxy',
];

for (const field of hostFields) {
  test(`body field ${field} (top level, in metadata, in extra_body) changes no upstream`, async () => {
    const trap = setup.trap.url;
    const variants: Record<string, unknown>[] = [
      { [field]: trap },
      { metadata: { [field]: trap, user_id: 'u1' } },
      { extra_body: { [field]: trap }, extra_headers: { host: setup.trap.host } },
    ];
    for (const surface of surfaces) {
      for (const extra of variants) {
        const from = setup.upstream.requests.length;
        const answer = await send(surface, surface === 'gamma' ? 'C-1' : 'B-1', extra);
        const label = `${surface} ${JSON.stringify(extra)}`;
        assert.ok(
          answer.status === 200 || (answer.status >= 400 && answer.status < 500),
          `${label}: ${answer.status}`,
        );
        assertContained(from, label);
      }
    }
  });
}

const hostileModels = [
  'alpha/../../x',
  'alpha/../../../v1/messages',
  'alpha/x#@TRAP',
  'alpha/x@TRAP',
  'alpha/x%2F..%2F..%2Fadmin',
  'alpha/%2e%2e/x',
  'alpha//TRAP/x',
  'alpha/x?base_url=http://TRAP',
  'alpha/x\r\nHost: TRAP',
  'beta/x\r\n\r\nGET / HTTP/1.1',
  'gamma/../../v1beta/models/x',
  'gamma/x:streamGenerateContent?alt=sse&key=1',
  'http://TRAP/v1',
  '//TRAP',
  'B-1\r\nx-evil: 1',
  'A-1\u0000',
  'alpha／x',
];

for (const template of hostileModels) {
  test(`model name ${JSON.stringify(template)} changes no upstream origin or path`, async () => {
    const model = template.replaceAll('TRAP', setup.trap.host);
    for (const surface of surfaces) {
      const from = setup.upstream.requests.length;
      const answer = await send(surface, model, {});
      const label = `${surface} model ${JSON.stringify(model)}`;
      assert.ok(answer.status < 500, `${label}: ${answer.status} ${answer.text}`);
      // An id that is a plain upstream id (`x@host:port`) is served, as a model name, on the configured host.
      if (answer.status !== 200) assert.ok([400, 404].includes(answer.status), `${label}: ${answer.status}`);
      assertContained(from, label);
    }
  });
}
