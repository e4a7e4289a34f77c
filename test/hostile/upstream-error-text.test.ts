/**
 * Upstream error text must not leak what it carries: it once reached clients verbatim except for the exact key
 * string — the key in upper case, the key without its prefix, the upstream's base URL and an
 * internal URL, on every surface, in 400/429/500 bodies of every family and in stream errors.
 * Here every family's upstream answers with such text, and every surface is read for leaks.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startFakeUpstream, type Behaviour, type FakeUpstream } from '../chaos/fake-upstream.ts';
import { alphaAuth, betaAuth, gammaAuth, gammaPath, post } from '../kit/e2e.ts';
import { startTestGateway, type TestGateway } from '../kit/test-gateway.ts';

const keys = {
  alpha: 'sk-proj-HostileAlphaKey0123456789',
  beta: 'sk-ant-api03-HostileBetaKey0123456789',
  gamma: 'AIzaHostileGammaKey0123456789',
};
let upstream: FakeUpstream;
let gateway: TestGateway;

before(async () => {
  upstream = await startFakeUpstream();
  gateway = await startTestGateway({
    ALPHA_BASE_URL: `${upstream.url}/alpha-base`,
    BETA_BASE_URL: `${upstream.url}/beta-base`,
    GAMMA_BASE_URL: `${upstream.url}/gamma-base`,
    ALPHA_API_KEY: keys.alpha,
    BETA_API_KEY: keys.beta,
    GAMMA_API_KEY: keys.gamma,
  });
});

after(async () => {
  await gateway.close();
  await upstream.close();
});

const host = (): string => new URL(upstream.url).host;

/** What an upstream might say about itself: every key, mangled, its URL, an internal one, an address. */
function hostileText(): string {
  const mangled = Object.values(keys).flatMap((key) => [
    key.toUpperCase(),
    key.replace(/^(sk-ant-|sk-proj-|sk-|AIza)/, ''),
  ]);
  return `bad key ${mangled.join(' / ')} at ${upstream.url}/alpha-base/v1 (host ${host()}); see http://billing.corp.internal/acct/7 or 10.20.30.40`;
}

function leaks(text: string): string[] {
  const lower = text.toLowerCase();
  const found: string[] = [];
  for (const key of Object.values(keys)) {
    const bare = key.replace(/^(sk-ant-api03-|sk-proj-|AIza)/, '').toLowerCase();
    if (lower.includes(bare.slice(0, 12))) found.push(`key ${key}`);
  }
  for (const needle of [host(), '127.0.0.1', 'corp.internal', '10.20.30.40', 'alpha-base'])
    if (lower.includes(needle.toLowerCase())) found.push(needle);
  return found;
}

const errorBodies: Record<'alpha' | 'beta' | 'gamma', (status: number, message: string) => string> = {
  alpha: (status, message) =>
    JSON.stringify({
      error: {
        message,
        type: status === 429 ? 'rate_limit_exceeded' : 'invalid_request_error',
        param: null,
        code: null,
      },
    }),
  beta: (status, message) =>
    JSON.stringify({
      type: 'error',
      error: {
        type: status === 429 ? 'rate_limit_error' : status >= 500 ? 'api_error' : 'invalid_request_error',
        message,
      },
    }),
  gamma: (status, message) =>
    JSON.stringify({
      error: {
        code: status,
        message,
        status: status === 429 ? 'RESOURCE_EXHAUSTED' : status >= 500 ? 'INTERNAL' : 'INVALID_ARGUMENT',
      },
    }),
};

const models = { alpha: 'A-2', beta: 'B-1', gamma: 'C-1' } as const;

async function ask(
  surface: 'alpha' | 'beta' | 'gamma',
  model: string,
  stream: boolean,
): Promise<{ status: number; text: string }> {
  const chat = { model, max_tokens: 20, stream, messages: [{ role: 'user', content: 'Hi' }] };
  if (surface === 'alpha') return post(gateway.url, '/v1/chat/completions', alphaAuth(gateway.key), chat);
  if (surface === 'beta') return post(gateway.url, '/v1/messages', betaAuth(gateway.key), chat);
  return post(gateway.url, gammaPath(model, stream), gammaAuth(gateway.key), {
    contents: [{ role: 'user', parts: [{ text: 'Hi' }] }],
  });
}

for (const family of ['alpha', 'beta', 'gamma'] as const) {
  test(`${family} upstream errors (400, 429, 500) reach every surface scrubbed; 5xx text never`, async () => {
    for (const status of [400, 429, 500]) {
      const body = errorBodies[family](status, hostileText());
      upstream.behave = (): Behaviour => ({ kind: 'status', status, body, headers: { 'retry-after': '0' } });
      for (const surface of ['alpha', 'beta', 'gamma'] as const) {
        const answer = await ask(surface, models[family], false);
        assert.ok(answer.status >= 400, `${surface}: ${answer.status}`);
        assert.deepEqual(leaks(answer.text), [], `${family} ${status} → ${surface}: ${answer.text}`);
        if (status === 500) assert.doesNotMatch(answer.text, /bad key|billing|see \[url\]/, answer.text);
        // A 400's words are the client's to read (what was wrong), minus what had to go.
        if (status === 400)
          assert.match(answer.text, /bad key \[redacted\]/, `${family} → ${surface}: ${answer.text}`);
      }
    }
    upstream.behave = () => ({ kind: 'simulate' });
  });
}

test('in-stream error events of every family are scrubbed before the client sees them', async () => {
  const message = hostileText();
  const streams: Record<'alpha' | 'beta' | 'gamma', string[]> = {
    alpha: [
      `data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'A-2', choices: [{ index: 0, delta: { role: 'assistant', content: 'Partial' }, finish_reason: null }] })}\n\n`,
      `data: ${JSON.stringify({ error: { message, type: 'invalid_request_error', param: null, code: null } })}\n\n`,
    ],
    beta: [
      `event: message_start\ndata: ${JSON.stringify({ type: 'message_start', message: { id: 'msg_1', type: 'message', role: 'assistant', model: 'B-1', content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 3, output_tokens: 1 } } })}\n\n`,
      `event: error\ndata: ${JSON.stringify({ type: 'error', error: { type: 'overloaded_error', message } })}\n\n`,
    ],
    gamma: [
      `data: ${JSON.stringify({ candidates: [{ content: { role: 'model', parts: [{ text: 'Partial' }] }, index: 0 }], modelVersion: 'C-1' })}\n\n`,
      `data: ${JSON.stringify({ error: { code: 400, message, status: 'INVALID_ARGUMENT' } })}\n\n`,
    ],
  };
  for (const family of ['alpha', 'beta', 'gamma'] as const) {
    upstream.behave = () => ({ kind: 'stream', chunks: streams[family], then: 'end' });
    for (const surface of ['alpha', 'beta', 'gamma'] as const) {
      const answer = await ask(surface, models[family], true);
      assert.deepEqual(leaks(answer.text), [], `${family} stream → ${surface}: ${answer.text}`);
      assert.match(answer.text, /error/i, `${family} stream → ${surface}: ${answer.text}`);
    }
  }
  upstream.behave = () => ({ kind: 'simulate' });
});

test('an upstream 400 quoting a 120,000-character field: the client gets it scrubbed and cut, /healthz is answered', async () => {
  const echo = 'a.'.repeat(60_000);
  // The upstream quotes what it was sent, as "Extra inputs are not permitted" answers do.
  upstream.behave = (seen) => ({
    kind: 'status',
    status: 400,
    body: errorBodies.alpha(400, `Extra inputs are not permitted, input: ${seen.body}`),
  });
  try {
    const chat = { model: models.alpha, max_tokens: 20, messages: [{ role: 'user', content: echo }] };
    const [answer, health] = await Promise.all([
      post(gateway.url, '/v1/chat/completions', alphaAuth(gateway.key), chat),
      fetch(`${gateway.url}/healthz`).then((response) => response.status),
    ]);
    assert.equal(health, 200);
    assert.equal(answer.status, 400, answer.text);
    const message = (answer.json as { error: { message: string } }).error.message;
    assert.match(message, /Extra inputs are not permitted, input: /);
    assert.ok(message.length <= 401, `${message.length} characters`);
    assert.ok(message.endsWith('…'), message.slice(-20));
    assert.deepEqual(leaks(answer.text), [], answer.text.slice(0, 500));
  } finally {
    upstream.behave = () => ({ kind: 'simulate' });
  }
});
