/**
 * The Vertex preset against the strict Vertex mock: tokens from a service-account key whose
 * token_uri is the mock, Gemini on publishers/google and Claude on publishers/anthropic, each
 * encoded by its codec, sent through the preset's transport over real HTTP and decoded.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { ImagePart } from '../../ir/index.ts';
import { startVertexMock, type VertexMock } from '../../../test/upstream-mocks/vertex/index.ts';
import {
  answerText,
  callProvider,
  chatRequest,
  codecOf,
  realHttpTransport,
  sendEncoded,
  userText,
} from '../test-kit.ts';
import { tokenCounting as betaCounting } from '../../surfaces/beta/count-tokens.ts';
import { tokenCounting as gammaCounting } from '../../surfaces/gamma/count-tokens.ts';
import type { ProviderSettings } from '../provider.ts';
import { vertexPreset } from './index.ts';

let mock: VertexMock;
let keyFile: string;
const http = realHttpTransport();
const directory = mkdtempSync(join(tmpdir(), 'vertex-provider-'));

before(async () => {
  mock = await startVertexMock({ projectId: 'proj-a', minimumCachedTokens: 20 });
  keyFile = join(directory, 'key.json');
  writeFileSync(keyFile, JSON.stringify(mock.serviceAccountKey));
});
after(async () => {
  await http.close();
  await mock.close();
});

const settings = (extra: Partial<ProviderSettings> = {}): ProviderSettings => ({
  name: 'vertex-test',
  preset: 'vertex',
  project: 'proj-a',
  location: 'us-central1',
  baseUrl: mock.url,
  credentials: { keyFile },
  ...extra,
});

test('Gemini, JSON: the publisher model URL, a bearer token, the codec decodes the answer and its usage', async () => {
  const provider = vertexPreset(settings());
  const outcome = await callProvider(
    provider,
    provider.transport(http),
    'gamma',
    chatRequest('gemini-2.5-flash', [userText('Hi Vertex')]),
  );
  assert.ok(outcome.ok);
  assert.equal(answerText(outcome.response), 'mock vertex reply to: Hi Vertex');
  // thoughtsTokenCount reaches the canonical usage (inside outputTokens, and as reasoning).
  assert.equal(outcome.response.usage.reasoningTokens, 12);
  const sent = mock.requests.at(-1);
  assert.ok(sent);
  assert.equal(
    sent.path,
    '/v1/projects/proj-a/locations/us-central1/publishers/google/models/gemini-2.5-flash:generateContent',
  );
  assert.match(sent.headers.authorization ?? '', /^Bearer ya29\./);
  assert.equal(sent.headers['x-gamma-api-key'], undefined);
});

test('Gemini, streamed with an image: SSE from streamGenerateContent?alt=sse', async () => {
  const provider = vertexPreset(settings());
  const image: ImagePart = {
    type: 'image',
    source: { kind: 'base64', mediaType: 'image/png', data: 'iVBORw0KGgo=' },
  };
  const request = chatRequest(
    'gemini-2.5-flash',
    [{ role: 'user', content: [{ type: 'text', text: 'what is this' }, image] }],
    { stream: true },
  );
  const outcome = await callProvider(provider, provider.transport(http), 'gamma', request);
  assert.ok(outcome.ok);
  // The mock joins the text parts with a space: the image is the part after the text.
  assert.match(answerText(outcome.response), /^mock vertex reply to: what is this +\(with image\)$/);
  assert.ok(outcome.events.filter((event) => event.type === 'text-delta').length > 1);
  assert.match(mock.requests.at(-1)?.path ?? '', /:streamGenerateContent\?alt=sse$/);
});

test('Gemini: a tool call, and cached tokens on a repeated prefix', async () => {
  const provider = vertexPreset(settings());
  const tools = [
    {
      name: 'lookup',
      parameters: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] },
    },
  ];
  const history = [
    userText('a long shared prefix '.repeat(20)),
    { role: 'assistant' as const, content: [{ type: 'text' as const, text: 'ok' }] },
  ];
  const request = chatRequest('gemini-2.5-flash', [...history, userText('call lookup')], {
    tools,
    stream: true,
  });
  const first = await callProvider(provider, provider.transport(http), 'gamma', request);
  assert.ok(first.ok);
  const call = first.response.choices[0]?.content.find((part) => part.type === 'tool-call');
  assert.deepEqual(call?.type === 'tool-call' && JSON.parse(call.arguments), { q: 'x' });
  assert.equal(first.response.choices[0]?.finishReason.unified, 'tool-calls');
  const second = await callProvider(provider, provider.transport(http), 'gamma', {
    ...request,
    stream: false,
  });
  assert.ok(second.ok);
  assert.ok(second.response.usage.cacheReadTokens > 0, 'cachedContentTokenCount reaches canonical usage');
});

test('Gemini pass-through: a content without a role gets one (Vertex refuses it without)', async () => {
  const provider = vertexPreset(settings());
  const codec = codecOf('gamma');
  const body = { contents: [{ parts: [{ text: 'no role given' }] }] };
  const request = codec.passThrough.encodeRequest(
    body,
    chatRequest('gemini-2.5-flash', [userText('no role given')]),
    {
      baseUrl: provider.baseUrl,
      apiKey: undefined,
      model: 'gemini-2.5-flash',
    },
    {},
  );
  const outcome = await sendEncoded(provider, provider.transport(http), codec, request, false);
  assert.ok(outcome.ok);
  assert.equal(answerText(outcome.response), 'mock vertex reply to: no role given');
});

test('Claude, JSON and streamed with a tool: rawPredict / streamRawPredict, no model, Vertex version', async () => {
  const provider = vertexPreset(settings({ location: 'us-east5' }));
  assert.equal(provider.wireFor('beta', 'claude-sonnet-4-5@20250929'), 'beta');
  const plain = await callProvider(
    provider,
    provider.transport(http),
    'beta',
    chatRequest('claude-sonnet-4-5@20250929', [userText('Hello Claude')]),
  );
  assert.ok(plain.ok);
  assert.equal(answerText(plain.response), 'mock anthropic reply to: Hello Claude');
  const sent = mock.requests.at(-1);
  assert.ok(sent);
  assert.equal(
    sent.path,
    '/v1/projects/proj-a/locations/us-east5/publishers/anthropic/models/claude-sonnet-4-5@20250929:rawPredict',
  );
  const body = sent.body as Record<string, unknown>;
  assert.equal(body.model, undefined);
  assert.equal(body.anthropic_version, 'vertex-2023-10-16');
  assert.equal(sent.headers['x-api-key'], undefined);

  const tools = [
    {
      name: 'lookup',
      parameters: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] },
    },
  ];
  const streamed = await callProvider(
    provider,
    provider.transport(http),
    'beta',
    chatRequest('claude-sonnet-4-5@20250929', [userText('call lookup')], { tools, stream: true }),
  );
  assert.ok(streamed.ok);
  assert.match(mock.requests.at(-1)?.path ?? '', /claude-sonnet-4-5@20250929:streamRawPredict$/);
  assert.ok(
    streamed.events.some((event) => event.type === 'tool-call-delta'),
    'arguments arrive streamed',
  );
  const call = streamed.response.choices[0]?.content.find((part) => part.type === 'tool-call');
  assert.deepEqual(call?.type === 'tool-call' && JSON.parse(call.arguments), { q: 'x' });
});

test('count tokens: Gemini :countTokens with a flat body, Claude count-tokens:rawPredict', async () => {
  const provider = vertexPreset(settings());
  const transport = provider.transport(http);
  const gammaRequest = chatRequest('gemini-2.5-flash', [userText('count me')]);
  const target = { baseUrl: provider.baseUrl, apiKey: undefined, model: 'gemini-2.5-flash' };
  // The full request form, whose `models/…` name and nesting Vertex refuses, and a content without a role.
  const gammaBody = {
    generateContentRequest: { model: 'models/x', contents: [{ parts: [{ text: 'count me' }] }] },
  };
  const gemini = await transport.send(
    provider.baseUrl,
    gammaCounting.encodeUpstreamRequest(gammaBody, gammaRequest, target, {}),
    new AbortController().signal,
  );
  assert.equal(gemini.status, 200, await gemini.text().catch(() => ''));
  assert.match(
    mock.requests.at(-1)?.path ?? '',
    /publishers\/google\/models\/gemini-2\.5-flash:countTokens$/,
  );

  const claudeTarget = { ...target, model: 'claude-sonnet-4-5@20250929' };
  const claudeBody = { model: 'claude-client-name', messages: [{ role: 'user', content: 'count' }] };
  const claudeRequest = chatRequest('claude-sonnet-4-5@20250929', [userText('count')]);
  const claude = await transport.send(
    provider.baseUrl,
    betaCounting.encodeUpstreamRequest(claudeBody, claudeRequest, claudeTarget, {}),
    new AbortController().signal,
  );
  const counted = JSON.parse(await claude.text()) as { input_tokens?: number };
  assert.equal(claude.status, 200);
  assert.ok((counted.input_tokens ?? 0) > 0);
  const sent = mock.requests.at(-1);
  assert.ok(sent);
  assert.equal(
    sent.path,
    '/v1/projects/proj-a/locations/us-central1/publishers/anthropic/models/count-tokens:rawPredict',
  );
  assert.equal((sent.body as Record<string, unknown>).model, 'claude-sonnet-4-5@20250929');
});
