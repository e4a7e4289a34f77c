/**
 * The Bedrock mock as the official SDKs see it: @aws-sdk/client-bedrock-runtime (SigV4 by its own
 * signer, its own event-stream parser) calls InvokeModel, InvokeModelWithResponseStream, Converse
 * and ConverseStream and reads the answers; what the mock refuses surfaces as the SDK's typed
 * exceptions (CountTokens: `count-tokens.sdk.test.ts`). @anthropic-ai/bedrock-sdk sends a
 * Messages call through InvokeModel.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import {
  AccessDeniedException,
  BedrockRuntimeClient,
  ConverseCommand,
  ConverseStreamCommand,
  InvokeModelCommand,
  InvokeModelWithResponseStreamCommand,
  ThrottlingException,
  ValidationException,
} from '@aws-sdk/client-bedrock-runtime';
import { AnthropicBedrock } from '@anthropic-ai/bedrock-sdk';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import type { MockUpstream } from '../kit/server.ts';
import { startBedrockMock, testCredentials } from './index.ts';

let mock: MockUpstream;
before(async () => {
  mock = await startBedrockMock();
});
after(() => mock.close());

function client(credentials = testCredentials, region = 'us-east-1'): BedrockRuntimeClient {
  return new BedrockRuntimeClient({
    region,
    endpoint: mock.url,
    credentials,
    requestHandler: new NodeHttpHandler(),
    maxAttempts: 1,
  });
}

const claude = 'us.anthropic.claude-sonnet-4-5-20250929-v1:0';
const nova = 'amazon.nova-lite-v1:0';

function invokeBody(extra: Record<string, unknown> = {}): Uint8Array {
  return new TextEncoder().encode(
    JSON.stringify({
      anthropic_version: 'bedrock-2023-05-31',
      max_tokens: 64,
      messages: [{ role: 'user', content: 'Hello there' }],
      ...extra,
    }),
  );
}

test('InvokeModel answers an Anthropic Message', async () => {
  const answer = await client().send(
    new InvokeModelCommand({ modelId: claude, contentType: 'application/json', body: invokeBody() }),
  );
  const message = JSON.parse(new TextDecoder().decode(answer.body)) as {
    type: string;
    content: Array<{ text: string }>;
  };
  assert.equal(message.type, 'message');
  assert.match(message.content[0]?.text ?? '', /Hello there/);
  assert.equal(mock.requests.at(-1)?.path, `/model/${encodeURIComponent(claude)}/invoke`);
});

test('InvokeModelWithResponseStream: chunks of base64 Anthropic events, invocation metrics last', async () => {
  const answer = await client().send(
    new InvokeModelWithResponseStreamCommand({ modelId: claude, body: invokeBody() }),
  );
  const types: string[] = [];
  let metrics: unknown;
  for await (const event of answer.body ?? []) {
    const bytes = event.chunk?.bytes;
    if (bytes === undefined) continue;
    const data = JSON.parse(new TextDecoder().decode(bytes)) as Record<string, unknown>;
    types.push(String(data.type));
    if (data.type === 'message_stop') metrics = data['amazon-bedrock-invocationMetrics'];
  }
  assert.equal(types[0], 'message_start');
  assert.equal(types.at(-1), 'message_stop');
  assert.ok(types.includes('content_block_delta'));
  assert.equal(typeof (metrics as { outputTokenCount?: unknown }).outputTokenCount, 'number');
});

test('Converse answers text with usage and metrics', async () => {
  const answer = await client().send(
    new ConverseCommand({
      modelId: nova,
      messages: [{ role: 'user', content: [{ text: 'Hello Nova' }] }],
      inferenceConfig: { maxTokens: 64 },
    }),
  );
  assert.equal(answer.stopReason, 'end_turn');
  assert.match(answer.output?.message?.content?.[0]?.text ?? '', /Hello Nova/);
  assert.equal(typeof answer.usage?.totalTokens, 'number');
  assert.equal(typeof answer.metrics?.latencyMs, 'number');
});

test('ConverseStream: a tool use with streamed input, then the stop reason and usage', async () => {
  const answer = await client().send(
    new ConverseStreamCommand({
      modelId: nova,
      messages: [{ role: 'user', content: [{ text: 'call get_weather' }] }],
      toolConfig: {
        tools: [
          {
            toolSpec: {
              name: 'get_weather',
              inputSchema: {
                json: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
              },
            },
          },
        ],
      },
    }),
  );
  let input = '';
  let name: string | undefined;
  let stopReason: string | undefined;
  let outputTokens: number | undefined;
  for await (const event of answer.stream ?? []) {
    name ??= event.contentBlockStart?.start?.toolUse?.name;
    input += event.contentBlockDelta?.delta?.toolUse?.input ?? '';
    stopReason ??= event.messageStop?.stopReason;
    outputTokens ??= event.metadata?.usage?.outputTokens;
  }
  assert.equal(name, 'get_weather');
  assert.deepEqual(JSON.parse(input), { city: 'x' });
  assert.equal(stopReason, 'tool_use');
  assert.equal(typeof outputTokens, 'number');
});

test('refusals are the SDK’s typed exceptions', async () => {
  await assert.rejects(
    client().send(new InvokeModelCommand({ modelId: claude, body: invokeBody({ model: claude }) })),
    (error: unknown) =>
      error instanceof ValidationException &&
      error.message ===
        'Malformed input request: #: extraneous key [model] is not permitted, please reformat your input and try again.',
  );
  await assert.rejects(
    client({ ...testCredentials, secretAccessKey: 'wrong' }).send(
      new ConverseCommand({ modelId: nova, messages: [{ role: 'user', content: [{ text: 'x' }] }] }),
    ),
    (error: unknown) => error instanceof Error && error.name === 'InvalidSignatureException',
  );
  await assert.rejects(
    client({ ...testCredentials, accessKeyId: 'MOCKUNKNOWN000000000' }).send(
      new ConverseCommand({ modelId: nova, messages: [{ role: 'user', content: [{ text: 'x' }] }] }),
    ),
    (error: unknown) => error instanceof Error && error.name === 'UnrecognizedClientException',
  );
  await assert.rejects(
    client(testCredentials, 'eu-west-1').send(
      new ConverseCommand({ modelId: nova, messages: [{ role: 'user', content: [{ text: 'x' }] }] }),
    ),
    (error: unknown) => error instanceof Error && error.name === 'InvalidSignatureException',
  );
  await assert.rejects(
    client().send(
      new ConverseCommand({ modelId: nova, messages: [{ role: 'assistant', content: [{ text: 'x' }] }] }),
    ),
    (error: unknown) =>
      error instanceof ValidationException && /must start with a user message/.test(error.message),
  );
});

test('injected failures come back as ThrottlingException and AccessDeniedException', async () => {
  for (const [status, type] of [
    ['429', ThrottlingException],
    ['403', AccessDeniedException],
  ] as const) {
    const sdk = client();
    sdk.middlewareStack.add(
      (next) => (args) => {
        const request = args.request as { headers: Record<string, string> };
        request.headers['x-mock-fail'] = status;
        return next(args);
      },
      { step: 'build' },
    );
    await assert.rejects(
      sdk.send(
        new ConverseCommand({ modelId: nova, messages: [{ role: 'user', content: [{ text: 'x' }] }] }),
      ),
      type,
    );
  }
});

test('@anthropic-ai/bedrock-sdk creates a Message through InvokeModel', async () => {
  const anthropic = new AnthropicBedrock({
    awsRegion: 'us-east-1',
    awsAccessKey: testCredentials.accessKeyId,
    awsSecretKey: testCredentials.secretAccessKey,
    baseURL: mock.url,
    maxRetries: 0,
    // bedrock-sdk 1.1.3 copies the `anthropic-version` header into the body, and @anthropic-ai/sdk
    // 1.x defaults it to 2026-10-21, which Bedrock refuses: Bedrock's own version must be named.
    defaultHeaders: { 'anthropic-version': 'bedrock-2023-05-31' },
  });
  const message = await anthropic.messages.create({
    model: claude,
    max_tokens: 64,
    messages: [{ role: 'user', content: 'Hi from the SDK' }],
  });
  assert.match(message.content[0]?.type === 'text' ? message.content[0].text : '', /Hi from the SDK/);
  const sent = mock.requests.at(-1)?.body as Record<string, unknown>;
  assert.equal(sent.anthropic_version, 'bedrock-2023-05-31');
  assert.equal('model' in sent, false);
});

test('unsigned, stale and bearer requests: AWS’s refusals, a configured API key accepted', async () => {
  const converse = `${mock.url}/model/${encodeURIComponent(nova)}/converse`;
  const body = JSON.stringify({ messages: [{ role: 'user', content: [{ text: 'x' }] }] });
  const unsigned = await fetch(converse, {
    method: 'POST',
    body,
    headers: { 'content-type': 'application/json' },
  });
  assert.equal(unsigned.status, 403);
  assert.deepEqual(await unsigned.json(), { message: 'Missing Authentication Token' });
  assert.match(unsigned.headers.get('x-amzn-errortype') ?? '', /^MissingAuthenticationTokenException/);
  const stale = await fetch(converse, {
    method: 'POST',
    body,
    headers: {
      'x-amz-date': '20200101T000000Z',
      authorization: `AWS4-HMAC-SHA256 Credential=${testCredentials.accessKeyId}/20200101/us-east-1/bedrock/aws4_request, SignedHeaders=host;x-amz-date, Signature=${'0'.repeat(64)}`,
    },
  });
  assert.equal(stale.status, 403);
  assert.match(((await stale.json()) as { message: string }).message, /^Signature expired/);
  const keyed = await fetch(converse, {
    method: 'POST',
    body,
    headers: { authorization: 'Bearer ABSKbW9jay1iZWRyb2NrLWFwaS1rZXk=' },
  });
  assert.equal(keyed.status, 200);
  const badKey = await fetch(converse, {
    method: 'POST',
    body,
    headers: { authorization: 'Bearer ABSK-wrong' },
  });
  assert.equal(badKey.status, 403);
});
