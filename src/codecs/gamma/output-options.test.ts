/** Structured output and thinking on a C upstream: responseMimeType + responseSchema, thinkingBudget. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { GatewayError, type ChatRequest } from '../../ir/index.ts';
import type { UpstreamTarget } from '../codec.ts';
import { decodeRequest } from './decode-request.ts';
import { encodeRequest } from './encode-request.ts';

const target: UpstreamTarget = { baseUrl: 'https://c.example', apiKey: 'k', model: 'c-1' };

function ir(overrides: Partial<ChatRequest>): ChatRequest {
  return {
    model: 'm',
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

function config(request: ChatRequest): Record<string, unknown> {
  const body = JSON.parse(encodeRequest(request, target).body) as {
    generationConfig?: Record<string, unknown>;
  };
  return body.generationConfig ?? {};
}

test('a JSON schema becomes responseMimeType + responseSchema in C’s schema dialect', () => {
  const schema = {
    type: 'object',
    properties: { city: { type: 'string' }, size: { type: ['integer', 'null'] } },
    required: ['city', 'size'],
    additionalProperties: false,
  };
  assert.deepEqual(
    config(ir({ responseFormat: { type: 'json-schema', name: 'place', schema, strict: true } })),
    {
      responseMimeType: 'application/json',
      responseSchema: {
        type: 'OBJECT',
        properties: { city: { type: 'STRING' }, size: { type: 'INTEGER', nullable: true } },
        required: ['city', 'size'],
      },
    },
  );
  assert.deepEqual(config(ir({ responseFormat: { type: 'json' } })), {
    responseMimeType: 'application/json',
  });
});

test('a schema C cannot state is a 400 naming response_format.schema', () => {
  assert.throws(
    () =>
      config(
        ir({ responseFormat: { type: 'json-schema', schema: { type: 'array', items: { type: 'string' } } } }),
      ),
    (error: unknown) =>
      error instanceof GatewayError && (error.param ?? '').startsWith('response_format.schema'),
  );
});

test('an effort is a thinkingBudget from the output cap (32,768 without one); none is 0', () => {
  assert.deepEqual(config(ir({ reasoning: { effort: 'medium' }, sampling: { maxOutputTokens: 8192 } })), {
    maxOutputTokens: 8192,
    thinkingConfig: { thinkingBudget: 2048 },
  });
  assert.deepEqual(config(ir({ reasoning: { effort: 'high' } })), {
    thinkingConfig: { thinkingBudget: 16384 },
  });
  assert.deepEqual(config(ir({ reasoning: { effort: 'none' } })), { thinkingConfig: { thinkingBudget: 0 } });
  assert.deepEqual(config(ir({ reasoning: { budgetTokens: 3000 } })), {
    thinkingConfig: { thinkingBudget: 3000 },
  });
});

test('a C client’s request survives decode and encode: schema, budget, includeThoughts', () => {
  const request = decodeRequest({
    body: {
      contents: [{ role: 'user', parts: [{ text: 'hi' }] }],
      generationConfig: {
        responseMimeType: 'application/json',
        responseSchema: { type: 'OBJECT', properties: { a: { type: 'STRING' } } },
        thinkingConfig: { thinkingBudget: 1024, includeThoughts: true },
      },
    },
    route: { model: 'm' },
  });
  assert.deepEqual(config(request), {
    responseMimeType: 'application/json',
    responseSchema: { type: 'OBJECT', properties: { a: { type: 'STRING' } } },
    thinkingConfig: { includeThoughts: true, thinkingBudget: 1024 },
  });
});
