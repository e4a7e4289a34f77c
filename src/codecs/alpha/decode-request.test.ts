import assert from 'node:assert/strict';
import { test } from 'node:test';
import { GatewayError, type ChatRequest } from '../../ir/index.ts';
import { decodeRequest } from './decode-request.ts';
import { fixtureJson } from './test-kit.ts';

function decode(body: unknown): ChatRequest {
  return decodeRequest({ body, route: {} });
}

const hi = [{ role: 'user', content: 'hi' }];

function rejects(body: unknown, param: string, message: RegExp): void {
  assert.throws(
    () => decode(body),
    (error: unknown) =>
      error instanceof GatewayError &&
      error.kind === 'invalid_request' &&
      error.param === param &&
      message.test(error.message),
  );
}

test('the full reference request decodes to the canonical request', () => {
  const weather = {
    type: 'object',
    properties: { city: { type: 'string' } },
    required: ['city'],
    additionalProperties: false,
  };
  assert.deepEqual(decode(fixtureJson('full.request.json')), {
    model: 'my-alias',
    system: [
      { type: 'text', text: 'policy text' },
      { type: 'text', text: 'sys' },
    ],
    messages: [
      {
        role: 'user',
        content: [
          { type: 'text', text: 'describe', cacheControl: { type: 'ephemeral' } },
          { type: 'image', source: { kind: 'url', url: 'https://x/y.png' }, detail: 'auto' },
          { type: 'image', source: { kind: 'base64', mediaType: 'image/png', data: 'iVBORw0KGgo=' } },
        ],
      },
      {
        role: 'assistant',
        content: [
          { type: 'tool-call', id: 'call_abc', name: 'get_w', arguments: '{"city":"Paris"}' },
          { type: 'tool-call', id: 'call_def', name: 'get_w', arguments: '{"city":"Tokyo"}' },
        ],
      },
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            callId: 'call_abc',
            name: 'get_w',
            content: [{ type: 'text', text: '18C' }],
            isError: false,
          },
          {
            type: 'tool-result',
            callId: 'call_def',
            name: 'get_w',
            content: [{ type: 'text', text: '22C' }],
            isError: false,
          },
        ],
      },
      { role: 'user', content: [{ type: 'text', text: 'thanks' }] },
    ],
    tools: [{ name: 'get_w', description: 'Current weather', parameters: weather, strict: true }],
    toolChoice: { type: 'auto' },
    parallelToolCalls: true,
    sampling: {
      maxOutputTokens: 512,
      temperature: 0.7,
      topP: 1,
      stopSequences: ['END'],
      presencePenalty: 0,
      frequencyPenalty: 0,
      seed: 42,
      candidateCount: 1,
    },
    responseFormat: { type: 'json-schema', name: 'out', schema: {}, strict: true },
    stream: true,
    includeUsage: false,
    extensions: { alpha: { user: 'user-1234' } },
  });
});

test('legacy functions: tools with legacyFunctions, calls and results share call_legacy_<n> ids', () => {
  const request = decode({
    model: 'm',
    messages: [
      { role: 'user', content: 'weather?' },
      { role: 'assistant', content: null, function_call: { name: 'get_w', arguments: '{"city":"Paris"}' } },
      { role: 'function', name: 'get_w', content: '18C' },
      { role: 'assistant', content: '', function_call: { name: 'get_t', arguments: '{}' } },
      { role: 'function', name: 'get_t', content: '12:00' },
    ],
    functions: [{ name: 'get_w', parameters: { type: 'object', properties: {} } }, { name: 'get_t' }],
    function_call: { name: 'get_w' },
  });
  assert.equal(request.legacyFunctions, true);
  assert.deepEqual(request.toolChoice, { type: 'tool', name: 'get_w' });
  assert.deepEqual(request.tools, [
    { name: 'get_w', parameters: { type: 'object', properties: {} } },
    { name: 'get_t', parameters: { type: 'object', properties: {} } },
  ]);
  assert.deepEqual(request.messages.slice(1), [
    {
      role: 'assistant',
      content: [{ type: 'tool-call', id: 'call_legacy_0', name: 'get_w', arguments: '{"city":"Paris"}' }],
    },
    {
      role: 'tool',
      content: [
        {
          type: 'tool-result',
          callId: 'call_legacy_0',
          name: 'get_w',
          content: [{ type: 'text', text: '18C' }],
          isError: false,
        },
      ],
    },
    {
      role: 'assistant',
      content: [{ type: 'tool-call', id: 'call_legacy_1', name: 'get_t', arguments: '{}' }],
    },
    {
      role: 'tool',
      content: [
        {
          type: 'tool-result',
          callId: 'call_legacy_1',
          name: 'get_t',
          content: [{ type: 'text', text: '12:00' }],
          isError: false,
        },
      ],
    },
  ]);
});

test('max_completion_tokens wins over max_tokens; top_k is accepted, -1 means off', () => {
  assert.deepEqual(
    decode({ model: 'm', messages: hi, max_tokens: 9, max_completion_tokens: 7, top_k: 40 }).sampling,
    {
      maxOutputTokens: 7,
      topK: 40,
    },
  );
  assert.deepEqual(decode({ model: 'm', messages: hi, max_tokens: 9, top_k: -1 }).sampling, {
    maxOutputTokens: 9,
  });
});

test('stop as a string, tool_choice forms, include_usage only on streams, non-empty system text in order', () => {
  const request = decode({
    model: 'm',
    messages: [
      { role: 'user', content: 'a' },
      { role: 'system', content: [{ type: 'text', text: 'late' }] },
    ],
    stop: 'X',
    tool_choice: { type: 'function', function: { name: 'f' } },
    stream_options: { include_usage: true },
  });
  assert.deepEqual(request.sampling.stopSequences, ['X']);
  assert.deepEqual(request.toolChoice, { type: 'tool', name: 'f' });
  assert.equal(request.includeUsage, false);
  assert.deepEqual(request.system, [{ type: 'text', text: 'late' }]);
  assert.deepEqual(decode({ model: 'm', messages: hi, tool_choice: 'required' }).toolChoice, {
    type: 'required',
  });
});

test('assistant: empty text beside calls is dropped, refusal parts are text', () => {
  const request = decode({
    model: 'm',
    messages: [
      { role: 'user', content: 'x' },
      { role: 'assistant', content: [{ type: 'refusal', refusal: 'I cannot' }] },
      {
        role: 'assistant',
        content: '',
        tool_calls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: '{}' } }],
      },
    ],
  });
  assert.deepEqual(request.messages.slice(1), [
    { role: 'assistant', content: [{ type: 'text', text: 'I cannot' }] },
    { role: 'assistant', content: [{ type: 'tool-call', id: 'c', name: 'f', arguments: '{}' }] },
  ]);
});

test('A ranges and shapes are enforced with 400s naming the field', () => {
  rejects({ messages: hi }, 'model', /expected a string/);
  rejects({ model: 'm', messages: [] }, 'messages', /must not be empty/);
  rejects({ model: 'm', messages: hi, temperature: 2.5 }, 'temperature', /outside \[0, 2\]/);
  rejects({ model: 'm', messages: hi, top_p: 1.5 }, 'top_p', /outside/);
  rejects({ model: 'm', messages: hi, n: 0 }, 'n', /outside \[1, 128\]/);
  rejects({ model: 'm', messages: hi, presence_penalty: -3 }, 'presence_penalty', /outside/);
  rejects({ model: 'm', messages: hi, stop: ['a', 'b', 'c', 'd', 'e'] }, 'stop', /at most 4/);
  rejects(
    { model: 'm', messages: [{ role: 'robot', content: 'x' }] },
    'messages[0].role',
    /not a valid role/,
  );
  rejects(
    { model: 'm', messages: [{ role: 'tool', tool_call_id: 'nope', content: 'x' }] },
    'messages[0].tool_call_id',
    /no earlier assistant message/,
  );
  rejects(
    {
      model: 'm',
      messages: [
        { role: 'user', content: [{ type: 'input_audio', input_audio: { data: '', format: 'wav' } }] },
      ],
    },
    'messages[0].content[0].type',
    /"input_audio" is not supported/,
  );
  rejects(
    {
      model: 'm',
      messages: [
        { role: 'user', content: [{ type: 'image_url', image_url: { url: 'data:text/plain,hi' } }] },
      ],
    },
    'messages[0].content[0].image_url.url',
    /base64/,
  );
  rejects(
    { model: 'm', messages: hi, tools: [{ type: 'custom', custom: { name: 'x' } }] },
    'tools[0].type',
    /function/,
  );
  rejects({ model: 'm', messages: hi, tool_choice: 'sometimes' }, 'tool_choice', /expected/);
});

test('lenient (pass-through) decoding skips what the IR cannot carry instead of refusing', () => {
  const body = {
    model: 'm',
    messages: [
      {
        role: 'user',
        content: [
          { type: 'text', text: 'listen' },
          { type: 'input_audio', input_audio: { data: 'AAAA', format: 'wav' } },
          { type: 'file', file: { file_id: 'file-1' } },
        ],
      },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'c1', type: 'custom', custom: { name: 'g', input: 'x' } }],
      },
      { role: 'tool', tool_call_id: 'c1', content: 'done' },
    ],
    tools: [{ type: 'custom', custom: { name: 'g' } }],
    tool_choice: { type: 'allowed_tools', allowed_tools: { mode: 'auto', tools: [] } },
  };
  assert.throws(() => decode(body), GatewayError);
  const request = decodeRequest({ body, route: {}, lenient: true });
  assert.deepEqual(request.messages, [
    { role: 'user', content: [{ type: 'text', text: 'listen' }] },
    { role: 'assistant', content: [] },
    {
      role: 'tool',
      content: [
        {
          type: 'tool-result',
          callId: 'c1',
          name: '',
          content: [{ type: 'text', text: 'done' }],
          isError: false,
        },
      ],
    },
  ]);
  assert.deepEqual(request.tools, []);
  assert.equal(request.toolChoice, undefined);
});
