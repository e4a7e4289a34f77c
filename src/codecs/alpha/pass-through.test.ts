import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ChatRequest, JsonObject } from '../../ir/index.ts';
import type { ResponseContext } from '../codec.ts';
import { decodeRequest } from './decode-request.ts';
import { passThrough } from './pass-through.ts';
import { fixtureJson, fixtureText } from './test-kit.ts';

const target = { baseUrl: 'http://localhost:8000', apiKey: 'sk-up', model: 'gpt-4o-2024-08-06' };

function request(body: JsonObject): ChatRequest {
  return decodeRequest({ body, route: {} });
}

test('the client body goes up unchanged except the model; streams get include_usage, other options kept', () => {
  const body = fixtureJson('full.request.json') as JsonObject;
  const bodyWithOptions = { ...body, stream_options: { include_usage: false, include_obfuscation: false } };
  const upstream = passThrough.encodeRequest(bodyWithOptions, request(bodyWithOptions), target, {});
  assert.equal(upstream.path, '/v1/chat/completions');
  assert.deepEqual(upstream.headers, { 'content-type': 'application/json', authorization: 'Bearer sk-up' });
  assert.deepEqual(upstream.warnings, []);
  assert.equal(
    upstream.body,
    JSON.stringify({
      ...bodyWithOptions,
      model: 'gpt-4o-2024-08-06',
      stream_options: { include_usage: true, include_obfuscation: false },
    }),
  );
  const plain = {
    model: 'alias',
    messages: [{ role: 'user', content: 'hi' }],
    logit_bias: { '50256': -100 },
  };
  assert.equal(
    passThrough.encodeRequest(plain, request(plain), { ...target, apiKey: undefined }, {}).body,
    '{"model":"gpt-4o-2024-08-06","messages":[{"role":"user","content":"hi"}],"logit_bias":{"50256":-100}}',
  );
});

const context: ResponseContext = { model: 'my-alias', includeUsage: false, legacyFunctions: false };

test('the response body keeps everything but shows the client model (and the spec flat cached_tokens)', () => {
  const body = fixtureJson('text.json') as JsonObject;
  const usage = body.usage as JsonObject;
  assert.deepEqual(passThrough.rewriteResponse(body, context), {
    ...body,
    model: 'my-alias',
    usage: { ...usage, cached_tokens: 1024 },
  });
  // Without a cache hit, or with the flat field already there, the body stays as sent.
  const uncached = { ...body, usage: { ...usage, prompt_tokens_details: { cached_tokens: 0 } } };
  assert.deepEqual(passThrough.rewriteResponse(uncached, context), { ...uncached, model: 'my-alias' });
});

test('the response text: the model renamed in place, else re-encoded (cache hit, odd or duplicate model fields)', () => {
  const uncached = fixtureJson('text.json') as JsonObject;
  uncached.usage = { ...(uncached.usage as JsonObject), prompt_tokens_details: { cached_tokens: 0 } };
  const text = JSON.stringify(uncached, null, 1);
  const renamed = passThrough.rewriteResponseText?.(text, uncached, context);
  assert.ok(renamed !== undefined);
  // Byte for byte the upstream's text (its spacing kept) apart from the model's value.
  assert.equal(renamed, text.replace(`"model": ${JSON.stringify(uncached.model)}`, '"model": "my-alias"'));
  assert.deepEqual(JSON.parse(renamed), passThrough.rewriteResponse(uncached, context));
  // A cache hit needs the flat cached_tokens: re-encoded.
  const cached = fixtureJson('text.json') as JsonObject;
  assert.equal(passThrough.rewriteResponseText?.(JSON.stringify(cached), cached, context), undefined);
  // No model field, a model that is not a string, or two model keys (a parser reads the last).
  for (const odd of [
    '{"id":"x","choices":[]}',
    '{"id":"x","model":7,"choices":[]}',
    '{"model":"a","id":"x","model":"b","choices":[]}',
  ]) {
    const body = JSON.parse(odd) as JsonObject;
    assert.equal(passThrough.rewriteResponseText?.(odd, body, context), undefined, odd);
  }
  // Already the client's name: the text as it came.
  const same = '{"id":"x","model":"my-alias","choices":[]}';
  assert.equal(passThrough.rewriteResponseText?.(same, JSON.parse(same) as JsonObject, context), same);
});

test('stream messages: model renamed without re-encoding, usage chunk dropped unless asked, [DONE] kept', () => {
  const lines = fixtureText('text.chunks.txt').split('\n').filter(Boolean);
  const forward = (line: string, responseContext: ResponseContext): string =>
    passThrough.forwardStreamMessage({ event: undefined, data: line }, responseContext);
  const first = lines[1]!;
  assert.equal(
    forward(first, context),
    `data: ${first.replace('"model":"gpt-4o-2024-08-06"', '"model":"my-alias"')}\n\n`,
  );
  assert.equal(forward(first, { ...context, model: 'gpt-4o-2024-08-06' }), `data: ${first}\n\n`);
  const usageChunk = lines[5]!;
  assert.equal(forward(usageChunk, context), '');
  const withUsage = forward(usageChunk, { ...context, includeUsage: true });
  assert.match(withUsage, /^data: .*"model":"my-alias".*"choices":\[\],"usage":\{/);
  assert.match(withUsage, /"cached_tokens":1024\}\}\n\n$/);
  assert.equal(forward('[DONE]', context), 'data: [DONE]\n\n');
  // Spaced JSON (Python servers) and names that need escaping.
  assert.equal(
    forward('{"id": "x", "model": "org/m\\"1", "choices": [], "usage": null}', { ...context, model: 'a"b' }),
    'data: {"id": "x", "model": "a\\"b", "choices": [], "usage": null}\n\n',
  );
});

test('an output cap the gateway lowered reaches the upstream lowered; a lower one stays', () => {
  const body = { model: 'alias', max_tokens: 32000, messages: [{ role: 'user', content: 'hi' }] };
  const lowered = request(body);
  lowered.sampling.maxOutputTokens = 4096;
  const sent = JSON.parse(passThrough.encodeRequest(body, lowered, target, {}).body) as JsonObject;
  assert.equal(sent.max_tokens, 4096);
  const newer = { model: 'alias', max_completion_tokens: 9000, messages: body.messages };
  const newerRequest = request(newer);
  newerRequest.sampling.maxOutputTokens = 4096;
  const sentNewer = JSON.parse(passThrough.encodeRequest(newer, newerRequest, target, {}).body) as JsonObject;
  assert.equal(sentNewer.max_completion_tokens, 4096);
  const small = { ...body, max_tokens: 100 };
  assert.equal(
    (JSON.parse(passThrough.encodeRequest(small, request(small), target, {}).body) as JsonObject).max_tokens,
    100,
  );
});

test('every chunk names the client model whatever id the upstream answered (a dated one, another one)', () => {
  for (const answered of ['gpt-4o-2024-08-06', 'something-else', 'my-alias']) {
    const chunk = `{"id":"c","object":"chat.completion.chunk","created":1,"model":"${answered}","choices":[{"index":0,"delta":{"content":"\\"model\\":\\"x\\""}}]}`;
    assert.equal(
      passThrough.forwardStreamMessage({ event: undefined, data: chunk }, context),
      `data: ${chunk.replace(`"model":"${answered}"`, '"model":"my-alias"')}\n\n`,
    );
  }
});

test('a client body for a reasoning model goes with max_completion_tokens and without a refused temperature', () => {
  const body: JsonObject = {
    model: 'alias',
    max_tokens: 50,
    temperature: 0.5,
    top_p: 1,
    messages: [{ role: 'user', content: 'hi' }],
  };
  const request = decodeRequest({ body, route: {} });
  const upstream = passThrough.encodeRequest(body, request, { ...target, model: 'o4-mini' });
  assert.deepEqual(JSON.parse(upstream.body), {
    model: 'o4-mini',
    max_completion_tokens: 50,
    top_p: 1,
    messages: [{ role: 'user', content: 'hi' }],
  });
  assert.deepEqual(upstream.warnings, [
    'temperature is not supported by reasoning models (only the default 1) and was dropped',
  ]);
});
