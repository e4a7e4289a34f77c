import assert from 'node:assert/strict';
import { test } from 'node:test';
import { tokenCounting } from './count-tokens.ts';

const target = { baseUrl: 'https://b.example', apiKey: 'sk-up', model: 'b-big-1' };

test('the count body (no max_tokens) decodes; the answer is {input_tokens}', () => {
  const request = tokenCounting.decodeRequest({
    body: { model: 'B-1', system: 'Be brief.', messages: [{ role: 'user', content: 'Hi' }] },
    route: { countTokens: true },
    lenient: true,
  });
  assert.equal(request.model, 'B-1');
  assert.equal(request.system[0]?.text, 'Be brief.');
  assert.deepEqual(tokenCounting.encodeResponse({ inputTokens: 12, imageTokens: 0 }), { input_tokens: 12 });
});

test('same family: the client body goes to the upstream count endpoint with its model, key and version', () => {
  const body = { model: 'B-1', messages: [{ role: 'user', content: 'Hi' }] };
  const request = tokenCounting.decodeRequest({ body, route: {}, lenient: true });
  const sent = tokenCounting.encodeUpstreamRequest(body, request, target, {
    'anthropic-version': '2023-06-01',
  });
  assert.equal(sent.path, '/v1/messages/count_tokens');
  assert.equal(sent.body, JSON.stringify({ ...body, model: 'b-big-1' }));
  assert.equal(sent.headers['x-api-key'], 'sk-up');
  assert.equal(sent.headers['beta-version'], '2023-06-01');
  assert.deepEqual(tokenCounting.decodeUpstreamResponse({ input_tokens: 7 }), {
    inputTokens: 7,
    imageTokens: 0,
  });
  for (const bad of [{}, { input_tokens: -1 }, { input_tokens: '7' }, null])
    assert.throws(() => tokenCounting.decodeUpstreamResponse(bad), /cannot read/);
});
