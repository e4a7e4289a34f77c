/**
 * The Responses API end to end, through the official `openai` SDK unchanged (and the Vercel AI
 * SDK's `openai.responses` provider), on a model of each family served by the built-in simulator.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createOpenAI } from '@ai-sdk/openai';
import { generateText, streamText } from 'ai';
import OpenAI from 'openai';
import type { ResponseStreamEvent } from 'openai/resources/responses/responses';
import { alphaAuth, parseSse, post } from '../helpers/e2e.ts';
import { startTestGateway, type TestGateway } from '../helpers/test-gateway.ts';

const models = ['A-2', 'B-1', 'C-1'] as const;

let gateway: TestGateway;
let client: OpenAI;

before(async () => {
  gateway = await startTestGateway({ LOG_LEVEL: 'silent' });
  client = new OpenAI({ apiKey: gateway.key, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
});

after(async () => {
  await gateway.close();
});

describe('text, non-streamed and streamed, every family', () => {
  for (const model of models) {
    test(`${model}: responses.create`, async () => {
      const response = await client.responses.create({
        model,
        instructions: 'Be brief.',
        input: 'Say hello',
      });
      assert.match(response.id, /^resp_/);
      assert.equal(response.object, 'response');
      assert.equal(response.status, 'completed');
      assert.equal(response.model, model);
      assert.equal(response.instructions, 'Be brief.');
      assert.match(response.output_text, new RegExp(`^Simulated reply from ${model}`));
      const [item] = response.output;
      assert.equal(item?.type, 'message');
      assert.ok(response.usage);
      assert.ok(response.usage.input_tokens > 0 && response.usage.output_tokens > 0);
      assert.equal(response.usage.total_tokens, response.usage.input_tokens + response.usage.output_tokens);
      assert.equal(response.usage.input_tokens_details.cached_tokens, 0);
      assert.equal(response.usage.output_tokens_details.reasoning_tokens, 0);
    });

    test(`${model}: stream: true gives the whole event sequence`, async () => {
      const stream = await client.responses.create({
        model,
        input: [{ role: 'user', content: 'Hi there' }],
        stream: true,
      });
      const events: ResponseStreamEvent[] = [];
      for await (const event of stream) events.push(event);
      const types = events.map((event) => event.type);
      assert.deepEqual(types.slice(0, 4), [
        'response.created',
        'response.in_progress',
        'response.output_item.added',
        'response.content_part.added',
      ]);
      assert.deepEqual(types.slice(-4), [
        'response.output_text.done',
        'response.content_part.done',
        'response.output_item.done',
        'response.completed',
      ]);
      assert.deepEqual(
        events.map((event) => event.sequence_number),
        events.map((_, index) => index),
      );
      const text = events
        .flatMap((event) => (event.type === 'response.output_text.delta' ? [event.delta] : []))
        .join('');
      const completed = events.at(-1);
      assert.ok(completed?.type === 'response.completed');
      assert.equal(completed.response.model, model);
      const created = events[0];
      assert.ok(created?.type === 'response.created');
      assert.equal(completed.response.id, created.response.id);
      const message = completed.response.output[0];
      assert.ok(message?.type === 'message');
      const part = message.content[0];
      assert.ok(part?.type === 'output_text');
      assert.equal(part.text, text);
      assert.ok((completed.response.usage?.output_tokens ?? 0) > 0);
    });
  }

  test('cut by max_output_tokens: incomplete, with the reason', async () => {
    const response = await client.responses.create({
      model: 'B-1',
      input: 'Tell a long story',
      max_output_tokens: 16,
    });
    assert.equal(response.status, 'incomplete');
    assert.deepEqual(response.incomplete_details, { reason: 'max_output_tokens' });
    assert.equal(response.usage?.output_tokens, 16);
  });

  test('the SSE wire: an event: line naming each data line', async () => {
    const answer = await post(gateway.url, '/v1/responses', alphaAuth(gateway.key), {
      model: 'C-1',
      input: 'Hi',
      stream: true,
    });
    assert.equal(answer.status, 200);
    assert.match(answer.headers.get('content-type') ?? '', /^text\/event-stream/);
    const messages = parseSse(answer.text);
    assert.ok(messages.length > 6);
    for (const message of messages)
      assert.equal(message.event, (JSON.parse(message.data) as { type: string }).type);
  });
});

describe('errors in the A shape', () => {
  test('a built-in tool is a 400 naming it', async () => {
    const answer = await post(gateway.url, '/v1/responses', alphaAuth(gateway.key), {
      model: 'A-2',
      input: 'Search the web',
      tools: [{ type: 'web_search' }],
    });
    assert.equal(answer.status, 400);
    assert.deepEqual(Object.keys((answer.json as { error: object }).error).sort(), [
      'code',
      'message',
      'param',
      'type',
    ]);
    const error = (answer.json as { error: { type: string; param: string; message: string } }).error;
    assert.equal(error.type, 'invalid_request_error');
    assert.equal(error.param, 'tools[0].type');
    assert.match(error.message, /web_search/);
  });

  test('the SDK raises its own error classes', async () => {
    await assert.rejects(
      client.responses.create({ model: 'no-such-model', input: 'x' }),
      OpenAI.NotFoundError,
    );
    const stranger = new OpenAI({ apiKey: 'wrong-key', baseURL: `${gateway.url}/v1`, maxRetries: 0 });
    await assert.rejects(stranger.responses.create({ model: 'A-2', input: 'x' }), OpenAI.AuthenticationError);
    await assert.rejects(
      client.responses.create({
        model: 'A-2',
        input: [{ role: 'user', content: [{ type: 'input_file', file_id: 'f' }] }],
      }),
      (error: unknown) =>
        error instanceof OpenAI.BadRequestError && error.param === 'input[0].content[0].type',
    );
  });

  test('A rate-limit headers on the answer', async () => {
    const answer = await post(gateway.url, '/v1/responses', alphaAuth(gateway.key), {
      model: 'B-1',
      input: 'x',
    });
    assert.equal(answer.status, 200);
    assert.ok(answer.headers.get('x-ratelimit-limit-requests') !== null);
  });
});

describe('the Vercel AI SDK provider, unchanged', () => {
  const provider = (): ReturnType<typeof createOpenAI> =>
    createOpenAI({ apiKey: gateway.key, baseURL: `${gateway.url}/v1` });

  for (const model of models) {
    test(`${model}: generateText and streamText with openai.responses`, async () => {
      const generated = await generateText({ model: provider().responses(model), prompt: 'Say hello' });
      assert.match(generated.text, new RegExp(`^Simulated reply from ${model}`));
      assert.equal(generated.finishReason, 'stop');
      assert.ok((generated.usage.outputTokens ?? 0) > 0);
      const streamed = streamText({ model: provider().responses(model), prompt: 'Say hello' });
      let text = '';
      for await (const delta of streamed.textStream) text += delta;
      assert.match(text, new RegExp(`^Simulated reply from ${model}`));
      assert.equal(await streamed.finishReason, 'stop');
    });
  }
});
