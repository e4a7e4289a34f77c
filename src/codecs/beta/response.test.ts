import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ResponseContext } from '../codec.ts';
import type { ChatResponse } from '../../ir/index.ts';
import { decodeResponse } from './decode-response.ts';
import { encodeResponse } from './encode-response.ts';
import { decodeContext, fixture } from './test-kit.ts';

const responseContext: ResponseContext = {
  model: 'client-model',
  includeUsage: false,
  legacyFunctions: false,
};

test('decodes a text message', () => {
  assert.deepEqual(decodeResponse(fixture('text.json'), decodeContext), {
    id: 'msg_01XFDUDYJgAACzvnptvVoYEL',
    model: 'b-1-20250101',
    created: 1_750_000_000,
    choices: [
      {
        index: 0,
        content: [{ type: 'text', text: 'Hello! How can I help?' }],
        finishReason: { unified: 'stop', raw: 'end_turn' },
      },
    ],
    usage: { inputTokens: 12, outputTokens: 9, cacheReadTokens: 0, cacheWriteTokens: 0 },
  });
});

test('decodes thinking (with its signature) and tool_use (input stringified), adds cache reads to input', () => {
  assert.deepEqual(decodeResponse(fixture('tool-use.json'), decodeContext), {
    id: 'msg_01Aq9w938a90dw8q',
    model: 'b-1-20250101',
    created: 1_750_000_000,
    choices: [
      {
        index: 0,
        content: [
          { type: 'reasoning', text: 'I should call get_w.', signature: 'EqQBCgIYAhIM1gbcDa9GJwZA2b3h' },
          { type: 'text', text: 'Checking.' },
          { type: 'tool-call', id: 'toolu_01A', name: 'get_w', arguments: '{"city":"Paris"}' },
        ],
        finishReason: { unified: 'tool-calls', raw: 'tool_use' },
      },
    ],
    usage: { inputTokens: 1821, outputTokens: 90, cacheReadTokens: 1800, cacheWriteTokens: 0 },
  });
});

test('decodes cache writes and a stop sequence', () => {
  const response = decodeResponse(fixture('cached-usage.json'), decodeContext);
  assert.deepEqual(response.usage, {
    inputTokens: 3556,
    outputTokens: 11,
    cacheReadTokens: 2048,
    cacheWriteTokens: 1500,
  });
  assert.deepEqual(response.choices[0]?.finishReason, {
    unified: 'stop',
    raw: 'stop_sequence',
    stopSequence: 'END',
  });
});

test('decodes thinking token counts as reasoning tokens', () => {
  assert.deepEqual(decodeResponse(fixture('thinking.json'), decodeContext).usage, {
    inputTokens: 40,
    outputTokens: 52,
    cacheReadTokens: 0,
    cacheWriteTokens: 0,
    reasoningTokens: 50,
  });
});

test('a body that is not a message is an upstream error; missing id is generated', () => {
  assert.throws(
    () => decodeResponse('nope', decodeContext),
    (error: unknown) => error instanceof Error && 'kind' in error && error.kind === 'upstream',
  );
  const response = decodeResponse({ content: [], stop_reason: 'max_tokens' }, decodeContext);
  assert.equal(response.id, 'msg_generated');
  assert.deepEqual(response.choices[0]?.finishReason, { unified: 'length', raw: 'max_tokens' });
});

test('encodes the client-visible message (model from context, uncached input_tokens)', () => {
  const encoded = encodeResponse(decodeResponse(fixture('tool-use.json'), decodeContext), responseContext);
  assert.deepEqual(encoded, {
    id: 'msg_01Aq9w938a90dw8q',
    type: 'message',
    role: 'assistant',
    model: 'client-model',
    content: [
      { type: 'thinking', thinking: 'I should call get_w.', signature: 'EqQBCgIYAhIM1gbcDa9GJwZA2b3h' },
      { type: 'text', text: 'Checking.' },
      { type: 'tool_use', id: 'toolu_01A', name: 'get_w', input: { city: 'Paris' } },
    ],
    stop_reason: 'tool_use',
    stop_sequence: null,
    usage: {
      input_tokens: 21,
      output_tokens: 90,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 1800,
    },
  });
  const cached = encodeResponse(decodeResponse(fixture('cached-usage.json'), decodeContext), responseContext);
  assert.equal(cached.stop_reason, 'stop_sequence');
  assert.equal(cached.stop_sequence, 'END');
  assert.deepEqual(cached.usage, {
    input_tokens: 8,
    output_tokens: 11,
    cache_creation_input_tokens: 1500,
    cache_read_input_tokens: 2048,
  });
});

function foreign(overrides: Partial<ChatResponse> = {}): ChatResponse {
  return {
    id: 'chatcmpl-abc',
    model: 'a-2',
    created: 1,
    choices: [
      {
        index: 0,
        content: [
          { type: 'text', text: '' },
          { type: 'tool-call', id: 'call_1', name: 'f', arguments: '{"q":[1,2]}' },
        ],
        finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
      },
      {
        index: 1,
        content: [{ type: 'text', text: 'second' }],
        finishReason: { unified: 'stop', raw: 'stop' },
      },
    ],
    usage: { inputTokens: 100, outputTokens: 5, cacheReadTokens: 60, cacheWriteTokens: 0 },
    ...overrides,
  };
}

test('a foreign response: msg_ prefix added, choice 0 only, empty text dropped, unified stop reasons', () => {
  assert.deepEqual(encodeResponse(foreign(), responseContext), {
    id: 'msg_chatcmpl-abc',
    type: 'message',
    role: 'assistant',
    model: 'client-model',
    content: [{ type: 'tool_use', id: 'call_1', name: 'f', input: { q: [1, 2] } }],
    stop_reason: 'tool_use',
    stop_sequence: null,
    usage: {
      input_tokens: 40,
      output_tokens: 5,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 60,
    },
  });
  const mapped: Array<[ChatResponse['choices'][number]['finishReason'], string]> = [
    [{ unified: 'stop', raw: 'stop' }, 'end_turn'],
    [{ unified: 'stop', raw: 'STOP', stopSequence: 'X' }, 'stop_sequence'],
    [{ unified: 'length', raw: 'MAX_TOKENS' }, 'max_tokens'],
    [{ unified: 'content-filter', raw: 'SAFETY' }, 'refusal'],
    [{ unified: 'other' }, 'end_turn'],
    [{ unified: 'stop', raw: 'pause_turn' }, 'pause_turn'],
  ];
  for (const [finishReason, stopReason] of mapped) {
    const response = foreign({ choices: [{ index: 0, content: [], finishReason }] });
    assert.equal(encodeResponse(response, responseContext).stop_reason, stopReason);
  }
});

test('tool arguments that are not a JSON object are an upstream error', () => {
  const response = foreign({
    choices: [
      {
        index: 0,
        content: [{ type: 'tool-call', id: 'c', name: 'f', arguments: '[1]' }],
        finishReason: { unified: 'tool-calls' },
      },
    ],
  });
  assert.throws(
    () => encodeResponse(response, responseContext),
    (error: unknown) => error instanceof Error && 'kind' in error && error.kind === 'upstream',
  );
});
