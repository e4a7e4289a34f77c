import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { foldStream } from '../../ir/fold-stream.ts';
import { checkStreamEvents } from '../../ir/check-stream-events.ts';
import type { ChatRequest, StreamEvent } from '../../ir/index.ts';
import { GatewayError } from '../../ir/index.ts';
import { SseParser } from '../../sse/parse-sse.ts';
import { converseWire } from './index.ts';

const context = { generateId: (prefix: string) => `${prefix}1`, now: () => 1_700_000_000_000 };
const target = {
  baseUrl: 'https://bedrock-runtime.us-east-1.amazonaws.com',
  apiKey: undefined,
  model: 'amazon.nova-lite-v1:0',
};

function fixture(name: string): string {
  return readFileSync(new URL(`./__fixtures__/${name}`, import.meta.url), 'utf8');
}

function decodeSse(text: string): StreamEvent[] {
  const events: StreamEvent[] = [];
  const decoder = converseWire.createStreamDecoder(context);
  const emit = (event: StreamEvent): void => {
    events.push(event);
  };
  new SseParser().push(text, (message) => {
    decoder.push(message, emit);
  });
  decoder.end((event) => events.push(event));
  return events;
}

const request: ChatRequest = {
  model: 'm',
  system: [{ type: 'text', text: 'Be brief.', cacheControl: { type: 'ephemeral' } }],
  messages: [
    {
      role: 'user',
      content: [
        { type: 'text', text: 'What is this?' },
        { type: 'image', source: { kind: 'base64', mediaType: 'image/png', data: 'iVBORw0KGgo=' } },
      ],
    },
    {
      role: 'assistant',
      content: [{ type: 'tool-call', id: 'tooluse_1', name: 'get_weather', arguments: '{"city":"Paris"}' }],
    },
    {
      role: 'tool',
      content: [
        {
          type: 'tool-result',
          callId: 'tooluse_1',
          name: 'get_weather',
          content: [{ type: 'text', text: '18C' }],
          isError: false,
        },
      ],
    },
    { role: 'user', content: [{ type: 'text', text: 'Thanks.' }] },
  ],
  tools: [
    {
      name: 'get_weather',
      description: 'Weather',
      parameters: { type: 'object', properties: { city: { type: 'string' } } },
    },
  ],
  toolChoice: { type: 'required' },
  sampling: { maxOutputTokens: 100, temperature: 0.5, topP: 0.9, topK: 40, stopSequences: ['END'] },
  reasoning: { budgetTokens: 2048 },
  stream: false,
  includeUsage: false,
  extensions: {},
};

test('encodes the canonical request as a Converse body on the converse path', () => {
  const upstream = converseWire.encodeRequest(request, target);
  assert.equal(upstream.path, '/model/amazon.nova-lite-v1%3A0/converse');
  assert.deepEqual(upstream.call, { model: 'amazon.nova-lite-v1:0', stream: false, operation: 'chat' });
  assert.deepEqual(JSON.parse(upstream.body), {
    messages: [
      {
        role: 'user',
        content: [{ text: 'What is this?' }, { image: { format: 'png', source: { bytes: 'iVBORw0KGgo=' } } }],
      },
      {
        role: 'assistant',
        content: [{ toolUse: { toolUseId: 'tooluse_1', name: 'get_weather', input: { city: 'Paris' } } }],
      },
      {
        role: 'user',
        content: [
          { toolResult: { toolUseId: 'tooluse_1', content: [{ text: '18C' }], status: 'success' } },
          { text: 'Thanks.' },
        ],
      },
    ],
    system: [{ text: 'Be brief.' }, { cachePoint: { type: 'default' } }],
    inferenceConfig: { maxTokens: 100, temperature: 0.5, topP: 0.9, stopSequences: ['END'] },
    toolConfig: {
      tools: [
        {
          toolSpec: {
            name: 'get_weather',
            description: 'Weather',
            inputSchema: { json: { type: 'object', properties: { city: { type: 'string' } } } },
          },
        },
      ],
      toolChoice: { any: {} },
    },
    additionalModelRequestFields: { top_k: 40, thinking: { type: 'enabled', budget_tokens: 2048 } },
  });
  assert.equal(
    converseWire.encodeRequest({ ...request, stream: true }, target).path,
    '/model/amazon.nova-lite-v1%3A0/converse-stream',
  );
});

test('a Bedrock API key is a bearer token; an image by URL is a 400', () => {
  const upstream = converseWire.encodeRequest(request, { ...target, apiKey: 'ABSK-key' });
  assert.equal(upstream.headers.authorization, 'Bearer ABSK-key');
  const byUrl: ChatRequest = {
    ...request,
    messages: [
      { role: 'user', content: [{ type: 'image', source: { kind: 'url', url: 'https://x.example/a.png' } }] },
    ],
  };
  assert.throws(
    () => converseWire.encodeRequest(byUrl, target),
    (error: GatewayError) => error.status === 400,
  );
});

test('the request reads back as the same canonical request', () => {
  const upstream = converseWire.encodeRequest(request, target);
  const decoded = converseWire.decodeRequest({ body: JSON.parse(upstream.body), route: { model: 'm' } });
  assert.deepEqual(decoded.messages, request.messages);
  assert.deepEqual(decoded.system, request.system);
  assert.deepEqual(decoded.sampling, request.sampling);
  assert.deepEqual(decoded.toolChoice, request.toolChoice);
});

test('decodes recorded answers: text, tool use, cache usage', () => {
  const text = converseWire.decodeResponse(JSON.parse(fixture('response-text.json')), context);
  assert.deepEqual(text.choices[0]?.content, [
    { type: 'text', text: "Hello! I'm doing well, thank you. How can I help you today?" },
  ]);
  assert.deepEqual(text.choices[0].finishReason, { unified: 'stop', raw: 'end_turn' });
  assert.deepEqual(text.usage, { inputTokens: 4, outputTokens: 16, cacheReadTokens: 0, cacheWriteTokens: 0 });
  const tool = converseWire.decodeResponse(JSON.parse(fixture('response-tool-use.json')), context);
  assert.deepEqual(tool.choices[0]?.content[1], {
    type: 'tool-call',
    id: 'tooluse_kZJMlvQmRJ6eAyJE5GIl7Q',
    name: 'get_weather',
    arguments: '{"city":"Paris"}',
  });
  assert.equal(tool.choices[0].finishReason.unified, 'tool-calls');
  const cached = converseWire.decodeResponse(JSON.parse(fixture('response-cache.json')), context);
  assert.deepEqual(cached.usage, {
    inputTokens: 3212,
    outputTokens: 3,
    cacheReadTokens: 2048,
    cacheWriteTokens: 1152,
  });
});

test('guardrail and content-filter stops read as a content filter', () => {
  for (const stopReason of ['guardrail_intervened', 'content_filtered']) {
    const answer = converseWire.decodeResponse({ output: { message: { content: [] } }, stopReason }, context);
    assert.equal(answer.choices[0]?.finishReason.unified, 'content-filter');
  }
});

test('decodes a recorded stream: text, a tool call with streamed arguments, usage', () => {
  const events = decodeSse(fixture('stream-tool-use.sse'));
  checkStreamEvents(events);
  const answer = foldStream(events);
  assert.deepEqual(answer.choices[0]?.content, [
    { type: 'text', text: 'Let me check that.' },
    {
      type: 'tool-call',
      id: 'tooluse_7Pgq2tN1QpqGbVdJkqkWcA',
      name: 'get_weather',
      arguments: '{"city": "Paris"}',
    },
  ]);
  assert.equal(answer.choices[0].finishReason.unified, 'tool-calls');
  assert.deepEqual(answer.usage, {
    inputTokens: 3612,
    outputTokens: 61,
    cacheReadTokens: 2048,
    cacheWriteTokens: 1152,
  });
});

test('an in-stream exception ends the stream with the error its status stands for', () => {
  const events = decodeSse(
    'event: messageStart\ndata: {"role":"assistant"}\n\nevent: throttlingException\ndata: {"message":"Too many requests, please wait before trying again."}\n\n',
  );
  const last = events.at(-1);
  assert.ok(last?.type === 'error');
  assert.equal(last.error.kind, 'rate_limited');
  const validation = decodeSse('event: validationException\ndata: {"message":"Input is too long"}\n\n').at(
    -1,
  );
  assert.equal(validation?.type === 'error' ? validation.error.message : '', 'upstream: Input is too long');
});

test('a stream cut before messageStop is an error', () => {
  const events = decodeSse(
    'event: messageStart\ndata: {"role":"assistant"}\n\nevent: contentBlockDelta\ndata: {"contentBlockIndex":0,"delta":{"text":"Hi"}}\n\n',
  );
  assert.equal(events.at(-1)?.type, 'error');
});

test('the stream encoder writes what the decoder reads back', () => {
  const events = decodeSse(fixture('stream-tool-use.sse'));
  const encoder = converseWire.createStreamEncoder({
    model: 'm',
    includeUsage: true,
    legacyFunctions: false,
  });
  const again = decodeSse(events.map((event) => encoder.encode(event)).join(''));
  assert.deepEqual(foldStream(again), foldStream(events));
});

test('error bodies: the message is read; errors are written with x-amzn-errortype', () => {
  assert.deepEqual(converseWire.decodeErrorBody('{"message":"The model is not ready"}'), {
    message: 'The model is not ready',
    quota: false,
  });
  assert.deepEqual(converseWire.decodeErrorBody('<html>'), { message: undefined, quota: false });
  const wire = converseWire.encodeError(
    new GatewayError('rate_limited', 'slow down', { retryAfterSeconds: 2 }),
  );
  assert.deepEqual(wire, {
    status: 429,
    body: { message: 'slow down' },
    headers: { 'x-amzn-errortype': 'ThrottlingException', 'retry-after': '2' },
  });
});
