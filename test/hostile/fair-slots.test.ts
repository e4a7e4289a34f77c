/**
 * Fair slots and slow bodies: one key holding slow uploads gets at most its share of the
 * in-flight slots (the rest 429 at once, in the surface's shape), another key is served and
 * `/healthz` answers meanwhile; the slow bodies are cut with a 408 by the minimum rate, a trickle
 * by the read deadline; both close the connection.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { alphaAuth, post } from '../kit/e2e.ts';
import { testClientKey } from '../kit/test-gateway.ts';
import { startHostileSetup, type HostileSetup } from './test-kit.ts';
import { healthzMs, holdRequest, type HeldAnswer } from './slow-clients.ts';

const otherKey = 'mg-hostile-other-key-0123456789';
const perKey = 8;
let setup: HostileSetup;
before(async () => {
  setup = await startHostileSetup(
    `server: { maxInFlight: 40, maxInFlightPerKey: ${perKey}, bodyReadTimeoutMs: 4000, minBodyBytesPerSecond: 1024 }\n`,
    { MODELGATE_KEYS: `${testClientKey},${otherKey}` },
  );
});
after(async () => {
  await setup.close();
});

function slowUpload(key: string, declared = 1000, first = '{') {
  return holdRequest({
    url: setup.gateway.url,
    path: '/v1/chat/completions',
    headers: {
      Authorization: `Bearer ${key}`,
      'Content-Type': 'application/json',
      'Content-Length': String(declared),
    },
    body: first,
  });
}

function alphaError(answer: HeldAnswer): { type?: string; code?: string; message?: string } {
  return (JSON.parse(answer.body) as { error: { type?: string; code?: string; message?: string } }).error;
}

test('30 slow uploads of one key: 8 held, 22 refused at once (429, closed); another key is served; the held ones get 408', async () => {
  const held = Array.from({ length: 30 }, () => slowUpload(testClientKey));
  // Once the first refusals arrive, the attack is being answered: another key and the health
  // check are served meanwhile, promptly.
  await Promise.race(held.map((request) => request.answered));
  const started = performance.now();
  const served = await post(setup.gateway.url, '/v1/chat/completions', alphaAuth(otherKey), {
    model: 'A-2',
    max_tokens: 10,
    messages: [{ role: 'user', content: 'Hi' }],
  });
  assert.equal(served.status, 200, served.text);
  assert.ok(performance.now() - started < 1000, 'the other key is served within 1 s');
  assert.ok((await healthzMs(setup.gateway.url)) < 1000, '/healthz within 1 s');
  const answers = await Promise.all(held.map((request) => request.answer));
  const refused = answers.filter((answer) => answer.status === 429);
  const cut = answers.filter((answer) => answer.status === 408);
  assert.equal(refused.length, 30 - perKey, 'all but the key share refused');
  assert.equal(cut.length, perKey, 'the key share held, then cut');
  for (const answer of refused) {
    assert.ok(answer.ms < 1500, `refused after ${Math.round(answer.ms)} ms: at once, not after a wait`);
    assert.match(answer.head, /\r\nretry-after: 1\r\n/i);
    assert.equal(answer.closed, true, 'the unread body is not read: the connection closes');
    assert.equal(alphaError(answer).code, 'rate_limit_exceeded');
  }
  // The held uploads (1 byte of 1000) fall below the minimum rate: 408 after ~2 s, closed.
  for (const answer of cut) {
    assert.equal(answer.closed, true);
    assert.ok(answer.ms >= 1900 && answer.ms < 8000, `cut after ${Math.round(answer.ms)} ms`);
    assert.match(alphaError(answer).message ?? '', /slower than 1024 bytes per second/);
  }
  // Their slots came back.
  const again = await post(setup.gateway.url, '/v1/chat/completions', alphaAuth(testClientKey), {
    model: 'A-2',
    max_tokens: 10,
    messages: [{ role: 'user', content: 'Hi' }],
  });
  assert.equal(again.status, 200, again.text);
});

test('a trickle above the minimum rate is cut by the read deadline (408, closed)', async () => {
  const request = slowUpload(testClientKey, 100_000, '{"model":"A-2","messages":[');
  const timer = setInterval(() => request.write(' '.repeat(512)), 250);
  try {
    const answer = await request.answer;
    assert.equal(answer.status, 408, answer.head);
    assert.equal(answer.closed, true);
    assert.ok(answer.ms >= 3900 && answer.ms < 8000, `cut after ${Math.round(answer.ms)} ms`);
    assert.match(alphaError(answer).message ?? '', /not complete within 4 s/);
  } finally {
    clearInterval(timer);
  }
});
