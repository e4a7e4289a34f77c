/**
 * The OpenAI mock proven with the official `openai` SDK (and the Vercel AI SDK): what the SDK sends is
 * accepted and what the mock answers parses; what the real API refuses surfaces as the SDK's typed error
 * carrying the vendor's message.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createOpenAI } from '@ai-sdk/openai';
import { generateText } from 'ai';
import OpenAI from 'openai';
import type { MockUpstream } from '../kit/server.ts';
import { defaultOpenAIMockKey, startOpenAIMock } from './mock.ts';

let mock: MockUpstream;
let client: OpenAI;

before(async () => {
  mock = await startOpenAIMock();
  client = new OpenAI({ baseURL: `${mock.url}/v1`, apiKey: defaultOpenAIMockKey, maxRetries: 0 });
});
after(() => mock.close());

const weatherTool = {
  type: 'function' as const,
  function: {
    name: 'get_weather',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  },
};

async function rejection(promise: Promise<unknown>): Promise<InstanceType<typeof OpenAI.APIError>> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof OpenAI.APIError, `expected an APIError, got ${String(error)}`);
    return error;
  }
  assert.fail('the request was accepted');
}

describe('chat completions', () => {
  test('create answers a text completion with detailed usage', async () => {
    const completion = await client.chat.completions.create({
      model: 'gpt-4o',
      messages: [{ role: 'user', content: 'hello there' }],
    });
    assert.equal(completion.object, 'chat.completion');
    assert.equal(completion.choices[0]?.message.content, 'mock openai reply to: hello there');
    assert.equal(completion.choices[0].finish_reason, 'stop');
    assert.equal(completion.usage?.prompt_tokens_details?.cached_tokens, 0);
    assert.equal(completion.usage.completion_tokens_details?.reasoning_tokens, 0);
  });

  test('an image input is accepted and mentioned; a malformed one is refused', async () => {
    const image = { type: 'image_url' as const, image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } };
    const completion = await client.chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: [{ type: 'text', text: 'describe' }, image] }],
    });
    assert.match(completion.choices[0]?.message.content ?? '', /image/);
    const bad = { type: 'image_url' as const, image_url: { url: 'data:text/plain;base64,aGk=' } };
    const error = await rejection(
      client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: [bad] }] }),
    );
    assert.ok(error instanceof OpenAI.BadRequestError);
    assert.equal(error.code, 'invalid_value');
  });

  test('a reasoning model reports reasoning tokens', async () => {
    const completion = await client.chat.completions.create({
      model: 'o4-mini',
      messages: [{ role: 'user', content: 'think' }],
      max_completion_tokens: 100,
    });
    assert.ok((completion.usage?.completion_tokens_details?.reasoning_tokens ?? 0) > 0);
  });

  test('a stream arrives in chunks and carries usage only when asked', async () => {
    const withUsage = await client.chat.completions.create({
      model: 'gpt-4.1',
      messages: [{ role: 'user', content: 'stream please' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    let text = '';
    let chunks = 0;
    let usageChunks = 0;
    for await (const chunk of withUsage) {
      chunks++;
      text += chunk.choices[0]?.delta.content ?? '';
      if (chunk.usage) usageChunks++;
    }
    assert.equal(text, 'mock openai reply to: stream please');
    assert.ok(chunks >= 4);
    assert.equal(usageChunks, 1);
    const plain = await client.chat.completions.create({
      model: 'gpt-4.1',
      messages: [{ role: 'user', content: 'stream please' }],
      stream: true,
    });
    for await (const chunk of plain) assert.equal(chunk.usage, undefined);
  });

  test('a tool call, plain and streamed with its arguments in several deltas', async () => {
    const messages = [{ role: 'user' as const, content: 'please call get_weather' }];
    const completion = await client.chat.completions.create({
      model: 'gpt-5',
      messages,
      tools: [weatherTool],
    });
    const call = completion.choices[0]?.message.tool_calls?.[0];
    assert.equal(completion.choices[0]?.finish_reason, 'tool_calls');
    assert.equal(call?.type === 'function' ? call.function.arguments : undefined, '{"city":"x"}');
    const stream = client.chat.completions.stream({ model: 'gpt-5', messages, tools: [weatherTool] });
    let argumentDeltas = 0;
    stream.on('tool_calls.function.arguments.delta', () => argumentDeltas++);
    const final = await stream.finalChatCompletion();
    const streamed = final.choices[0]?.message.tool_calls?.[0];
    assert.equal(streamed?.type === 'function' ? streamed.function.name : undefined, 'get_weather');
    assert.equal(streamed?.type === 'function' ? streamed.function.arguments : undefined, '{"city":"x"}');
    assert.ok(argumentDeltas >= 2);
  });

  test('an identical long prefix is reported as cached the second time', async () => {
    const system = { role: 'system' as const, content: 'You are a careful assistant. '.repeat(200) };
    const ask = (content: string) =>
      client.chat.completions.create({ model: 'gpt-4o', messages: [system, { role: 'user', content }] });
    assert.equal((await ask('first')).usage?.prompt_tokens_details?.cached_tokens, 0);
    const cached = (await ask('second')).usage?.prompt_tokens_details?.cached_tokens ?? 0;
    assert.ok(cached >= 1024 && cached % 128 === 0);
  });
});

describe('refusals', () => {
  const messages = [{ role: 'user' as const, content: 'hi' }];

  test('a wrong key is invalid_api_key, a missing one is the real explanation', async () => {
    const wrong = new OpenAI({ baseURL: `${mock.url}/v1`, apiKey: 'sk-wrong-key-123456', maxRetries: 0 });
    const error = await rejection(wrong.models.list());
    assert.ok(error instanceof OpenAI.AuthenticationError);
    assert.equal(error.code, 'invalid_api_key');
    assert.doesNotMatch(error.message, /sk-wrong-key-123456/);
    const missing = await fetch(`${mock.url}/v1/models`);
    assert.equal(missing.status, 401);
    assert.match(JSON.stringify(await missing.json()), /You didn't provide an API key/);
  });

  test('an unknown model, route or field is refused as OpenAI does', async () => {
    const notFound = await rejection(client.chat.completions.create({ model: 'A-2', messages }));
    assert.ok(notFound instanceof OpenAI.NotFoundError);
    assert.equal(notFound.code, 'model_not_found');
    const params = { model: 'gpt-4o', messages, bogus_field: 1 };
    const unknown = await rejection(client.chat.completions.create(params));
    assert.ok(unknown instanceof OpenAI.BadRequestError);
    assert.match(unknown.message, /Unrecognized request argument supplied: bogus_field/);
    const route = await rejection(client.post('/embeddings-nope', { body: {} }));
    assert.equal(route.status, 404);
    assert.match(route.message, /Invalid URL \(POST \/v1\/embeddings-nope\)/);
  });

  test('stream_options without stream and tool_choice without tools are refused', async () => {
    const streamOptions = await rejection(
      client.chat.completions.create({ model: 'gpt-4o', messages, stream_options: { include_usage: true } }),
    );
    assert.match(
      streamOptions.message,
      /'stream_options' parameter is only allowed when 'stream' is enabled/,
    );
    const toolChoice = await rejection(
      client.chat.completions.create({ model: 'gpt-4o', messages, tool_choice: 'auto' }),
    );
    assert.ok(toolChoice instanceof OpenAI.BadRequestError);
    assert.match(toolChoice.message, /'tool_choice' is only allowed when 'tools' are specified/);
  });

  test('reasoning models refuse max_tokens and non-default temperature', async () => {
    const maxTokens = await rejection(
      // eslint-disable-next-line @typescript-eslint/no-deprecated -- the refusal of the deprecated field is the subject
      client.chat.completions.create({ model: 'o3', messages, max_tokens: 10 }),
    );
    assert.ok(maxTokens instanceof OpenAI.BadRequestError);
    assert.equal(maxTokens.code, 'unsupported_parameter');
    assert.match(
      maxTokens.message,
      /Unsupported parameter: 'max_tokens' is not supported with this model\. Use 'max_completion_tokens' instead\./,
    );
    const temperature = await rejection(
      client.chat.completions.create({ model: 'gpt-5', messages, temperature: 0.2 }),
    );
    assert.equal(temperature.code, 'unsupported_value');
    // eslint-disable-next-line @typescript-eslint/no-deprecated -- non-reasoning models still take max_tokens
    await client.chat.completions.create({ model: 'gpt-4o', messages, max_tokens: 10, temperature: 0.2 });
  });

  test('x-mock-fail injects a vendor-shaped failure', async () => {
    const limited = await rejection(
      client.chat.completions.create({ model: 'gpt-4o', messages }, { headers: { 'x-mock-fail': '429' } }),
    );
    assert.ok(limited instanceof OpenAI.RateLimitError);
    assert.equal(limited.headers.get('retry-after'), '1');
  });
});

describe('models and responses', () => {
  test('models.list returns the configured ids', async () => {
    const ids: string[] = [];
    for await (const model of client.models.list()) ids.push(model.id);
    assert.ok(ids.includes('gpt-4o') && ids.includes('o3') && ids.includes('gpt-5'));
  });

  test('responses: create and stream text', async () => {
    const response = await client.responses.create({ model: 'gpt-4.1', input: 'hello responses' });
    assert.equal(response.output_text, 'mock openai reply to: hello responses');
    const stream = await client.responses.create({
      model: 'gpt-4.1',
      input: 'hello responses',
      stream: true,
    });
    const types: string[] = [];
    let text = '';
    for await (const event of stream) {
      types.push(event.type);
      if (event.type === 'response.output_text.delta') text += event.delta;
    }
    assert.equal(text, 'mock openai reply to: hello responses');
    assert.equal(types[0], 'response.created');
    assert.equal(types.at(-1), 'response.completed');
  });

  test('responses: a function call, plain and streamed', async () => {
    const tools = [
      {
        type: 'function' as const,
        name: 'lookup',
        strict: false,
        parameters: { type: 'object', properties: {} },
      },
    ];
    const response = await client.responses.create({ model: 'o3', input: 'call lookup', tools });
    const item = response.output[0];
    assert.equal(item?.type === 'function_call' ? item.name : undefined, 'lookup');
    const stream = client.responses.stream({ model: 'o3', input: 'call lookup', tools });
    const final = await stream.finalResponse();
    const streamed = final.output[0];
    assert.equal(streamed?.type === 'function_call' ? streamed.arguments : undefined, '{}');
    const unknown = await rejection(client.responses.create({ model: 'o3', input: 'x', ...{ bogus: 1 } }));
    assert.equal(unknown.code, 'unknown_parameter');
  });

  test('the Vercel AI SDK generates text against the mock', async () => {
    const provider = createOpenAI({ baseURL: `${mock.url}/v1`, apiKey: defaultOpenAIMockKey });
    const result = await generateText({
      model: provider('gpt-4o'),
      prompt: 'from the ai sdk',
      maxRetries: 0,
    });
    assert.equal(result.text, 'mock openai reply to: from the ai sdk');
    const chat = await generateText({
      model: provider.chat('gpt-4o-mini'),
      prompt: 'chat path',
      maxRetries: 0,
    });
    assert.equal(chat.text, 'mock openai reply to: chat path');
  });
});
