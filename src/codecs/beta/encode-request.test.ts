import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import type { UpstreamTarget } from '../codec.ts';
import { GatewayError, type ChatRequest } from '../../ir/index.ts';
import { decodeRequest } from './decode-request.ts';
import { encodeRequest } from './encode-request.ts';
import { fixture } from './test-kit.ts';

const target: UpstreamTarget = { baseUrl: 'https://b.example', apiKey: 'sk-upstream', model: 'b-1-20250101' };

function ir(overrides: Partial<ChatRequest> = {}): ChatRequest {
  return {
    model: 'client-name',
    system: [],
    messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }],
    tools: [],
    sampling: { maxOutputTokens: 64 },
    stream: false,
    includeUsage: false,
    extensions: {},
    ...overrides,
  };
}

function body(request: ChatRequest): Record<string, unknown> {
  return JSON.parse(encodeRequest(request, target).body) as Record<string, unknown>;
}

test('the reference request goes upstream exactly as the fixture says', () => {
  const request = decodeRequest({ body: fixture('request-full.json'), route: {} });
  const upstream = encodeRequest(request, target);
  const expected = fixture('request-full.upstream-request.json') as Record<string, unknown>;
  assert.deepEqual({ ...upstream, body: JSON.parse(upstream.body) }, expected);
});

test('minimal request: path, headers, body text', () => {
  const upstream = encodeRequest(ir(), target);
  assert.equal(upstream.path, '/v1/messages');
  assert.deepEqual(upstream.headers, {
    'x-api-key': 'sk-upstream',
    'beta-version': '2023-06-01',
    'content-type': 'application/json',
  });
  assert.equal(
    upstream.body,
    '{"model":"b-1-20250101","max_tokens":64,"messages":[{"role":"user","content":[{"type":"text","text":"hi"}]}]}',
  );
  assert.deepEqual(upstream.warnings, []);
});

test('no key → no x-api-key header', () => {
  const upstream = encodeRequest(ir(), { ...target, apiKey: undefined });
  assert.deepEqual(Object.keys(upstream.headers), ['beta-version', 'content-type']);
});

test('max_tokens is required', () => {
  assert.throws(
    () => encodeRequest(ir({ sampling: {} }), target),
    (error: unknown) => error instanceof Error && 'kind' in error && error.kind === 'invalid_request',
  );
});

test('A-shaped history: tool results merge into the next user turn first, same roles merge, empties drop', () => {
  const request = ir({
    system: [
      { type: 'text', text: 'one' },
      { type: 'text', text: '' },
    ],
    messages: [
      { role: 'user', content: [{ type: 'text', text: 'weather?' }] },
      {
        role: 'user',
        content: [{ type: 'image', source: { kind: 'url', url: 'data:image/png;base64,AAAA' } }],
      },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: '' },
          { type: 'tool-call', id: 'call.1', name: 'get_w', arguments: '{"city":"Paris"}' },
          { type: 'tool-call', id: 'call_2', name: 'get_t', arguments: '' },
        ],
      },
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            callId: 'call.1',
            name: 'get_w',
            content: [{ type: 'text', text: '18C' }],
            isError: false,
          },
        ],
      },
      {
        role: 'tool',
        content: [{ type: 'tool-result', callId: 'call_2', name: 'get_t', content: [], isError: true }],
      },
      { role: 'user', content: [{ type: 'text', text: 'thanks' }] },
      { role: 'assistant', content: [{ type: 'text', text: ' ' }] },
    ],
  });
  assert.deepEqual(body(request), {
    model: 'b-1-20250101',
    max_tokens: 64,
    system: 'one',
    messages: [
      {
        role: 'user',
        content: [
          { type: 'text', text: 'weather?' },
          { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'AAAA' } },
        ],
      },
      {
        role: 'assistant',
        content: [
          { type: 'tool_use', id: 'call_1', name: 'get_w', input: { city: 'Paris' } },
          { type: 'tool_use', id: 'call_2', name: 'get_t', input: {} },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'call_1', content: '18C' },
          { type: 'tool_result', tool_use_id: 'call_2', is_error: true },
          { type: 'text', text: 'thanks' },
        ],
      },
    ],
  });
});

function markedRequest(marked: ReadonlySet<string>): ChatRequest {
  const marker = { type: 'ephemeral' as const };
  const mark = (name: string): { cacheControl?: { type: 'ephemeral' } } =>
    marked.has(name) ? { cacheControl: marker } : {};
  return ir({
    system: [
      {
        type: 'text',
        text: 's',
        ...(marked.has('system') ? { cacheControl: { type: 'ephemeral', ttl: '1h' } } : {}),
      },
    ],
    messages: [
      {
        role: 'user',
        content: [
          {
            type: 'image',
            source: { kind: 'base64', mediaType: 'image/gif', data: 'R0lG' },
            ...mark('image'),
          },
        ],
      },
      {
        role: 'assistant',
        content: [{ type: 'tool-call', id: 't1', name: 'f', arguments: '{}', ...mark('tool_use') }],
      },
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            callId: 't1',
            name: 'f',
            content: [{ type: 'text', text: 'r', ...mark('content') }],
            isError: false,
            ...mark('tool_result'),
          },
        ],
      },
    ],
    tools: [{ name: 'f', parameters: { type: 'object' }, ...mark('tools') }],
  });
}

test('cache markers are kept on system, text, image, tool_use, tool_result, tool result content and tools', () => {
  const marker = { type: 'ephemeral' as const };
  // Two requests: B allows four breakpoints per request.
  const encoded = body(markedRequest(new Set(['system', 'image', 'tool_result', 'tools'])));
  const second = body(markedRequest(new Set(['tool_use', 'content'])));
  assert.deepEqual(encoded.system, [
    { type: 'text', text: 's', cache_control: { type: 'ephemeral', ttl: '1h' } },
  ]);
  assert.deepEqual(encoded.messages, [
    {
      role: 'user',
      content: [
        {
          type: 'image',
          source: { type: 'base64', media_type: 'image/gif', data: 'R0lG' },
          cache_control: marker,
        },
      ],
    },
    {
      role: 'assistant',
      content: [{ type: 'tool_use', id: 't1', name: 'f', input: {} }],
    },
    {
      role: 'user',
      content: [
        {
          type: 'tool_result',
          tool_use_id: 't1',
          content: 'r',
          cache_control: marker,
        },
      ],
    },
  ]);
  assert.deepEqual(encoded.tools, [{ name: 'f', input_schema: { type: 'object' }, cache_control: marker }]);
  assert.deepEqual((second.messages as unknown[]).slice(1), [
    {
      role: 'assistant',
      content: [{ type: 'tool_use', id: 't1', name: 'f', input: {}, cache_control: marker }],
    },
    {
      role: 'user',
      content: [
        {
          type: 'tool_result',
          tool_use_id: 't1',
          content: [{ type: 'text', text: 'r', cache_control: marker }],
        },
      ],
    },
  ]);
});

test('more than 4 cache breakpoints (the beta limit, top-level automatic caching included) is a 400', () => {
  const all = new Set(['system', 'image', 'tool_use', 'tool_result', 'content']);
  assert.throws(
    () => encodeRequest(markedRequest(all), target),
    (error: unknown) =>
      error instanceof GatewayError &&
      error.kind === 'invalid_request' &&
      error.message ===
        'cache_control: beta models accept at most 4 cache breakpoints per request, 5 were given',
  );
  const four = markedRequest(new Set(['system', 'image', 'tool_use', 'tool_result']));
  assert.doesNotThrow(() => encodeRequest(four, target));
  four.extensions = { beta: { cache_control: { type: 'ephemeral' } } };
  assert.throws(() => encodeRequest(four, target), /at most 4 cache breakpoints per request, 5 were given/);
});

test('sampling: clamp temperature, drop penalties and seed with warnings, ignore candidateCount', () => {
  const upstream = encodeRequest(
    ir({
      sampling: {
        maxOutputTokens: 10,
        temperature: 1.7,
        topP: 0.9,
        topK: 5,
        stopSequences: ['a', 'b', 'c', 'd', 'e', 'f'],
        presencePenalty: 0.5,
        frequencyPenalty: 0.1,
        seed: 7,
        candidateCount: 3,
      },
    }),
    target,
  );
  const encoded = JSON.parse(upstream.body) as Record<string, unknown>;
  assert.equal(encoded.temperature, 1);
  assert.equal(encoded.top_p, 0.9);
  assert.equal(encoded.top_k, 5);
  assert.deepEqual(encoded.stop_sequences, ['a', 'b', 'c', 'd', 'e', 'f']);
  assert.equal('seed' in encoded || 'n' in encoded || 'presence_penalty' in encoded, false);
  assert.deepEqual(upstream.warnings, [
    'temperature 1.7 is above the beta maximum of 1 and was clamped to 1',
    'presence_penalty has no equivalent for beta models and was dropped',
    'frequency_penalty has no equivalent for beta models and was dropped',
    'seed has no equivalent for beta models and was dropped',
  ]);
});

test('tool_choice and parallel calls', () => {
  const tools = [{ name: 'f', parameters: { type: 'object' } }];
  const choice = (request: Partial<ChatRequest>): unknown => body(ir({ tools, ...request })).tool_choice;
  assert.equal(choice({}), undefined);
  assert.deepEqual(choice({ toolChoice: { type: 'required' } }), { type: 'any' });
  assert.deepEqual(choice({ toolChoice: { type: 'none' }, parallelToolCalls: false }), { type: 'none' });
  assert.deepEqual(choice({ toolChoice: { type: 'tool', name: 'f' }, parallelToolCalls: false }), {
    type: 'tool',
    name: 'f',
    disable_parallel_tool_use: true,
  });
  assert.deepEqual(choice({ parallelToolCalls: false }), { type: 'auto', disable_parallel_tool_use: true });
  assert.equal(body(ir({ toolChoice: { type: 'none' } })).tool_choice, undefined);
});

test("own extensions merge without overriding; other families' extensions are dropped with warnings", () => {
  const upstream = encodeRequest(
    ir({
      stream: true,
      extensions: {
        beta: { metadata: { user_id: 'u' }, model: 'evil', max_tokens: 1 },
        alpha: { user: 'u', logprobs: true },
      },
    }),
    target,
  );
  const encoded = JSON.parse(upstream.body) as Record<string, unknown>;
  assert.equal(encoded.model, 'b-1-20250101');
  assert.equal(encoded.max_tokens, 64);
  assert.equal(encoded.stream, true);
  assert.deepEqual(encoded.metadata, { user_id: 'u' });
  assert.deepEqual(upstream.warnings, [
    'user has no equivalent for beta models and was dropped',
    'logprobs has no equivalent for beta models and was dropped',
  ]);
});

test('invalid tool arguments are a 400 naming the field', () => {
  const request = ir({
    messages: [
      { role: 'assistant', content: [{ type: 'tool-call', id: 'c', name: 'f', arguments: '{"a":' }] },
    ],
  });
  assert.throws(
    () => encodeRequest(request, target),
    (error: unknown) =>
      error instanceof Error && 'param' in error && error.param === 'messages.0.content.0.arguments',
  );
});

test('a tool call whose result is missing from the next message is a clear 400 (B needs every call answered)', () => {
  const call = { type: 'tool-call' as const, id: 't1', name: 'f', arguments: '{}' };
  const unanswered = ir({
    messages: [
      { role: 'user', content: [{ type: 'text', text: 'go' }] },
      { role: 'assistant', content: [call] },
      { role: 'user', content: [{ type: 'text', text: 'never mind' }] },
    ],
  });
  assert.throws(
    () => encodeRequest(unanswered, target),
    /tool call t1 \(f\) has no result in the next message/,
  );
  // A trailing call (a prefill) is the upstream's to judge.
  const trailing = ir({
    messages: [
      { role: 'user', content: [{ type: 'text', text: 'go' }] },
      { role: 'assistant', content: [call] },
    ],
  });
  assert.doesNotThrow(() => encodeRequest(trailing, target));
});

test('round trip: decodeRequest(encodeRequest(ir).body) keeps a representative IR', () => {
  const original = decodeRequest({ body: fixture('request-full.json'), route: {} });
  const again = decodeRequest({ body: JSON.parse(encodeRequest(original, target).body), route: {} });
  assert.deepEqual(again, { ...original, model: target.model });
});

test('round trip holds for generated text conversations', () => {
  const text = fc.string({ minLength: 1 }).filter((value) => value.trim() !== '');
  fc.assert(
    fc.property(
      fc.array(fc.tuple(fc.constantFrom('user' as const, 'assistant' as const), text), {
        minLength: 1,
        maxLength: 6,
      }),
      fc.option(fc.double({ min: 0, max: 1, noNaN: true }), { nil: undefined }),
      (turns, temperature) => {
        // Alternating roles (B merges same-role neighbours, which the IR would then see merged).
        const messages = turns
          .filter((turn, position) => position === 0 || turn[0] !== turns[position - 1]?.[0])
          .map(([role, value]) => ({ role, content: [{ type: 'text' as const, text: value }] }));
        const original = ir({
          messages,
          sampling: temperature === undefined ? { maxOutputTokens: 5 } : { maxOutputTokens: 5, temperature },
        });
        const again = decodeRequest({ body: JSON.parse(encodeRequest(original, target).body), route: {} });
        assert.deepEqual(again, { ...original, model: target.model });
      },
    ),
  );
});
