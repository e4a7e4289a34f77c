import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import type { ChatResponse, JsonObject } from '../../ir/index.ts';
import type { ResponseContext } from '../../codecs/codec.ts';
import { encodeResponse } from './encode-response.ts';

function fixture(name: string): JsonObject {
  return JSON.parse(readFileSync(new URL(`./__fixtures__/${name}`, import.meta.url), 'utf8')) as JsonObject;
}

const answer: ChatResponse = {
  id: 'chatcmpl-upstream',
  model: 'upstream-model',
  created: 1,
  choices: [
    {
      index: 0,
      content: [
        { type: 'text', text: 'Checking.' },
        {
          type: 'tool-call',
          id: 'call_12345xyz',
          name: 'get_weather',
          arguments: '{"location":"Paris, France"}',
        },
      ],
      finishReason: { unified: 'tool-calls' },
    },
  ],
  usage: { inputTokens: 291, outputTokens: 23, cacheReadTokens: 256, cacheWriteTokens: 0 },
};

const tools = [
  {
    type: 'function',
    name: 'get_weather',
    parameters: { type: 'object', properties: { location: { type: 'string' } }, required: ['location'] },
  },
];

function context(body: JsonObject): ResponseContext {
  return {
    model: 'my-model',
    includeUsage: false,
    legacyFunctions: false,
    turn: { id: 'resp_67ccd3a9da748190', createdAt: 1741476777, body },
  };
}

test('text and a call become a message and a function_call item, with usage and the echo', () => {
  const encoded = encodeResponse(answer, context({ model: 'my-model', input: 'Weather?', tools }));
  assert.deepEqual(encoded, fixture('function-call.response.json'));
});

test('cut by the output cap: incomplete, with the reason; the finished answer is handed over', () => {
  const finished: JsonObject[] = [];
  const base = context({
    model: 'my-model',
    input: 'x',
    max_output_tokens: 16,
    store: false,
    metadata: { a: 'b' },
  });
  const cut: ChatResponse = {
    ...answer,
    choices: [
      { index: 0, content: [{ type: 'text', text: 'Once upon' }], finishReason: { unified: 'length' } },
    ],
  };
  const encoded = encodeResponse(cut, {
    ...base,
    turn: { ...base.turn!, onFinished: (body) => finished.push(body) },
  });
  assert.equal(encoded.status, 'incomplete');
  assert.deepEqual(encoded.incomplete_details, { reason: 'max_output_tokens' });
  assert.equal(encoded.max_output_tokens, 16);
  assert.equal(encoded.store, false);
  assert.deepEqual(encoded.metadata, { a: 'b' });
  assert.deepEqual(finished, [encoded]);
});

test('without a turn the id comes from the upstream answer', () => {
  const encoded = encodeResponse(answer, { model: 'm', includeUsage: false, legacyFunctions: false });
  assert.equal(encoded.id, 'resp_chatcmpl-upstream');
  assert.equal(encoded.created_at, 1);
  assert.equal(encoded.status, 'completed');
});

test('a call to a namespace member comes back split: its name and its namespace', () => {
  const namespaced: ChatResponse = {
    ...answer,
    choices: [
      {
        index: 0,
        content: [{ type: 'tool-call', id: 'call_1', name: 'agents__spawn', arguments: '{}' }],
        finishReason: { unified: 'tool-calls' },
      },
    ],
  };
  const body = {
    model: 'my-model',
    input: 'Go',
    tools: [
      { type: 'namespace', name: 'agents', description: 'd', tools: [{ type: 'function', name: 'spawn' }] },
    ],
  };
  const encoded = encodeResponse(namespaced, context(body));
  assert.deepEqual(encoded.output, [
    {
      id: 'fc_67ccd3a9da748190_0',
      type: 'function_call',
      status: 'completed',
      call_id: 'call_1',
      name: 'spawn',
      arguments: '{}',
      namespace: 'agents',
    },
  ]);
});
