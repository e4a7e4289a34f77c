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
import { alphaAuth, parseSse, post } from '../kit/e2e.ts';
import { startRecordingUpstream, type RecordingUpstream } from '../kit/recording-upstream.ts';
import { startTestGateway, testClientKey, type TestGateway } from '../kit/test-gateway.ts';

const models = ['A-2', 'B-1', 'C-1'] as const;
const otherKey = 'mg-test-other-client-key-987654';

let upstream: RecordingUpstream;
let gateway: TestGateway;
let client: OpenAI;
/** The same gateway as another client key. */
let other: OpenAI;

before(async () => {
  // Every family's upstream records what it was sent and answers with the simulator.
  upstream = await startRecordingUpstream();
  gateway = await startTestGateway({
    LOG_LEVEL: 'silent',
    MODELGATE_KEYS: `${testClientKey},${otherKey}`,
    ALPHA_BASE_URL: upstream.url,
    BETA_BASE_URL: upstream.url,
    GAMMA_BASE_URL: upstream.url,
    ALPHA_API_KEY: 'up-a',
    BETA_API_KEY: 'up-b',
    GAMMA_API_KEY: 'up-c',
  });
  client = new OpenAI({ apiKey: gateway.key, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
  other = new OpenAI({ apiKey: otherKey, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
});

after(async () => {
  await gateway.close();
  await upstream.close();
});

/** The texts of every message the last upstream request carried, whatever its family's shape. */
function lastUpstreamTexts(): string {
  return upstream.requests.at(-1)?.body ?? '';
}

const weatherTool = {
  type: 'function' as const,
  name: 'get_weather',
  description: 'Weather for a city',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  strict: false,
};

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
  // The default (responses.builtInTools: drop-unless-forced) leaves out a built-in tool the request
  // only offers (responses-built-in-tools.test.ts); one it forces stays a 400 naming it.
  test('a forced built-in tool is a 400 naming it', async () => {
    const answer = await post(gateway.url, '/v1/responses', alphaAuth(gateway.key), {
      model: 'A-2',
      input: 'Search the web',
      tools: [{ type: 'web_search' }],
      tool_choice: { type: 'web_search' },
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
    assert.equal(error.param, 'tool_choice.type');
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

describe('function tools: the loop with function_call_output, every family', () => {
  for (const model of models) {
    test(`${model}: a call, then its output sent back as items`, async () => {
      const input: OpenAI.Responses.ResponseInput = [{ role: 'user', content: 'Weather in Paris?' }];
      const first = await client.responses.create({
        model,
        input,
        tools: [weatherTool],
        tool_choice: 'required',
      });
      const call = first.output.find((item) => item.type === 'function_call');
      assert.ok(call?.type === 'function_call', JSON.stringify(first.output));
      assert.equal(call.name, 'get_weather');
      assert.match(call.id ?? '', /^fc_/);
      assert.equal(call.status, 'completed');
      assert.ok(typeof (JSON.parse(call.arguments) as { city: unknown }).city === 'string');
      const second = await client.responses.create({
        model,
        tools: [weatherTool],
        input: [
          ...input,
          // The call goes back as an input item, as the Agents SDK and Codex replay it.
          call,
          { type: 'function_call_output', call_id: call.call_id, output: '18C, sunny' },
        ],
      });
      assert.equal(second.status, 'completed');
      assert.ok(second.output_text.length > 0);
      // The result reached the model's upstream, tied to the call (C ties results by name, not id).
      assert.ok(lastUpstreamTexts().includes('18C, sunny'));
      assert.ok(lastUpstreamTexts().includes(model === 'C-1' ? '"name":"get_weather"' : call.call_id));
    });

    test(`${model}: a streamed call: arguments deltas add up to the done event`, async () => {
      const stream = await client.responses.create({
        model,
        input: 'Weather in Rome?',
        tools: [weatherTool],
        tool_choice: { type: 'function', name: 'get_weather' },
        stream: true,
      });
      let deltas = '';
      let done: string | undefined;
      let item: OpenAI.Responses.ResponseOutputItem | undefined;
      for await (const event of stream) {
        if (event.type === 'response.function_call_arguments.delta') deltas += event.delta;
        if (event.type === 'response.function_call_arguments.done') done = event.arguments;
        if (event.type === 'response.output_item.done') item = event.item;
      }
      assert.equal(done, deltas);
      assert.ok(item?.type === 'function_call');
      assert.equal(item.arguments, deltas);
    });
  }
});

describe('namespace tools (as Codex sends its sub-agent tools)', () => {
  for (const model of models) {
    test(`${model}: a member is called by name and namespace, and the call replays`, async () => {
      const tools: OpenAI.Responses.Tool[] = [
        {
          type: 'namespace',
          name: 'agents',
          description: 'Sub-agents you can start.',
          tools: [{ type: 'function', name: 'spawn_agent', parameters: weatherTool.parameters }],
        },
      ];
      const first = await client.responses.create({
        model,
        input: 'Start an agent for Paris',
        tools,
        tool_choice: 'required',
      });
      const call = first.output.find((item) => item.type === 'function_call');
      assert.ok(call?.type === 'function_call', JSON.stringify(first.output));
      assert.equal(call.name, 'spawn_agent');
      assert.equal(call.namespace, 'agents');
      assert.ok(
        lastUpstreamTexts().includes('agents__spawn_agent'),
        'the upstream saw one flat function name',
      );
      const second = await client.responses.create({
        model,
        tools,
        input: [
          { role: 'user', content: 'Start an agent for Paris' },
          call,
          { type: 'function_call_output', call_id: call.call_id, output: 'agent-42 started' },
        ],
      });
      assert.equal(second.status, 'completed');
      assert.ok(lastUpstreamTexts().includes('agent-42 started'));
    });
  }
});

describe('stored responses: previous_response_id, retrieve, delete', () => {
  for (const model of models) {
    test(`${model}: a continuation carries the earlier turn; a tool loop by previous_response_id`, async () => {
      const first = await client.responses.create({
        model,
        instructions: 'Be brief.',
        input: 'My name is Ada Lovelace.',
        tools: [weatherTool],
        tool_choice: 'required',
      });
      const call = first.output.find((item) => item.type === 'function_call');
      assert.ok(call?.type === 'function_call');
      const second = await client.responses.create({
        model,
        previous_response_id: first.id,
        input: [{ type: 'function_call_output', call_id: call.call_id, output: '21C' }],
      });
      assert.equal(second.status, 'completed');
      assert.equal(second.previous_response_id, first.id);
      const sent = lastUpstreamTexts();
      assert.ok(sent.includes('My name is Ada Lovelace.'), 'the first input went upstream again');
      assert.ok(sent.includes('21C'));
      // Instructions are not carried over (as the API does): only the new request's count.
      assert.ok(!sent.includes('Be brief.'));
      const streamed = await client.responses.create({
        model,
        previous_response_id: second.id,
        input: 'And my name?',
        stream: true,
      });
      let completed: OpenAI.Responses.Response | undefined;
      for await (const event of streamed) if (event.type === 'response.completed') completed = event.response;
      assert.ok(completed !== undefined);
      const last = lastUpstreamTexts();
      for (const said of ['My name is Ada Lovelace.', '21C', second.output_text, 'And my name?'])
        assert.ok(last.includes(said), `upstream got ${JSON.stringify(said)}`);
      // A streamed answer is stored too, as the client saw it.
      const retrieved = await client.responses.retrieve(completed.id);
      assert.deepEqual(retrieved.output, completed.output);
      assert.deepEqual(retrieved.usage, completed.usage);
    });
  }

  test('retrieve gives the answer as created; delete removes it; input_items lists the input', async () => {
    const created = await client.responses.create({
      model: 'A-2',
      input: 'Remember this',
      metadata: { run: '7' },
    });
    const retrieved = await client.responses.retrieve(created.id);
    assert.deepEqual({ ...retrieved, output_text: '' }, { ...created, output_text: '' });
    assert.deepEqual(retrieved.metadata, { run: '7' });
    const items = await client.responses.inputItems.list(created.id);
    assert.equal(items.data.length, 1);
    const [item] = items.data;
    assert.ok(item?.type === 'message');
    assert.deepEqual(item.content, [{ type: 'input_text', text: 'Remember this' }]);
    const deleted = await post(gateway.url, `/v1/responses/${created.id}`, alphaAuth(gateway.key), '');
    assert.equal(deleted.status, 405, 'POST is not a method of a stored response');
    assert.equal(deleted.headers.get('allow'), 'GET, DELETE');
    const answer = await fetch(`${gateway.url}/v1/responses/${created.id}`, {
      method: 'DELETE',
      headers: alphaAuth(gateway.key),
    });
    assert.equal(answer.status, 200);
    assert.deepEqual(await answer.json(), { id: created.id, object: 'response', deleted: true });
    await assert.rejects(client.responses.retrieve(created.id), OpenAI.NotFoundError);
    await assert.rejects(client.responses.delete(created.id), OpenAI.NotFoundError);
  });

  test('input_items pages through the whole conversation, newest first unless asked', async () => {
    const first = await client.responses.create({ model: 'C-1', input: 'one' });
    const second = await client.responses.create({
      model: 'C-1',
      previous_response_id: first.id,
      input: [
        { role: 'user', content: 'two' },
        { role: 'user', content: 'three' },
      ],
    });
    const texts = (items: OpenAI.Responses.ResponseItem[]): string[] =>
      items.map((item) => {
        if (item.type !== 'message') return item.type;
        const [part] = item.content;
        return part?.type === 'input_text' || part?.type === 'output_text' ? part.text : '?';
      });
    const newest = await client.responses.inputItems.list(second.id);
    assert.deepEqual(texts(newest.data), ['three', 'two', first.output_text, 'one']);
    const page = await client.responses.inputItems.list(second.id, { order: 'asc', limit: 2 });
    assert.deepEqual(texts(page.data), ['one', first.output_text]);
    assert.equal(page.has_more, true);
    const rest = await client.responses.inputItems.list(second.id, {
      order: 'asc',
      after: page.data[page.data.length - 1]?.id ?? '',
    });
    assert.deepEqual(texts(rest.data), ['two', 'three']);
    assert.equal(rest.has_more, false);
  });

  test('another key gets 404 and cannot continue; the owner still can', async () => {
    const created = await client.responses.create({ model: 'B-1', input: 'Secret plans' });
    await assert.rejects(other.responses.retrieve(created.id), (error: unknown) => {
      assert.ok(error instanceof OpenAI.NotFoundError);
      assert.equal((error.error as { code: unknown }).code, null);
      return true;
    });
    await assert.rejects(other.responses.delete(created.id), OpenAI.NotFoundError);
    await assert.rejects(
      other.responses.create({ model: 'B-1', previous_response_id: created.id, input: 'Tell me' }),
      (error: unknown) => error instanceof OpenAI.BadRequestError && error.param === 'previous_response_id',
    );
    const owner = await client.responses.retrieve(created.id);
    assert.equal(owner.id, created.id);
  });

  test('store: false is not kept', async () => {
    const created = await client.responses.create({ model: 'C-1', input: 'Forget me', store: false });
    await assert.rejects(client.responses.retrieve(created.id), OpenAI.NotFoundError);
    await assert.rejects(
      client.responses.create({ model: 'C-1', previous_response_id: created.id, input: 'x' }),
      OpenAI.BadRequestError,
    );
  });
});

describe('failures and warnings', () => {
  test('an upstream stream cut mid-answer ends with error then response.failed', async () => {
    upstream.script.push({
      status: 200,
      body: [
        'data: {"id":"chatcmpl-x","object":"chat.completion.chunk","created":1,"model":"up","choices":[{"index":0,"delta":{"role":"assistant","content":"Hel"},"finish_reason":null}]}\n\n',
      ],
    });
    const stream = await client.responses.create({ model: 'A-2', input: 'Hi', stream: true });
    const events: ResponseStreamEvent[] = [];
    for await (const event of stream) events.push(event);
    assert.deepEqual(
      events.slice(-2).map((event) => event.type),
      ['error', 'response.failed'],
    );
    const failed = events.at(-1);
    assert.ok(failed?.type === 'response.failed');
    assert.equal(failed.response.status, 'failed');
    assert.ok(failed.response.error?.message);
    await assert.rejects(client.responses.retrieve(failed.response.id), OpenAI.NotFoundError);
  });

  test('fields no upstream receives are named in a warning header', async () => {
    const answer = await post(gateway.url, '/v1/responses', alphaAuth(gateway.key), {
      model: 'B-1',
      input: 'x',
      max_tool_calls: 2,
      text: { format: { type: 'json_object' }, verbosity: 'low' },
    });
    assert.equal(answer.status, 200, answer.text);
    const warning = answer.headers.get('warning') ?? '';
    assert.match(warning, /max_tool_calls is not supported/);
    assert.match(warning, /verbosity has no equivalent for beta models/);
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
