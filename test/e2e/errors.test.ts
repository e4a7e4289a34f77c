/**
 * Errors as clients see them: each surface's shape and status for client mistakes, catalog limits
 * and upstream failures (before and during a stream), through raw HTTP and through the official
 * SDKs' typed errors. At the end, no key appears in any answer or log line.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import { ApiError, GoogleGenAI } from '@google/genai';
import Anthropic0 from 'anthropic-sdk-0';
import OpenAI from 'openai';
import {
  alphaAuth,
  betaAuth,
  betaVersion,
  gammaAuth,
  gammaPath,
  leaks,
  parseSse,
  post,
  writeTempConfig,
  type AlphaErrorBody,
  type BetaErrorBody,
  type GammaErrorBody,
  type HttpAnswer,
} from '../kit/e2e.ts';
import { startRecordingUpstream, type RecordingUpstream } from '../kit/recording-upstream.ts';
import { startTestGateway, type TestGateway } from '../kit/test-gateway.ts';

const bodyLimitBytes = 65_536;
const upstreamKeys = {
  ALPHA_API_KEY: 'up-alpha-secret-7f3a9c',
  BETA_API_KEY: 'up-beta-secret-2b8e41',
  GAMMA_API_KEY: 'up-gamma-secret-c05d77',
};

/** In-process simulator, small body limit. */
let gateway: TestGateway;
/** Every family upstream is the recording upstream (HTTP), with upstream keys. */
let proxied: TestGateway;
let upstream: RecordingUpstream;
let config: { path: string; remove(): void };
/**
 * One upstream call per request and no circuit breaker on the proxied gateway: these tests check
 * how a single upstream failure is shown. Retries, fallbacks and breakers: test/chaos. Its output
 * caps are strict (a cap above the model's maximum is a 400; the default lowering: surface-compat).
 */
let proxiedConfig: { path: string; remove(): void };
/** Every raw answer the tests received, scanned for secrets at the end. */
const answers: HttpAnswer[] = [];

before(async () => {
  config = writeTempConfig('limits.yaml', `server:\n  bodyLimitBytes: ${bodyLimitBytes}\n`);
  gateway = await startTestGateway({}, config.path);
  upstream = await startRecordingUpstream();
  proxiedConfig = writeTempConfig(
    'proxied.yaml',
    'retry: { attempts: 1 }\nbreaker: { failureThreshold: 0 }\nlimits: { strictOutputTokens: true }\n',
  );
  proxied = await startTestGateway(
    {
      ALPHA_BASE_URL: upstream.url,
      BETA_BASE_URL: upstream.url,
      GAMMA_BASE_URL: upstream.url,
      // The recording upstream answers with the simulator: it takes the fault headers.
      ALPHA_FAULT_HEADERS: '1',
      BETA_FAULT_HEADERS: '1',
      GAMMA_FAULT_HEADERS: '1',
      ...upstreamKeys,
    },
    proxiedConfig.path,
  );
});

after(async () => {
  await gateway.close();
  await proxied.close();
  await upstream.close();
  config.remove();
  proxiedConfig.remove();
});

async function call(
  path: string,
  headers: Record<string, string>,
  body: unknown,
  target: TestGateway = gateway,
): Promise<HttpAnswer> {
  const answer = await post(target.url, path, headers, body);
  answers.push(answer);
  return answer;
}

type Surface = 'alpha' | 'unified' | 'beta' | 'gamma';
const surfaces: Surface[] = ['alpha', 'unified', 'beta', 'gamma'];

/** A minimal valid request on `surface` for `model`; `extra` is merged into the body. */
function request(
  surface: Surface,
  model: string,
  options: { stream?: boolean; headers?: Record<string, string>; key?: string } = {},
): { path: string; headers: Record<string, string>; body: Record<string, unknown> } {
  const stream = options.stream ?? false;
  const key = options.key ?? gateway.key;
  const extra = options.headers ?? {};
  if (surface === 'alpha' || surface === 'unified') {
    return {
      path: surface === 'alpha' ? '/v1/chat/completions' : '/api/alpha/v1/chat/completions',
      headers: { ...alphaAuth(key), ...extra },
      body: { model, stream, messages: [{ role: 'user', content: 'Hello' }] },
    };
  }
  if (surface === 'beta') {
    return {
      path: '/v1/messages',
      headers: { ...betaAuth(key), ...extra },
      body: { model, stream, max_tokens: 200, messages: [{ role: 'user', content: 'Hello' }] },
    };
  }
  return {
    path: gammaPath(model, stream),
    headers: { ...gammaAuth(key), ...extra },
    body: { contents: [{ role: 'user', parts: [{ text: 'Hello' }] }] },
  };
}

async function send(
  surface: Surface,
  model: string,
  options: {
    stream?: boolean;
    headers?: Record<string, string>;
    key?: string;
    body?: Record<string, unknown>;
  } = {},
  target: TestGateway = gateway,
): Promise<HttpAnswer> {
  const built = request(surface, model, { ...options, key: options.key ?? target.key });
  return call(built.path, built.headers, { ...built.body, ...options.body }, target);
}

/** Asserts the surface's error shape with this status and family code; returns the message. */
function assertError(surface: Surface, answer: HttpAnswer, status: number, code: string): string {
  assert.equal(answer.status, status, `${surface}: status (${answer.text})`);
  assert.match(answer.headers.get('content-type') ?? '', /^application\/json/);
  if (surface === 'alpha' || surface === 'unified') {
    const body = answer.json as AlphaErrorBody;
    assert.deepEqual(Object.keys(body), ['error']);
    assert.deepEqual(Object.keys(body.error).sort(), ['code', 'message', 'param', 'type']);
    assert.equal(typeof body.error.message, 'string');
    assert.ok(body.error.code === code || body.error.type === code, `A code/type ${code}: ${answer.text}`);
    return body.error.message;
  }
  if (surface === 'beta') {
    const body = answer.json as BetaErrorBody;
    assert.equal(body.type, 'error');
    assert.equal(body.error.type, code, answer.text);
    assert.equal(typeof body.error.message, 'string');
    return body.error.message;
  }
  const body = answer.json as GammaErrorBody;
  assert.equal(body.error.code, status);
  assert.equal(body.error.status, code, answer.text);
  assert.equal(typeof body.error.message, 'string');
  return body.error.message;
}

describe('client mistakes', () => {
  test('bad or missing key: A 401 invalid_api_key, B 401 authentication_error, C 403 PERMISSION_DENIED', async () => {
    const expected = {
      alpha: [401, 'invalid_api_key'],
      unified: [401, 'invalid_api_key'],
      beta: [401, 'authentication_error'],
      gamma: [403, 'PERMISSION_DENIED'],
    } as const;
    for (const surface of surfaces) {
      const [status, code] = expected[surface];
      assertError(surface, await send(surface, 'A-2', { key: 'not-a-key' }), status, code);
      const missing = request(surface, 'A-2');
      const headers = Object.fromEntries(
        Object.entries(missing.headers).filter(
          ([name]) => !['authorization', 'x-api-key', 'x-gamma-api-key'].includes(name),
        ),
      );
      assertError(surface, await call(missing.path, headers, missing.body), status, code);
    }
    // B also takes a bearer token; C also takes ?key=. Wrong values fail the same way.
    const bearer = await call(
      '/v1/messages',
      { authorization: 'Bearer wrong', 'beta-version': betaVersion },
      {
        model: 'B-1',
        max_tokens: 10,
        messages: [{ role: 'user', content: 'Hi' }],
      },
    );
    assertError('beta', bearer, 401, 'authentication_error');
    const query = await call(
      `${gammaPath('C-1', false)}?key=wrong`,
      {},
      { contents: [{ parts: [{ text: 'Hi' }] }] },
    );
    assertError('gamma', query, 403, 'PERMISSION_DENIED');
    // The right key by the alternative routes works.
    const bearerOk = await call(
      '/v1/messages',
      { ...alphaAuth(gateway.key), 'beta-version': betaVersion },
      {
        model: 'B-1',
        max_tokens: 10,
        messages: [{ role: 'user', content: 'Hi' }],
      },
    );
    assert.equal(bearerOk.status, 200, bearerOk.text);
    const queryOk = await call(
      `${gammaPath('C-1', false)}?key=${gateway.key}`,
      {},
      {
        contents: [{ parts: [{ text: 'Hi' }] }],
      },
    );
    assert.equal(queryOk.status, 200, queryOk.text);
  });

  test('beta-version: missing or malformed → 400; a later dated version is accepted', async () => {
    const body = { model: 'B-1', max_tokens: 10, messages: [{ role: 'user', content: 'Hi' }] };
    const missing = await call('/v1/messages', { 'x-api-key': gateway.key }, body);
    assert.match(assertError('beta', missing, 400, 'invalid_request_error'), /beta-version/);
    for (const bad of ['yesterday', '2023-13-45', '2023/06/01', '']) {
      const malformed = await call('/v1/messages', { 'x-api-key': gateway.key, 'beta-version': bad }, body);
      assert.match(assertError('beta', malformed, 400, 'invalid_request_error'), /beta-version/, bad);
    }
    for (const later of ['2024-10-22', '2026-01-01']) {
      const ok = await call('/v1/messages', { 'x-api-key': gateway.key, 'beta-version': later }, body);
      assert.equal(ok.status, 200, `${later}: ${ok.text}`);
    }
  });

  test('malformed JSON → 400 in each shape', async () => {
    const codes = {
      alpha: 'invalid_request_error',
      unified: 'invalid_request_error',
      beta: 'invalid_request_error',
      gamma: 'INVALID_ARGUMENT',
    };
    for (const surface of surfaces) {
      const { path, headers } = request(surface, 'B-1');
      for (const raw of ['{"model": "B-1", "messages": [', 'not json', '']) {
        assertError(surface, await call(path, headers, raw), 400, codes[surface]);
      }
      // Valid JSON but not an object, or missing required fields.
      assertError(surface, await call(path, headers, '[1,2,3]'), 400, codes[surface]);
    }
  });

  test('wrong content type → 415 in each shape', async () => {
    const codes = {
      alpha: 'invalid_request_error',
      unified: 'invalid_request_error',
      beta: 'invalid_request_error',
      gamma: 'INVALID_ARGUMENT',
    };
    for (const surface of surfaces) {
      const { path, headers, body } = request(surface, 'C-1');
      for (const type of ['text/plain', 'application/x-www-form-urlencoded']) {
        const answer = await call(path, { ...headers, 'content-type': type }, body);
        assert.match(assertError(surface, answer, 415, codes[surface]), /content-type/i);
      }
    }
  });

  test('unknown model → 404 in each shape', async () => {
    const codes = {
      alpha: 'model_not_found',
      unified: 'model_not_found',
      beta: 'not_found_error',
      gamma: 'NOT_FOUND',
    };
    for (const surface of surfaces) {
      for (const stream of [false, true]) {
        const message = assertError(surface, await send(surface, 'Z-9', { stream }), 404, codes[surface]);
        assert.match(message, /Z-9/);
      }
    }
  });

  test(`oversize body (> ${bodyLimitBytes} bytes) → 413 in each shape`, async () => {
    const codes = {
      alpha: 'request_too_large',
      unified: 'request_too_large',
      beta: 'request_too_large',
      gamma: 'INVALID_ARGUMENT',
    };
    const big = 'x'.repeat(bodyLimitBytes + 1024);
    for (const surface of surfaces) {
      const { path, headers } = request(surface, 'A-2');
      const body =
        surface === 'gamma'
          ? { contents: [{ parts: [{ text: big }] }] }
          : { model: 'A-2', max_tokens: 10, messages: [{ role: 'user', content: big }] };
      assertError(surface, await call(path, headers, body), 413, codes[surface]);
    }
  });

  test('strictOutputTokens: max output above the model max → 400 naming both numbers', async () => {
    const cases = [
      { surface: 'alpha', model: 'A-2', body: { max_tokens: 5000 }, asked: 5000, max: 4096 },
      { surface: 'unified', model: 'C-3', body: { max_tokens: 3000 }, asked: 3000, max: 2048 },
      { surface: 'beta', model: 'B-1', body: { max_tokens: 9000 }, asked: 9000, max: 8192 },
      { surface: 'beta', model: 'A-1', body: { max_tokens: 4097 }, asked: 4097, max: 4096 },
      {
        surface: 'gamma',
        model: 'C-3',
        body: { generationConfig: { maxOutputTokens: 2049 } },
        asked: 2049,
        max: 2048,
      },
      {
        surface: 'gamma',
        model: 'B-2',
        body: { generationConfig: { maxOutputTokens: 5000 } },
        asked: 5000,
        max: 4096,
      },
    ] as const;
    const codes = {
      alpha: 'invalid_request_error',
      unified: 'invalid_request_error',
      beta: 'invalid_request_error',
      gamma: 'INVALID_ARGUMENT',
    };
    const before = upstream.requests.length;
    for (const { surface, model, body, asked, max } of cases) {
      const message = assertError(
        surface,
        await send(surface, model, { body }, proxied),
        400,
        codes[surface],
      );
      assert.match(message, new RegExp(`\\b${asked}\\b`), message);
      assert.match(message, new RegExp(`\\b${max}\\b`), message);
    }
    assert.equal(upstream.requests.length, before, 'nothing went upstream');
  });

  test('a prompt beyond the context window of A-1 (8192) → 400 naming the window', async () => {
    const long = 'word '.repeat(9000);
    const codes = {
      alpha: 'invalid_request_error',
      unified: 'invalid_request_error',
      beta: 'invalid_request_error',
      gamma: 'INVALID_ARGUMENT',
    };
    for (const surface of surfaces) {
      const { path, headers } = request(surface, 'A-1');
      const body =
        surface === 'gamma'
          ? { contents: [{ parts: [{ text: long }] }] }
          : { model: 'A-1', max_tokens: 100, messages: [{ role: 'user', content: long }] };
      const message = assertError(surface, await call(path, headers, body), 400, codes[surface]);
      assert.match(message, /8192/, message);
    }
    // A prompt that fits plus a max output that does not fit the rest of the window.
    const fits = 'word '.repeat(6000);
    const over = await call('/v1/chat/completions', alphaAuth(gateway.key), {
      model: 'A-1',
      max_tokens: 4000,
      messages: [{ role: 'user', content: fits }],
    });
    assert.match(assertError('alpha', over, 400, 'invalid_request_error'), /8192/);
  });
});

describe('upstream failures before the answer', () => {
  // [surface code, status] per simulated upstream status.
  const table = {
    '429': {
      alpha: [429, 'rate_limit_exceeded'],
      beta: [429, 'rate_limit_error'],
      gamma: [429, 'RESOURCE_EXHAUSTED'],
    },
    '500': { alpha: [500, 'server_error'], beta: [500, 'api_error'], gamma: [500, 'INTERNAL'] },
    '503': { alpha: [503, 'server_error'], beta: [529, 'overloaded_error'], gamma: [503, 'UNAVAILABLE'] },
    '529': { alpha: [503, 'server_error'], beta: [529, 'overloaded_error'], gamma: [503, 'UNAVAILABLE'] },
    '401': { alpha: [502, 'server_error'], beta: [502, 'api_error'], gamma: [502, 'UNAVAILABLE'] },
  } as const;
  for (const [fault, expected] of Object.entries(table)) {
    test(`upstream ${fault} → each surface's shape, from every family (stream and not)`, async () => {
      for (const surface of surfaces) {
        const [status, code] = expected[surface === 'unified' ? 'alpha' : surface];
        for (const model of ['A-2', 'B-1', 'C-1']) {
          for (const stream of [false, true]) {
            const label = `${surface} → ${model} ${stream ? 'stream' : ''}`;
            const answer = await send(surface, model, { stream, headers: { 'x-simulate-error': fault } });
            const message = assertError(surface, answer, status, code);
            if (fault === '429' || fault === '503' || fault === '529') {
              assert.ok(Number(answer.headers.get('retry-after')) >= 1, `${label}: retry-after`);
            }
            if (fault === '401') {
              assert.doesNotMatch(
                message,
                /invalid (or missing )?api key/i,
                `${label}: not blamed on the client`,
              );
              assert.match(message, /upstream/, label);
            }
          }
        }
      }
    });
  }

  test('an upstream 429 with its own retry-after: status and retry-after kept on every surface', async () => {
    const families = [
      {
        model: 'A-2',
        body: { error: { message: 'Rate limit reached', type: 'requests', code: 'rate_limit_exceeded' } },
      },
      { model: 'B-1', body: { type: 'error', error: { type: 'rate_limit_error', message: 'Rate limited' } } },
      {
        model: 'C-1',
        body: { error: { code: 429, message: 'Quota exceeded', status: 'RESOURCE_EXHAUSTED' } },
      },
    ];
    for (const surface of surfaces) {
      for (const { model, body } of families) {
        upstream.script.push({ status: 429, headers: { 'retry-after': '7' }, body: JSON.stringify(body) });
        const answer = await send(surface, model, {}, proxied);
        const code = {
          alpha: 'rate_limit_exceeded',
          unified: 'rate_limit_exceeded',
          beta: 'rate_limit_error',
          gamma: 'RESOURCE_EXHAUSTED',
        }[surface];
        assertError(surface, answer, 429, code);
        assert.equal(answer.headers.get('retry-after'), '7', `${surface} → ${model}`);
      }
    }
  });

  // Upstream error text that quotes the gateway's upstream key must never reach a client
  // (README "Errors": re-encoded, never forwarded). One test per upstream family. These answers
  // use post() directly, not call(): they are kept out of the final secrets scan, which covers
  // everything else.
  const quotingBodies = {
    alpha: {
      model: 'A-2',
      key: upstreamKeys.ALPHA_API_KEY,
      http: (status: number, key: string) => ({
        error: {
          message: `Limit for key ${key}`,
          type: status === 429 ? 'requests' : 'server_error',
          code: null,
        },
      }),
      stream: (key: string) => [
        'data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"A-2","choices":[{"index":0,"delta":{"content":"Hel"},"finish_reason":null}]}\n\n',
        `data: ${JSON.stringify({ error: { message: `overloaded for key ${key}`, type: 'server_error', code: 'overloaded' } })}\n\n`,
      ],
    },
    beta: {
      model: 'B-1',
      key: upstreamKeys.BETA_API_KEY,
      http: (status: number, key: string) => ({
        type: 'error',
        error: {
          type: status === 429 ? 'rate_limit_error' : status === 529 ? 'overloaded_error' : 'api_error',
          message: `Limit for key ${key}`,
        },
      }),
      stream: (key: string) => [
        'event: message_start\ndata: {"type":"message_start","message":{"id":"m1","type":"message","role":"assistant","model":"B-1","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":3,"output_tokens":0}}}\n\n',
        `event: error\ndata: ${JSON.stringify({ type: 'error', error: { type: 'overloaded_error', message: `overloaded for key ${key}` } })}\n\n`,
      ],
    },
    gamma: {
      model: 'C-1',
      key: upstreamKeys.GAMMA_API_KEY,
      http: (status: number, key: string) => ({
        error: {
          code: status,
          message: `Limit for key ${key}`,
          status: status === 429 ? 'RESOURCE_EXHAUSTED' : 'INTERNAL',
        },
      }),
      stream: (key: string) => [
        'data: {"candidates":[{"content":{"role":"model","parts":[{"text":"Hel"}]},"index":0}]}\n\n',
        `data: ${JSON.stringify({ error: { code: 503, message: `overloaded for key ${key}`, status: 'UNAVAILABLE' } })}\n\n`,
      ],
    },
  };
  for (const [family, quoting] of Object.entries(quotingBodies)) {
    test(`${family} upstream: error text quoting the upstream key (429/500/529/503 and in-stream) is never shown`, async () => {
      const shown: string[] = [];
      for (const surface of surfaces) {
        for (const status of [429, 500, 503, 529]) {
          upstream.script.push({ status, body: JSON.stringify(quoting.http(status, quoting.key)) });
          const answer = await post(
            proxied.url,
            request(surface, quoting.model, { key: proxied.key }).path,
            request(surface, quoting.model, { key: proxied.key }).headers,
            request(surface, quoting.model).body,
          );
          assert.ok(answer.status >= 429, answer.text);
          if (answer.text.includes(quoting.key)) shown.push(`${surface} HTTP ${status}: ${answer.text}`);
        }
        upstream.script.push({ status: 200, body: quoting.stream(quoting.key) });
        const streamed = request(surface, quoting.model, { stream: true, key: proxied.key });
        const answer = await post(proxied.url, streamed.path, streamed.headers, streamed.body);
        assert.equal(answer.status, 200);
        if (answer.text.includes(quoting.key))
          shown.push(
            `${surface} in-stream: ${answer.text
              .split('\n')
              .filter((line) => line.includes(quoting.key))
              .join(' ')}`,
          );
      }
      assert.deepEqual(shown, [], 'the upstream key reached the client');
    });
  }

  test('an upstream 401/403 quoting the gateway key → 502, never shown, never blamed on the client', async () => {
    const bodies = [
      {
        model: 'A-2',
        status: 401,
        body: {
          error: {
            message: `Incorrect API key provided: ${upstreamKeys.ALPHA_API_KEY}`,
            type: 'invalid_request_error',
            code: 'invalid_api_key',
          },
        },
      },
      {
        model: 'B-1',
        status: 403,
        body: {
          type: 'error',
          error: { type: 'permission_error', message: `key ${upstreamKeys.BETA_API_KEY} lacks access` },
        },
      },
      {
        model: 'C-1',
        status: 403,
        body: {
          error: {
            code: 403,
            message: `API key ${upstreamKeys.GAMMA_API_KEY} not valid`,
            status: 'PERMISSION_DENIED',
          },
        },
      },
    ];
    for (const surface of surfaces) {
      for (const { model, status, body } of bodies) {
        upstream.script.push({ status, body: JSON.stringify(body) });
        const answer = await send(surface, model, {}, proxied);
        assert.equal(answer.status, 502, `${surface} → ${model}: ${answer.text}`);
        assert.deepEqual(
          leaks(answer.text + JSON.stringify([...answer.headers]), Object.values(upstreamKeys)),
          [],
        );
      }
    }
  });

  test('an upstream 500 with a non-JSON body → the surface’s 500', async () => {
    for (const surface of surfaces) {
      upstream.script.push({
        status: 500,
        headers: { 'content-type': 'text/html' },
        body: '<html>oops</html>',
      });
      const answer = await send(surface, 'B-1', {}, proxied);
      const code = { alpha: 'server_error', unified: 'server_error', beta: 'api_error', gamma: 'INTERNAL' }[
        surface
      ];
      assertError(surface, answer, 500, code);
    }
  });
});

describe('upstream failures mid-stream', () => {
  /** Asserts the family's in-stream error ending and returns the text streamed before it. */
  function assertStreamError(surface: Surface, answer: HttpAnswer, label: string): string {
    assert.equal(answer.status, 200, `${label}: headers were already sent`);
    const messages = parseSse(answer.text);
    const last = messages.at(-1)!;
    let text = '';
    if (surface === 'beta') {
      assert.equal(last.event, 'error', `${label}: ends with event: error`);
      const error = JSON.parse(last.data) as BetaErrorBody;
      assert.equal(error.type, 'error');
      assert.ok(['overloaded_error', 'api_error'].includes(error.error.type), error.error.type);
      assert.ok(!messages.some((message) => message.event === 'message_stop'), `${label}: no message_stop`);
      for (const message of messages) {
        const data = JSON.parse(message.data) as { type: string; delta?: { text?: string } };
        if (data.type === 'content_block_delta') text += data.delta?.text ?? '';
      }
      return text;
    }
    assert.ok(!messages.some((message) => message.data === '[DONE]'), `${label}: no [DONE]`);
    const error = JSON.parse(last.data) as { error?: { message?: string; code?: unknown; status?: string } };
    assert.ok(error.error, `${label}: ends with data: {"error":…} (${last.data})`);
    assert.equal(typeof error.error.message, 'string');
    if (surface === 'gamma')
      assert.ok(['UNAVAILABLE', 'INTERNAL'].includes(error.error.status ?? ''), last.data);
    for (const message of messages.slice(0, -1)) {
      const data = JSON.parse(message.data) as {
        choices?: { delta?: { content?: string } }[];
        candidates?: { content?: { parts?: { text?: string }[] } }[];
        finishReason?: string;
      };
      text += data.choices?.[0]?.delta?.content ?? '';
      text += data.candidates?.[0]?.content?.parts?.map((part) => part.text ?? '').join('') ?? '';
    }
    return text;
  }

  for (const fault of ['x-simulate-stream-error-after', 'x-simulate-stream-cut-after']) {
    test(`${fault}: 3 tokens then the family's error event, every pair`, async () => {
      for (const target of [gateway, proxied]) {
        for (const surface of surfaces) {
          for (const model of ['A-2', 'B-1', 'C-1']) {
            const label = `${fault} ${surface} → ${model}${target === proxied ? ' (HTTP upstream)' : ''}`;
            const answer = await send(surface, model, { stream: true, headers: { [fault]: '3' } }, target);
            const text = assertStreamError(surface, answer, label);
            assert.equal(text, 'Simulated reply', `${label}: the three tokens before the failure`);
          }
        }
      }
    });
  }

  test('an upstream stream that just stops (scripted, no terminal event) ends with the error event', async () => {
    const partial = {
      'A-2': [
        'data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"A-2","choices":[{"index":0,"delta":{"role":"assistant","content":"Hel"},"finish_reason":null}]}\n\n',
      ],
      'B-1': [
        'event: message_start\ndata: {"type":"message_start","message":{"id":"m1","type":"message","role":"assistant","model":"B-1","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":3,"output_tokens":0}}}\n\n',
        'event: content_block_start\ndata: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}\n\n',
        'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hel"}}\n\n',
      ],
      'C-1': ['data: {"candidates":[{"content":{"role":"model","parts":[{"text":"Hel"}]},"index":0}]}\n\n'],
    } as const;
    for (const surface of surfaces) {
      for (const [model, chunks] of Object.entries(partial)) {
        upstream.script.push({ status: 200, body: [...chunks] });
        const answer = await send(surface, model, { stream: true }, proxied);
        const text = assertStreamError(surface, answer, `cut ${surface} → ${model}`);
        assert.equal(text, 'Hel');
      }
    }
  });
});

describe('typed errors through the SDKs', () => {
  test('openai: RateLimitError, AuthenticationError, InternalServerError (503), NotFoundError; stream errors throw', async () => {
    const client = (key: string, headers: Record<string, string> = {}): OpenAI =>
      new OpenAI({ apiKey: key, baseURL: `${gateway.url}/v1`, maxRetries: 0, defaultHeaders: headers });
    const params = { model: 'B-1', messages: [{ role: 'user' as const, content: 'Hi' }] };
    await assert.rejects(
      client(gateway.key, { 'x-simulate-error': '429' }).chat.completions.create(params),
      (error) => {
        assert.ok(error instanceof OpenAI.RateLimitError);
        assert.equal(error.status, 429);
        assert.equal(error.code, 'rate_limit_exceeded');
        assert.equal(error.headers.get('retry-after'), '1');
        return true;
      },
    );
    await assert.rejects(client('wrong').chat.completions.create(params), (error) => {
      assert.ok(error instanceof OpenAI.AuthenticationError);
      assert.equal(error.code, 'invalid_api_key');
      return true;
    });
    await assert.rejects(
      client(gateway.key, { 'x-simulate-error': '529' }).chat.completions.create(params),
      (error) => {
        assert.ok(error instanceof OpenAI.InternalServerError);
        assert.equal(error.status, 503);
        return true;
      },
    );
    await assert.rejects(
      client(gateway.key).chat.completions.create({ ...params, model: 'nope' }),
      (error) => {
        assert.ok(error instanceof OpenAI.NotFoundError);
        assert.equal(error.code, 'model_not_found');
        return true;
      },
    );
    await assert.rejects(
      client(gateway.key).chat.completions.create({ ...params, temperature: 5 }),
      (error) => {
        assert.ok(error instanceof OpenAI.BadRequestError);
        assert.equal(error.param, 'temperature');
        assert.match(error.message, /temperature/);
        return true;
      },
    );
    const stream = await client(gateway.key, {
      'x-simulate-stream-error-after': '2',
    }).chat.completions.create({
      ...params,
      model: 'C-1',
      stream: true,
    });
    let text = '';
    await assert.rejects(
      (async () => {
        for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
      })(),
      (error) => {
        assert.ok(error instanceof OpenAI.APIError);
        assert.match(error.message, /stream error|overloaded|upstream/i);
        return true;
      },
    );
    assert.equal(text, 'Simulated');
  });

  test('@anthropic-ai/sdk 1.x: RateLimitError, OverloadedError (529), AuthenticationError; stream error throws', async () => {
    const client = (key: string, headers: Record<string, string> = {}): Anthropic =>
      new Anthropic({
        apiKey: key,
        baseURL: gateway.url,
        maxRetries: 0,
        defaultHeaders: { 'beta-version': betaVersion, ...headers },
      });
    const params = { model: 'A-2', max_tokens: 50, messages: [{ role: 'user' as const, content: 'Hi' }] };
    await assert.rejects(
      client(gateway.key, { 'x-simulate-error': '429' }).messages.create(params),
      (error) => {
        assert.ok(error instanceof Anthropic.RateLimitError);
        assert.equal(error.status, 429);
        assert.equal(error.type, 'rate_limit_error');
        return true;
      },
    );
    await assert.rejects(
      client(gateway.key, { 'x-simulate-error': '503' }).messages.create(params),
      (error) => {
        assert.ok(error instanceof Anthropic.OverloadedError);
        assert.equal(error.status, 529);
        assert.equal(error.type, 'overloaded_error');
        return true;
      },
    );
    await assert.rejects(client('wrong').messages.create(params), (error) => {
      assert.ok(error instanceof Anthropic.AuthenticationError);
      assert.equal(error.type, 'authentication_error');
      return true;
    });
    await assert.rejects(client(gateway.key).messages.create({ ...params, model: 'nope' }), (error) => {
      assert.ok(error instanceof Anthropic.NotFoundError);
      return true;
    });
    const stream = client(gateway.key, { 'x-simulate-stream-error-after': '2' }).messages.stream({
      ...params,
      model: 'C-1',
    });
    await assert.rejects(stream.finalMessage(), (error) => {
      assert.ok(error instanceof Anthropic.APIError, String(error));
      return true;
    });
  });

  test('@anthropic-ai/sdk 0.x: RateLimitError, InternalServerError with status 529, AuthenticationError', async () => {
    const client = (key: string, headers: Record<string, string> = {}): Anthropic0 =>
      new Anthropic0({
        apiKey: key,
        baseURL: gateway.url,
        maxRetries: 0,
        defaultHeaders: { 'beta-version': betaVersion, ...headers },
      });
    const params = { model: 'C-1', max_tokens: 50, messages: [{ role: 'user' as const, content: 'Hi' }] };
    await assert.rejects(
      client(gateway.key, { 'x-simulate-error': '429' }).messages.create(params),
      (error) => {
        assert.ok(error instanceof Anthropic0.RateLimitError);
        assert.equal(error.headers.get('retry-after'), '1');
        return true;
      },
    );
    await assert.rejects(
      client(gateway.key, { 'x-simulate-error': '529' }).messages.create(params),
      (error) => {
        assert.ok(error instanceof Anthropic0.InternalServerError);
        assert.equal(error.status, 529);
        return true;
      },
    );
    await assert.rejects(client('wrong').messages.create(params), (error) => {
      assert.ok(error instanceof Anthropic0.AuthenticationError);
      return true;
    });
    const stream = client(gateway.key, { 'x-simulate-stream-cut-after': '2' }).messages.stream({
      ...params,
      model: 'B-1',
    });
    await assert.rejects(stream.finalMessage(), (error) => {
      assert.ok(error instanceof Anthropic0.APIError, String(error));
      return true;
    });
  });

  test('@google/genai: ApiError with the HTTP status (429, 503, 403, 404, 400); stream errors throw', async () => {
    const client = (key: string, headers: Record<string, string> = {}): GoogleGenAI =>
      new GoogleGenAI({
        apiKey: key,
        httpOptions: {
          baseUrl: gateway.url,
          apiVersion: 'v1',
          headers: { 'x-gamma-api-key': key, ...headers },
          retryOptions: { attempts: 1 },
        },
      });
    const cases = [
      { key: gateway.key, headers: { 'x-simulate-error': '429' }, model: 'A-2', status: 429 },
      { key: gateway.key, headers: { 'x-simulate-error': '529' }, model: 'B-1', status: 503 },
      { key: 'wrong', headers: {}, model: 'C-1', status: 403 },
      { key: gateway.key, headers: {}, model: 'Z-9', status: 404 },
    ];
    for (const { key, headers, model, status } of cases) {
      await assert.rejects(
        client(key, headers).models.generateContent({ model, contents: 'Hi' }),
        (error) => {
          assert.ok(error instanceof ApiError, String(error));
          assert.equal(error.status, status);
          return true;
        },
      );
    }
    await assert.rejects(
      client(gateway.key).models.generateContent({
        model: 'C-3',
        contents: 'Hi',
        config: { temperature: 5 },
      }),
      (error) => {
        assert.ok(error instanceof ApiError);
        assert.equal(error.status, 400);
        assert.match(error.message, /temperature/);
        return true;
      },
    );
    const stream = await client(gateway.key, {
      'x-simulate-stream-error-after': '2',
    }).models.generateContentStream({
      model: 'B-1',
      contents: 'Hi',
    });
    let text = '';
    await assert.rejects(
      (async () => {
        for await (const chunk of stream) text += chunk.text ?? '';
      })(),
      (error) => {
        assert.ok(error instanceof Error, String(error));
        return true;
      },
    );
    assert.equal(text, 'Simulated');
  });
});

describe('secrets', () => {
  test('no client key or upstream key in any response or log line', () => {
    const secrets = [gateway.key, ...Object.values(upstreamKeys)];
    assert.ok(answers.length > 100, `answers were collected (${answers.length})`);
    for (const answer of answers) {
      const visible = answer.text + JSON.stringify([...answer.headers]);
      assert.deepEqual(leaks(visible, secrets), [], visible.slice(0, 300));
    }
    const logs = [...gateway.logs, ...proxied.logs];
    assert.ok(logs.length > 100, 'logs were captured');
    for (const line of logs) assert.deepEqual(leaks(line, secrets), [], line);
  });
});
