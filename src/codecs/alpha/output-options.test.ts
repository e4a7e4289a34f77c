/** response_format and reasoning_effort ↔ canonical, on the A codec. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { GatewayError, type ChatRequest } from '../../ir/index.ts';
import type { UpstreamTarget } from '../codec.ts';
import { decodeRequest } from './decode-request.ts';
import { encodeRequest } from './encode-request.ts';

const target: UpstreamTarget = { baseUrl: 'https://a.example', apiKey: 'k', model: 'a-1' };
const messages = [{ role: 'user', content: 'hi' }];

function encode(request: ChatRequest): { body: Record<string, unknown>; warnings: string[] } {
  const upstream = encodeRequest(request, target);
  return { body: JSON.parse(upstream.body) as Record<string, unknown>, warnings: upstream.warnings };
}

test('response_format and reasoning_effort decode to canonical and encode back unchanged', () => {
  const format = {
    type: 'json_schema',
    json_schema: { name: 'p', description: 'd', schema: { type: 'object' }, strict: true },
  };
  const request = decodeRequest({
    body: { model: 'm', messages, response_format: format, reasoning_effort: 'minimal' },
    route: {},
  });
  assert.deepEqual(request.responseFormat, {
    type: 'json-schema',
    name: 'p',
    description: 'd',
    schema: { type: 'object' },
    strict: true,
  });
  assert.deepEqual(request.reasoning, { effort: 'minimal' });
  assert.deepEqual(request.extensions, {});
  const { body } = encode(request);
  assert.deepEqual(body.response_format, format);
  assert.equal(body.reasoning_effort, 'minimal');
  const json = decodeRequest({
    body: { model: 'm', messages, response_format: { type: 'json_object' } },
    route: {},
  });
  assert.deepEqual(encode(json).body.response_format, { type: 'json_object' });
  const text = decodeRequest({
    body: { model: 'm', messages, response_format: { type: 'text' } },
    route: {},
  });
  assert.equal(text.responseFormat, undefined);
});

test('bad values are 400s naming the field; same-family, unknown ones ride along for the upstream', () => {
  const bad = (body: Record<string, unknown>, param: string): void => {
    assert.throws(
      () => decodeRequest({ body: { model: 'm', messages, ...body }, route: {} }),
      (error: unknown) => error instanceof GatewayError && error.param === param,
    );
  };
  bad({ response_format: { type: 'grammar' } }, 'response_format.type');
  bad(
    { response_format: { type: 'json_schema', json_schema: { schema: {} } } },
    'response_format.json_schema.name',
  );
  bad({ reasoning_effort: 'huge' }, 'reasoning_effort');
  const lenient = decodeRequest({
    body: {
      model: 'm',
      messages,
      response_format: { type: 'grammar', grammar: 'g' },
      reasoning_effort: 'huge',
    },
    route: {},
    lenient: true,
  });
  assert.deepEqual(lenient.extensions.alpha, {
    response_format: { type: 'grammar', grammar: 'g' },
    reasoning_effort: 'huge',
  });
  assert.equal(encode(lenient).body.reasoning_effort, 'huge');
});

test('a schema from B or C gets a name; a budget alone is not an effort (warned)', () => {
  const request: ChatRequest = {
    model: 'm',
    system: [],
    messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }],
    tools: [],
    sampling: {},
    responseFormat: { type: 'json-schema', schema: { type: 'object' } },
    reasoning: { budgetTokens: 2048 },
    stream: false,
    includeUsage: false,
    extensions: {},
  };
  const { body, warnings } = encode(request);
  assert.deepEqual(body.response_format, {
    type: 'json_schema',
    json_schema: { name: 'response', schema: { type: 'object' } },
  });
  assert.equal(body.reasoning_effort, undefined);
  assert.deepEqual(warnings, ['a thinking budget has no equivalent for alpha models and was dropped']);
});
