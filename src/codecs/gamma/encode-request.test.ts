import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { GatewayError, type ChatRequest, type Message } from '../../ir/index.ts';
import type { UpstreamTarget } from '../codec.ts';
import { gammaCodec } from '../../surfaces/gamma/index.ts';
import { loadJson } from './test-kit.ts';

const target: UpstreamTarget = { baseUrl: 'https://upstream.invalid', apiKey: 'sk-test-key', model: 'm-001' };

function baseRequest(messages: Message[], overrides: Partial<ChatRequest> = {}): ChatRequest {
  return {
    model: 'client-name',
    system: [],
    messages,
    tools: [],
    sampling: {},
    stream: false,
    includeUsage: false,
    extensions: {},
    ...overrides,
  };
}

const hello: Message[] = [{ role: 'user', content: [{ type: 'text', text: 'hello' }] }];

/** A translated A-client tool conversation: ids the family never saw, a strict schema, an error result. */
const toolConversation: ChatRequest = baseRequest(
  [
    {
      role: 'user',
      content: [
        { type: 'text', text: 'Weather in Paris?', cacheControl: { type: 'ephemeral' } },
        {
          type: 'image',
          source: { kind: 'base64', mediaType: 'image/jpeg', data: '/9j/4AAQ' },
          detail: 'low',
        },
      ],
    },
    {
      role: 'assistant',
      content: [
        { type: 'text', text: '' },
        { type: 'tool-call', id: 'call_abc', name: 'get_w', arguments: '{"city":"Paris"}' },
        { type: 'tool-call', id: 'call_def', name: 'get_time', arguments: '{"tz":"Europe/Paris"}' },
      ],
    },
    {
      role: 'tool',
      content: [
        {
          type: 'tool-result',
          callId: 'call_abc',
          name: 'get_w',
          content: [{ type: 'text', text: '{"temp":18}' }],
          isError: false,
        },
        {
          type: 'tool-result',
          callId: 'call_def',
          name: 'get_time',
          content: [{ type: 'text', text: 'clock offline' }],
          isError: true,
        },
      ],
    },
    { role: 'user', content: [{ type: 'text', text: 'Thanks, and tomorrow?' }] },
  ],
  {
    system: [{ type: 'text', text: 'You are terse.' }],
    tools: [
      {
        name: 'get_w',
        description: 'Weather for a city',
        strict: true,
        parameters: {
          $schema: 'http://json-schema.org/draft-07/schema#',
          type: 'object',
          properties: {
            city: { type: 'string', description: 'City name' },
            units: { type: ['string', 'null'], enum: ['c', 'f'] },
          },
          required: ['city', 'units'],
          additionalProperties: false,
        },
      },
      { name: 'get_time', parameters: { type: 'object', properties: {} } },
    ],
    toolChoice: { type: 'tool', name: 'get_w' },
    parallelToolCalls: false,
    sampling: { temperature: 0.7, maxOutputTokens: 256, stopSequences: ['END'], seed: 7, topK: 5 },
    stream: true,
    extensions: { alpha: { user: 'u-1' } },
  },
);

test('a translated tool conversation becomes exactly the expected upstream request', () => {
  const upstream = gammaCodec.encodeRequest(toolConversation, target);
  const expected = loadJson('tool-conversation.upstream-request.json') as Record<string, unknown>;
  assert.equal(upstream.path, expected.path);
  assert.deepEqual(upstream.headers, expected.headers);
  assert.deepEqual(upstream.warnings, expected.warnings);
  assert.deepEqual(JSON.parse(upstream.body), expected.body);
});

test('non-streaming path; the key travels only in its header, never the URL; keyless upstreams get no header', () => {
  const upstream = gammaCodec.encodeRequest(baseRequest(hello), target);
  assert.equal(upstream.path, '/v1/models/m-001:generateContent');
  assert.ok(!upstream.path.includes('sk-test-key'));
  assert.ok(!upstream.path.includes('key='));
  assert.deepEqual(JSON.parse(upstream.body), { contents: [{ role: 'user', parts: [{ text: 'hello' }] }] });
  const keyless = gammaCodec.encodeRequest(baseRequest(hello), { ...target, apiKey: undefined });
  assert.deepEqual(keyless.headers, { 'content-type': 'application/json' });
  const odd = gammaCodec.encodeRequest(baseRequest(hello), { ...target, model: 'tuned/x y' });
  assert.equal(odd.path, '/v1/models/tuned%2Fx%20y:generateContent');
});

test('more than 5 stop sequences is a 400 naming the numbers', () => {
  const request = baseRequest(hello, { sampling: { stopSequences: ['1', '2', '3', '4', '5', '6'] } });
  assert.throws(
    () => gammaCodec.encodeRequest(request, target),
    (error: unknown) =>
      error instanceof GatewayError &&
      error.kind === 'invalid_request' &&
      /at most 5 .* got 6/.test(error.message),
  );
});

test('images: base64 and data: URLs inline, gs:// and Files-API URIs as fileData, other URLs a 400', () => {
  const image = (url: string): ChatRequest =>
    baseRequest([
      { role: 'user', content: [{ type: 'image', source: { kind: 'url', url, mediaType: 'image/png' } }] },
    ]);
  const parts = (url: string): unknown =>
    JSON.parse(gammaCodec.encodeRequest(image(url), target).body).contents[0].parts;
  assert.deepEqual(parts('gs://bucket/cat.png'), [
    { fileData: { fileUri: 'gs://bucket/cat.png', mimeType: 'image/png' } },
  ]);
  const files = 'https://generativelanguage.googleapis.com/v1beta/files/abc';
  assert.deepEqual(parts(files), [{ fileData: { fileUri: files, mimeType: 'image/png' } }]);
  assert.deepEqual(parts('data:image/gif;base64,R0lGOD'), [
    { inlineData: { mimeType: 'image/gif', data: 'R0lGOD' } },
  ]);
  assert.throws(
    () => gammaCodec.encodeRequest(image('https://example.com/cat.png'), target),
    (error: unknown) =>
      error instanceof GatewayError &&
      error.kind === 'invalid_request' &&
      error.message === 'gamma models take images inline: send the image as base64 (a data: URL)',
  );
});

test('own extensions are merged without overriding; non-function tools appended; no warnings for them', () => {
  const request = baseRequest(hello, {
    sampling: { temperature: 0.2 },
    tools: [{ name: 'f', parameters: { type: 'object', properties: { a: { type: 'integer' } } } }],
    toolChoice: { type: 'auto' },
    extensions: {
      gamma: {
        generationConfig: { temperature: 1.9, responseMimeType: 'application/json' },
        safetySettings: [{ category: 'HARM_CATEGORY_HARASSMENT', threshold: 'BLOCK_NONE' }],
        tools: [{ googleSearch: {} }],
        toolConfig: { retrievalConfig: { languageCode: 'en' } },
        cachedContent: 'cachedContents/xyz',
        contents: 'must not override',
      },
    },
  });
  const upstream = gammaCodec.encodeRequest(request, target);
  assert.deepEqual(upstream.warnings, []);
  assert.deepEqual(JSON.parse(upstream.body), {
    contents: [{ role: 'user', parts: [{ text: 'hello' }] }],
    generationConfig: { temperature: 0.2, responseMimeType: 'application/json' },
    safetySettings: [{ category: 'HARM_CATEGORY_HARASSMENT', threshold: 'BLOCK_NONE' }],
    tools: [
      {
        functionDeclarations: [
          { name: 'f', parameters: { type: 'OBJECT', properties: { a: { type: 'INTEGER' } } } },
        ],
      },
      { googleSearch: {} },
    ],
    toolConfig: { functionCallingConfig: { mode: 'AUTO' }, retrievalConfig: { languageCode: 'en' } },
    cachedContent: 'cachedContents/xyz',
  });
});

test('consecutive same-role turns merge; tool-call arguments that are not a JSON object are a 400 naming the field', () => {
  const merged = baseRequest([
    { role: 'user', content: [{ type: 'text', text: 'a' }] },
    { role: 'user', content: [{ type: 'text', text: 'b' }] },
    { role: 'assistant', content: [{ type: 'text', text: 'c' }] },
    { role: 'assistant', content: [{ type: 'text', text: 'd' }] },
  ]);
  assert.deepEqual(JSON.parse(gammaCodec.encodeRequest(merged, target).body).contents, [
    { role: 'user', parts: [{ text: 'a' }, { text: 'b' }] },
    { role: 'model', parts: [{ text: 'c' }, { text: 'd' }] },
  ]);
  const broken = baseRequest([
    ...hello,
    { role: 'assistant', content: [{ type: 'tool-call', id: 'x', name: 'f', arguments: '{"a":' }] },
  ]);
  assert.throws(
    () => gammaCodec.encodeRequest(broken, target),
    (error: unknown) => error instanceof GatewayError && error.param === 'messages[1].content[0].arguments',
  );
});

test('a call turn must be followed by one result per call: otherwise a clear 400 before anything goes upstream', () => {
  const call = (id: string): { type: 'tool-call'; id: string; name: string; arguments: string } => ({
    type: 'tool-call',
    id,
    name: 'f',
    arguments: '{}',
  });
  const missing = baseRequest([
    ...hello,
    { role: 'assistant', content: [call('a'), call('b')] },
    {
      role: 'tool',
      content: [
        {
          type: 'tool-result',
          callId: 'a',
          name: 'f',
          content: [{ type: 'text', text: 'ok' }],
          isError: false,
        },
      ],
    },
  ]);
  assert.throws(
    () => gammaCodec.encodeRequest(missing, target),
    /a turn with 2 tool call\(s\) is followed by 1 tool result\(s\)/,
  );
});

test('round trip: decodeRequest(encodeRequest(ir)) keeps a representative request', () => {
  // Call ids are not sent upstream (C pairs by name and position); the decoder synthesizes
  // `call_<turn>_<n>`, so the representative request uses ids of that form to compare exactly.
  const ir: ChatRequest = baseRequest(
    [
      { role: 'user', content: [{ type: 'text', text: 'Weather?' }] },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Checking both.' },
          { type: 'tool-call', id: 'call_1_0', name: 'get_w', arguments: '{"city":"Paris"}' },
          { type: 'tool-call', id: 'call_1_1', name: 'get_w', arguments: '{"city":"Rome","days":[1,2]}' },
        ],
      },
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            callId: 'call_1_0',
            name: 'get_w',
            content: [{ type: 'text', text: '{"temp":18}' }],
            isError: false,
          },
          {
            type: 'tool-result',
            callId: 'call_1_1',
            name: 'get_w',
            content: [{ type: 'text', text: 'timeout' }],
            isError: true,
          },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'And this?' },
          { type: 'image', source: { kind: 'base64', mediaType: 'image/png', data: 'iVBORw0KGgo=' } },
        ],
      },
    ],
    {
      model: 'm-001',
      system: [
        { type: 'text', text: 'sys one' },
        { type: 'text', text: 'sys two' },
      ],
      tools: [
        {
          name: 'get_w',
          description: 'Weather',
          parameters: {
            type: 'object',
            properties: {
              city: { type: 'string' },
              days: { type: ['array', 'null'], items: { type: 'integer' } },
            },
            required: ['city'],
          },
        },
      ],
      toolChoice: { type: 'required' },
      sampling: {
        temperature: 0.5,
        topP: 0.9,
        topK: 20,
        maxOutputTokens: 300,
        stopSequences: ['STOP'],
        candidateCount: 2,
        presencePenalty: 0.1,
        frequencyPenalty: -0.1,
        seed: 11,
      },
      stream: true,
      extensions: {
        gamma: {
          safetySettings: [{ category: 'HARM_CATEGORY_HARASSMENT', threshold: 'BLOCK_NONE' }],
          generationConfig: { responseMimeType: 'text/plain' },
        },
      },
    },
  );
  const upstream = gammaCodec.encodeRequest(ir, target);
  const decoded = gammaCodec.decodeRequest({
    body: JSON.parse(upstream.body),
    route: { model: 'm-001', stream: true },
  });
  assert.deepEqual(decoded, ir);
});

test('round trip property: alternating text conversations survive unchanged', () => {
  const text = fc.string({ minLength: 1, maxLength: 40, unit: 'grapheme' });
  fc.assert(
    fc.property(
      fc.array(fc.array(text, { minLength: 1, maxLength: 3 }), { minLength: 1, maxLength: 6 }),
      (turns) => {
        const messages: Message[] = turns.map((texts, index) =>
          index % 2 === 0
            ? { role: 'user', content: texts.map((item) => ({ type: 'text' as const, text: item })) }
            : { role: 'assistant', content: texts.map((item) => ({ type: 'text' as const, text: item })) },
        );
        const ir = baseRequest(messages, { model: 'm-001' });
        const body: unknown = JSON.parse(gammaCodec.encodeRequest(ir, target).body);
        assert.deepEqual(gammaCodec.decodeRequest({ body, route: { model: 'm-001', stream: false } }), ir);
      },
    ),
  );
});
