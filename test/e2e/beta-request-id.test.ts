/**
 * Family B's request id as its SDKs read it: `message._request_id`, a stream's `request_id`, an
 * error's `requestID` and its body's `request_id` all come from the `request-id` header and body
 * the B surface sends, and equal the gateway's own `x-request-id` — on models of every family,
 * for answers, streams, count-tokens, model lists and errors (refusals before the body is read
 * included), through @anthropic-ai/sdk 1.x and 0.x.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import Anthropic0 from 'anthropic-sdk-0';
import { alphaAuth, betaVersion, post } from '../kit/e2e.ts';
import { startTestGateway, type TestGateway } from '../kit/test-gateway.ts';

let gateway: TestGateway;

before(async () => {
  gateway = await startTestGateway();
});

after(async () => {
  await gateway.close();
});

const sdks = [
  { name: '@anthropic-ai/sdk 1.x', make: (apiKey: string) => new Anthropic(clientOptions(apiKey)) },
  {
    name: '@anthropic-ai/sdk 0.x',
    // Both SDKs share the calls used here; 0.x's types differ only in detail.
    make: (apiKey: string) => new Anthropic0(clientOptions(apiKey)) as unknown as Anthropic,
  },
];

function clientOptions(apiKey: string): { apiKey: string; baseURL: string; maxRetries: number } {
  return { apiKey, baseURL: gateway.url, maxRetries: 0 };
}

/** The gateway's id of an answer: every id the SDK reports must equal it. */
function gatewayId(headers: Headers): string {
  const id = headers.get('x-request-id');
  assert.match(id ?? '', /^req_/);
  return id as string;
}

/** `_request_id` as the SDK sets it on what it returns (typed on the awaited value only). */
function sdkRequestId(value: object): unknown {
  return (value as { _request_id?: unknown })._request_id;
}

const question = { role: 'user' as const, content: 'Say something short.' };

for (const sdk of sdks) {
  describe(`${sdk.name}: request ids`, () => {
    for (const model of ['A-2', 'B-1', 'C-1']) {
      test(`${model}: a message and a stream carry the gateway's id`, async () => {
        const client = sdk.make(gateway.key);
        const answered = await client.messages
          .create({ model, max_tokens: 32, messages: [question] })
          .withResponse();
        const id = gatewayId(answered.response.headers);
        assert.equal(sdkRequestId(answered.data), id);
        assert.equal(answered.request_id, id);

        const stream = client.messages.stream({ model, max_tokens: 32, messages: [question] });
        await stream.finalMessage();
        const streamed = await stream.withResponse();
        assert.equal(stream.request_id, gatewayId(streamed.response.headers));
        assert.notEqual(stream.request_id, id, 'each answer has its own id');
      });
    }

    test('count-tokens and model lists carry the id', async () => {
      const client = sdk.make(gateway.key);
      const counted = await client.messages
        .countTokens({ model: 'C-1', messages: [question] })
        .withResponse();
      assert.equal(sdkRequestId(counted.data), gatewayId(counted.response.headers));
      const listed = await client.models.list().withResponse();
      assert.equal(listed.request_id, gatewayId(listed.response.headers));
      const one = await client.models.retrieve('B-1').withResponse();
      assert.equal(sdkRequestId(one.data), gatewayId(one.response.headers));
    });

    test("an error's requestID and body request_id equal the gateway's id", async () => {
      const client = sdk.make(gateway.key);
      // After the body was read: no such model.
      const missing = await client.messages
        .create({ model: 'no-such-model', max_tokens: 8, messages: [question] })
        .then(() => assert.fail('expected a 404'))
        .catch((error: unknown) => error);
      assert.ok(missing instanceof Error && 'requestID' in missing);
      const notFound = missing as InstanceType<typeof Anthropic.APIError>;
      assert.equal(notFound.status, 404);
      const id = gatewayId(notFound.headers as Headers);
      assert.equal(notFound.requestID, id);
      assert.equal((notFound.error as { request_id?: unknown }).request_id, id);

      // Before the body was read: a wrong key.
      const refused = await sdk
        .make('not-a-key')
        .messages.create({ model: 'B-1', max_tokens: 8, messages: [question] })
        .then(() => assert.fail('expected a 401'))
        .catch((error: unknown) => error as InstanceType<typeof Anthropic.APIError>);
      assert.equal(refused.status, 401);
      const refusedId = gatewayId(refused.headers as Headers);
      assert.equal(refused.requestID, refusedId);
      assert.equal((refused.error as { request_id?: unknown }).request_id, refusedId);

      // A model list's error.
      const unknownModel = await client.models
        .retrieve('no-such-model')
        .then(() => assert.fail('expected a 404'))
        .catch((error: unknown) => error as InstanceType<typeof Anthropic.APIError>);
      assert.equal(unknownModel.requestID, gatewayId(unknownModel.headers as Headers));
    });
  });
}

test('other surfaces do not get the B header; a B refusal by raw HTTP has it', async () => {
  const alpha = await post(gateway.url, '/v1/chat/completions', alphaAuth(gateway.key), {
    model: 'A-2',
    messages: [{ role: 'user', content: 'hi' }],
  });
  assert.equal(alpha.status, 200);
  assert.equal(alpha.headers.get('request-id'), null);
  const beta = await post(
    gateway.url,
    '/v1/messages',
    { 'anthropic-version': betaVersion },
    {
      model: 'B-1',
    },
  );
  assert.equal(beta.status, 401);
  assert.equal(beta.headers.get('request-id'), beta.headers.get('x-request-id'));
  assert.equal((beta.json as { request_id?: unknown }).request_id, beta.headers.get('x-request-id'));
});
