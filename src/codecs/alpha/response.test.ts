import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ChatResponse } from '../../ir/index.ts';
import type { ResponseContext } from '../codec.ts';
import { decodeResponse } from './decode-response.ts';
import { encodeResponse } from './encode-response.ts';
import { fixtureJson, testContext } from './test-kit.ts';

const context: ResponseContext = { model: 'my-alias', includeUsage: false, legacyFunctions: false };

test('a text body decodes with its ids, finish reason and usage (cached tokens included in input)', () => {
  assert.deepEqual(decodeResponse(fixtureJson('text.json'), testContext()), {
    id: 'chatcmpl-AbC123',
    model: 'gpt-4o-2024-08-06',
    created: 1731000000,
    choices: [
      {
        index: 0,
        content: [{ type: 'text', text: 'Héllo 世界 🙂! How can I help?' }],
        finishReason: { unified: 'stop', raw: 'stop' },
      },
    ],
    usage: {
      inputTokens: 1200,
      outputTokens: 40,
      cacheReadTokens: 1024,
      cacheWriteTokens: 0,
      reasoningTokens: 0,
    },
  });
});

test('a tool-call body decodes to tool-call parts with their JSON text', () => {
  const response = decodeResponse(fixtureJson('tool-calls.json'), testContext());
  assert.deepEqual(response.choices, [
    {
      index: 0,
      content: [
        { type: 'tool-call', id: 'call_abc', name: 'get_w', arguments: '{"city":"Paris"}' },
        { type: 'tool-call', id: 'call_def', name: 'get_w', arguments: '{"city":"Tokyo"}' },
      ],
      finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
    },
  ]);
});

test('decoding tolerates what compatible servers leave out', () => {
  assert.deepEqual(decodeResponse({}, testContext()), {
    id: 'chatcmpl-gen0',
    model: '',
    created: 1731000999,
    choices: [],
    usage: { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 },
  });
  const sparse = decodeResponse(
    {
      choices: [
        { message: { content: null, refusal: 'I cannot help with that.' }, finish_reason: null },
        {
          message: {
            content: [{ type: 'text', text: 'parts' }],
            tool_calls: [{ function: { name: 'f', arguments: { a: 1 } } }],
          },
          finish_reason: 'stop',
        },
      ],
      // The spec's flat cached_tokens, and the newest SDK's cache_write_tokens.
      usage: {
        prompt_tokens: 10,
        completion_tokens: 2,
        cached_tokens: 4,
        prompt_tokens_details: { cache_write_tokens: 3 },
      },
    },
    testContext(),
  );
  assert.deepEqual(sparse.choices, [
    {
      index: 0,
      content: [{ type: 'text', text: 'I cannot help with that.' }],
      finishReason: { unified: 'other' },
    },
    {
      index: 1,
      content: [
        { type: 'text', text: 'parts' },
        { type: 'tool-call', id: 'call_gen1', name: 'f', arguments: '{"a":1}' },
      ],
      finishReason: { unified: 'tool-calls', raw: 'stop' },
    },
  ]);
  assert.deepEqual(sparse.usage, {
    inputTokens: 10,
    outputTokens: 2,
    cacheReadTokens: 4,
    cacheWriteTokens: 3,
  });
});

test('legacy function_call answers decode to a tool call with an invented id', () => {
  const response = decodeResponse(fixtureJson('legacy-function.json'), testContext());
  assert.deepEqual(response.choices[0], {
    index: 0,
    content: [{ type: 'tool-call', id: 'call_gen0', name: 'get_w', arguments: '{"city":"Paris"}' }],
    finishReason: { unified: 'tool-calls', raw: 'function_call' },
  });
});

const answer: ChatResponse = {
  id: 'msg_01XYZ',
  model: 'upstream-model',
  created: 1731000000,
  choices: [
    {
      index: 0,
      content: [
        { type: 'text', text: 'Checking ' },
        { type: 'text', text: 'now.' },
        { type: 'tool-call', id: 'toolu_1', name: 'get_w', arguments: '{"city":"Paris"}' },
      ],
      finishReason: { unified: 'tool-calls', raw: 'tool_use' },
    },
    {
      index: 1,
      content: [{ type: 'tool-call', id: 'toolu_2', name: 'get_w', arguments: '{}' }],
      finishReason: { unified: 'tool-calls' },
    },
  ],
  usage: {
    inputTokens: 1500,
    outputTokens: 30,
    cacheReadTokens: 1000,
    cacheWriteTokens: 200,
    reasoningTokens: 5,
  },
};

test('encodes a chat.completion: prefixed id, client model, null content beside calls only, full usage', () => {
  assert.deepEqual(encodeResponse(answer, context), {
    id: 'chatcmpl-msg_01XYZ',
    object: 'chat.completion',
    created: 1731000000,
    model: 'my-alias',
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: 'Checking now.',
          refusal: null,
          tool_calls: [
            { id: 'toolu_1', type: 'function', function: { name: 'get_w', arguments: '{"city":"Paris"}' } },
          ],
        },
        logprobs: null,
        finish_reason: 'tool_calls',
      },
      {
        index: 1,
        message: {
          role: 'assistant',
          content: null,
          refusal: null,
          tool_calls: [{ id: 'toolu_2', type: 'function', function: { name: 'get_w', arguments: '{}' } }],
        },
        logprobs: null,
        finish_reason: 'tool_calls',
      },
    ],
    usage: {
      prompt_tokens: 1500,
      completion_tokens: 30,
      total_tokens: 1530,
      prompt_tokens_details: { cached_tokens: 1000, cache_write_tokens: 200 },
      completion_tokens_details: { reasoning_tokens: 5 },
      cached_tokens: 1000,
    },
  });
});

test('legacy clients get function_call and finish_reason function_call; plain answers report cached_tokens 0', () => {
  const encoded = encodeResponse(
    { ...answer, usage: { inputTokens: 3, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0 } },
    { ...context, legacyFunctions: true },
  );
  assert.deepEqual(encoded.choices, [
    {
      index: 0,
      message: {
        role: 'assistant',
        content: 'Checking now.',
        refusal: null,
        function_call: { name: 'get_w', arguments: '{"city":"Paris"}' },
      },
      logprobs: null,
      finish_reason: 'function_call',
    },
    {
      index: 1,
      message: {
        role: 'assistant',
        content: null,
        refusal: null,
        function_call: { name: 'get_w', arguments: '{}' },
      },
      logprobs: null,
      finish_reason: 'function_call',
    },
  ]);
  assert.deepEqual(encoded.usage, {
    prompt_tokens: 3,
    completion_tokens: 1,
    total_tokens: 4,
    prompt_tokens_details: { cached_tokens: 0 },
  });
});

test('finish reasons A has no word for become stop; an empty answer has empty-string content', () => {
  const encoded = encodeResponse(
    {
      ...answer,
      choices: [{ index: 0, content: [], finishReason: { unified: 'other', raw: 'pause_turn' } }],
    },
    context,
  );
  assert.deepEqual(encoded.choices, [
    {
      index: 0,
      message: { role: 'assistant', content: '', refusal: null },
      logprobs: null,
      finish_reason: 'stop',
    },
  ]);
});

test('decode then encode of an A body keeps what an A client reads', () => {
  const original = fixtureJson('tool-calls.json') as { choices: unknown; usage: { prompt_tokens: number } };
  const encoded = encodeResponse(decodeResponse(original, testContext()), {
    ...context,
    model: 'gpt-4o-2024-08-06',
  });
  assert.equal(encoded.id, 'chatcmpl-Tool42');
  assert.deepEqual(
    (encoded.choices as Array<{ message: unknown }>).map((choice) => choice.message),
    (original.choices as Array<{ message: { tool_calls: unknown } }>).map((choice) => ({
      role: 'assistant',
      content: null,
      refusal: null,
      tool_calls: choice.message.tool_calls,
    })),
  );
});
