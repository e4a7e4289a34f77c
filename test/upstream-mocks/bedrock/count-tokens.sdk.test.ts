/**
 * Bedrock's CountTokens on the mock as the AWS SDK sees it (`CountTokensCommand`, signed by the
 * SDK, its blob sent base64): an InvokeModel body or a Converse input counted for the models AWS
 * counts; other models, bodies InvokeModel would refuse and bad signatures refused as Bedrock
 * refuses them, as the SDK's typed exceptions.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import {
  BedrockRuntimeClient,
  CountTokensCommand,
  ValidationException,
} from '@aws-sdk/client-bedrock-runtime';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import type { MockUpstream } from '../kit/server.ts';
import { countableModels, unsupportedModelMessage } from './count-tokens.ts';
import { startBedrockMock, testCredentials } from './index.ts';

let mock: MockUpstream;
before(async () => {
  mock = await startBedrockMock();
});
after(() => mock.close());

function client(credentials = testCredentials): BedrockRuntimeClient {
  return new BedrockRuntimeClient({
    region: 'us-east-1',
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

const countable = 'anthropic.claude-sonnet-4-20250514-v1:0';

test('CountTokens counts an InvokeModel body (sent base64) and a Converse input', async () => {
  assert.ok(countableModels.includes(countable));
  const invoked = await client().send(
    new CountTokensCommand({ modelId: countable, input: { invokeModel: { body: invokeBody() } } }),
  );
  assert.equal(typeof invoked.inputTokens, 'number');
  assert.ok((invoked.inputTokens ?? 0) > 0);
  const sent = mock.requests.at(-1);
  assert.ok(sent);
  assert.equal(sent.path, `/model/${encodeURIComponent(countable)}/count-tokens`);
  const wire = (sent.body as { input: { invokeModel: { body: string } } }).input.invokeModel.body;
  assert.equal(
    JSON.parse(Buffer.from(wire, 'base64').toString('utf8')).anthropic_version,
    'bedrock-2023-05-31',
  );
  const conversed = await client().send(
    new CountTokensCommand({
      modelId: `arn:aws:bedrock:us-east-1::foundation-model/${countable}`,
      input: {
        converse: {
          system: [{ text: 'Be brief.' }],
          messages: [{ role: 'user', content: [{ text: 'How many tokens is this?' }] }],
        },
      },
    }),
  );
  assert.ok((conversed.inputTokens ?? 0) > 0);
});

test('CountTokens refuses models it does not count and bodies InvokeModel would refuse', async () => {
  for (const modelId of [nova, claude, 'meta.llama3-70b-instruct-v1:0'])
    await assert.rejects(
      client().send(new CountTokensCommand({ modelId, input: { invokeModel: { body: invokeBody() } } })),
      (error: unknown) => error instanceof ValidationException && error.message === unsupportedModelMessage,
      modelId,
    );
  await assert.rejects(
    client().send(
      new CountTokensCommand({
        modelId: countable,
        input: { invokeModel: { body: invokeBody({ model: countable }) } },
      }),
    ),
    (error: unknown) =>
      error instanceof ValidationException && /extraneous key \[model\]/.test(error.message),
  );
  await assert.rejects(
    client().send(
      new CountTokensCommand({
        modelId: countable,
        input: { converse: { messages: [{ role: 'assistant', content: [{ text: 'x' }] }] } },
      }),
    ),
    (error: unknown) =>
      error instanceof ValidationException && /must start with a user message/.test(error.message),
  );
  await assert.rejects(
    client({ ...testCredentials, secretAccessKey: 'wrong' }).send(
      new CountTokensCommand({ modelId: countable, input: { invokeModel: { body: invokeBody() } } }),
    ),
    (error: unknown) => error instanceof Error && error.name === 'InvalidSignatureException',
  );
});
