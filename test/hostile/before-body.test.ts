/**
 * Authentication and the cheap limit checks happen from the headers, before the body is read:
 * a refused request gets its answer without `100 Continue` and its upload is not read (the
 * connection closes); an admitted one gets `100 Continue` and is served.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { alphaAuth, gammaAuth, gammaPath, post } from '../kit/e2e.ts';
import { startHostileSetup, type HostileSetup } from './test-kit.ts';
import { holdRequest, type HeldAnswer } from './slow-clients.ts';

const adminKey = 'mg-hostile-admin-key-0123456789';
let setup: HostileSetup;
before(async () => {
  setup = await startHostileSetup('', { MODELGATE_ADMIN_KEY: adminKey });
});
after(async () => {
  await setup.close();
});

let created = 0;
async function createKey(policy: Record<string, unknown>): Promise<{ key: string; name: string }> {
  const answer = await post(setup.gateway.url, '/admin/keys', alphaAuth(adminKey), {
    name: `before-body-${++created}`,
    ...policy,
  });
  assert.equal(answer.status, 201, answer.text);
  return answer.json as { key: string; name: string };
}

const chat = JSON.stringify({ model: 'C-1', max_tokens: 10, messages: [{ role: 'user', content: 'Hi' }] });

/** A request that waits for `100 Continue` before it sends its body (as curl does for large uploads). */
function expecting(
  key: string,
  path = '/v1/chat/completions',
  length = Buffer.byteLength(chat),
  extra: Record<string, string> = {},
) {
  const headers: Record<string, string> = path.startsWith('/v1/models/')
    ? { 'x-gamma-api-key': key }
    : { Authorization: `Bearer ${key}` };
  return holdRequest({
    url: setup.gateway.url,
    path,
    headers: {
      ...headers,
      'Content-Type': 'application/json',
      'Content-Length': String(length),
      Expect: '100-continue',
      ...extra,
    },
  });
}

function assertRefusedBeforeBody(answer: HeldAnswer, status: number, label: string): void {
  assert.equal(answer.status, status, `${label}: ${answer.head}\n${answer.body}`);
  assert.equal(answer.continued, false, `${label}: no 100 Continue`);
  assert.equal(answer.closed, true, `${label}: the connection closes (the body is not read)`);
  assert.ok(answer.ms < 1000, `${label}: answered in ${Math.round(answer.ms)} ms`);
}

/** An admitted request's connection would stay open after its answer. */
const closeAfter = { Connection: 'close' };

test('an admitted request gets 100 Continue, then its answer', async () => {
  const request = expecting(setup.gateway.key, undefined, undefined, closeAfter);
  await request.continued;
  request.write(chat);
  const answer = await request.answer;
  assert.equal(answer.continued, true);
  assert.equal(answer.status, 200, answer.body);
});

test('wrong key with Expect: 401 without 100 Continue, closed', async () => {
  assertRefusedBeforeBody(await expecting('mg-wrong-key').answer, 401, 'wrong key');
});

test('an unauthenticated 16 MiB upload is not read: 401 and the connection closes', async () => {
  const total = 16 * 1024 * 1024;
  const request = holdRequest({
    url: setup.gateway.url,
    path: '/v1/messages',
    headers: {
      'x-api-key': 'mg-wrong-key',
      'Content-Type': 'application/json',
      'Content-Length': String(total),
    },
  });
  // 1 MiB at a time, each handed to the kernel before the next: what the server does not read
  // stops the writes once the socket buffers are full, and the close ends them.
  const chunk = Buffer.alloc(1024 * 1024, 0x20);
  let flushed = 0;
  for (let sent = 0; sent < total && !request.socket.destroyed; sent += chunk.length) {
    // A destroyed socket calls back every pending write with an error.
    const ok = await new Promise<boolean>((resolve) => {
      request.socket.write(chunk, (error) => resolve(error === undefined || error === null));
    });
    if (!ok) break;
    flushed += chunk.length;
  }
  const answer = await request.answer;
  assert.equal(answer.status, 401, answer.head);
  assert.equal(answer.closed, true);
  assert.ok(flushed < total, `${flushed} of ${total} bytes went out: the server did not read them`);
});

test('a revoked key with Expect: 401 before the body', async () => {
  const { key, name } = await createKey({});
  const revoked = await fetch(`${setup.gateway.url}/admin/keys/${name}`, {
    method: 'DELETE',
    headers: alphaAuth(adminKey),
  });
  assert.ok(revoked.ok, String(revoked.status));
  assertRefusedBeforeBody(await expecting(key).answer, 401, 'revoked');
});

test('a key out of requests in every family it may call: 429 before the body, retry-after', async () => {
  const { key } = await createKey({ models: ['C-1'], rpm: 1 });
  const first = await post(setup.gateway.url, gammaPath('C-1', false), gammaAuth(key), {
    contents: [{ role: 'user', parts: [{ text: 'Hi' }] }],
  });
  assert.equal(first.status, 200, first.text);
  for (const path of ['/v1/chat/completions', gammaPath('C-1', false)]) {
    const answer = await expecting(key, path).answer;
    assertRefusedBeforeBody(answer, 429, path);
    assert.match(answer.head, /\r\nretry-after: \d+\r\n/i, path);
  }
});

test('a key with requests left in another family: the body decides (100 Continue)', async () => {
  const { key } = await createKey({ rpm: 1 });
  const first = await post(setup.gateway.url, gammaPath('C-1', false), gammaAuth(key), {
    contents: [{ role: 'user', parts: [{ text: 'Hi' }] }],
  });
  assert.equal(first.status, 200, first.text);
  const request = expecting(key, '/v1/chat/completions', Buffer.byteLength(chat), closeAfter);
  await request.continued;
  request.write(chat);
  const answer = await request.answer;
  assert.equal(answer.continued, true);
  assert.equal(answer.status, 429, 'the body names a C model: refused by admission, after reading');
});

test('a spent budget: 429 insufficient_quota before the body, x-should-retry: false', async () => {
  const { key } = await createKey({ budget_usd: 0.000001 });
  const spend = await post(setup.gateway.url, '/v1/chat/completions', alphaAuth(key), {
    model: 'A-2',
    max_tokens: 50,
    messages: [{ role: 'user', content: 'Spend the budget' }],
  });
  assert.equal(spend.status, 200, spend.text);
  const answer = await expecting(key).answer;
  assertRefusedBeforeBody(answer, 429, 'budget');
  assert.match(answer.head, /\r\nx-should-retry: false\r\n/i);
  assert.equal((JSON.parse(answer.body) as { error: { code: string } }).error.code, 'insufficient_quota');
});

test('a model the path names that the key may not use: refused before the body', async () => {
  const { key } = await createKey({ models: ['A-2'] });
  const answer = await expecting(key, gammaPath('C-1', false)).answer;
  assertRefusedBeforeBody(answer, 403, 'model');
  assert.equal((JSON.parse(answer.body) as { error: { status: string } }).error.status, 'PERMISSION_DENIED');
});

test('the admin API sends 100 Continue only to the admin key, before reading its body', async () => {
  const body = JSON.stringify({ name: 'before-body-admin' });
  const send = (key: string) =>
    holdRequest({
      url: setup.gateway.url,
      path: '/admin/keys',
      headers: {
        Authorization: `Bearer ${key}`,
        'Content-Type': 'application/json',
        'Content-Length': String(Buffer.byteLength(body)),
        Expect: '100-continue',
        ...closeAfter,
      },
    });
  const refused = await send('mg-not-the-admin-key-0123456789').answer;
  assert.equal(refused.status, 401, refused.head);
  assert.equal(refused.continued, false);
  const request = send(adminKey);
  await request.continued;
  request.write(body);
  const answer = await request.answer;
  assert.equal(answer.continued, true);
  assert.equal(answer.status, 201, answer.body);
});

// node:http itself closes a connection whose promised body was never asked for; these routes
// answer without reading one, in their own shape, with the request id.
test('routes that read no body close the connection of a client holding its body for 100 Continue', async () => {
  const paths = [
    { path: '/healthz', method: 'GET', status: 200, headers: {} },
    { path: '/v1/models', method: 'GET', status: 200, headers: alphaAuth(setup.gateway.key) },
    { path: '/v1/responses/resp_missing', method: 'GET', status: 404, headers: alphaAuth(setup.gateway.key) },
    { path: '/v1/responses/resp_missing', method: 'GET', status: 401, headers: alphaAuth('mg-wrong-key') },
  ];
  for (const { path, method, status, headers } of paths) {
    const answer = await holdRequest({
      url: setup.gateway.url,
      method,
      path,
      headers: { ...headers, 'Content-Length': '64', Expect: '100-continue' },
    }).answer;
    assert.equal(answer.status, status, `${path}: ${answer.head}`);
    assert.equal(answer.continued, false, `${path}: no 100 Continue`);
    assert.equal(answer.closed, true, `${path}: the connection closes, the held body is never read`);
    assert.match(answer.head, /x-request-id: req_/i, `${path}: ${answer.head}`);
  }
});
