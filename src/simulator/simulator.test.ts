import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { upstreamError } from '../codecs/shared/upstream-errors.ts';
import { checkStreamEvents } from '../ir/check-stream-events.ts';
import { foldStream } from '../ir/fold-stream.ts';
import { type ChatRequest, type ChatResponse, type ToolDefinition } from '../ir/index.ts';
import { countTextTokens } from '../tokenizer/count-tokens.ts';
import {
  chatRequest,
  collect,
  decodeJson,
  decodeStream,
  header,
  testSimulator,
  upstreamInput,
} from './test-kit.ts';
import { codecs, specFamilies, type SpecFamily } from '../../test/kit/spec-families.ts';

const never = new AbortController().signal;

const weatherTool: ToolDefinition = {
  name: 'get_weather',
  description: 'Current weather',
  parameters: {
    type: 'object',
    properties: {
      city: { type: 'string' },
      unit: { type: 'string', enum: ['celsius', 'fahrenheit'] },
      days: { type: 'integer' },
    },
    required: ['city'],
  },
};

async function nonStream(family: SpecFamily, request: ChatRequest, extra: Record<string, string> = {}) {
  const response = await testSimulator().handle(
    upstreamInput(family, { ...request, stream: false }, extra),
    never,
  );
  const text = await response.text();
  return { response, text, json: JSON.parse(text) as Record<string, unknown> };
}

async function stream(family: SpecFamily, request: ChatRequest, extra: Record<string, string> = {}) {
  const response = await testSimulator().handle(
    upstreamInput(family, { ...request, stream: true }, extra),
    never,
  );
  const chunks = await collect(response);
  return { response, chunks, events: decodeStream(family, chunks) };
}

function firstText(response: ChatResponse, choice = 0): string {
  const part = response.choices[choice]?.content[0];
  return part?.type === 'text' ? part.text : '';
}

/** Ids and clocks differ between a stream and a JSON reply in some families (C invents them). */
function comparable(response: ChatResponse): Omit<ChatResponse, 'id' | 'created'> {
  return { model: response.model, choices: response.choices, usage: response.usage };
}

describe('replies in every family', () => {
  for (const family of specFamilies) {
    test(`${family}: deterministic text reply with real token usage`, async () => {
      const first = await nonStream(family, chatRequest());
      const second = await nonStream(family, chatRequest());
      assert.equal(first.response.status, 200);
      assert.equal(header(first.response.headers, 'content-type'), 'application/json');
      assert.equal(first.text, second.text);
      const decoded = decodeJson(family, first.text);
      const text = firstText(decoded);
      assert.match(text, /^Simulated reply from sim-model: What is the weather in Paris\? [a-z ]+\.$/);
      assert.equal(decoded.usage.outputTokens, countTextTokens(text));
      assert.equal(decoded.usage.inputTokens, countTextTokens('What is the weather in Paris?'));
      assert.equal(decoded.choices[0]?.finishReason.unified, 'stop');
    });

    test(`${family}: max output tokens cuts with the family's length finish`, async () => {
      const { json } = await nonStream(family, chatRequest({ sampling: { maxOutputTokens: 4 } }));
      const raw = {
        alpha: () => (json['choices'] as Array<Record<string, unknown>>)[0]?.['finish_reason'],
        beta: () => json['stop_reason'],
        gamma: () => (json['candidates'] as Array<Record<string, unknown>>)[0]?.['finishReason'],
      }[family]();
      assert.equal(raw, { alpha: 'length', beta: 'max_tokens', gamma: 'MAX_TOKENS' }[family]);
      const decoded = decodeJson(family, JSON.stringify(json));
      // Tokens: `Sim` `ulated` ` reply` ` from`.
      assert.equal(firstText(decoded), 'Simulated reply from');
      assert.equal(decoded.usage.outputTokens, 4);
    });

    test(`${family}: stop sequence cuts before the match`, async () => {
      const { json, text } = await nonStream(
        family,
        chatRequest({ sampling: { maxOutputTokens: 100, stopSequences: ['Paris'] } }),
      );
      const decoded = decodeJson(family, text);
      assert.equal(firstText(decoded), 'Simulated reply from sim-model: What is the weather in ');
      assert.equal(decoded.choices[0]?.finishReason.unified, 'stop');
      if (family === 'beta') {
        assert.equal(json['stop_reason'], 'stop_sequence');
        assert.equal(json['stop_sequence'], 'Paris');
      }
    });

    test(`${family}: a tool call with arguments from the schema`, async () => {
      const request = chatRequest({ tools: [weatherTool], toolChoice: { type: 'required' } }, 'hello');
      const { json, text } = await nonStream(family, request);
      const decoded = decodeJson(family, text);
      const part = decoded.choices[0]?.content[0];
      assert.equal(part?.type, 'tool-call');
      assert.equal(part.name, 'get_weather');
      assert.deepEqual(JSON.parse(part.arguments), { city: 'sample city', unit: 'celsius', days: 1 });
      assert.equal(decoded.choices[0]?.finishReason.unified, 'tool-calls');
      const serialized = JSON.stringify(json);
      const marker = { alpha: '"tool_calls"', beta: '"tool_use"', gamma: '"functionCall"' }[family];
      assert.ok(serialized.includes(marker), serialized);
      if (family !== 'gamma') assert.match(part.id, family === 'alpha' ? /^call_/ : /^toolu_/);
    });

    test(`${family}: streams are well-formed, one chunk per token, and fold to the JSON reply`, async () => {
      const requests = [
        chatRequest(),
        chatRequest({ sampling: { maxOutputTokens: 7 } }),
        chatRequest({ sampling: { maxOutputTokens: 100, stopSequences: ['weather'] } }),
        chatRequest({ tools: [weatherTool] }, 'please use get_weather for Paris'),
        chatRequest({}, 'Grüße aus 東京 🎌, naïve café'),
      ];
      for (const request of requests) {
        const streamed = await stream(family, request);
        assert.equal(header(streamed.response.headers, 'content-type'), 'text/event-stream');
        assert.deepEqual(checkStreamEvents(streamed.events), []);
        const deltas = streamed.events.filter(
          (event) => event.type === 'text-delta' || event.type === 'tool-call-delta',
        );
        // Each token is its own chunk; the closing events come in one last chunk. (C streams a
        // function call whole: its encoder sends the call once, with the closing chunk.)
        const tokens = family === 'gamma' ? deltas.filter((event) => event.type === 'text-delta') : deltas;
        assert.equal(streamed.chunks.length, tokens.length + 1);
        const whole = decodeJson(family, (await nonStream(family, request)).text);
        assert.deepEqual(comparable(foldStream(streamed.events)), comparable(whole));
      }
    });

    test(`${family}: missing credentials are refused in the family's shape`, async () => {
      const input = upstreamInput(family, chatRequest());
      const bare = Object.fromEntries(
        Object.entries(input.headers).filter(
          ([name]) => !['authorization', 'x-api-key', 'x-gamma-api-key'].includes(name),
        ),
      );
      const path = input.path.replace(/[?&]key=[^&]*/, '');
      const response = await testSimulator().handle({ ...input, path, headers: bare }, never);
      assert.equal(response.status, family === 'gamma' ? 403 : 401);
      const error = upstreamError(response.status, codecs[family].decodeErrorBody(await response.text()));
      assert.equal(error.kind, 'upstream');
    });

    test(`${family}: invalid JSON is the family's 400`, async () => {
      const input = upstreamInput(family, chatRequest());
      const response = await testSimulator().handle({ ...input, body: '{"model": ' }, never);
      assert.equal(response.status, 400);
      const body = await response.text();
      assert.equal(upstreamError(400, codecs[family].decodeErrorBody(body)).kind, 'invalid_request');
      assert.ok(body.includes('not valid JSON'), body);
    });
  }
});

describe('request details', () => {
  test('alpha: n=2 gives two different deterministic choices; gamma candidateCount too', async () => {
    for (const family of ['alpha', 'gamma'] as const) {
      const request = chatRequest({ sampling: { maxOutputTokens: 200, candidateCount: 2 } });
      const decoded = decodeJson(family, (await nonStream(family, request)).text);
      assert.equal(decoded.choices.length, 2);
      assert.notEqual(firstText(decoded, 0), firstText(decoded, 1));
      assert.equal(
        firstText(decoded, 0),
        firstText(decodeJson(family, (await nonStream(family, chatRequest())).text)),
      );
      assert.equal(
        decoded.usage.outputTokens,
        countTextTokens(firstText(decoded, 0)) + countTextTokens(firstText(decoded, 1)),
      );
      const streamed = await stream(family, request);
      assert.deepEqual(checkStreamEvents(streamed.events), []);
      assert.deepEqual(comparable(foldStream(streamed.events)), comparable(decoded));
    }
  });

  test('the same request gives the same reply text in every family', async () => {
    const texts = await Promise.all(
      specFamilies.map(async (family) =>
        firstText(decodeJson(family, (await nonStream(family, chatRequest())).text)),
      ),
    );
    assert.equal(new Set(texts).size, 1);
  });

  test('beta accepts a bearer token; gamma accepts ?key=', async () => {
    const beta = upstreamInput('beta', chatRequest());
    const { 'x-api-key': _key, ...rest } = beta.headers;
    const answer = await testSimulator().handle(
      { ...beta, headers: { ...rest, authorization: 'Bearer anything' } },
      never,
    );
    assert.equal(answer.status, 200);
    const gamma = upstreamInput('gamma', chatRequest());
    const { 'x-gamma-api-key': _gammaKey, ...gammaRest } = gamma.headers;
    const byQuery = await testSimulator().handle(
      { ...gamma, headers: gammaRest, path: `${gamma.path}?key=abc` },
      never,
    );
    assert.equal(byQuery.status, 200);
  });

  test('beta without a valid beta-version is refused', async () => {
    const input = upstreamInput('beta', chatRequest());
    const response = await testSimulator().handle(
      { ...input, headers: { ...input.headers, 'beta-version': 'nope' } },
      never,
    );
    assert.equal(response.status, 400);
    assert.equal((JSON.parse(await response.text()) as { type: string }).type, 'error');
  });

  test('an unknown path is a 404 in the alpha shape', async () => {
    const response = await testSimulator().handle(
      { method: 'POST', path: '/v2/whatever', headers: {}, body: '{}' },
      never,
    );
    assert.equal(response.status, 404);
    const body = JSON.parse(await response.text()) as { error: { type: string; message: string } };
    assert.equal(body.error.type, 'invalid_request_error');
    const get = await testSimulator().handle(
      { method: 'GET', path: '/v1/chat/completions', headers: {}, body: '' },
      never,
    );
    assert.equal(get.status, 404);
  });

  test('a tool result in the history gets a text reply that mentions it', async () => {
    const request = chatRequest({
      tools: [weatherTool],
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'use get_weather' }] },
        {
          role: 'assistant',
          content: [{ type: 'tool-call', id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}' }],
        },
        {
          role: 'tool',
          content: [
            {
              type: 'tool-result',
              callId: 'call_1',
              name: 'get_weather',
              content: [{ type: 'text', text: '18C' }],
              isError: false,
            },
          ],
        },
      ],
    });
    for (const family of specFamilies) {
      const decoded = decodeJson(family, (await nonStream(family, request)).text);
      assert.match(
        firstText(decoded),
        /^Simulated reply from sim-model: the tool get_weather returned 18C /,
        family,
      );
    }
  });
});
