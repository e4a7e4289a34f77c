/** Structured output and thinking on a B upstream: the fields B takes, within B's own rules. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ChatRequest } from '../../ir/index.ts';
import type { UpstreamTarget } from '../codec.ts';
import { decodeRequest } from './decode-request.ts';
import { encodeRequest } from './encode-request.ts';

const target: UpstreamTarget = { baseUrl: 'https://b.example', apiKey: 'sk-upstream', model: 'b-1' };
const schema = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] };

function ir(overrides: Partial<ChatRequest>): ChatRequest {
  return {
    model: 'm',
    system: [],
    messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }],
    tools: [],
    sampling: { maxOutputTokens: 8192 },
    stream: false,
    includeUsage: false,
    extensions: {},
    ...overrides,
  };
}

function encode(request: ChatRequest): { body: Record<string, unknown>; warnings: string[] } {
  const upstream = encodeRequest(request, target);
  return { body: JSON.parse(upstream.body) as Record<string, unknown>, warnings: upstream.warnings };
}

test('a JSON schema becomes output_config.format; "any JSON object" is the object schema', () => {
  const named = encode(ir({ responseFormat: { type: 'json-schema', name: 'place', schema, strict: true } }));
  assert.deepEqual(named.body.output_config, { format: { type: 'json_schema', schema } });
  assert.deepEqual(named.warnings, []);
  const any = encode(ir({ responseFormat: { type: 'json' } }));
  assert.deepEqual(any.body.output_config, { format: { type: 'json_schema', schema: { type: 'object' } } });
});

test('a B client’s own output_config options stay beside the format, through a decode and encode', () => {
  const request = decodeRequest({
    body: {
      model: 'm',
      max_tokens: 2048,
      messages: [{ role: 'user', content: 'hi' }],
      output_config: { format: { type: 'json_schema', schema }, effort: 'low' },
      thinking: { type: 'enabled', budget_tokens: 1500 },
    },
    route: {},
  });
  const { body, warnings } = encode(request);
  assert.deepEqual(body.output_config, { effort: 'low', format: { type: 'json_schema', schema } });
  assert.deepEqual(body.thinking, { type: 'enabled', budget_tokens: 1500 });
  assert.deepEqual(warnings, []);
});

test('an effort is a thinking budget from the output cap, below max_tokens', () => {
  assert.deepEqual(encode(ir({ reasoning: { effort: 'medium' } })).body.thinking, {
    type: 'enabled',
    budget_tokens: 2048,
  });
  assert.deepEqual(encode(ir({ reasoning: { effort: 'max' } })).body.thinking, {
    type: 'enabled',
    budget_tokens: 6144,
  });
  assert.equal(encode(ir({ reasoning: { effort: 'none' } })).body.thinking, undefined);
});

test('a budget from another family is kept between 1024 and max_tokens; 0 turns thinking off', () => {
  const big = ir({ reasoning: { budgetTokens: 50_000 }, sampling: { maxOutputTokens: 4000 } });
  assert.deepEqual(encode(big).body.thinking, { type: 'enabled', budget_tokens: 3999 });
  const small = ir({ reasoning: { budgetTokens: 200 } });
  assert.deepEqual(encode(small).body.thinking, { type: 'enabled', budget_tokens: 1024 });
  assert.deepEqual(encode(ir({ reasoning: { budgetTokens: 0 } })).body.thinking, { type: 'disabled' });
});

test('no room or a forced tool: thinking stays off, with a warning', () => {
  const tight = encode(ir({ reasoning: { effort: 'high' }, sampling: { maxOutputTokens: 1000 } }));
  assert.equal(tight.body.thinking, undefined);
  assert.match(tight.warnings.join(), /reasoning needs max_tokens above 1024 on beta models/);
  const forced = encode(
    ir({
      reasoning: { effort: 'high' },
      tools: [{ name: 'f', parameters: { type: 'object' } }],
      toolChoice: { type: 'required' },
    }),
  );
  assert.equal(forced.body.thinking, undefined);
  assert.match(forced.warnings.join(), /cannot think while a tool choice forces a call/);
});

test('with thinking on, what B refuses beside it is dropped and named', () => {
  const { body, warnings } = encode(
    ir({
      reasoning: { effort: 'low' },
      sampling: { maxOutputTokens: 8192, temperature: 0.2, topK: 5, topP: 0.5 },
    }),
  );
  assert.equal(body.temperature, undefined);
  assert.equal(body.top_k, undefined);
  assert.equal(body.top_p, undefined);
  assert.equal(warnings.length, 3);
  const kept = encode(
    ir({ reasoning: { effort: 'low' }, sampling: { maxOutputTokens: 8192, temperature: 1, topP: 0.97 } }),
  );
  assert.equal(kept.body.temperature, 1);
  assert.equal(kept.body.top_p, 0.97);
});
