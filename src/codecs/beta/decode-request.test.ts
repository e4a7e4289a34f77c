import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ChatRequest } from '../../ir/index.ts';
import { decodeRequest } from './decode-request.ts';
import { fixture } from './test-kit.ts';

function decode(body: unknown): ChatRequest {
  return decodeRequest({ body, route: {} });
}

function minimal(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { model: 'b-1', max_tokens: 16, messages: [{ role: 'user', content: 'hi' }], ...extra };
}

function rejects(body: unknown, message: RegExp, param?: string): void {
  assert.throws(
    () => decode(body),
    (error: unknown) => {
      assert.ok(error instanceof Error && 'kind' in error);
      assert.equal(error.kind, 'invalid_request');
      assert.match(error.message, message);
      if (param !== undefined) assert.equal((error as { param?: string }).param, param);
      return true;
    },
  );
}

test('decodes the reference request: blocks, cache markers, tool turn split, extensions', () => {
  const expected: ChatRequest = {
    model: 'b-1',
    system: [{ type: 'text', text: 'sys', cacheControl: { type: 'ephemeral' } }],
    messages: [
      {
        role: 'user',
        content: [
          { type: 'text', text: 'describe' },
          { type: 'image', source: { kind: 'base64', mediaType: 'image/png', data: 'iVBOR...' } },
          {
            type: 'image',
            source: { kind: 'url', url: 'https://x/y.png' },
            cacheControl: { type: 'ephemeral', ttl: '1h' },
          },
        ],
      },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Checking.' },
          { type: 'tool-call', id: 'toolu_01A', name: 'get_w', arguments: '{"city":"Paris"}' },
        ],
      },
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            callId: 'toolu_01A',
            name: 'get_w',
            content: [{ type: 'text', text: '18C' }],
            isError: false,
          },
        ],
      },
      { role: 'user', content: [{ type: 'text', text: 'And tomorrow?' }] },
    ],
    tools: [
      {
        name: 'get_w',
        description: 'Current weather for a city',
        parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
        strict: true,
        cacheControl: { type: 'ephemeral' },
      },
    ],
    toolChoice: { type: 'auto' },
    parallelToolCalls: false,
    sampling: { maxOutputTokens: 1024, temperature: 1, topP: 0.99, topK: 40, stopSequences: ['END'] },
    stream: true,
    includeUsage: false,
    extensions: { beta: { metadata: { user_id: 'u-42' } } },
  };
  assert.deepEqual(decode(fixture('request-full.json')), expected);
});

test('string shorthands, defaults and no extensions', () => {
  const request = decode(minimal({ system: 'be brief' }));
  assert.deepEqual(request, {
    model: 'b-1',
    system: [{ type: 'text', text: 'be brief' }],
    messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }],
    tools: [],
    sampling: { maxOutputTokens: 16 },
    stream: false,
    includeUsage: false,
    extensions: {},
  });
});

test('tool_choice types map to the IR', () => {
  const tools = [{ name: 't', input_schema: { type: 'object' } }];
  const cases: Array<[unknown, unknown]> = [
    [{ type: 'auto' }, { type: 'auto' }],
    [{ type: 'any' }, { type: 'required' }],
    [{ type: 'none' }, { type: 'none' }],
    [
      { type: 'tool', name: 't' },
      { type: 'tool', name: 't' },
    ],
  ];
  for (const [wire, ir] of cases) {
    const request = decode(minimal({ tools, tool_choice: wire }));
    assert.deepEqual(request.toolChoice, ir);
    assert.equal(request.parallelToolCalls, undefined);
  }
  assert.equal(
    decode(minimal({ tools, tool_choice: { type: 'any', disable_parallel_tool_use: true } }))
      .parallelToolCalls,
    false,
  );
  rejects(minimal({ tool_choice: { type: 'required' } }), /tool_choice.type/, 'tool_choice.type');
});

test('a user turn with tool results and images becomes a tool message then a user message', () => {
  const request = decode(
    minimal({
      messages: [
        { role: 'user', content: 'go' },
        {
          role: 'assistant',
          content: [
            { type: 'tool_use', id: 'toolu_1', name: 'a', input: {} },
            {
              type: 'tool_use',
              id: 'toolu_2',
              name: 'b',
              input: { x: 1 },
              cache_control: { type: 'ephemeral' },
            },
          ],
        },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'here' },
            {
              type: 'tool_result',
              tool_use_id: 'toolu_2',
              is_error: true,
              content: [
                { type: 'text', text: 'boom' },
                { type: 'image', source: { type: 'url', url: 'https://x/e.png' } },
              ],
              cache_control: { type: 'ephemeral' },
            },
            { type: 'tool_result', tool_use_id: 'toolu_1' },
          ],
        },
      ],
    }),
  );
  assert.deepEqual(request.messages.slice(1), [
    {
      role: 'assistant',
      content: [
        { type: 'tool-call', id: 'toolu_1', name: 'a', arguments: '{}' },
        {
          type: 'tool-call',
          id: 'toolu_2',
          name: 'b',
          arguments: '{"x":1}',
          cacheControl: { type: 'ephemeral' },
        },
      ],
    },
    {
      role: 'tool',
      content: [
        {
          type: 'tool-result',
          callId: 'toolu_2',
          name: 'b',
          content: [
            { type: 'text', text: 'boom' },
            { type: 'image', source: { kind: 'url', url: 'https://x/e.png' } },
          ],
          isError: true,
          cacheControl: { type: 'ephemeral' },
        },
        { type: 'tool-result', callId: 'toolu_1', name: 'a', content: [], isError: false },
      ],
    },
    { role: 'user', content: [{ type: 'text', text: 'here' }] },
  ]);
});

test('thinking blocks stay out of the IR; a thinking-only turn disappears', () => {
  const request = decode(
    minimal({
      messages: [
        { role: 'user', content: 'q' },
        { role: 'assistant', content: [{ type: 'redacted_thinking', data: 'EmwKAhgB' }] },
        {
          role: 'assistant',
          content: [
            { type: 'thinking', thinking: 'hm', signature: 's' },
            { type: 'text', text: 'a' },
          ],
        },
      ],
    }),
  );
  assert.deepEqual(request.messages, [
    { role: 'user', content: [{ type: 'text', text: 'q' }] },
    { role: 'assistant', content: [{ type: 'text', text: 'a' }] },
  ]);
});

test('1.x system entries inside messages join the system text', () => {
  const request = decode(
    minimal({
      system: [{ type: 'text', text: 'top' }],
      messages: [
        { role: 'system', content: 'inline' },
        { role: 'user', content: 'hi' },
      ],
    }),
  );
  assert.deepEqual(request.system, [
    { type: 'text', text: 'top' },
    { type: 'text', text: 'inline' },
  ]);
  assert.equal(request.messages.length, 1);
});

test('unknown top-level fields go to extensions.beta; a thinking budget is canonical', () => {
  const request = decode(
    minimal({
      thinking: { type: 'enabled', budget_tokens: 2048 },
      service_tier: 'auto',
      cache_control: { type: 'ephemeral' },
    }),
  );
  assert.deepEqual(request.reasoning, { budgetTokens: 2048 });
  assert.deepEqual(request.extensions, {
    beta: { service_tier: 'auto', cache_control: { type: 'ephemeral' } },
  });
});

test('output_config.format is canonical structured output; its other options and other thinking kinds stay B-only', () => {
  const schema = { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] };
  const request = decode(
    minimal({
      output_config: { format: { type: 'json_schema', schema }, effort: 'high' },
      thinking: { type: 'adaptive', display: 'summarized' },
    }),
  );
  assert.deepEqual(request.responseFormat, { type: 'json-schema', schema });
  assert.equal(request.reasoning, undefined);
  assert.deepEqual(request.extensions, {
    beta: { output_config: { effort: 'high' }, thinking: { type: 'adaptive', display: 'summarized' } },
  });
  assert.deepEqual(decode(minimal({ thinking: { type: 'disabled' } })).reasoning, { budgetTokens: 0 });
});

test('required fields and ranges are enforced with 400s naming the field', () => {
  rejects({ max_tokens: 1, messages: [{ role: 'user', content: 'x' }] }, /^model: field required/, 'model');
  rejects(
    { model: 'm', messages: [{ role: 'user', content: 'x' }] },
    /^max_tokens: field required/,
    'max_tokens',
  );
  rejects(minimal({ max_tokens: 0 }), /^max_tokens: must be at least 1/, 'max_tokens');
  rejects(minimal({ max_tokens: 1.5 }), /^max_tokens: expected an integer/, 'max_tokens');
  rejects(minimal({ max_tokens: '10' }), /^max_tokens: expected a number/, 'max_tokens');
  rejects(minimal({ messages: [] }), /^messages: at least one message/, 'messages');
  rejects(minimal({ messages: undefined }), /^messages: field required/, 'messages');
  rejects(minimal({ temperature: 1.5 }), /^temperature: 1.5 is outside \[0, 1\]/, 'temperature');
  rejects(minimal({ top_p: 2 }), /^top_p/, 'top_p');
  rejects(minimal({ top_k: 1.5 }), /^top_k: expected an integer/, 'top_k');
  rejects(minimal({ stop_sequences: 'END' }), /^stop_sequences: expected an array/, 'stop_sequences');
  rejects(minimal({ stream: 'yes' }), /^stream: expected a boolean/, 'stream');
  rejects(
    minimal({ messages: [{ role: 'tool', content: 'x' }] }),
    /^messages.0.role: expected "user" or "assistant"/,
  );
  rejects(minimal({ messages: [{ role: 'user' }] }), /^messages.0.content: field required/);
});

test('blocks are validated: unknown types, bad sources, orphan tool results, bad inputs', () => {
  const user = (content: unknown): unknown => minimal({ messages: [{ role: 'user', content }] });
  rejects(
    user([{ type: 'document', source: {} }]),
    /messages.0.content.0: content block "document" is not supported/,
  );
  rejects(
    user([{ type: 'image', source: { type: 'file', file_id: 'f' } }]),
    /source.type: expected "base64" or "url"/,
  );
  rejects(user([{ type: 'text' }]), /^messages.0.content.0.text: expected a string/);
  rejects(user([{ type: 'text', text: 'x', cache_control: { type: 'persistent' } }]), /cache_control.type/);
  rejects(
    user([{ type: 'tool_result', tool_use_id: 'toolu_x' }]),
    /no earlier tool_use block has id "toolu_x"/,
  );
  rejects(
    minimal({
      messages: [{ role: 'assistant', content: [{ type: 'tool_use', id: 'i', name: 'n', input: [] }] }],
    }),
    /messages.0.content.0.input: expected an object/,
  );
  rejects(minimal({ tools: [{ name: 't' }] }), /^tools.0.input_schema: expected an object/);
  rejects(minimal({ tools: [{ type: 'web_search_20250305', name: 'web_search' }] }), /server tools/);
});

test('content the IR cannot carry is refused, unless the request passes through to a beta upstream', () => {
  const body = {
    model: 'B-1',
    max_tokens: 10,
    tools: [{ type: 'web_search_20250305', name: 'web_search' }],
    messages: [
      {
        role: 'user',
        content: [
          { type: 'document', source: { type: 'text', media_type: 'text/plain', data: 'doc' } },
          { type: 'text', text: 'summarise' },
        ],
      },
    ],
  };
  assert.throws(() => decodeRequest({ body, route: {} }), /not supported/);
  const request = decodeRequest({ body, route: {}, lenient: true });
  assert.deepEqual(request.tools, []);
  assert.deepEqual(request.messages, [{ role: 'user', content: [{ type: 'text', text: 'summarise' }] }]);
});
