import assert from 'node:assert/strict';
import { test } from 'node:test';
import { GatewayError, type ChatRequest } from '../../ir/index.ts';
import type { UpstreamTarget } from '../codec.ts';
import { decodeRequest } from './decode-request.ts';
import { encodeRequest } from './encode-request.ts';
import { fixtureJson } from './test-kit.ts';

const target: UpstreamTarget = {
  baseUrl: 'https://api.example',
  apiKey: 'sk-upstream',
  model: 'gpt-4o-2024-08-06',
};

function base(overrides: Partial<ChatRequest> = {}): ChatRequest {
  return {
    model: 'client-name',
    system: [],
    messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }],
    tools: [],
    sampling: {},
    stream: false,
    includeUsage: false,
    extensions: {},
    ...overrides,
  };
}

function body(request: ChatRequest): unknown {
  return JSON.parse(encodeRequest(request, target).body);
}

test('the full reference request goes upstream exactly as the fixture says', () => {
  const expected = fixtureJson('full.upstream-request.json') as { body: unknown };
  const request = decodeRequest({ body: fixtureJson('full.request.json'), route: {} });
  const upstream = encodeRequest(request, target);
  // The reference request carries a B cache marker, which an A upstream cannot take.
  assert.deepEqual(
    { ...upstream, body: JSON.parse(upstream.body) },
    {
      ...expected,
      warnings: [
        'cache_control markers have no equivalent for alpha models (they cache repeated prompt prefixes automatically) and were dropped',
      ],
    },
  );
  // Exact text too: key order is part of what an upstream sees.
  assert.equal(upstream.body, JSON.stringify(expected.body));
});

test('a keyless local upstream gets no authorization header; a non-stream has no stream fields', () => {
  const upstream = encodeRequest(base(), { ...target, apiKey: undefined });
  assert.deepEqual(upstream, {
    path: '/v1/chat/completions',
    headers: { 'content-type': 'application/json' },
    body: '{"model":"gpt-4o-2024-08-06","messages":[{"role":"user","content":"hi"}]}',
    warnings: [],
    call: { model: 'gpt-4o-2024-08-06', stream: false, operation: 'chat' },
  });
});

test('streams always ask for usage, even when the client did not', () => {
  assert.deepEqual(body(base({ stream: true, includeUsage: false })), {
    model: 'gpt-4o-2024-08-06',
    messages: [{ role: 'user', content: 'hi' }],
    stream: true,
    stream_options: { include_usage: true },
  });
});

test('other families’ content: url images, errors and images in tool results (moved to a user message), forced tool choice', () => {
  const request = base({
    system: [{ type: 'text', text: 'be brief', cacheControl: { type: 'ephemeral' } }],
    messages: [
      {
        role: 'user',
        content: [{ type: 'image', source: { kind: 'url', url: 'https://x/y.png', mediaType: 'image/png' } }],
      },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'a' },
          { type: 'text', text: 'b' },
          { type: 'tool-call', id: 'toolu_1', name: 'f', arguments: '{}' },
        ],
      },
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            callId: 'toolu_1',
            name: 'f',
            isError: true,
            content: [
              { type: 'text', text: 'line 1' },
              { type: 'image', source: { kind: 'base64', mediaType: 'image/png', data: 'AA==' } },
              { type: 'text', text: 'line 2' },
            ],
          },
        ],
      },
    ],
    tools: [{ name: 'f', parameters: { type: 'object' } }],
    toolChoice: { type: 'tool', name: 'f' },
    parallelToolCalls: false,
  });
  const upstream = encodeRequest(request, target);
  assert.deepEqual(JSON.parse(upstream.body), {
    model: 'gpt-4o-2024-08-06',
    messages: [
      { role: 'system', content: 'be brief' },
      { role: 'user', content: [{ type: 'image_url', image_url: { url: 'https://x/y.png' } }] },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'a' },
          { type: 'text', text: 'b' },
        ],
        tool_calls: [{ id: 'toolu_1', type: 'function', function: { name: 'f', arguments: '{}' } }],
      },
      { role: 'tool', tool_call_id: 'toolu_1', content: 'Error: line 1\nline 2' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Image returned by tool call toolu_1 (f):' },
          { type: 'image_url', image_url: { url: 'data:image/png;base64,AA==' } },
        ],
      },
    ],
    tools: [{ type: 'function', function: { name: 'f', parameters: { type: 'object' } } }],
    tool_choice: { type: 'function', function: { name: 'f' } },
    parallel_tool_calls: false,
  });
  assert.deepEqual(upstream.warnings, [
    'cache_control markers have no equivalent for alpha models (they cache repeated prompt prefixes automatically) and were dropped',
    'alpha models take no images in tool messages: the image from tool call toolu_1 was sent in a user message after the tool results',
  ]);
});

test('sampling table: top_k dropped, temperature clamped to 2, foreign extensions warned, own merged', () => {
  const upstream = encodeRequest(
    base({
      sampling: { topK: 40, temperature: 2.5, maxOutputTokens: 100, candidateCount: 2 },
      extensions: { alpha: { user: 'u', model: 'must-not-override' }, beta: { metadata: { user_id: 'x' } } },
    }),
    target,
  );
  assert.equal(
    upstream.body,
    '{"model":"gpt-4o-2024-08-06","messages":[{"role":"user","content":"hi"}],"max_tokens":100,"temperature":2,"n":2,"user":"u"}',
  );
  assert.deepEqual(upstream.warnings, [
    'metadata has no equivalent for alpha models and was dropped',
    'temperature 2.5 is above the alpha maximum and was clamped to 2',
    'top_k has no equivalent for alpha models and was dropped',
  ]);
});

test('tool_choice and parallel_tool_calls are not sent without tools (A rejects them)', () => {
  assert.deepEqual(body(base({ toolChoice: { type: 'none' }, parallelToolCalls: false })), {
    model: 'gpt-4o-2024-08-06',
    messages: [{ role: 'user', content: 'hi' }],
  });
});

test('more than 4 stop sequences is a 400 naming the numbers', () => {
  assert.throws(
    () => encodeRequest(base({ sampling: { stopSequences: ['1', '2', '3', '4', '5'] } }), target),
    (error: unknown) =>
      error instanceof GatewayError &&
      error.kind === 'invalid_request' &&
      error.param === 'stop' &&
      /at most 4 .* 5 were given/.test(error.message),
  );
});

test('round trip: decoding the encoded body gives back the request', () => {
  const request = base({
    model: target.model,
    system: [{ type: 'text', text: 'sys' }],
    messages: [
      {
        role: 'user',
        content: [
          { type: 'text', text: 'look' },
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
          { type: 'text', text: 'calling' },
          { type: 'tool-call', id: 'call_1', name: 'f', arguments: '{"a":1}' },
        ],
      },
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            callId: 'call_1',
            name: 'f',
            content: [{ type: 'text', text: 'ok' }],
            isError: false,
          },
        ],
      },
      { role: 'user', content: [{ type: 'text', text: 'and?' }] },
    ],
    tools: [
      {
        name: 'f',
        description: 'does f',
        parameters: { type: 'object', properties: { a: { type: 'number' } } },
        strict: false,
      },
    ],
    toolChoice: { type: 'required' },
    parallelToolCalls: true,
    sampling: {
      maxOutputTokens: 256,
      temperature: 0.2,
      topP: 0.9,
      stopSequences: ['##'],
      presencePenalty: 0.5,
      frequencyPenalty: -0.5,
      seed: 7,
      candidateCount: 2,
    },
    stream: true,
    includeUsage: true,
    extensions: { alpha: { logprobs: true, top_logprobs: 2 } },
  });
  assert.deepEqual(decodeRequest({ body: body(request), route: {} }), request);
});

test('a reasoning model gets max_completion_tokens; a non-default temperature or top_p is dropped, said', () => {
  const request = base({ sampling: { maxOutputTokens: 100, temperature: 0.2, topP: 1, seed: 7 } });
  for (const reasoning of [
    { model: 'o3-mini' },
    { model: 'gpt-5' },
    { model: 'my-thinker', reasoning: true },
  ]) {
    const upstream = encodeRequest(request, { ...target, ...reasoning });
    assert.deepEqual(JSON.parse(upstream.body), {
      model: reasoning.model,
      messages: [{ role: 'user', content: 'hi' }],
      max_completion_tokens: 100,
      seed: 7,
    });
    assert.deepEqual(upstream.warnings, [
      'temperature is not supported by reasoning models (only the default 1) and was dropped',
    ]);
  }
  const plain = JSON.parse(encodeRequest(request, target).body) as Record<string, unknown>;
  assert.equal(plain.max_tokens, 100);
  assert.equal(plain.temperature, 0.2);
});

test('the call says the upstream model, whether it streams and that it is a chat', () => {
  assert.deepEqual(encodeRequest(base({ stream: true }), target).call, {
    model: 'gpt-4o-2024-08-06',
    stream: true,
    operation: 'chat',
  });
});
