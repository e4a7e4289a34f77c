/**
 * `n` must not multiply upstream calls past the key's RPM (an `--rpm 10` key, 12
 * requests with `"n":128` → 1,280 upstream calls). A request for n candidates counts n requests.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { alphaAuth, post } from '../kit/e2e.ts';
import { startRecordingUpstream, type RecordingUpstream } from '../kit/recording-upstream.ts';
import { startTestGateway, type TestGateway } from '../kit/test-gateway.ts';

const adminKey = 'mg-admin-candidates-0123456789';
let gateway: TestGateway;
let upstream: RecordingUpstream;

before(async () => {
  upstream = await startRecordingUpstream();
  gateway = await startTestGateway({
    MODELGATE_ADMIN_KEY: adminKey,
    BETA_BASE_URL: upstream.url,
    BETA_API_KEY: 'up-beta-candidates-secret',
  });
});

after(async () => {
  await gateway.close();
  await upstream.close();
});

test('"n": 128 on an --rpm 10 key is a 429 naming n, and no upstream call is made', async () => {
  const created = await post(gateway.url, '/admin/keys', alphaAuth(adminKey), { name: 'rpm10', rpm: 10 });
  assert.equal(created.status, 201, created.text);
  const key = (created.json as { key: string }).key;
  const body = { model: 'B-1', n: 128, max_tokens: 1, messages: [{ role: 'user', content: 'Hi' }] };
  for (let index = 0; index < 12; index++) {
    const answer = await post(gateway.url, '/v1/chat/completions', alphaAuth(key), body);
    assert.equal(answer.status, 429, answer.text);
    assert.match(answer.text, /128 candidates \(n\)/);
    assert.equal(answer.headers.get('retry-after'), '60');
  }
  assert.equal(upstream.requests.length, 0);

  // Within the window: n = 4 takes 4 of the 10 requests (B has no native n: 4 upstream calls).
  const four = await post(gateway.url, '/v1/chat/completions', alphaAuth(key), { ...body, n: 4 });
  assert.equal(four.status, 200, four.text);
  assert.equal(upstream.requests.length, 4);
  assert.equal(four.headers.get('x-ratelimit-remaining-requests'), '6');
  const seven = await post(gateway.url, '/v1/chat/completions', alphaAuth(key), { ...body, n: 7 });
  assert.equal(seven.status, 429, seven.text);
  assert.match(seven.text, /Rate limit reached for requests/);
  assert.equal(upstream.requests.length, 4);
});
