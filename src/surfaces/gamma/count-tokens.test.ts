import assert from 'node:assert/strict';
import { test } from 'node:test';
import { tokenCounting } from './count-tokens.ts';

const target = { baseUrl: 'https://c.example', apiKey: 'sk-up', model: 'c-big-001' };

test('both request forms decode: {contents} and {generateContentRequest}', () => {
  const simple = tokenCounting.decodeRequest({
    body: { contents: [{ role: 'user', parts: [{ text: 'Hi' }] }] },
    route: { model: 'C-1', countTokens: true },
  });
  assert.equal(simple.model, 'C-1');
  const full = tokenCounting.decodeRequest({
    body: {
      generateContentRequest: {
        model: 'models/C-1',
        contents: [{ role: 'user', parts: [{ text: 'Hi' }] }],
        systemInstruction: { parts: [{ text: 'Be brief.' }] },
      },
    },
    route: { model: 'C-1', countTokens: true },
  });
  assert.equal(full.system[0]?.text, 'Be brief.');
});

test('the full request form in snake_case (generate_content_request) decodes and goes upstream as written', () => {
  const body = {
    generate_content_request: {
      model: 'models/C-1',
      contents: [{ role: 'user', parts: [{ text: 'Hi' }] }],
      system_instruction: { parts: [{ text: 'Be brief.' }] },
    },
  };
  const request = tokenCounting.decodeRequest({ body, route: { model: 'C-1', countTokens: true } });
  assert.equal(request.system[0]?.text, 'Be brief.');
  const upstream = tokenCounting.encodeUpstreamRequest(body, request, target, {});
  assert.deepEqual(JSON.parse(upstream.body), {
    generate_content_request: { ...body.generate_content_request, model: 'models/c-big-001' },
  });
  assert.throws(
    () =>
      tokenCounting.decodeRequest({
        body: { ...body, generateContentRequest: body.generate_content_request },
        route: { model: 'C-1', countTokens: true },
      }),
    /given twice/,
  );
});

test('the answer has totalTokens and the modalities; the upstream form is read back', () => {
  assert.deepEqual(tokenCounting.encodeResponse({ inputTokens: 300, imageTokens: 258 }), {
    totalTokens: 300,
    promptTokensDetails: [
      { modality: 'TEXT', tokenCount: 42 },
      { modality: 'IMAGE', tokenCount: 258 },
    ],
  });
  assert.deepEqual(
    tokenCounting.decodeUpstreamResponse({
      totalTokens: 300,
      promptTokensDetails: [{ modality: 'IMAGE', tokenCount: 258 }],
    }),
    { inputTokens: 300, imageTokens: 258 },
  );
  // proto3 JSON leaves a zero out.
  assert.deepEqual(tokenCounting.decodeUpstreamResponse({}), { inputTokens: 0, imageTokens: 0 });
  assert.throws(() => tokenCounting.decodeUpstreamResponse({ totalTokens: 'x' }), /cannot read/);
});

test('same family: the client body goes to :countTokens, the full form naming the upstream model', () => {
  const body = { generateContentRequest: { model: 'models/C-1', contents: [{ parts: [{ text: 'Hi' }] }] } };
  const request = tokenCounting.decodeRequest({ body, route: { model: 'C-1' } });
  const sent = tokenCounting.encodeUpstreamRequest(body, request, target, {});
  assert.equal(sent.path, '/v1/models/c-big-001:countTokens');
  assert.equal(sent.headers['x-gamma-api-key'], 'sk-up');
  assert.deepEqual(JSON.parse(sent.body), {
    generateContentRequest: { model: 'models/c-big-001', contents: [{ parts: [{ text: 'Hi' }] }] },
  });
});
