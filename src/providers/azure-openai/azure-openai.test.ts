/**
 * The Azure OpenAI preset against the strict Azure mock: requests encoded by the alpha codec, sent
 * through the preset's transport over real HTTP, answers decoded by the codec; both path styles,
 * `api-key` and an Entra bearer, content filters, a reasoning deployment with an opaque name.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { MockUpstream } from '../../../test/upstream-mocks/kit/server.ts';
import {
  defaultAzureEntraToken,
  defaultAzureMockKey,
  startAzureOpenAIMock,
} from '../../../test/upstream-mocks/azure-openai/mock.ts';
import {
  outputFilterTrigger,
  promptFilterTrigger,
} from '../../../test/upstream-mocks/azure-openai/content-filter.ts';
import { encodeError as encodeAlphaError } from '../../codecs/alpha/errors.ts';
import { encodeError as encodeBetaError } from '../../codecs/beta/errors.ts';
import { encodeError as encodeGammaError } from '../../codecs/gamma/errors.ts';
import type { ProviderSettings } from '../provider.ts';
import { answerText, callProvider, chatRequest, realHttpTransport, userText } from '../test-kit.ts';
import { azureOpenAIPreset, createAzureOpenAIProvider } from './index.ts';

let mock: MockUpstream;
const http = realHttpTransport();
before(async () => {
  mock = await startAzureOpenAIMock();
});
after(async () => {
  await http.close();
  await mock.close();
});

const settings = (extra: Partial<ProviderSettings> = {}): ProviderSettings => ({
  name: 'azure-test',
  preset: 'azure-openai',
  baseUrl: mock.url,
  apiKey: defaultAzureMockKey,
  ...extra,
});

const tools = [
  { name: 'lookup', parameters: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] } },
];

test('v1 path (no apiVersion): the model names the deployment, api-key header, JSON answer', async () => {
  const provider = azureOpenAIPreset(settings());
  assert.equal(provider.wireFor('alpha', 'chat-prod'), 'alpha');
  assert.deepEqual(provider.secrets, [defaultAzureMockKey]);
  const outcome = await callProvider(
    provider,
    provider.transport(http),
    'alpha',
    chatRequest('chat-prod', [userText('Hello Azure')]),
  );
  assert.ok(outcome.ok);
  assert.equal(answerText(outcome.response), 'mock azure-openai reply to: Hello Azure');
  const sent = mock.requests.at(-1);
  assert.ok(sent);
  assert.equal(sent.path, '/openai/v1/chat/completions');
  assert.equal(sent.headers['api-key'], defaultAzureMockKey);
  assert.equal(sent.headers.authorization, undefined);
});

test('legacy path with an api-version: streamed, a tool call whose arguments stream, the filter preamble ignored', async () => {
  const provider = azureOpenAIPreset(settings({ apiVersion: '2024-10-21' }));
  const outcome = await callProvider(
    provider,
    provider.transport(http),
    'alpha',
    chatRequest('gpt-4o', [userText('call lookup')], { tools, stream: true }),
  );
  assert.ok(outcome.ok);
  assert.equal(
    mock.requests.at(-1)?.path,
    '/openai/deployments/gpt-4o/chat/completions?api-version=2024-10-21',
  );
  const call = outcome.response.choices[0]?.content.find((part) => part.type === 'tool-call');
  assert.deepEqual(call?.type === 'tool-call' && JSON.parse(call.arguments), { q: 'x' });
  assert.equal(outcome.response.choices[0]?.finishReason.unified, 'tool-calls');
  assert.equal(outcome.response.choices.length, 1, 'the empty-choices preamble adds no choice');
  const text = await callProvider(
    provider,
    provider.transport(http),
    'alpha',
    chatRequest('gpt-4o', [userText('stream me')], { stream: true }),
  );
  assert.ok(text.ok);
  assert.equal(answerText(text.response), 'mock azure-openai reply to: stream me');
});

test('Entra ID: a bearer token from the credential, fetched once for many calls', async () => {
  let grants = 0;
  const tokenCredential = {
    getToken: (scope: string) => {
      assert.equal(scope, 'https://cognitiveservices.azure.com/.default');
      grants += 1;
      return Promise.resolve({ token: defaultAzureEntraToken, expiresOnTimestamp: Date.now() + 3_600_000 });
    },
  };
  const provider = createAzureOpenAIProvider(
    settings({ apiKey: undefined, apiVersion: '2025-01-01-preview' }),
    { tokenCredential },
  );
  assert.deepEqual(provider.secrets, []);
  const transport = provider.transport(http);
  const ask = () => callProvider(provider, transport, 'alpha', chatRequest('chat-prod', [userText('hi')]));
  const answers = await Promise.all([ask(), ask(), ask()]);
  assert.ok(answers.every((answer) => answer.ok));
  assert.equal(grants, 1);
  assert.equal(mock.requests.at(-1)?.headers.authorization, `Bearer ${defaultAzureEntraToken}`);
  assert.equal(mock.requests.at(-1)?.headers['api-key'], undefined);
});

test('Entra ID refusing the credentials answers as an upstream 401, never sent upstream', async () => {
  // What @azure/identity throws for a wrong client secret: an AuthenticationError with its status.
  const refusal = Object.assign(new Error('AADSTS7000215: Invalid client secret provided.'), {
    statusCode: 401,
  });
  const tokenCredential = { getToken: () => Promise.reject(refusal) };
  const provider = createAzureOpenAIProvider(
    settings({ apiKey: undefined, apiVersion: '2025-01-01-preview' }),
    {
      tokenCredential,
    },
  );
  const sent = mock.requests.length;
  const answer = await callProvider(
    provider,
    provider.transport(http),
    'alpha',
    chatRequest('chat-prod', [userText('hi')]),
  );
  assert.ok(!answer.ok);
  // An upstream 401 as every family answers it: the gateway's own credentials failed (502).
  assert.equal(answer.error.status, 502);
  assert.ok(!JSON.stringify(answer.error).includes('AADSTS'), 'the identity service words stay in the logs');
  assert.equal(mock.requests.length, sent);
});

test('content filter: a filtered prompt is a 400; filtered output finishes with content_filter', async () => {
  const provider = azureOpenAIPreset(settings());
  const refused = await callProvider(
    provider,
    provider.transport(http),
    'alpha',
    chatRequest('chat-prod', [userText(`please ${promptFilterTrigger}`)]),
  );
  assert.ok(!refused.ok);
  assert.equal(refused.error.status, 400);
  assert.equal(refused.error.kind, 'invalid_request');
  // Every caller family answers it as its own 400 (the codecs' error encoders).
  for (const encode of [encodeAlphaError, encodeBetaError, encodeGammaError])
    assert.equal(encode(refused.error).status, 400);
  for (const stream of [false, true]) {
    const cut = await callProvider(
      provider,
      provider.transport(http),
      'alpha',
      chatRequest('chat-prod', [userText(`tell me ${outputFilterTrigger}`)], { stream }),
    );
    assert.ok(cut.ok);
    assert.equal(cut.response.choices[0]?.finishReason.unified, 'content-filter');
  }
});

test('a reasoning deployment with an opaque name gets max_completion_tokens; usage details reach canonical usage', async () => {
  const provider = azureOpenAIPreset(settings({ deployments: { reasoner: 'o4-mini' } }));
  const outcome = await callProvider(
    provider,
    provider.transport(http),
    'alpha',
    chatRequest('reasoner', [userText('think')], { sampling: { maxOutputTokens: 256, temperature: 0.2 } }),
  );
  assert.ok(outcome.ok, JSON.stringify(outcome.ok ? '' : outcome.error.message));
  const body = mock.requests.at(-1)?.body as Record<string, unknown>;
  assert.equal(body.max_completion_tokens, 256);
  assert.equal(body.max_tokens, undefined);
  assert.equal(body.temperature, undefined);
  assert.ok((outcome.response.usage.reasoningTokens ?? 0) > 0);
  // Without the setting the same deployment is refused as OpenAI refuses max_tokens on o-series models.
  const plain = azureOpenAIPreset(settings());
  const refused = await callProvider(
    plain,
    plain.transport(http),
    'alpha',
    chatRequest('reasoner', [userText('think')]),
  );
  assert.ok(!refused.ok);
  assert.equal(refused.status, 400);

  const prefix = userText('a long shared prefix for the cache '.repeat(200));
  const ask = () =>
    callProvider(
      provider,
      provider.transport(http),
      'alpha',
      chatRequest('chat-prod', [
        prefix,
        { role: 'assistant', content: [{ type: 'text', text: 'ok' }] },
        userText('next'),
      ]),
    );
  await ask();
  const cached = await ask();
  assert.ok(cached.ok);
  assert.ok(
    cached.response.usage.cacheReadTokens > 0,
    'prompt_tokens_details.cached_tokens reaches canonical usage',
  );
});

test('DeploymentNotFound is a 404; a wrong key a credentials error without upstream text', async () => {
  const provider = azureOpenAIPreset(settings({ apiVersion: '2024-10-21' }));
  const missing = await callProvider(
    provider,
    provider.transport(http),
    'alpha',
    chatRequest('no-such-deployment', [userText('x')]),
  );
  assert.ok(!missing.ok);
  assert.equal(missing.status, 404);
  assert.equal(missing.error.kind, 'not_found');
  const wrong = azureOpenAIPreset(settings({ apiKey: 'wrong-key-0123456789' }));
  const denied = await callProvider(
    wrong,
    wrong.transport(http),
    'alpha',
    chatRequest('chat-prod', [userText('x')]),
  );
  assert.ok(!denied.ok);
  assert.equal(denied.status, 401);
  assert.doesNotMatch(denied.error.message, /wrong-key|subscription/);
});

test('settings: baseUrl required, apiVersion checked, a partial client secret named', () => {
  assert.throws(() => azureOpenAIPreset({ name: 'az', preset: 'azure-openai' }), /providers\.az\.baseUrl/);
  assert.throws(
    () =>
      azureOpenAIPreset({
        name: 'az',
        preset: 'azure-openai',
        baseUrl: 'https://r.openai.azure.com',
        apiKey: 'k',
        apiVersion: 'latest',
      }),
    /providers\.az\.apiVersion/,
  );
  assert.throws(
    () =>
      azureOpenAIPreset({
        name: 'az',
        preset: 'azure-openai',
        baseUrl: 'https://r.openai.azure.com',
        credentials: { tenantId: 't', clientSecret: 's' },
      }),
    /credentials: a client secret credential also needs clientId/,
  );
  assert.throws(
    () =>
      azureOpenAIPreset({
        name: 'az',
        preset: 'azure-openai',
        baseUrl: 'https://r.openai.azure.com',
        credentials: { disableInstanceDiscovery: 'yes' },
      }),
    /providers\.az\.credentials\.disableInstanceDiscovery: "true" or "false"/,
  );
  const entra = azureOpenAIPreset({
    name: 'az',
    preset: 'azure-openai',
    baseUrl: 'https://r.openai.azure.com/',
    credentials: { tenantId: 't', clientId: 'c', clientSecret: 'the-secret' },
  });
  assert.deepEqual(entra.secrets, ['the-secret']);
  assert.equal(entra.baseUrl, 'https://r.openai.azure.com');
});
