/**
 * The Anthropic mock as the official SDKs see it: @anthropic-ai/sdk 1.x and 0.x (anthropic-sdk-0)
 * create, stream, use tools, count tokens and list models against it, and what the real API
 * refuses surfaces as the SDK's typed errors with the API's texts.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import AnthropicZero from 'anthropic-sdk-0';
import type { MockUpstream } from '../kit/server.ts';
import { publishedVersions, startAnthropicMock } from './index.ts';

const apiKey = 'sk-ant-test-key';
let mock: MockUpstream;
before(async () => {
  mock = await startAnthropicMock({ apiKey });
});
after(() => mock.close());

const weatherTool = {
  name: 'get_weather',
  description: 'Weather for a city',
  input_schema: { type: 'object' as const, properties: { city: { type: 'string' } }, required: ['city'] },
};

for (const [label, make] of [
  ['@anthropic-ai/sdk 1.x', () => new Anthropic({ apiKey, baseURL: mock.url, maxRetries: 0 })],
  [
    'anthropic-sdk-0',
    () => new AnthropicZero({ apiKey, baseURL: mock.url, maxRetries: 0 }) as unknown as Anthropic,
  ],
] as const) {
  describe(label, () => {
    test('create answers a Message with usage, request-id and rate-limit headers', async () => {
      const { data, response } = await make()
        .messages.create({
          model: 'claude-sonnet-4-5-20250929',
          max_tokens: 64,
          messages: [{ role: 'user', content: 'Hello there' }],
        })
        .withResponse();
      assert.equal(
        data.content[0]?.type === 'text' && data.content[0].text,
        'mock anthropic reply to: Hello there',
      );
      assert.equal(data.stop_reason, 'end_turn');
      assert.ok(data.usage.input_tokens > 0 && data.usage.output_tokens > 0);
      assert.match(response.headers.get('request-id') ?? '', /^req_/);
      assert.equal(response.headers.get('anthropic-ratelimit-requests-limit'), '4000');
      assert.ok(publishedVersions.has(mock.requests.at(-1)?.headers['anthropic-version'] ?? ''));
    });

    test('stream delivers the events in the real order and a final message', async () => {
      const stream = make().messages.stream({
        model: 'claude-haiku-4-5-20251001',
        max_tokens: 64,
        messages: [{ role: 'user', content: 'stream me' }],
      });
      const types: string[] = [];
      stream.on('streamEvent', (event) => types.push(event.type));
      const final = await stream.finalMessage();
      assert.equal(
        final.content[0]?.type === 'text' && final.content[0].text,
        'mock anthropic reply to: stream me',
      );
      assert.deepEqual(
        [types[0], types[1], types.at(-2), types.at(-1)],
        ['message_start', 'content_block_start', 'message_delta', 'message_stop'],
      );
      assert.ok(types.filter((type) => type === 'content_block_delta').length >= 2);
    });

    test('a streamed tool call arrives in several input_json_delta pieces and parses', async () => {
      const stream = make().messages.stream({
        model: 'claude-sonnet-4-5-20250929',
        max_tokens: 64,
        tools: [weatherTool],
        messages: [{ role: 'user', content: 'please call get_weather' }],
      });
      let pieces = 0;
      stream.on('inputJson', () => (pieces += 1));
      const final = await stream.finalMessage();
      const block = final.content[0];
      assert.equal(final.stop_reason, 'tool_use');
      assert.ok(block?.type === 'tool_use');
      assert.deepEqual(block.input, { city: 'x' });
      assert.ok(pieces >= 2);
    });

    test('cache_control: the first request writes the prefix, the same prefix again reads it', async () => {
      const client = make();
      const ask = () =>
        client.messages.create({
          model: 'claude-sonnet-4-5-20250929',
          max_tokens: 16,
          system: [
            {
              type: 'text',
              text: `${label} long system prompt`.repeat(50),
              cache_control: { type: 'ephemeral' },
            },
          ],
          messages: [{ role: 'user', content: 'question' }],
        });
      const first = await ask();
      const second = await ask();
      assert.ok(first.usage.cache_creation_input_tokens! > 0 && first.usage.cache_read_input_tokens === 0);
      assert.equal(second.usage.cache_read_input_tokens, first.usage.cache_creation_input_tokens);
      assert.equal(second.usage.cache_creation_input_tokens, 0);
    });

    test('countTokens and models.list parse', async () => {
      const client = make();
      const counted = await client.messages.countTokens({
        model: 'claude-sonnet-4-5-20250929',
        messages: [{ role: 'user', content: 'count these words' }],
      });
      assert.ok(counted.input_tokens > 0);
      const ids: string[] = [];
      for await (const model of client.models.list()) ids.push(model.id);
      assert.ok(ids.includes('claude-sonnet-4-5-20250929'));
    });

    test('refusals surface as typed errors with the API texts', async () => {
      const client = make();
      await assert.rejects(
        client.messages.create({
          model: 'gpt-4o',
          max_tokens: 8,
          messages: [{ role: 'user', content: 'x' }],
        }),
        (error: unknown) =>
          (error instanceof Anthropic.NotFoundError || error instanceof AnthropicZero.NotFoundError) &&
          /not_found_error.*model: gpt-4o/.test(error.message),
      );
      await assert.rejects(
        client.messages.create({
          model: 'claude-sonnet-4-5-20250929',
          max_tokens: 8,
          messages: [{ role: 'user', content: 'x' }],
          frobnicate: 1,
        } as never),
        (error: unknown) =>
          (error as { status?: number }).status === 400 &&
          /frobnicate: Extra inputs are not permitted/.test(String(error)),
      );
      await assert.rejects(
        client.messages.create({
          model: 'claude-sonnet-4-5-20250929',
          messages: [{ role: 'user', content: 'x' }],
        } as never),
        (error: unknown) =>
          (error as { status?: number }).status === 400 && /max_tokens: Field required/.test(String(error)),
      );
      const wrongKey = new Anthropic({ apiKey: 'sk-ant-wrong', baseURL: mock.url, maxRetries: 0 });
      await assert.rejects(wrongKey.models.list(), Anthropic.AuthenticationError);
    });
  });
}

test('missing anthropic-version is a 400 in the real shape; anthropic-beta does not stand in for it', async () => {
  const response = await fetch(`${mock.url}/v1/messages`, {
    method: 'POST',
    headers: {
      'x-api-key': apiKey,
      'anthropic-beta': 'prompt-caching-2024-07-31',
      'content-type': 'application/json',
    },
    body: JSON.stringify({ model: 'claude-sonnet-4-5-20250929', max_tokens: 8, messages: [] }),
  });
  assert.equal(response.status, 400);
  const body = (await response.json()) as { type: string; error: unknown };
  assert.deepEqual(
    [body.type, body.error],
    ['error', { type: 'invalid_request_error', message: 'anthropic-version: header is required' }],
  );
});

test('x-mock-fail injects the vendor error (529 overloaded) as the SDK types it', async () => {
  const client = new Anthropic({
    apiKey,
    baseURL: mock.url,
    maxRetries: 0,
    defaultHeaders: { 'x-mock-fail': '529' },
  });
  await assert.rejects(
    client.messages.create({
      model: 'claude-sonnet-4-5-20250929',
      max_tokens: 8,
      messages: [{ role: 'user', content: 'x' }],
    }),
    (error: unknown) => {
      return (
        error instanceof Anthropic.APIError && error.status === 529 && /overloaded_error/.test(error.message)
      );
    },
  );
});

test('a malformed base64 image is refused; a valid PNG is seen', async () => {
  const client = new Anthropic({ apiKey, baseURL: mock.url, maxRetries: 0 });
  const png =
    'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';
  const ask = (data: string) =>
    client.messages.create({
      model: 'claude-sonnet-4-5-20250929',
      max_tokens: 8,
      messages: [
        {
          role: 'user',
          content: [
            { type: 'image', source: { type: 'base64', media_type: 'image/png', data } },
            { type: 'text', text: 'what is this' },
          ],
        },
      ],
    });
  const seen = await ask(png);
  assert.match(seen.content[0]?.type === 'text' ? seen.content[0].text : '', /image/);
  await assert.rejects(
    ask('bm90IGFuIGltYWdl'),
    (error: unknown) =>
      error instanceof Anthropic.BadRequestError &&
      /does not appear to be a valid png image/.test(error.message),
  );
});

test('a bearer API key is accepted like x-api-key; tool_choice without tools is refused', async () => {
  const client = new Anthropic({ authToken: apiKey, apiKey: null, baseURL: mock.url, maxRetries: 0 });
  const message = await client.messages.create({
    model: 'claude-sonnet-4-5-20250929',
    max_tokens: 8,
    messages: [{ role: 'user', content: 'bearer' }],
  });
  assert.equal(message.type, 'message');
  assert.equal(mock.requests.at(-1)?.headers.authorization, `Bearer ${apiKey}`);
  await assert.rejects(
    client.messages.create({
      model: 'claude-sonnet-4-5-20250929',
      max_tokens: 8,
      tool_choice: { type: 'any' },
      messages: [{ role: 'user', content: 'x' }],
    }),
    (error: unknown) =>
      error instanceof Anthropic.BadRequestError &&
      /tool_choice may only be specified while providing tools/.test(error.message),
  );
});

test('extended thinking: a signed thinking block first (streamed as thinking and signature deltas); a small budget is refused', async () => {
  const client = new Anthropic({ apiKey, baseURL: mock.url, maxRetries: 0 });
  const request = {
    model: 'claude-sonnet-4-5-20250929',
    max_tokens: 2048,
    thinking: { type: 'enabled' as const, budget_tokens: 1024 },
    messages: [{ role: 'user' as const, content: 'think first' }],
  };
  const whole = await client.messages.create(request);
  assert.deepEqual(
    whole.content.map((block) => block.type),
    ['thinking', 'text'],
  );
  const streamed = await client.messages.stream(request).finalMessage();
  const thinking = streamed.content[0];
  assert.ok(thinking?.type === 'thinking' && thinking.signature.length > 0);
  assert.equal(thinking.thinking, 'mock thinking about: think first');
  await assert.rejects(
    client.messages.create({ ...request, thinking: { type: 'enabled', budget_tokens: 100 } }),
    (error: unknown) =>
      error instanceof Anthropic.BadRequestError &&
      /budget_tokens: Input should be greater than or equal to 1024/.test(error.message),
  );
});
