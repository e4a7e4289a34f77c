/**
 * Rate limits and budgets as clients see them: the 429 in each surface's shape with
 * `retry-after`, nothing sent upstream for a refused request, every answer carrying the surface
 * family's rate-limit headers with the model family's limits, tokens reconciled after the call,
 * and a small budget under 50 concurrent requests never overspent beyond one request's worst case.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import { ApiError, GoogleGenAI } from '@google/genai';
import OpenAI from 'openai';
import { alphaAuth, betaAuth, betaVersion, gammaAuth, gammaPath, post, type HttpAnswer } from '../kit/e2e.ts';
import { startRecordingUpstream, type RecordingUpstream } from '../kit/recording-upstream.ts';
import { startTestGateway, type TestGateway } from '../kit/test-gateway.ts';

const adminKey = 'mg-admin-limits-0123456789abcdef';
let gateway: TestGateway;
let upstream: RecordingUpstream;

before(async () => {
  upstream = await startRecordingUpstream();
  // Family B goes to a recording upstream, so a refused request can be seen not to reach it.
  gateway = await startTestGateway({
    MODELGATE_ADMIN_KEY: adminKey,
    BETA_BASE_URL: upstream.url,
    BETA_API_KEY: 'up-beta-limits-secret',
    // The recording upstream answers with the simulator: it takes the fault headers.
    BETA_FAULT_HEADERS: '1',
  });
});

after(async () => {
  await gateway.close();
  await upstream.close();
});

interface CreatedKey {
  key: string;
  id: string;
  name: string;
}

let keyCount = 0;

async function createKey(policy: Record<string, unknown> = {}): Promise<CreatedKey> {
  const answer = await post(gateway.url, '/admin/keys', alphaAuth(adminKey), {
    name: `limits-${++keyCount}`,
    ...policy,
  });
  assert.equal(answer.status, 201, answer.text);
  return answer.json as CreatedKey;
}

const hello = [{ role: 'user' as const, content: 'Hello there' }];

/**
 * B's 50 requests a minute: fifty at once, all admitted, then the 51st, refused: the request
 * window is exact (no refill within the minute), however long the burst takes.
 */
async function burstThenRefused(
  send: () => Promise<unknown>,
): Promise<{ error: unknown; elapsedMs: number }> {
  const started = Date.now();
  await Promise.all(Array.from({ length: 50 }, send));
  const error = await send().then(
    () => undefined,
    (caught: unknown) => caught,
  );
  return { error, elapsedMs: Date.now() - started };
}

/** The wait of a window that filled at `started`, `elapsedMs` ago: until the first leaves it. */
function assertWaitsForTheFirst(retryAfter: number, elapsedMs: number): void {
  assert.ok(
    Number.isInteger(retryAfter) && retryAfter <= 60 && retryAfter >= 60 - Math.ceil(elapsedMs / 1000) - 1,
    `retry-after ${retryAfter} after ${elapsedMs} ms`,
  );
}

describe('rate limits', () => {
  test('a fresh key sends 51 requests to a B model through /v1/messages: the 51st gets 429 with retry-after, and never reaches the upstream', async () => {
    const { key } = await createKey();
    const client = new Anthropic({
      apiKey: key,
      baseURL: gateway.url,
      maxRetries: 0,
      defaultHeaders: { 'beta-version': betaVersion },
    });
    const upstreamBefore = upstream.requests.length;
    const started = Date.now();
    for (let index = 1; index <= 50; index++) {
      const { response } = await client.messages
        .create({ model: 'B-1', max_tokens: 16, messages: hello })
        .withResponse();
      assert.equal(response.headers.get('beta-ratelimit-requests-limit'), '50');
      assert.equal(Number(response.headers.get('beta-ratelimit-requests-remaining')), 50 - index);
    }
    const error = await client.messages.create({ model: 'B-1', max_tokens: 16, messages: hello }).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    assert.ok(error instanceof Anthropic.RateLimitError, String(error));
    assert.equal(error.status, 429);
    assertWaitsForTheFirst(Number(error.headers.get('retry-after')), Date.now() - started);
    assert.equal((error.error as { error: { type: string } }).error.type, 'rate_limit_error');
    assert.equal(error.headers.get('beta-ratelimit-requests-limit'), '50');
    assert.equal(error.headers.get('beta-ratelimit-requests-remaining'), '0');
    assert.equal(upstream.requests.length - upstreamBefore, 50, 'the refused request was not sent upstream');
  });

  test('each surface answers 429 in its own shape with retry-after', async () => {
    const { key } = await createKey({ rpm: 1 });
    const calls: [string, () => Promise<HttpAnswer>][] = [
      [
        'unified',
        () =>
          post(gateway.url, '/api/alpha/v1/chat/completions', alphaAuth(key), {
            model: 'A-3',
            messages: hello,
          }),
      ],
      [
        'alpha',
        () => post(gateway.url, '/v1/chat/completions', alphaAuth(key), { model: 'A-3', messages: hello }),
      ],
      [
        'beta',
        () =>
          post(gateway.url, '/v1/messages', betaAuth(key), { model: 'A-3', max_tokens: 8, messages: hello }),
      ],
      [
        'gamma',
        () =>
          post(gateway.url, gammaPath('A-3', false), gammaAuth(key), {
            contents: [{ parts: [{ text: 'Hi' }] }],
          }),
      ],
    ];
    assert.equal((await calls[0]![1]()).status, 200, 'the one request per minute');
    const bodies: Record<string, unknown> = {};
    for (const [surface, call] of calls) {
      const answer = await call();
      assert.equal(answer.status, 429, surface);
      assert.match(answer.headers.get('retry-after') ?? '', /^\d+$/, surface);
      bodies[surface] = answer.json;
    }
    assert.equal((bodies.alpha as { error: { code: string } }).error.code, 'rate_limit_exceeded');
    assert.equal((bodies.unified as { error: { code: string } }).error.code, 'rate_limit_exceeded');
    assert.equal((bodies.beta as { error: { type: string } }).error.type, 'rate_limit_error');
    assert.equal((bodies.gamma as { error: { status: string } }).error.status, 'RESOURCE_EXHAUSTED');
  });

  test('concurrent requests: exactly the limit is admitted', async () => {
    const { key } = await createKey({ rpm: 7 });
    const answers = await Promise.all(
      Array.from({ length: 40 }, () =>
        post(gateway.url, gammaPath('C-2', false), gammaAuth(key), {
          contents: [{ parts: [{ text: 'Hi' }] }],
        }),
      ),
    );
    assert.equal(answers.filter((answer) => answer.status === 200).length, 7);
    assert.equal(answers.filter((answer) => answer.status === 429).length, 33);
  });

  test('tokens are reserved before the call (prompt + max output) and reconciled with the real usage after it', async () => {
    const { key } = await createKey({ tpm: 1000 });
    const client = new OpenAI({ apiKey: key, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
    const tooLarge = await client.chat.completions
      .create({ model: 'A-3', max_completion_tokens: 1001, messages: hello })
      .then(
        () => undefined,
        (caught: unknown) => caught,
      );
    assert.ok(tooLarge instanceof OpenAI.RateLimitError);
    assert.match(tooLarge.message, /more than this key's limit of 1000 tokens per minute/);
    const first = await client.chat.completions
      .create({ model: 'A-3', max_completion_tokens: 900, messages: hello })
      .withResponse();
    const reserved = 1000 - Number(first.response.headers.get('x-ratelimit-remaining-tokens'));
    assert.ok(reserved > 900 && reserved < 920, `reserved ${reserved}: prompt tokens + 900`);
    // 900 reserved, far fewer used: once reconciled, another 900 fits in the same minute.
    const used = first.data.usage!.total_tokens;
    const second = await client.chat.completions
      .create({ model: 'A-3', max_completion_tokens: 900, messages: hello })
      .withResponse();
    const remaining = Number(second.response.headers.get('x-ratelimit-remaining-tokens'));
    assert.ok(Math.abs(1000 - used - reserved - remaining) <= 1, `remaining ${remaining}, used ${used}`);
  });
});

describe('rate-limit headers on every answer', () => {
  const goDuration = /^(\d+h)?(\d+m)?(\d+(\.\d+)?s|\d+ms)$/;
  const rfc3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;

  function assertAlpha(answer: HttpAnswer, requests: string, tokens: string, label: string): void {
    const headers = answer.headers;
    assert.equal(headers.get('x-ratelimit-limit-requests'), requests, label);
    assert.equal(headers.get('x-ratelimit-limit-tokens'), tokens, label);
    assert.match(headers.get('x-ratelimit-remaining-requests') ?? '', /^\d+$/, label);
    assert.match(headers.get('x-ratelimit-remaining-tokens') ?? '', /^\d+$/, label);
    assert.match(headers.get('x-ratelimit-reset-requests') ?? '', goDuration, label);
    assert.match(headers.get('x-ratelimit-reset-tokens') ?? '', goDuration, label);
    assert.equal(headers.get('beta-ratelimit-requests-limit'), null, label);
  }

  function assertBeta(answer: HttpAnswer, requests: string, tokens: string, label: string): void {
    const headers = answer.headers;
    assert.equal(headers.get('beta-ratelimit-requests-limit'), requests, label);
    assert.equal(headers.get('beta-ratelimit-tokens-limit'), tokens, label);
    assert.match(headers.get('beta-ratelimit-requests-remaining') ?? '', /^\d+$/, label);
    assert.match(headers.get('beta-ratelimit-tokens-remaining') ?? '', /^\d+$/, label);
    assert.match(headers.get('beta-ratelimit-requests-reset') ?? '', rfc3339, label);
    assert.match(headers.get('beta-ratelimit-tokens-reset') ?? '', rfc3339, label);
    assert.equal(headers.get('x-ratelimit-limit-requests'), null, label);
  }

  function assertGamma(answer: HttpAnswer, requests: string, label: string): void {
    const headers = answer.headers;
    assert.equal(headers.get('x-ratelimit-limit'), requests, label);
    assert.match(headers.get('x-ratelimit-remaining') ?? '', /^\d+$/, label);
    assert.match(headers.get('x-ratelimit-reset') ?? '', /^\d+$/, label);
    assert.equal(headers.get('x-ratelimit-limit-requests'), null, label);
  }

  function assertCommon(answer: HttpAnswer, label: string): void {
    assert.match(answer.headers.get('x-request-id') ?? '', /^req_/, label);
    assert.match(answer.headers.get('x-modelgate-overhead-ms') ?? '', /^\d+\.\d\d$/, label);
  }

  test('success, stream, client error and upstream error: the surface family names, the model family limits', async () => {
    const { key } = await createKey();
    const spec = { alpha: ['500', '10000'], beta: ['50', '100000'], gamma: ['60', '32000'] } as const;
    const models = { alpha: 'A-3', beta: 'B-4', gamma: 'C-2' } as const;
    const failing = { 'x-simulate-error': '400' };
    for (const family of ['alpha', 'beta', 'gamma'] as const) {
      const model = models[family];
      const [requests, tokens] = spec[family];
      const unified = (body: object, headers: Record<string, string> = {}): Promise<HttpAnswer> =>
        post(
          gateway.url,
          '/api/alpha/v1/chat/completions',
          { ...alphaAuth(key), ...headers },
          { model, messages: hello, ...body },
        );
      const alpha = (body: object, headers: Record<string, string> = {}): Promise<HttpAnswer> =>
        post(
          gateway.url,
          '/v1/chat/completions',
          { ...alphaAuth(key), ...headers },
          { model, messages: hello, ...body },
        );
      const beta = (body: object, headers: Record<string, string> = {}): Promise<HttpAnswer> =>
        post(
          gateway.url,
          '/v1/messages',
          { ...betaAuth(key), ...headers },
          { model, max_tokens: 8, messages: hello, ...body },
        );
      const gamma = (
        stream: boolean,
        body: object,
        headers: Record<string, string> = {},
      ): Promise<HttpAnswer> =>
        post(
          gateway.url,
          gammaPath(model, stream),
          { ...gammaAuth(key), ...headers },
          { contents: [{ parts: [{ text: 'Hi' }] }], ...body },
        );
      const cases: [string, HttpAnswer, (answer: HttpAnswer, label: string) => void][] = [
        ['unified ok', await unified({}), (a, l) => assertAlpha(a, requests, tokens, l)],
        ['unified stream', await unified({ stream: true }), (a, l) => assertAlpha(a, requests, tokens, l)],
        ['unified 400', await unified({ max_tokens: -1 }), (a, l) => assertAlpha(a, requests, tokens, l)],
        ['alpha ok', await alpha({}), (a, l) => assertAlpha(a, requests, tokens, l)],
        ['alpha stream', await alpha({ stream: true }), (a, l) => assertAlpha(a, requests, tokens, l)],
        ['alpha upstream error', await alpha({}, failing), (a, l) => assertAlpha(a, requests, tokens, l)],
        ['beta ok', await beta({}), (a, l) => assertBeta(a, requests, tokens, l)],
        ['beta stream', await beta({ stream: true }), (a, l) => assertBeta(a, requests, tokens, l)],
        ['beta 400', await beta({ max_tokens: 'many' }), (a, l) => assertBeta(a, requests, tokens, l)],
        ['beta upstream error', await beta({}, failing), (a, l) => assertBeta(a, requests, tokens, l)],
        ['gamma ok', await gamma(false, {}), (a, l) => assertGamma(a, requests, l)],
        ['gamma stream', await gamma(true, {}), (a, l) => assertGamma(a, requests, l)],
        ['gamma upstream error', await gamma(false, {}, failing), (a, l) => assertGamma(a, requests, l)],
      ];
      for (const [label, answer, check] of cases) {
        const name = `${label} → ${model}`;
        if (label.endsWith('ok') || label.endsWith('stream'))
          assert.equal(answer.status, 200, `${name}: ${answer.text}`);
        else assert.ok(answer.status >= 400, `${name}: ${answer.status}`);
        check(answer, name);
        assertCommon(answer, name);
      }
    }
  });

  test('answers outside the model surfaces carry the request id and the overhead too', async () => {
    const answers: [string, Response][] = [
      ['healthz', await fetch(`${gateway.url}/healthz`)],
      ['models', await fetch(`${gateway.url}/v1/models`, { headers: alphaAuth(gateway.key) })],
      ['unauthenticated', await fetch(`${gateway.url}/v1/models`)],
      ['admin', await fetch(`${gateway.url}/admin/keys`, { headers: alphaAuth(adminKey) })],
      ['no route', await fetch(`${gateway.url}/nowhere`, { method: 'POST' })],
    ];
    for (const [label, answer] of answers) {
      await answer.arrayBuffer();
      assert.match(answer.headers.get('x-request-id') ?? '', /^req_/, label);
      assert.match(answer.headers.get('x-modelgate-overhead-ms') ?? '', /^\d+\.\d\d$/, label);
    }
  });
});

describe('budgets', () => {
  // B-2: $15 / $75 per million tokens; max_tokens 100 ⇒ a worst case under $0.0077 for this prompt.
  const maxTokens = 100;
  const prompt = 'Write a short poem about rate limits and budgets.';
  const worstCaseBound = (prompt.length * 15 + maxTokens * 75) / 1_000_000;

  test("50 concurrent requests against a small budget overspend by at most one request's worst case", async () => {
    const budget = 0.02;
    const { key, id } = await createKey({ budget_usd: budget, models: ['B-2'] });
    const answers = await Promise.all(
      Array.from({ length: 50 }, () =>
        post(gateway.url, '/v1/messages', betaAuth(key), {
          model: 'B-2',
          max_tokens: maxTokens,
          messages: [{ role: 'user', content: prompt }],
        }),
      ),
    );
    const admitted = answers.filter((answer) => answer.status === 200);
    const refused = answers.filter((answer) => answer.status === 429);
    assert.equal(admitted.length + refused.length, 50);
    assert.ok(admitted.length >= 1 && refused.length >= 1, `${admitted.length} admitted`);
    const told = admitted.reduce(
      (sum, answer) => sum + Number(answer.headers.get('x-modelgate-cost-usd')),
      0,
    );
    assert.ok(told <= budget + worstCaseBound, `spent ${told} > ${budget} + ${worstCaseBound}`);
    assert.ok(
      told > budget - worstCaseBound,
      `the budget (not something else) stopped the requests: ${told}`,
    );
    for (const answer of refused) {
      assert.equal((answer.json as { error: { type: string } }).error.type, 'rate_limit_error');
      assert.match((answer.json as { error: { message: string } }).error.message, /budget/);
    }
    // Spend as the store records it matches what the clients were told.
    const spent = await eventually(async () => {
      const view = (await (
        await fetch(`${gateway.url}/admin/keys/${id}`, { headers: alphaAuth(adminKey) })
      ).json()) as {
        spent_usd: number;
      };
      return Math.abs(view.spent_usd - told) < 1e-9 ? view.spent_usd : undefined;
    });
    assert.ok(spent > 0);
  });

  test('over budget: A insufficient_quota 429, B rate_limit_error 429, C RESOURCE_EXHAUSTED, through the SDKs', async () => {
    const { key } = await createKey({ budget_usd: 0 });
    const openai = new OpenAI({ apiKey: key, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
    const alphaError = await openai.chat.completions.create({ model: 'A-3', messages: hello }).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    assert.ok(alphaError instanceof OpenAI.RateLimitError);
    assert.equal(alphaError.code, 'insufficient_quota');
    assert.equal(alphaError.headers.get('x-should-retry'), 'false');
    const anthropic = new Anthropic({
      apiKey: key,
      baseURL: gateway.url,
      maxRetries: 0,
      defaultHeaders: { 'beta-version': betaVersion },
    });
    const betaError = await anthropic.messages.create({ model: 'A-3', max_tokens: 8, messages: hello }).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    assert.ok(betaError instanceof Anthropic.RateLimitError);
    assert.match(betaError.message, /budget/);
    const genai = new GoogleGenAI({
      apiKey: key,
      httpOptions: {
        baseUrl: gateway.url,
        apiVersion: 'v1',
        headers: { 'x-gamma-api-key': key },
        retryOptions: { attempts: 1 },
      },
    });
    const gammaError = await genai.models.generateContent({ model: 'A-3', contents: 'Hi' }).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    assert.ok(gammaError instanceof ApiError);
    assert.equal(gammaError.status, 429);
    assert.match(gammaError.message, /RESOURCE_EXHAUSTED/);
  });
});

/** Polls `probe` until it returns a value (the ledger is written within 100 ms). */
async function eventually<T>(probe: () => Promise<T | undefined>, timeoutMs = 3_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

test('a static key is limited like any key: its 51st B request in a minute is a 429 with retry-after and never reaches the upstream', async () => {
  // No MODELGATE_UNLIMITED_KEYS: the spec's limits apply to the key from MODELGATE_KEYS.
  const limited = await startTestGateway({
    MODELGATE_UNLIMITED_KEYS: '',
    BETA_BASE_URL: upstream.url,
    BETA_API_KEY: 'up-beta-limits-secret',
  });
  try {
    const client = new Anthropic({
      apiKey: limited.key,
      baseURL: limited.url,
      maxRetries: 0,
      defaultHeaders: { 'beta-version': betaVersion },
    });
    const upstreamBefore = upstream.requests.length;
    const { error, elapsedMs } = await burstThenRefused(() =>
      client.messages.create({ model: 'B-1', max_tokens: 16, messages: hello }).withResponse(),
    );
    assert.ok(error instanceof Anthropic.RateLimitError, String(error));
    assert.equal(error.status, 429);
    assertWaitsForTheFirst(Number(error.headers.get('retry-after')), elapsedMs);
    assert.equal((error.error as { error: { type: string } }).error.type, 'rate_limit_error');
    assert.equal(upstream.requests.length - upstreamBefore, 50, 'the refused request was not sent upstream');
  } finally {
    await limited.close();
  }
});

test('a static key declared unlimited is metered, never refused: a call takes one request, a call refused before any upstream takes none', async () => {
  const call = (model: string): Promise<HttpAnswer> =>
    post(gateway.url, '/v1/chat/completions', alphaAuth(gateway.key), {
      model,
      max_tokens: 5,
      messages: hello,
    });
  const remaining = (answer: HttpAnswer): number =>
    Number(answer.headers.get('x-ratelimit-remaining-requests'));
  // The request window does not refill: the counts are exact (the key made no other call this minute).
  const first = await call('A-1');
  assert.equal(first.status, 200, first.text);
  const unknown = await call('no-such-model');
  assert.equal(unknown.status, 404, unknown.text);
  assert.equal(remaining(unknown), remaining(first), 'the refused call is described, not charged');
  const second = await call('A-1');
  assert.equal(second.status, 200, second.text);
  assert.equal(remaining(second), remaining(first) - 1, 'a call takes one request');
  const stream = await post(gateway.url, '/v1/chat/completions', alphaAuth(gateway.key), {
    model: 'A-1',
    max_tokens: 5,
    stream: true,
    messages: hello,
  });
  assert.equal(stream.status, 200);
  assert.equal(remaining(stream), remaining(first) - 2, 'a stream carries the headers after its metering');
});
