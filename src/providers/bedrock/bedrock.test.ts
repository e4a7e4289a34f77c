/**
 * The Bedrock provider against the strict Bedrock mock: canonical requests encoded by the codec the
 * provider picks (B for Anthropic models through InvokeModel, Converse for the rest), sent through
 * its transport over real HTTP, signed with SigV4 or a Bedrock API key, and read back (JSON and
 * the event stream re-framed as SSE).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { foldStream } from '../../ir/fold-stream.ts';
import { checkStreamEvents } from '../../ir/check-stream-events.ts';
import type { ChatResponse, StreamEvent } from '../../ir/index.ts';
import type { MockUpstream } from '../../../test/upstream-mocks/kit/server.ts';
import { startBedrockMock, testCredentials } from '../../../test/upstream-mocks/bedrock/index.ts';
import type { UpstreamTransport } from '../../upstream/transport.ts';
import type { ProviderSettings } from '../provider.ts';
import { tokenCounting } from '../../surfaces/beta/count-tokens.ts';
import { bedrockPreset } from './index.ts';
import { call, http, request, weatherTool, type Outcome } from './test-kit.ts';

const claude = 'us.anthropic.claude-sonnet-4-5-20250929-v1:0';
const nova = 'amazon.nova-lite-v1:0';
const pixel =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';

let mock: MockUpstream;
let settings: ProviderSettings;
before(async () => {
  mock = await startBedrockMock();
  settings = {
    name: 'aws',
    preset: 'bedrock',
    region: 'us-east-1',
    baseUrl: mock.url,
    credentials: { ...testCredentials },
  };
});
after(async () => {
  await http.close();
  await mock.close();
});

function answer(outcome: Outcome): ChatResponse {
  assert.ok(outcome.ok, outcome.ok ? '' : `${outcome.status} ${outcome.error.message}`);
  if ('events' in outcome) {
    checkStreamEvents(outcome.events);
    return foldStream(outcome.events);
  }
  return outcome.response;
}

function failure(outcome: Outcome): { status: number; kind: string; message: string } {
  assert.ok(!outcome.ok);
  return { status: outcome.status, kind: outcome.error.kind, message: outcome.error.message };
}

test('wireFor: Anthropic models (ids, inference profiles, ARNs) speak B, every other model Converse', () => {
  const provider = bedrockPreset(settings);
  for (const model of [
    'anthropic.claude-3-5-sonnet-20241022-v2:0',
    'us.anthropic.claude-sonnet-4-5-20250929-v1:0',
    'eu.anthropic.claude-haiku-4-5-20251001-v1:0',
    'apac.anthropic.claude-3-haiku-20240307-v1:0',
    'global.anthropic.claude-sonnet-4-5-20250929-v1:0',
    'arn:aws:bedrock:us-east-1:123456789012:inference-profile/us.anthropic.claude-sonnet-4-5-20250929-v1:0',
    'arn:aws:bedrock:us-east-1::foundation-model/anthropic.claude-3-haiku-20240307-v1:0',
  ])
    assert.equal(provider.wireFor('beta', model), 'beta', model);
  for (const model of [
    nova,
    'meta.llama3-70b-instruct-v1:0',
    'us.amazon.nova-pro-v1:0',
    'mistral.mistral-large-2402-v1:0',
  ])
    assert.equal(provider.wireFor('beta', model), 'converse', model);
  assert.equal(
    bedrockPreset({ name: 'a', preset: 'bedrock', region: 'eu-west-3' }).baseUrl,
    'https://bedrock-runtime.eu-west-3.amazonaws.com',
  );
  assert.throws(() => bedrockPreset({ name: 'a', preset: 'bedrock', region: 'mars' }), /region "mars"/);
  assert.deepEqual(bedrockPreset(settings).secrets, [testCredentials.secretAccessKey]);
});

for (const [label, model] of [
  ['InvokeModel (Anthropic)', claude],
  ['Converse', nova],
] as const) {
  describe(label, () => {
    for (const stream of [false, true]) {
      const mode = stream ? 'stream' : 'json';
      test(`text (${mode})`, async () => {
        const result = answer(
          await call(bedrockPreset(settings), model, request('Hello Bedrock', { stream })),
        );
        assert.match(
          result.choices[0]?.content[0]?.type === 'text' ? result.choices[0].content[0].text : '',
          /Hello Bedrock/,
        );
        assert.equal(result.choices[0]?.finishReason.unified, 'stop');
        assert.ok(result.usage.outputTokens > 0 && result.usage.inputTokens > 0);
      });

      test(`a tool call with its arguments (${mode})`, async () => {
        const chat = request('call get_weather', { stream, tools: [weatherTool] });
        const result = answer(await call(bedrockPreset(settings), model, chat));
        const part = result.choices[0]?.content.find((p) => p.type === 'tool-call');
        assert.ok(part !== undefined);
        assert.equal(part.name, 'get_weather');
        assert.deepEqual(JSON.parse(part.arguments), { city: 'x' });
        assert.equal(result.choices[0]?.finishReason.unified, 'tool-calls');
      });

      test(`an image (${mode})`, async () => {
        const chat = request('', {
          stream,
          messages: [
            {
              role: 'user',
              content: [
                { type: 'image', source: { kind: 'base64', mediaType: 'image/png', data: pixel } },
                { type: 'text', text: 'What is this?' },
              ],
            },
          ],
        });
        const result = answer(await call(bedrockPreset(settings), model, chat));
        assert.match(
          result.choices[0]?.content[0]?.type === 'text' ? result.choices[0].content[0].text : '',
          /with image/,
        );
      });

      test(`cache writes, then reads (${mode})`, async () => {
        const system = [
          {
            type: 'text' as const,
            text: `A long shared prefix ${model} ${mode} `.repeat(40),
            cacheControl: { type: 'ephemeral' as const },
          },
        ];
        const first = answer(await call(bedrockPreset(settings), model, request('One', { stream, system })));
        const second = answer(await call(bedrockPreset(settings), model, request('Two', { stream, system })));
        assert.ok(first.usage.cacheWriteTokens > 0, 'written');
        assert.equal(first.usage.cacheReadTokens, 0);
        assert.equal(second.usage.cacheReadTokens, first.usage.cacheWriteTokens, 'read');
        assert.ok(second.usage.inputTokens >= second.usage.cacheReadTokens);
      });

      if (stream)
        test("an in-stream exception is the stream's error", async () => {
          const outcome = await call(bedrockPreset(settings), model, request('Hi', { stream }), {
            'x-mock-stream-exception': 'throttlingException',
          });
          assert.ok(outcome.ok && 'events' in outcome);
          const last: StreamEvent | undefined = outcome.events.at(-1);
          assert.ok(last?.type === 'error');
          assert.equal(last.error.kind, 'rate_limited');
        });
    }

    test('Bedrock exceptions become the shared error kinds', async () => {
      const cases: Array<[Record<string, string>, number, string]> = [
        [{ 'x-mock-fail': '429' }, 429, 'rate_limited'],
        [{ 'x-mock-fail': '400' }, 400, 'invalid_request'],
        [{ 'x-mock-fail': '429', 'x-mock-exception': 'ModelNotReadyException' }, 503, 'overloaded'],
        [{ 'x-mock-fail': '503' }, 503, 'overloaded'],
        [{ 'x-mock-fail': '403' }, 403, 'upstream'],
        [{ 'x-mock-fail': '404' }, 404, 'not_found'],
      ];
      for (const [headers, status, kind] of cases) {
        const seen = failure(await call(bedrockPreset(settings), model, request('Hi'), headers));
        assert.deepEqual([seen.status, seen.kind], [status, kind], JSON.stringify(headers));
      }
      const validation = failure(
        await call(bedrockPreset(settings), model, request('Hi'), { 'x-mock-fail': '400' }),
      );
      assert.equal(validation.message, 'upstream: The provided model identifier is invalid.');
    });
  });
}

test('InvokeModel gets Bedrock’s body: anthropic_version set, no model, no stream', async () => {
  answer(await call(bedrockPreset(settings), claude, request('Body check', { stream: true })));
  const sent = mock.requests.at(-1);
  assert.equal(sent?.path, `/model/${encodeURIComponent(claude)}/invoke-with-response-stream`);
  const body = sent.body as Record<string, unknown>;
  assert.equal(body.anthropic_version, 'bedrock-2023-05-31');
  assert.equal('model' in body, false);
  assert.equal('stream' in body, false);
  assert.match(
    sent.headers.authorization ?? '',
    /^AWS4-HMAC-SHA256 Credential=MOCKAKIDBEDROCK00001\/\d{8}\/us-east-1\/bedrock\/aws4_request/,
  );
  assert.equal(sent.headers['x-api-key'], undefined);
});

test('a Bedrock API key goes as a bearer token; a wrong one is refused', async () => {
  const keyed = {
    name: 'aws',
    preset: 'bedrock',
    region: 'us-east-1',
    baseUrl: mock.url,
    apiKey: 'ABSKbW9jay1iZWRyb2NrLWFwaS1rZXk=',
  };
  answer(await call(bedrockPreset(keyed), nova, request('Keyed')));
  assert.equal(mock.requests.at(-1)?.headers.authorization, `Bearer ${keyed.apiKey}`);
  const refused = failure(
    await call(bedrockPreset({ ...keyed, apiKey: 'ABSK-wrong' }), nova, request('Keyed')),
  );
  assert.deepEqual([refused.status, refused.kind], [403, 'upstream']);
  assert.equal(refused.message.includes('ABSK'), false);
});

test('wrong static credentials or region are refused as the gateway’s own credential problem', async () => {
  const wrongSecret = { ...settings, credentials: { ...testCredentials, secretAccessKey: 'not-the-secret' } };
  assert.deepEqual(failure(await call(bedrockPreset(wrongSecret), nova, request('x'))).status, 403);
  const wrongRegion = { ...settings, region: 'eu-west-1' };
  assert.deepEqual(failure(await call(bedrockPreset(wrongRegion), nova, request('x'))).status, 403);
});

/** A B count-tokens request for `model`, as the gateway sends it to a B deployment (one transport per provider). */
async function count(
  provider: { baseUrl: string; transport: UpstreamTransport },
  model: string,
  body: Record<string, unknown>,
): Promise<{ status: number; json: unknown }> {
  const upstream = tokenCounting.encodeUpstreamRequest(
    { model: 'client-name', ...body },
    request('x'),
    { baseUrl: provider.baseUrl, apiKey: undefined, model },
    { 'anthropic-version': '2023-06-01' },
  );
  const response = await provider.transport.send(provider.baseUrl, upstream, new AbortController().signal);
  return { status: response.status, json: JSON.parse(await response.text()) };
}

describe('count-tokens through CountTokens', () => {
  const counter = () => {
    const provider = bedrockPreset(settings);
    return { baseUrl: provider.baseUrl, transport: provider.transport(http) };
  };
  const messages = [{ role: 'user', content: 'How many tokens are in this sentence?' }];

  test('an inference profile is counted as its foundation model, the count read as B’s', async () => {
    const counted = await count(counter(), 'us.anthropic.claude-sonnet-4-20250514-v1:0', {
      system: 'Be brief.',
      messages,
      thinking: { type: 'enabled', budget_tokens: 2048 },
    });
    assert.equal(counted.status, 200);
    const sent = mock.requests.at(-1);
    assert.ok(sent);
    assert.equal(
      sent.path,
      `/model/${encodeURIComponent('anthropic.claude-sonnet-4-20250514-v1:0')}/count-tokens`,
    );
    const input = (sent.body as { input: { invokeModel: { body: string } } }).input;
    const invoke = JSON.parse(Buffer.from(input.invokeModel.body, 'base64').toString('utf8')) as Record<
      string,
      unknown
    >;
    assert.equal(invoke.anthropic_version, 'bedrock-2023-05-31');
    assert.equal(invoke.max_tokens, 2049);
    assert.equal('model' in invoke, false);
    assert.match(sent.headers.authorization ?? '', /^AWS4-HMAC-SHA256 /);
    const tokens = (counted.json as { input_tokens: number }).input_tokens;
    assert.ok(Number.isSafeInteger(tokens) && tokens > 0);
  });

  test('a body InvokeModel refuses is a 400 in B’s error shape', async () => {
    const counted = await count(counter(), 'anthropic.claude-3-7-sonnet-20250219-v1:0', {
      messages,
      not_a_field: true,
    });
    assert.equal(counted.status, 400);
    assert.equal((counted.json as { error: { type: string } }).error.type, 'invalid_request_error');
  });

  test('models Bedrock does not count are refused to the gateway (which estimates), asked once', async () => {
    const provider = counter();
    const before = mock.requests.length;
    await assert.rejects(count(provider, claude, { messages }), /does not count tokens/);
    assert.equal(mock.requests.length, before + 1, 'asked once');
    await assert.rejects(count(provider, claude, { messages }), /does not count tokens/);
    await assert.rejects(count(provider, nova, { messages }), /does not count tokens/);
    await assert.rejects(
      count(provider, 'arn:aws:bedrock:us-east-1:123456789012:application-inference-profile/abc123', {
        messages,
      }),
      /does not count tokens/,
    );
    assert.equal(mock.requests.length, before + 1, 'remembered, and never asked for the others');
  });
});
