import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { UpstreamCall, UpstreamRequest } from '../codecs/codec.ts';
import type { UpstreamResponse, UpstreamTransport } from '../upstream/transport.ts';
import { buildProvider, presetNames } from './registry.ts';

/** An HTTP client that records what it was asked to send. */
function recordingHttp(): { http: UpstreamTransport; sent: { baseUrl: string; request: UpstreamRequest }[] } {
  const sent: { baseUrl: string; request: UpstreamRequest }[] = [];
  const http: UpstreamTransport = {
    send(baseUrl, request) {
      sent.push({ baseUrl, request });
      const response: UpstreamResponse = {
        status: 200,
        headers: {},
        body: (async function* () {})(),
        text: () => Promise.resolve('{}'),
        cancel: () => undefined,
      };
      return Promise.resolve(response);
    },
    close: () => Promise.resolve(),
  };
  return { http, sent };
}

async function sendThrough(
  settings: Parameters<typeof buildProvider>[0],
  request: UpstreamRequest,
): Promise<{ baseUrl: string; request: UpstreamRequest }> {
  const provider = buildProvider(settings);
  const { http, sent } = recordingHttp();
  await provider.transport(http).send(provider.baseUrl, request, AbortSignal.timeout(1000));
  const only = sent[0];
  assert.ok(only);
  return only;
}

const chat = (model: string, stream = false) => ({ model, stream, operation: 'chat' as const });

test('the registry lists the vendor presets and names an unknown one with the setting', () => {
  assert.deepEqual(presetNames(), ['anthropic', 'azure-openai', 'bedrock', 'gemini', 'openai', 'vertex']);
  assert.throws(
    () => buildProvider({ name: 'mine', preset: 'opneai' }),
    /providers\.mine\.preset: no preset "opneai" \(presets: anthropic, azure-openai, bedrock, gemini, openai, vertex\)/,
  );
});

test('openai: the public endpoint and a bearer key; a keyless local server gets the request as it is', async () => {
  const request = {
    path: '/v1/chat/completions',
    headers: { 'content-type': 'application/json', traceparent: '00-a-b-01' },
    body: '{}',
    warnings: [],
    call: chat('gpt-4o'),
  };
  const sent = await sendThrough({ name: 'o', preset: 'openai', apiKey: 'sk-1' }, request);
  assert.equal(sent.baseUrl, 'https://api.openai.com');
  assert.equal(sent.request.path, '/v1/chat/completions');
  assert.deepEqual(sent.request.headers, { ...request.headers, authorization: 'Bearer sk-1' });
  const local = await sendThrough(
    { name: 'l', preset: 'openai', baseUrl: 'http://localhost:11434/' },
    request,
  );
  assert.equal(local.baseUrl, 'http://localhost:11434');
  assert.equal(local.request, request);
  assert.deepEqual(buildProvider({ name: 'o', preset: 'openai', apiKey: 'sk-1' }).secrets, ['sk-1']);
});

test('anthropic: x-api-key and anthropic-version (the client’s when it sent one), not the spec header', async () => {
  const request = {
    path: '/v1/messages',
    headers: { 'beta-version': '2023-06-01', 'content-type': 'application/json' },
    body: '{}',
    warnings: [],
    call: chat('claude-sonnet-4-5'),
  };
  const sent = await sendThrough({ name: 'a', preset: 'anthropic', apiKey: 'sk-ant' }, request);
  assert.equal(sent.baseUrl, 'https://api.anthropic.com');
  assert.deepEqual(sent.request.headers, {
    'content-type': 'application/json',
    'x-api-key': 'sk-ant',
    'anthropic-version': '2023-06-01',
  });
  const client = { ...request, headers: { ...request.headers, 'beta-version': '2026-10-21' } };
  const forwarded = await sendThrough({ name: 'a', preset: 'anthropic', apiKey: 'sk-ant' }, client);
  assert.equal(forwarded.request.headers['anthropic-version'], '2026-10-21');
  const family = await sendThrough(
    {
      name: 'beta-upstream',
      preset: 'anthropic',
      apiKey: 'k',
      baseUrl: 'http://b.example',
      familyUpstream: true,
    },
    request,
  );
  assert.equal(family.request.headers['beta-version'], '2023-06-01');
  assert.equal(family.request.headers['anthropic-version'], '2023-06-01');
});

test('gemini: /v1beta methods from the call, the key in x-goog-api-key only', async () => {
  const request = (call?: UpstreamCall): UpstreamRequest => ({
    path: '/v1/models/gemini-2.5-flash:generateContent',
    headers: { 'content-type': 'application/json' },
    body: '{}',
    warnings: [],
    ...(call === undefined ? {} : { call }),
  });
  const settings = { name: 'g', preset: 'gemini', apiKey: 'AIza-1' };
  const plain = await sendThrough(settings, request(chat('gemini-2.5-flash')));
  assert.equal(plain.baseUrl, 'https://generativelanguage.googleapis.com');
  assert.equal(plain.request.path, '/v1beta/models/gemini-2.5-flash:generateContent');
  assert.deepEqual(plain.request.headers, { 'content-type': 'application/json', 'x-goog-api-key': 'AIza-1' });
  const streamed = await sendThrough(settings, request(chat('gemini-2.5-flash', true)));
  assert.equal(streamed.request.path, '/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse');
  const counted = await sendThrough(
    settings,
    request({ model: 'm', stream: false, operation: 'count-tokens' }),
  );
  assert.equal(counted.request.path, '/v1beta/models/m:countTokens');
  const v1 = await sendThrough({ ...settings, apiVersion: 'v1' }, request());
  assert.equal(v1.request.path, '/v1/models/gemini-2.5-flash:generateContent');
  const family = await sendThrough(
    { ...settings, baseUrl: 'http://c.example', familyUpstream: true },
    { ...request(chat('C-1')), headers: { 'x-gamma-api-key': 'AIza-1' } },
  );
  assert.equal(family.request.path, '/v1/models/gemini-2.5-flash:generateContent');
  assert.deepEqual(family.request.headers, { 'x-gamma-api-key': 'AIza-1', 'x-goog-api-key': 'AIza-1' });
});
