/**
 * What real clients send that the spec does not name: the vendors' header names beside the spec's,
 * output caps above a model's maximum (lowered, with a warning), unknown paths and wrong methods,
 * a credential header sent twice, a byte order mark before the JSON. Raw HTTP, with every family's
 * upstream a recording upstream so what reaches it can be checked.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { rawPost, rawRequest } from '../hostile/test-kit.ts';
import {
  alphaAuth,
  betaVersion,
  gammaPath,
  post,
  sseJson,
  type AlphaErrorBody,
  type BetaErrorBody,
  type GammaErrorBody,
} from '../kit/e2e.ts';
import { startRecordingUpstream, type RecordingUpstream } from '../kit/recording-upstream.ts';
import { startTestGateway, type TestGateway } from '../kit/test-gateway.ts';

const adminKey = 'mg-admin-surface-compat-0123456789';
let gateway: TestGateway;
let upstream: RecordingUpstream;

before(async () => {
  upstream = await startRecordingUpstream();
  gateway = await startTestGateway({
    MODELGATE_ADMIN_KEY: adminKey,
    ALPHA_BASE_URL: upstream.url,
    BETA_BASE_URL: upstream.url,
    GAMMA_BASE_URL: upstream.url,
    ALPHA_API_KEY: 'up-a',
    BETA_API_KEY: 'up-b',
    GAMMA_API_KEY: 'up-c',
  });
});

after(async () => {
  await gateway.close();
  await upstream.close();
});

const betaBody = { model: 'B-1', max_tokens: 20, messages: [{ role: 'user', content: 'Hi' }] };
const gammaBody = { contents: [{ role: 'user', parts: [{ text: 'Hi' }] }] };

function lastUpstreamJson(): Record<string, unknown> {
  const last = upstream.requests.at(-1);
  assert.ok(last, 'an upstream request');
  return last.json as Record<string, unknown>;
}

describe('vendor header names', () => {
  test('B: anthropic-version alone is accepted, validated the same, and goes upstream as beta-version', async () => {
    const ok = await post(
      gateway.url,
      '/v1/messages',
      { 'x-api-key': gateway.key, 'anthropic-version': '2023-06-01' },
      betaBody,
    );
    assert.equal(ok.status, 200, ok.text);
    assert.equal(upstream.requests.at(-1)?.headers['beta-version'], '2023-06-01');
    const bad = await post(
      gateway.url,
      '/v1/messages',
      { 'x-api-key': gateway.key, 'anthropic-version': 'latest' },
      betaBody,
    );
    assert.equal(bad.status, 400);
    assert.match(
      (bad.json as BetaErrorBody).error.message,
      /^anthropic-version: "latest" is not a valid version/,
    );
    const neither = await post(gateway.url, '/v1/messages', { 'x-api-key': gateway.key }, betaBody);
    assert.equal(neither.status, 400);
    assert.match((neither.json as BetaErrorBody).error.message, /beta-version \(or anthropic-version\)/);
    // Both present: beta-version decides.
    const both = await post(
      gateway.url,
      '/v1/messages',
      { 'x-api-key': gateway.key, 'anthropic-version': 'junk', 'beta-version': betaVersion },
      betaBody,
    );
    assert.equal(both.status, 200, both.text);
  });

  test('C: the key in x-goog-api-key or Authorization: Bearer', async () => {
    for (const headers of [{ 'x-goog-api-key': gateway.key }, alphaAuth(gateway.key)]) {
      const ok = await post(gateway.url, gammaPath('C-1', false), headers, gammaBody);
      assert.equal(ok.status, 200, ok.text);
    }
    const wrong = await post(gateway.url, gammaPath('C-1', false), { 'x-goog-api-key': 'nope' }, gammaBody);
    assert.equal(wrong.status, 403);
    assert.equal((wrong.json as GammaErrorBody).error.status, 'PERMISSION_DENIED');
  });
});

describe('output caps above the model maximum', () => {
  const cases = [
    {
      label: 'A surface, A model (pass-through)',
      path: '/v1/chat/completions',
      headers: () => alphaAuth(gateway.key),
      body: { model: 'A-2', max_tokens: 32000, messages: [{ role: 'user', content: 'Hi' }] },
      sent: (json: Record<string, unknown>) => json.max_tokens,
      max: 4096,
    },
    {
      label: 'B surface, B model (pass-through)',
      path: '/v1/messages',
      headers: () => ({ 'x-api-key': gateway.key, 'anthropic-version': '2023-06-01' }),
      body: { model: 'B-1', max_tokens: 32000, messages: [{ role: 'user', content: 'Hi' }] },
      sent: (json: Record<string, unknown>) => json.max_tokens,
      max: 8192,
    },
    {
      label: 'B surface, C model (translated)',
      path: '/v1/messages',
      headers: () => ({ 'x-api-key': gateway.key, 'anthropic-version': '2023-06-01' }),
      body: { model: 'C-3', max_tokens: 32000, messages: [{ role: 'user', content: 'Hi' }] },
      sent: (json: Record<string, unknown>) =>
        (json.generationConfig as Record<string, unknown> | undefined)?.maxOutputTokens,
      max: 2048,
    },
    {
      label: 'C surface, C model (pass-through)',
      path: gammaPath('C-1', false),
      headers: () => ({ 'x-goog-api-key': gateway.key }),
      body: { ...gammaBody, generationConfig: { maxOutputTokens: 65536 } },
      sent: (json: Record<string, unknown>) =>
        (json.generationConfig as Record<string, unknown> | undefined)?.maxOutputTokens,
      max: 8192,
    },
  ];
  for (const { label, path, headers, body, sent, max } of cases) {
    test(`${label}: lowered to ${max}, with a warning header`, async () => {
      const answer = await post(gateway.url, path, headers(), body);
      assert.equal(answer.status, 200, answer.text);
      assert.match(
        answer.headers.get('warning') ?? '',
        new RegExp(`^299 modelgate "max output lowered from \\d+ to ${max}`),
      );
      assert.equal(sent(lastUpstreamJson()), max);
    });
  }

  test('a B request without max_tokens stays a 400', async () => {
    const answer = await post(
      gateway.url,
      '/v1/messages',
      { 'x-api-key': gateway.key, 'anthropic-version': '2023-06-01' },
      { model: 'B-1', messages: [{ role: 'user', content: 'Hi' }] },
    );
    assert.equal(answer.status, 400);
    assert.match((answer.json as BetaErrorBody).error.message, /max_tokens/);
  });

  test('the rate-limit estimate uses the lowered cap (a key whose TPM the asked cap would exceed is served)', async () => {
    const created = await post(gateway.url, '/admin/keys', alphaAuth(adminKey), { name: 'tpm', tpm: 10_000 });
    assert.equal(created.status, 201, created.text);
    const key = (created.json as { key: string }).key;
    const answer = await post(
      gateway.url,
      '/v1/messages',
      { 'x-api-key': key, 'anthropic-version': '2023-06-01' },
      { model: 'B-1', max_tokens: 32000, messages: [{ role: 'user', content: 'Hi' }] },
    );
    assert.equal(answer.status, 200, answer.text);
  });
});

describe('unknown paths and wrong methods', () => {
  test('an unknown path is a 404 in the shape of the surface it resembles; A says unknown_url, not model_not_found', async () => {
    const alpha = await post(gateway.url, '/v1/nothing', alphaAuth(gateway.key), {});
    assert.equal(alpha.status, 404);
    assert.equal((alpha.json as AlphaErrorBody).error.code, 'unknown_url');
    const beta = await post(gateway.url, '/v1/messages/batches', { 'x-api-key': gateway.key }, {});
    assert.equal(beta.status, 404);
    assert.equal((beta.json as BetaErrorBody).error.type, 'not_found_error');
    const gamma = await post(
      gateway.url,
      '/v1beta/models/C-1:embedContent',
      { 'x-goog-api-key': gateway.key },
      {},
    );
    assert.equal(gamma.status, 404);
    assert.equal((gamma.json as GammaErrorBody).error.status, 'NOT_FOUND');
  });

  test('a wrong method on a known path is a 405 with Allow, in the surface shape', async () => {
    const cases: { method: string; path: string; allow: string; check: (json: unknown) => void }[] = [
      {
        method: 'GET',
        path: '/v1/chat/completions',
        allow: 'POST',
        check: (json) => assert.equal((json as AlphaErrorBody).error.code, 'method_not_allowed'),
      },
      {
        method: 'PUT',
        path: '/v1/messages',
        allow: 'POST',
        check: (json) => assert.equal((json as BetaErrorBody).error.type, 'invalid_request_error'),
      },
      {
        method: 'GET',
        path: '/v1beta/models/C-1:generateContent',
        allow: 'POST',
        check: (json) => assert.equal((json as GammaErrorBody).error.code, 405),
      },
      {
        method: 'DELETE',
        path: '/v1/models',
        allow: 'GET',
        check: (json) => assert.equal((json as AlphaErrorBody).error.code, 'method_not_allowed'),
      },
      {
        method: 'POST',
        path: '/healthz',
        allow: 'GET',
        check: (json) => assert.equal((json as AlphaErrorBody).error.code, 'method_not_allowed'),
      },
    ];
    for (const { method, path, allow, check } of cases) {
      const response = await fetch(gateway.url + path, { method, headers: alphaAuth(gateway.key) });
      assert.equal(response.status, 405, `${method} ${path}`);
      assert.equal(response.headers.get('allow'), allow, `${method} ${path}`);
      assert.ok(response.headers.get('x-request-id'));
      check(await response.json());
    }
  });
});

describe('ambiguous or decorated requests', () => {
  test('a credential header sent twice is a 400 in the surface shape, and nothing goes upstream', async () => {
    const before = upstream.requests.length;
    const alpha = await rawPost(
      gateway.url,
      '/v1/chat/completions',
      { Authorization: `Bearer ${gateway.key}`, authorization: 'Bearer other' },
      JSON.stringify({ model: 'A-2', messages: [{ role: 'user', content: 'Hi' }] }),
    );
    assert.equal(alpha.status, 400, alpha.head);
    assert.match(JSON.parse(alpha.body).error.message, /authorization: send this header once/);
    const beta = await rawRequest(
      gateway.url,
      [
        'POST /v1/messages HTTP/1.1',
        'Host: x',
        'Content-Type: application/json',
        `x-api-key: ${gateway.key}`,
        'x-api-key: other',
        `anthropic-version: ${betaVersion}`,
        `Content-Length: ${Buffer.byteLength(JSON.stringify(betaBody))}`,
        'Connection: close',
        '',
        JSON.stringify(betaBody),
      ].join('\r\n'),
    );
    assert.equal(beta.status, 400, beta.head);
    assert.equal(JSON.parse(beta.body).error.type, 'invalid_request_error');
    const gammaText = JSON.stringify(gammaBody);
    const gamma = await rawRequest(
      gateway.url,
      [
        'POST /v1beta/models/C-1:generateContent HTTP/1.1',
        'Host: x',
        'Content-Type: application/json',
        `x-goog-api-key: ${gateway.key}`,
        `X-Goog-Api-Key: ${gateway.key}`,
        `Content-Length: ${Buffer.byteLength(gammaText)}`,
        'Connection: close',
        '',
        gammaText,
      ].join('\r\n'),
    );
    assert.equal(gamma.status, 400, gamma.head);
    assert.equal(JSON.parse(gamma.body).error.status, 'INVALID_ARGUMENT');
    assert.equal(upstream.requests.length, before);
  });

  test('a UTF-8 byte order mark before the JSON body is ignored', async () => {
    const answer = await post(
      gateway.url,
      '/v1/chat/completions',
      alphaAuth(gateway.key),
      `\uFEFF${JSON.stringify({ model: 'A-2', messages: [{ role: 'user', content: 'Hi' }] })}`,
    );
    assert.equal(answer.status, 200, answer.text);
  });
});

describe('streams name the model the client asked for', () => {
  const sse = (objects: unknown[], events?: string[]): string[] =>
    objects.map(
      (object, index) =>
        `${events === undefined ? '' : `event: ${events[index] ?? ''}\n`}data: ${JSON.stringify(object)}\n\n`,
    );

  test('A pass-through: every chunk, whatever dated id the upstream answers', async () => {
    const chunk = (delta: Record<string, unknown>, finish: string | null = null): unknown => ({
      id: 'chatcmpl-1',
      object: 'chat.completion.chunk',
      created: 1,
      model: 'gpt-x-2024-08-06',
      choices: [{ index: 0, delta, finish_reason: finish }],
    });
    upstream.script.push({
      status: 200,
      body: [
        ...sse([chunk({ role: 'assistant', content: 'Hel' }), chunk({ content: 'lo' }), chunk({}, 'stop')]),
        ...sse([
          {
            id: 'chatcmpl-1',
            object: 'chat.completion.chunk',
            created: 1,
            model: 'gpt-x-2024-08-06',
            choices: [],
            usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 },
          },
        ]),
        'data: [DONE]\n\n',
      ],
    });
    const answer = await post(gateway.url, '/v1/chat/completions', alphaAuth(gateway.key), {
      model: 'A-2',
      stream: true,
      stream_options: { include_usage: true },
      messages: [{ role: 'user', content: 'Hi' }],
    });
    assert.equal(answer.status, 200, answer.text);
    const chunks = sseJson(answer.text) as { model: string }[];
    assert.equal(chunks.length, 4);
    for (const each of chunks) assert.equal(each.model, 'A-2');
    assert.ok(!answer.text.includes('2024-08-06'));
  });

  test('B pass-through: message_start', async () => {
    upstream.script.push({
      status: 200,
      body: sse(
        [
          {
            type: 'message_start',
            message: {
              id: 'msg_1',
              type: 'message',
              role: 'assistant',
              content: [],
              model: 'b-big-20250929',
              stop_reason: null,
              stop_sequence: null,
              usage: { input_tokens: 3, output_tokens: 1 },
            },
          },
          { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
          { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Hello' } },
          { type: 'content_block_stop', index: 0 },
          {
            type: 'message_delta',
            delta: { stop_reason: 'end_turn', stop_sequence: null },
            usage: { output_tokens: 2 },
          },
          { type: 'message_stop' },
        ],
        [
          'message_start',
          'content_block_start',
          'content_block_delta',
          'content_block_stop',
          'message_delta',
          'message_stop',
        ],
      ),
    });
    const answer = await post(
      gateway.url,
      '/v1/messages',
      { 'x-api-key': gateway.key, 'anthropic-version': '2023-06-01' },
      { ...betaBody, stream: true },
    );
    assert.equal(answer.status, 200, answer.text);
    const start = sseJson(answer.text)[0] as { message: { model: string } };
    assert.equal(start.message.model, 'B-1');
    assert.ok(!answer.text.includes('20250929'));
  });

  test('C pass-through: modelVersion in every chunk (and in a JSON answer)', async () => {
    const chunk = (text: string, finish?: string): unknown => ({
      candidates: [
        {
          index: 0,
          content: { role: 'model', parts: [{ text }] },
          ...(finish === undefined ? {} : { finishReason: finish }),
        },
      ],
      modelVersion: 'c-big-001-2025',
      ...(finish === undefined
        ? {}
        : { usageMetadata: { promptTokenCount: 3, candidatesTokenCount: 2, totalTokenCount: 5 } }),
    });
    upstream.script.push({ status: 200, body: sse([chunk('Hel'), chunk('lo', 'STOP')]) });
    const answer = await post(
      gateway.url,
      gammaPath('C-1', true),
      { 'x-goog-api-key': gateway.key },
      gammaBody,
    );
    assert.equal(answer.status, 200, answer.text);
    const chunks = sseJson(answer.text) as { modelVersion: string }[];
    assert.equal(chunks.length, 2);
    for (const each of chunks) assert.equal(each.modelVersion, 'C-1');
    upstream.script.push({ status: 200, body: JSON.stringify(chunk('Hello', 'STOP')) });
    const json = await post(
      gateway.url,
      gammaPath('C-1', false),
      { 'x-goog-api-key': gateway.key },
      gammaBody,
    );
    assert.equal(json.status, 200, json.text);
    assert.equal((json.json as { modelVersion: string }).modelVersion, 'C-1');
  });
});
