/**
 * The Gemini API mock as @google/genai sees it (httpOptions.baseUrl): generateContent,
 * generateContentStream, tools, images, countTokens and models.list parse; what the real API refuses
 * surfaces as the SDK's ApiError with Google's status and text.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { ApiError, GoogleGenAI, Type } from '@google/genai';
import type { MockUpstream } from '../kit/server.ts';
import { startGeminiMock } from './index.ts';

const apiKey = 'AIza-test-key';
let mock: MockUpstream;
before(async () => {
  mock = await startGeminiMock({ apiKey, minimumCachedTokens: 50 });
});
after(() => mock.close());

const client = (key = apiKey, extra: Record<string, string> = {}) =>
  new GoogleGenAI({ apiKey: key, httpOptions: { baseUrl: mock.url, headers: extra } });
const png =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

test('generateContent answers text with usageMetadata (thoughts counted unless the budget is 0)', async () => {
  const answer = await client().models.generateContent({
    model: 'gemini-2.5-flash',
    contents: 'Hello Gemini',
  });
  assert.equal(answer.text, 'mock gemini reply to: Hello Gemini');
  assert.ok((answer.usageMetadata?.thoughtsTokenCount ?? 0) > 0);
  assert.equal(answer.candidates?.[0]?.finishReason, 'STOP');
  assert.equal(mock.requests.at(-1)?.headers['x-goog-api-key'], apiKey);
  const noThinking = await client().models.generateContent({
    model: 'gemini-2.5-flash',
    contents: 'x',
    config: { thinkingConfig: { thinkingBudget: 0 } },
  });
  assert.equal(noThinking.usageMetadata?.thoughtsTokenCount, undefined);
});

test('generateContentStream streams alt=sse data chunks that join to the answer', async () => {
  const chunks = [];
  for await (const chunk of await client().models.generateContentStream({
    model: 'gemini-2.5-flash',
    contents: 'stream please',
  }))
    chunks.push(chunk);
  assert.ok(chunks.length >= 2);
  assert.equal(chunks.map((chunk) => chunk.text).join(''), 'mock gemini reply to: stream please');
  assert.match(mock.requests.at(-1)?.path ?? '', /:streamGenerateContent\?alt=sse$/);
});

test('streamGenerateContent without alt=sse answers one JSON array', async () => {
  const response = await fetch(
    `${mock.url}/v1beta/models/gemini-2.5-flash:streamGenerateContent?key=${apiKey}`,
    {
      method: 'POST',
      body: JSON.stringify({ contents: [{ parts: [{ text: 'array' }] }] }),
    },
  );
  const chunks = (await response.json()) as { candidates: unknown[] }[];
  assert.ok(Array.isArray(chunks) && chunks.length >= 2);
});

test('a function call for an offered tool, and an inline image is seen', async () => {
  const answer = await client().models.generateContent({
    model: 'gemini-2.5-pro',
    contents: 'please call lookup',
    config: {
      tools: [
        {
          functionDeclarations: [
            {
              name: 'lookup',
              parameters: { type: Type.OBJECT, properties: { q: { type: Type.STRING } }, required: ['q'] },
            },
          ],
        },
      ],
    },
  });
  assert.deepEqual(answer.functionCalls?.[0], { name: 'lookup', args: { q: 'x' } });
  const seen = await client().models.generateContent({
    model: 'gemini-2.5-flash',
    contents: [
      { role: 'user', parts: [{ inlineData: { mimeType: 'image/png', data: png } }, { text: 'describe' }] },
    ],
  });
  assert.match(seen.text ?? '', /image/);
});

test('a repeated long prefix reports cachedContentTokenCount', async () => {
  const history = [
    { role: 'user', parts: [{ text: 'long context '.repeat(40) }] },
    { role: 'model', parts: [{ text: 'ok' }] },
    { role: 'user', parts: [{ text: 'question' }] },
  ];
  const first = await client().models.generateContent({ model: 'gemini-2.5-flash', contents: history });
  const second = await client().models.generateContent({ model: 'gemini-2.5-flash', contents: history });
  assert.equal(first.usageMetadata?.cachedContentTokenCount, undefined);
  assert.ok((second.usageMetadata?.cachedContentTokenCount ?? 0) > 0);
});

test('countTokens and models.list parse', async () => {
  const counted = await client().models.countTokens({
    model: 'gemini-2.5-flash',
    contents: 'count me please',
  });
  assert.ok((counted.totalTokens ?? 0) > 0);
  const names: string[] = [];
  for await (const model of await client().models.list()) names.push(model.name ?? '');
  assert.ok(names.includes('models/gemini-2.5-flash'));
});

test('refusals: unknown model, wrong key, unknown field, malformed image', async () => {
  const rejectsWith = (promise: Promise<unknown>, status: number, text: RegExp) =>
    assert.rejects(
      promise,
      (error: unknown) => error instanceof ApiError && error.status === status && text.test(error.message),
    );
  await rejectsWith(
    client().models.generateContent({ model: 'gpt-4o', contents: 'x' }),
    404,
    /models\/gpt-4o is not found for API version v1beta/,
  );
  await rejectsWith(
    client('AIza-wrong').models.generateContent({ model: 'gemini-2.5-flash', contents: 'x' }),
    400,
    /API key not valid/,
  );
  await rejectsWith(
    client().models.generateContent({
      model: 'gemini-2.5-flash',
      contents: [{ role: 'user', parts: [{ inlineData: { mimeType: 'image/png', data: 'not base64!' } }] }],
    }),
    400,
    /Base64 decoding failed/,
  );
  await rejectsWith(
    client(apiKey, { 'x-mock-fail': '503' }).models.generateContent({
      model: 'gemini-2.5-flash',
      contents: 'x',
    }),
    503,
    /overloaded/,
  );
});

test('raw refusals in Google shape: no key 403, bearer key 401, unknown name 400, contents required', async () => {
  const post = async (query: string, headers: Record<string, string>, body: unknown) => {
    const response = await fetch(`${mock.url}/v1beta/models/gemini-2.5-flash:generateContent${query}`, {
      method: 'POST',
      headers,
      body: JSON.stringify(body),
    });
    const { error } = (await response.json()) as {
      error?: { code: number; status: string; message: string };
    };
    return [response.status, error?.status, error?.message];
  };
  const valid = { contents: [{ parts: [{ text: 'x' }] }] };
  assert.deepEqual((await post('', { 'x-gamma-api-key': apiKey }, valid)).slice(0, 2), [
    403,
    'PERMISSION_DENIED',
  ]);
  assert.deepEqual((await post('', { authorization: `Bearer ${apiKey}` }, valid)).slice(0, 2), [
    401,
    'UNAUTHENTICATED',
  ]);
  assert.deepEqual(await post(`?key=${apiKey}`, {}, { ...valid, frobnicate: 1 }), [
    400,
    'INVALID_ARGUMENT',
    'Invalid JSON payload received. Unknown name "frobnicate": Cannot find field.',
  ]);
  assert.deepEqual(
    await post(
      `?key=${apiKey}`,
      {},
      {
        generation_config: { max_output_tokens: 5 },
        system_instruction: { parts: [{ text: 's' }] },
        ...valid,
      },
    ).then((r) => r[0]),
    200,
  );
  assert.equal(
    (await post(`?key=${apiKey}`, {}, {}))[2],
    '* GenerateContentRequest.contents: contents is not specified\n',
  );
});

test('the /v1 surface answers too; a streamed function call arrives whole in one chunk', async () => {
  const v1 = new GoogleGenAI({ apiKey, httpOptions: { baseUrl: mock.url, apiVersion: 'v1' } });
  const answer = await v1.models.generateContent({ model: 'gemini-2.0-flash', contents: 'via v1' });
  assert.equal(answer.text, 'mock gemini reply to: via v1');
  assert.match(mock.requests.at(-1)?.path ?? '', /^\/v1\/models\/gemini-2\.0-flash:generateContent/);
  const calls = [];
  const stream = await client().models.generateContentStream({
    model: 'gemini-2.5-flash',
    contents: 'call ping',
    config: { tools: [{ functionDeclarations: [{ name: 'ping' }] }] },
  });
  for await (const chunk of stream) calls.push(...(chunk.functionCalls ?? []));
  assert.deepEqual(calls, [{ name: 'ping', args: {} }]);
});
