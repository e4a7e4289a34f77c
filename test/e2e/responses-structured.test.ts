/**
 * Structured output (`text.format`) and reasoning (`reasoning.effort`) through the Responses API,
 * end to end with the official `openai` SDK unchanged (`responses.parse`, `responses.stream` with
 * `zodTextFormat`), on a model of each family: the upstream gets its own family's knob, the
 * simulator behind it answers JSON of the schema and thinks, and the usage shows reasoning tokens.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import OpenAI from 'openai';
import { zodTextFormat } from 'openai/helpers/zod';
import { z } from 'zod';
import { alphaAuth, post } from '../kit/e2e.ts';
import { startRecordingUpstream, type RecordingUpstream } from '../kit/recording-upstream.ts';
import { startTestGateway, type TestGateway } from '../kit/test-gateway.ts';

let upstream: RecordingUpstream;
let gateway: TestGateway;
let client: OpenAI;

before(async () => {
  upstream = await startRecordingUpstream();
  gateway = await startTestGateway({
    LOG_LEVEL: 'silent',
    ALPHA_BASE_URL: upstream.url,
    BETA_BASE_URL: upstream.url,
    GAMMA_BASE_URL: upstream.url,
    ALPHA_API_KEY: 'up-a',
    BETA_API_KEY: 'up-b',
    GAMMA_API_KEY: 'up-c',
  });
  client = new OpenAI({ apiKey: gateway.key, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
});

after(async () => {
  await gateway.close();
  await upstream.close();
});

const Place = z.object({ city: z.string(), population: z.number(), kind: z.enum(['capital', 'town']) });
const placeFormat = zodTextFormat(Place, 'place');

function lastSent(): Record<string, unknown> {
  const json = upstream.requests.at(-1)?.json;
  assert.ok(json !== undefined && typeof json === 'object' && !Array.isArray(json));
  return json as Record<string, unknown>;
}

/** The structured-output field of each family's upstream request. */
const formatSent: Record<string, (body: Record<string, unknown>) => unknown> = {
  'A-2': (body) => (body.response_format as { type?: unknown } | undefined)?.type,
  'B-1': (body) => (body.output_config as { format?: { type?: unknown } } | undefined)?.format?.type,
  'C-1': (body) => (body.generationConfig as { responseMimeType?: unknown } | undefined)?.responseMimeType,
};

const formatExpected: Record<string, string> = {
  'A-2': 'json_schema',
  'B-1': 'json_schema',
  'C-1': 'application/json',
};

/** The reasoning knob of each family's upstream request. */
const reasoningSent: Record<string, (body: Record<string, unknown>) => unknown> = {
  'A-2': (body) => body.reasoning_effort,
  'B-1': (body) => body.thinking,
  'C-1': (body) => (body.generationConfig as { thinkingConfig?: unknown } | undefined)?.thinkingConfig,
};

const reasoningExpected: Record<string, unknown> = {
  'A-2': 'medium',
  // A quarter of the 8192-token cap the gateway gives B-1, below max_tokens.
  'B-1': { type: 'enabled', budget_tokens: 2048 },
  'C-1': { thinkingBudget: 2048 },
};

describe('text.format: responses.parse and responses.stream get JSON of the schema, every family', () => {
  for (const model of ['A-2', 'B-1', 'C-1']) {
    test(`${model}: responses.parse`, async () => {
      const response = await client.responses.parse({
        model,
        input: 'A city, please',
        text: { format: placeFormat },
      });
      assert.equal(formatSent[model]?.(lastSent()), formatExpected[model]);
      const parsed = response.output_parsed;
      assert.ok(parsed !== null);
      assert.equal(typeof parsed.city, 'string');
      assert.equal(typeof parsed.population, 'number');
      assert.equal(parsed.kind, 'capital');
      assert.deepEqual(JSON.parse(response.output_text), parsed);
    });

    test(`${model}: responses.stream with the same format, parsed at the end`, async () => {
      const stream = client.responses.stream({
        model,
        input: 'A city, please',
        text: { format: placeFormat },
      });
      let deltas = '';
      stream.on('response.output_text.delta', (event) => {
        deltas += event.delta;
      });
      const final = await stream.finalResponse();
      assert.equal(formatSent[model]?.(lastSent()), formatExpected[model]);
      assert.deepEqual(final.output_parsed, JSON.parse(deltas));
      assert.equal(Place.parse(final.output_parsed).kind, 'capital');
    });
  }

  test('json_object is JSON on every family', async () => {
    for (const model of ['A-2', 'B-1', 'C-1']) {
      const response = await client.responses.create({
        model,
        input: 'Reply in JSON',
        text: { format: { type: 'json_object' } },
      });
      const value: unknown = JSON.parse(response.output_text);
      assert.ok(value !== null && typeof value === 'object', model);
    }
  });
});

describe('reasoning.effort: each family thinks, and the usage says how much', () => {
  for (const model of ['A-2', 'B-1', 'C-1']) {
    test(`${model}: reasoning tokens in usage.output_tokens_details, streamed or not`, async () => {
      const request = {
        model,
        input: 'Think, then say hello',
        max_output_tokens: model === 'A-2' ? 4096 : 8192,
        reasoning: { effort: 'medium' as const },
      };
      const response = await client.responses.create(request);
      assert.deepEqual(reasoningSent[model]?.(lastSent()), reasoningExpected[model]);
      const usage = response.usage;
      assert.ok(usage !== undefined);
      const reasoning = usage.output_tokens_details.reasoning_tokens;
      assert.ok(reasoning > 0, `${model}: ${reasoning}`);
      assert.ok(usage.output_tokens > reasoning);
      assert.deepEqual(response.reasoning, { effort: 'medium', summary: null });

      const stream = await client.responses.create({ ...request, stream: true });
      let completed: OpenAI.Responses.Response | undefined;
      for await (const event of stream) if (event.type === 'response.completed') completed = event.response;
      assert.equal(completed?.usage?.output_tokens_details.reasoning_tokens, reasoning);
    });
  }

  test('B without room to think: the answer comes, thinking off, and a warning says why', async () => {
    const answer = await post(gateway.url, '/v1/responses', alphaAuth(gateway.key), {
      model: 'B-1',
      input: 'x',
      max_output_tokens: 800,
      reasoning: { effort: 'high', summary: 'auto' },
    });
    assert.equal(answer.status, 200, answer.text);
    assert.equal(lastSent().thinking, undefined);
    const warning = answer.headers.get('warning') ?? '';
    assert.match(warning, /reasoning needs max_tokens above 1024 on beta models/);
    assert.match(warning, /reasoning.summary is not available/);
  });

  test('an unknown effort is a 400 in the A shape naming the field', async () => {
    await assert.rejects(
      client.responses.create({
        model: 'C-1',
        input: 'x',
        reasoning: { effort: 'extreme' as 'high' },
      }),
      (error: unknown) => error instanceof OpenAI.BadRequestError && error.param === 'reasoning.effort',
    );
  });
});
