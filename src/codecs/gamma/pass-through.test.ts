import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ChatRequest } from '../../ir/index.ts';
import { gammaCodec } from '../../surfaces/gamma/index.ts';
import { loadJson } from './test-kit.ts';

const request: ChatRequest = {
  model: 'client-name',
  system: [],
  messages: [],
  tools: [],
  sampling: {},
  stream: true,
  includeUsage: false,
  extensions: {},
};

test('the client body goes upstream byte-for-byte; only path model and credential change', () => {
  const body = loadJson('client-request.json') as Record<string, never>;
  const upstream = gammaCodec.passThrough.encodeRequest(body, request, {
    baseUrl: 'https://upstream.invalid',
    apiKey: 'sk-up',
    model: 'm-001',
  });
  assert.equal(upstream.path, '/v1/models/m-001:streamGenerateContent?alt=sse');
  assert.deepEqual(upstream.headers, { 'content-type': 'application/json', 'x-gamma-api-key': 'sk-up' });
  assert.equal(upstream.body, JSON.stringify(body));
  assert.deepEqual(upstream.warnings, []);
});

test('responses and stream messages come back as the upstream sent them, modelVersion naming the client model', () => {
  const body = loadJson('function-call.json') as Record<string, never>;
  const context = { model: 'client-name', includeUsage: false, legacyFunctions: false };
  const sent = loadJson('function-call.json') as Record<string, unknown>;
  assert.deepEqual(gammaCodec.passThrough.rewriteResponse(body, context), {
    ...sent,
    ...(sent.modelVersion === undefined ? {} : { modelVersion: 'client-name' }),
  });
  const forward = (data: string): string =>
    gammaCodec.passThrough.forwardStreamMessage({ event: undefined, data }, context);
  assert.equal(forward('{"candidates":[]}'), 'data: {"candidates":[]}\n\n');
  assert.equal(
    forward(
      '{"candidates":[{"content":{"parts":[{"text":"\\"modelVersion\\":\\"x\\""}]}}],"modelVersion":"m-001-2025"}',
    ),
    'data: {"candidates":[{"content":{"parts":[{"text":"\\"modelVersion\\":\\"x\\""}]}}],"modelVersion":"client-name"}\n\n',
  );
});

test('an output cap the gateway lowered reaches the upstream lowered', () => {
  const body = {
    contents: [{ role: 'user', parts: [{ text: 'hi' }] }],
    generationConfig: { maxOutputTokens: 65536, topK: 3 },
  };
  const lowered: ChatRequest = { ...request, sampling: { maxOutputTokens: 8192 } };
  const target = { baseUrl: 'https://upstream.invalid', apiKey: 'sk-up', model: 'm-001' };
  assert.equal(
    gammaCodec.passThrough.encodeRequest(body, lowered, target).body,
    JSON.stringify({ ...body, generationConfig: { maxOutputTokens: 8192, topK: 3 } }),
  );
  const within = { ...body, generationConfig: { maxOutputTokens: 10 } };
  assert.equal(gammaCodec.passThrough.encodeRequest(within, lowered, target).body, JSON.stringify(within));
});

test('a content without a role goes upstream as the user turn it means (Vertex AI refuses it without)', () => {
  const body = {
    contents: [
      { parts: [{ text: 'hi' }] },
      { role: 'model', parts: [{ text: 'yes' }] },
      { parts: [{ text: 'and?' }] },
    ],
  };
  const target = { baseUrl: 'https://upstream.invalid', apiKey: 'sk-up', model: 'm-001' };
  const sent = JSON.parse(gammaCodec.passThrough.encodeRequest(body, request, target).body) as typeof body;
  assert.deepEqual(
    sent.contents.map((content) => ('role' in content ? content.role : undefined)),
    ['user', 'model', 'user'],
  );
});
