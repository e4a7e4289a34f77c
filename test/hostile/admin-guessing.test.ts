/**
 * Guessing the admin key through the admin API and a protected `/metrics`: the dashboard sign-in's
 * throttle applies (one count per client address for all three), so ten wrong keys in a minute
 * lock the address out — 429 with `retry-after`, the right key included. And a stored key may not
 * take a static key's name.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { alphaAuth, post } from '../kit/e2e.ts';
import { maxLoginFailures } from '../../src/keys/login-throttle.ts';
import { startTestGateway, type TestGateway } from '../kit/test-gateway.ts';

const adminKey = 'mg-admin-guessing-test-0123456789';
let gateway: TestGateway;

before(async () => {
  gateway = await startTestGateway({ LOG_LEVEL: 'silent', MODELGATE_ADMIN_KEY: adminKey });
});

after(async () => {
  await gateway.close();
});

const listKeys = (key: string): Promise<Response> =>
  fetch(`${gateway.url}/admin/keys`, { headers: alphaAuth(key) });

test('a stored key may not be named like a static key', async () => {
  for (const name of ['static-1', 'static-0123456789ab', 'STATIC-x']) {
    const created = await post(gateway.url, '/admin/keys', alphaAuth(adminKey), { name });
    assert.equal(created.status, 400, `${name}: ${created.text}`);
    assert.match(
      (created.json as { error: { message: string } }).error.message,
      /may not begin with "static-"/,
    );
  }
});

test('ten wrong admin keys lock the address out of /admin and /metrics, the right key included', async () => {
  assert.equal((await listKeys(adminKey)).status, 200);
  for (let attempt = 0; attempt < maxLoginFailures; attempt++) {
    const answer = await listKeys(`mg-guess-${attempt}-0123456789`);
    assert.equal(answer.status, 401, `attempt ${attempt + 1}`);
  }
  const locked = await listKeys(`mg-guess-more-0123456789`);
  assert.equal(locked.status, 429);
  assert.ok(Number(locked.headers.get('retry-after')) >= 1);
  const body = (await locked.json()) as { error: { message: string } };
  assert.match(body.error.message, /Too many wrong admin keys/);
  assert.equal((await listKeys(adminKey)).status, 429, 'the right key is refused during the lockout');
  const metrics = await fetch(`${gateway.url}/metrics`, { headers: alphaAuth(adminKey) });
  assert.equal(metrics.status, 429, 'the same count guards /metrics');
  assert.ok(Number(metrics.headers.get('retry-after')) >= 1);
});
