/**
 * Route confusion: odd request targets and Host headers are never served without a valid key,
 * and nothing reaches an upstream. Sent raw, since HTTP clients normalise these away.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { rawPost, rawRequest, startHostileSetup, type HostileSetup } from './test-kit.ts';

let setup: HostileSetup;
before(async () => {
  setup = await startHostileSetup();
});
after(async () => {
  await setup.close();
});

const alphaBody = JSON.stringify({
  model: 'A-2',
  max_tokens: 20,
  messages: [{ role: 'user', content: 'Hi' }],
});
const gammaBody = JSON.stringify({ contents: [{ parts: [{ text: 'Hi' }] }] });

const targets: { label: string; target: string; host?: string; body?: string }[] = [
  { label: 'Host: x/?', target: '/v1/chat/completions', host: 'x/?' },
  { label: 'Host with a path and userinfo', target: '/v1/chat/completions', host: 'evil@127.0.0.1/v1' },
  { label: 'absolute-form target, another host', target: 'http://evil.example/v1/chat/completions' },
  { label: 'absolute-form target, this host', target: 'http://127.0.0.1/v1/chat/completions' },
  { label: '//v1/chat/completions', target: '//v1/chat/completions' },
  { label: '/v1/./chat/completions', target: '/v1/./chat/completions' },
  { label: '/v1/x/../chat/completions', target: '/v1/x/../chat/completions' },
  { label: '/v1/%2e/chat/completions', target: '/v1/%2e/chat/completions' },
  { label: '/v1/chat%2fcompletions', target: '/v1/chat%2fcompletions' },
  { label: '/%2e%2e/v1/chat/completions', target: '/%2e%2e/v1/chat/completions' },
  { label: '/api/alpha/v1/../../v1/chat/completions', target: '/api/alpha/v1/../../v1/chat/completions' },
  { label: '/v1/messages/.', target: '/v1/messages/.' },
  { label: '\\v1\\chat\\completions', target: '\\v1\\chat\\completions' },
  {
    label: '/v1/models/%2e%2e%2fA-1:generateContent',
    target: '/v1/models/%2e%2e%2fA-1:generateContent',
    body: gammaBody,
  },
  {
    label: '/v1beta/models/C-1:generateContent?alt=sse&key=',
    target: '/v1beta/models/C-1:generateContent?key=',
    body: gammaBody,
  },
  {
    label: '/v1/models/C-1:generateContent#frag',
    target: '/v1/models/C-1:generateContent#frag',
    body: gammaBody,
  },
];

for (const { label, target, host, body } of targets) {
  test(`${label}: not served without a valid key, nothing upstream`, async () => {
    const before = setup.upstream.requests.length;
    const answer = await rawPost(setup.gateway.url, target, {}, body ?? alphaBody, host);
    assert.ok(answer.status >= 400 && answer.status < 500, `${label}: ${answer.status}\n${answer.head}`);
    assert.equal(setup.upstream.requests.length, before, `${label}: reached the upstream`);
    assert.equal(setup.trap.hits, 0);
    // A wrong key is no better than none.
    const wrong = await rawPost(
      setup.gateway.url,
      target,
      { authorization: 'Bearer nope' },
      body ?? alphaBody,
      host,
    );
    assert.ok(wrong.status >= 400 && wrong.status < 500, `${label} (wrong key): ${wrong.status}`);
    assert.equal(setup.upstream.requests.length, before);
  });
}

test('GET routes with dot segments or encoded slashes need the key too', async () => {
  for (const target of [
    '/v1/models/../models',
    '/v1/models/%2e%2e',
    '/api/alpha/v1/models/./A-1',
    '/admin/../v1/models',
  ]) {
    const answer = await rawRequest(
      setup.gateway.url,
      `GET ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`,
    );
    assert.ok(answer.status >= 400 && answer.status < 500, `${target}: ${answer.status}`);
  }
});

test('request smuggling shapes are refused by the HTTP parser (no upstream call)', async () => {
  const before = setup.upstream.requests.length;
  const both = await rawRequest(
    setup.gateway.url,
    [
      'POST /v1/chat/completions HTTP/1.1',
      'Host: 127.0.0.1',
      `Authorization: Bearer ${setup.gateway.key}`,
      'Content-Type: application/json',
      'Content-Length: 4',
      'Transfer-Encoding: chunked',
      '',
      '0',
      '',
      'GET /v1/models HTTP/1.1',
      'Host: 127.0.0.1',
      '',
      '',
    ].join('\r\n'),
  );
  assert.equal(both.status, 400, both.head);
  const crlfHeader = await rawRequest(
    setup.gateway.url,
    `POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nX-A: b\rAuthorization: Bearer ${setup.gateway.key}\r\nContent-Length: 2\r\n\r\n{}`,
  );
  assert.equal(crlfHeader.status, 400, crlfHeader.head);
  assert.equal(setup.upstream.requests.length, before);
});
