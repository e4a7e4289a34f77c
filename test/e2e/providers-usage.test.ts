/**
 * What the providers bring besides the wire: prompt-cache usage from each vendor reaching the
 * client's usage and the ledger's cost, count-tokens at the vendor's own endpoint, OpenAI reasoning
 * models' sampling rules, and the spec's family upstreams (BETA_/GAMMA_BASE_URL) pointed at the
 * vendors' APIs.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { startAnthropicMock } from '../upstream-mocks/anthropic/index.ts';
import { startGeminiMock } from '../upstream-mocks/gemini/index.ts';
import { betaAuth, gammaAuth, post, writeTempConfig } from '../kit/e2e.ts';
import { startTestGateway } from '../kit/test-gateway.ts';
import {
  ledgerRowOf,
  providerModels,
  startVendorGateway,
  vendorKeys,
  type VendorGateway,
} from '../kit/vendor-providers.ts';

let vendor: VendorGateway;

before(async () => {
  vendor = await startVendorGateway();
});

after(async () => {
  await vendor.close();
});

/** A prompt long enough for every vendor's prompt cache (over 1024 tokens). */
const longPrompt = Array.from({ length: 400 }, (_, index) => `Fact ${index}: the sky is blue.`).join(' ');
/** Input price 2/M, output 8/M (tests' models); cached input at the family's read factor. */
const uncachedCost = (row: { prompt_tokens: number; output_tokens: number }): number =>
  (row.prompt_tokens * 2 + row.output_tokens * 8) / 1e6;

test('cache usage from OpenAI and Gemini reaches the unified client and the ledger cost', async () => {
  const client = new OpenAI({
    apiKey: vendor.gateway.key,
    baseURL: `${vendor.gateway.url}/api/alpha/v1`,
    maxRetries: 0,
  });
  for (const model of [providerModels.openai, providerModels.gemini]) {
    const ask = () =>
      client.chat.completions
        .create({
          model,
          messages: [
            { role: 'system', content: longPrompt },
            { role: 'user', content: `hi ${model}` },
          ],
        })
        .withResponse();
    await ask();
    const { data, response } = await ask();
    const cached = data.usage?.prompt_tokens_details?.cached_tokens ?? 0;
    assert.ok(cached > 0, `${model}: cached tokens reach the client (${JSON.stringify(data.usage)})`);
    const row = await ledgerRowOf(vendor, response.headers.get('x-request-id') ?? '');
    assert.equal(row.cached_tokens, cached, model);
    assert.ok(Math.abs(row.cost_usd - Number(response.headers.get('x-modelgate-cost-usd'))) < 1e-12);
    assert.ok(row.cost_usd < uncachedCost(row), `${model}: cached input is billed below the input price`);
  }
});

test('Anthropic cache reads reach the B client and the ledger cost', async () => {
  const client = new Anthropic({ apiKey: vendor.gateway.key, baseURL: vendor.gateway.url, maxRetries: 0 });
  const ask = () =>
    client.messages
      .create({
        model: providerModels.anthropic,
        max_tokens: 64,
        system: [{ type: 'text', text: longPrompt, cache_control: { type: 'ephemeral' } }],
        messages: [{ role: 'user', content: 'hi' }],
      })
      .withResponse();
  const first = await ask();
  assert.ok((first.data.usage.cache_creation_input_tokens ?? 0) > 0, JSON.stringify(first.data.usage));
  const { data, response } = await ask();
  const read = data.usage.cache_read_input_tokens ?? 0;
  assert.ok(read > 0, JSON.stringify(data.usage));
  const row = await ledgerRowOf(vendor, response.headers.get('x-request-id') ?? '');
  assert.equal(row.cached_tokens, read);
  assert.ok(Math.abs(row.cost_usd - Number(response.headers.get('x-modelgate-cost-usd'))) < 1e-12);
  assert.ok(row.cost_usd < uncachedCost(row));
});

test('count-tokens goes to the vendor: Anthropic count_tokens, Gemini countTokens', async () => {
  const { url, key } = vendor.gateway;
  const before = { anthropic: vendor.received.anthropic.length, gemini: vendor.received.gemini.length };
  const beta = await post(url, '/v1/messages/count_tokens', betaAuth(key), {
    model: providerModels.anthropic,
    messages: [{ role: 'user', content: 'How many tokens is this?' }],
  });
  assert.equal(beta.status, 200, beta.text);
  assert.equal(beta.headers.get('x-modelgate-token-count'), 'upstream');
  assert.equal(vendor.received.anthropic.at(-1)?.path, '/v1/messages/count_tokens');
  const gamma = await post(url, `/v1beta/models/${providerModels.gemini}:countTokens`, gammaAuth(key), {
    contents: [{ role: 'user', parts: [{ text: 'How many tokens is this?' }] }],
  });
  assert.equal(gamma.status, 200, gamma.text);
  assert.equal(gamma.headers.get('x-modelgate-token-count'), 'upstream');
  assert.equal(vendor.received.gemini.at(-1)?.path, '/v1beta/models/gemini-2.5-flash:countTokens');
  assert.equal(vendor.received.anthropic.length, before.anthropic + 1);
  assert.equal(vendor.received.gemini.length, before.gemini + 1);
});

test('an OpenAI reasoning model gets max_completion_tokens; a temperature it refuses is dropped with a warning', async () => {
  const client = new OpenAI({
    apiKey: vendor.gateway.key,
    baseURL: `${vendor.gateway.url}/v1`,
    maxRetries: 0,
  });
  // The Responses surface always goes through the canonical request, so the A encoder decides.
  const { data, response } = await client.responses
    .create({ model: 'via-o3', input: 'think', max_output_tokens: 100, temperature: 0.3 })
    .withResponse();
  assert.match(data.output_text, /\S/);
  assert.match(response.headers.get('warning') ?? '', /temperature is not supported by reasoning models/);
  const sent = vendor.received.openai.at(-1) as unknown as { body: Record<string, unknown> };
  assert.equal(sent.body.max_completion_tokens, 100);
  assert.equal(sent.body.max_tokens, undefined);
  assert.equal(sent.body.temperature, undefined);
  // Same-family traffic too: an A client that sends max_tokens and a temperature is answered.
  // The field a client of older habits sends (deprecated in the SDK's types, still sent).
  const direct = await client.chat.completions
    .create({
      model: 'via-o3',
      // eslint-disable-next-line @typescript-eslint/no-deprecated
      max_tokens: 80,
      temperature: 0.2,
      messages: [{ role: 'user', content: 'hi' }],
    })
    .withResponse();
  assert.match(direct.data.choices[0]?.message.content ?? '', /\S/);
  assert.match(direct.response.headers.get('warning') ?? '', /temperature is not supported/);
  const passed = vendor.received.openai.at(-1) as unknown as { body: Record<string, unknown> };
  assert.equal(passed.body.max_completion_tokens, 80);
});

test('BETA_BASE_URL and GAMMA_BASE_URL pointed at the Anthropic and Gemini APIs work', async () => {
  const [anthropic, gemini] = await Promise.all([startAnthropicMock(), startGeminiMock()]);
  const config = writeTempConfig(
    'family.yaml',
    `
models:
  - { name: B-1, upstreamModel: claude-haiku-4-5-20251001 }
  - { name: C-1, upstreamModel: gemini-2.5-flash }
`,
  );
  const gateway = await startTestGateway(
    {
      BETA_BASE_URL: anthropic.url,
      BETA_API_KEY: vendorKeys.anthropic,
      GAMMA_BASE_URL: gemini.url,
      GAMMA_API_KEY: vendorKeys.gemini,
    },
    config.path,
  );
  try {
    const client = new OpenAI({ apiKey: gateway.key, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
    for (const model of ['B-1', 'C-1']) {
      for (const stream of [false, true]) {
        const request = {
          model,
          max_tokens: 64,
          messages: [{ role: 'user' as const, content: `hi ${model}` }],
        };
        const text = stream
          ? await client.chat.completions.create({ ...request, stream: true }).then(async (chunks) => {
              let all = '';
              for await (const chunk of chunks) all += chunk.choices[0]?.delta.content ?? '';
              return all;
            })
          : ((await client.chat.completions.create(request)).choices[0]?.message.content ?? '');
        assert.match(text, /\S/, `${model} stream ${stream}`);
      }
    }
    const b = new Anthropic({ apiKey: gateway.key, baseURL: gateway.url, maxRetries: 0 });
    const message = await b.messages.create({
      model: 'B-1',
      max_tokens: 64,
      messages: [{ role: 'user', content: 'hi' }],
    });
    assert.equal(message.type, 'message');
    const sent = anthropic.requests.at(-1);
    assert.equal(sent?.headers['anthropic-version'], '2026-10-21', 'the client SDK’s version is forwarded');
    assert.ok(anthropic.requests.every((request) => request.headers['beta-version'] !== undefined));
    assert.ok(gemini.requests.every((request) => request.headers['x-gamma-api-key'] === vendorKeys.gemini));
  } finally {
    await gateway.close();
    await Promise.all([anthropic.close(), gemini.close()]);
    config.remove();
  }
});
