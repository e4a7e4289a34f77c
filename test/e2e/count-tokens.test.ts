/**
 * Count-tokens endpoints as the official SDKs call them, unchanged: @anthropic-ai/sdk
 * `messages.countTokens` (B `POST /v1/messages/count_tokens`) and @google/genai
 * `models.countTokens` (C `POST /v1beta/models/{m}:countTokens`), for models of every family.
 * A same-family model with a real upstream is counted by that upstream (a recording upstream
 * here); otherwise the count is estimated locally and says so. Never billed, never a chat call;
 * each count is one request (no tokens) against the key's requests per minute, and a key whose
 * budget is spent is refused before any upstream is asked.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI } from '@google/genai';
import Anthropic0 from 'anthropic-sdk-0';
import { alphaAuth, post } from '../kit/e2e.ts';
import { startRecordingUpstream, type RecordingUpstream } from '../kit/recording-upstream.ts';
import { startTestGateway, type TestGateway } from '../kit/test-gateway.ts';

const adminKey = 'mg-admin-count-tokens-0123456789';
const upstreamKeys = { BETA_API_KEY: 'up-beta-count-secret', GAMMA_API_KEY: 'up-gamma-count-secret' };
/** B and C models have a real (recording) upstream; A models are simulated. */
let gateway: TestGateway;
let upstream: RecordingUpstream;
/** Everything simulated. */
let simulated: TestGateway;

before(async () => {
  upstream = await startRecordingUpstream();
  gateway = await startTestGateway({
    MODELGATE_ADMIN_KEY: adminKey,
    BETA_BASE_URL: upstream.url,
    GAMMA_BASE_URL: upstream.url,
    ...upstreamKeys,
  });
  simulated = await startTestGateway();
});

after(async () => {
  await gateway.close();
  await simulated.close();
  await upstream.close();
});

const png =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

function anthropic(target: TestGateway, key = target.key): Anthropic {
  return new Anthropic({ apiKey: key, baseURL: target.url, maxRetries: 0 });
}

function genai(target: TestGateway, key = target.key): GoogleGenAI {
  return new GoogleGenAI({
    apiKey: key,
    httpOptions: { baseUrl: target.url, retryOptions: { attempts: 1 } },
  });
}

describe('estimated locally (no same-family real upstream)', () => {
  test('@anthropic-ai/sdk countTokens for every family; system, tools and images count', async () => {
    const client = anthropic(simulated);
    const messages: Anthropic.MessageParam[] = [{ role: 'user', content: 'How warm is it in Lisbon today?' }];
    for (const model of ['A-2', 'B-1', 'C-1']) {
      const before = simulated.logs.length;
      const plain = await client.messages.countTokens({ model, messages });
      assert.ok(plain.input_tokens > 5 && plain.input_tokens < 40, `${model}: ${plain.input_tokens}`);
      const withSystem = await client.messages.countTokens({
        model,
        messages,
        system: 'Answer in one word.',
      });
      assert.ok(withSystem.input_tokens > plain.input_tokens, model);
      const withTools = await client.messages.countTokens({
        model,
        messages,
        tools: [
          {
            name: 'get_weather',
            description: 'The weather in a city',
            input_schema: { type: 'object', properties: { city: { type: 'string' } } },
          },
        ],
      });
      assert.ok(withTools.input_tokens > plain.input_tokens + 10, model);
      const withImage = await client.messages.countTokens({
        model,
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'How warm is it in Lisbon today?' },
              { type: 'image', source: { type: 'base64', media_type: 'image/png', data: png } },
            ],
          },
        ],
      });
      const perImage = { 'A-2': 765, 'B-1': 1600, 'C-1': 258 }[model] ?? 0;
      assert.equal(withImage.input_tokens, plain.input_tokens + perImage, model);
      // Nothing was a chat call: no ledger-worthy request reached the simulator.
      assert.ok(
        simulated.logs.slice(before).every((line) => !line.includes('"attempt"')),
        'no upstream attempt',
      );
    }
    const raw = await post(
      simulated.url,
      '/v1/messages/count_tokens',
      { 'x-api-key': simulated.key, 'anthropic-version': '2023-06-01' },
      { model: 'C-2', messages: [{ role: 'user', content: 'Hi' }] },
    );
    assert.equal(raw.status, 200, raw.text);
    assert.equal(raw.headers.get('x-modelgate-token-count'), 'estimate');
    assert.deepEqual(Object.keys(raw.json as object), ['input_tokens']);
  });

  test('@google/genai countTokens (/v1beta and /v1) for every family, with the fields the SDK reads', async () => {
    for (const apiVersion of ['v1beta', 'v1']) {
      const client = new GoogleGenAI({
        apiKey: simulated.key,
        httpOptions: { baseUrl: simulated.url, apiVersion, retryOptions: { attempts: 1 } },
      });
      for (const model of ['A-3', 'B-2', 'C-2']) {
        const text = await client.models.countTokens({ model, contents: 'How warm is it in Lisbon today?' });
        assert.ok((text.totalTokens ?? 0) > 5, `${model}: ${text.totalTokens}`);
        const image = await client.models.countTokens({
          model,
          contents: [
            {
              role: 'user',
              parts: [
                { text: 'How warm is it in Lisbon today?' },
                { inlineData: { mimeType: 'image/png', data: png } },
              ],
            },
          ],
        });
        const perImage = { 'A-3': 765, 'B-2': 1600, 'C-2': 258 }[model] ?? 0;
        assert.equal(image.totalTokens, (text.totalTokens ?? 0) + perImage, `${apiVersion} ${model}`);
      }
    }
    const raw = await post(
      simulated.url,
      '/v1beta/models/C-1:countTokens',
      { 'x-goog-api-key': simulated.key },
      {
        contents: [
          { role: 'user', parts: [{ text: 'Hi' }, { inlineData: { mimeType: 'image/png', data: png } }] },
        ],
      },
    );
    assert.equal(raw.status, 200, raw.text);
    assert.equal(raw.headers.get('x-modelgate-token-count'), 'estimate');
    const body = raw.json as {
      totalTokens: number;
      promptTokensDetails: { modality: string; tokenCount: number }[];
    };
    assert.deepEqual(
      body.promptTokensDetails.map((detail) => detail.modality),
      ['TEXT', 'IMAGE'],
    );
    assert.equal(body.promptTokensDetails[1]?.tokenCount, 258);
    assert.equal(body.totalTokens, (body.promptTokensDetails[0]?.tokenCount ?? 0) + 258);
    // The full request form: systemInstruction and tools count too.
    const full = await post(
      simulated.url,
      '/v1beta/models/C-1:countTokens',
      { 'x-goog-api-key': simulated.key },
      {
        generateContentRequest: {
          model: 'models/C-1',
          contents: [{ role: 'user', parts: [{ text: 'Hi' }] }],
          systemInstruction: { parts: [{ text: 'Answer in one word, always, whatever the question.' }] },
        },
      },
    );
    assert.equal(full.status, 200, full.text);
    assert.ok(
      (full.json as { totalTokens: number }).totalTokens > (body.promptTokensDetails[0]?.tokenCount ?? 0),
    );
  });
});

describe('same family with a real upstream: its own count endpoint', () => {
  test('B: the client body goes to /v1/messages/count_tokens with the upstream key and model', async () => {
    upstream.script.push({ status: 200, body: '{"input_tokens":4242}' });
    const answer = await anthropic(gateway).messages.countTokens({
      model: 'B-1',
      system: 'Be brief.',
      messages: [{ role: 'user', content: 'Hi' }],
    });
    assert.equal(answer.input_tokens, 4242);
    const sent = upstream.requests.at(-1);
    assert.ok(sent);
    assert.equal(sent.path, '/v1/messages/count_tokens');
    assert.equal(sent.headers['x-api-key'], upstreamKeys.BETA_API_KEY);
    assert.ok(sent.headers['beta-version']);
    assert.deepEqual(sent.json, {
      model: 'B-1',
      system: 'Be brief.',
      messages: [{ role: 'user', content: 'Hi' }],
    });
  });

  test('C: the client body goes to :countTokens; an upstream without the endpoint (404) → a local estimate', async () => {
    upstream.script.push({
      status: 200,
      body: '{"totalTokens":77,"promptTokensDetails":[{"modality":"TEXT","tokenCount":77}]}',
    });
    const counted = await genai(gateway).models.countTokens({ model: 'C-1', contents: 'Hi' });
    assert.equal(counted.totalTokens, 77);
    const sent = upstream.requests.at(-1);
    assert.ok(sent);
    assert.equal(sent.path, '/v1/models/C-1:countTokens');
    assert.equal(sent.headers['x-gamma-api-key'], upstreamKeys.GAMMA_API_KEY);
    upstream.script.push({ status: 404, body: '{"error":{"code":404,"message":"no","status":"NOT_FOUND"}}' });
    const raw = await post(
      gateway.url,
      '/v1beta/models/C-1:countTokens',
      { 'x-goog-api-key': gateway.key },
      {
        contents: [{ parts: [{ text: 'Hi' }] }],
      },
    );
    assert.equal(raw.status, 200, raw.text);
    assert.equal(raw.headers.get('x-modelgate-token-count'), 'estimate');
  });

  test("an upstream 400 is the client's error, in the surface shape, without the upstream key", async () => {
    upstream.script.push({
      status: 400,
      body: JSON.stringify({
        type: 'error',
        error: { type: 'invalid_request_error', message: `messages: bad (${upstreamKeys.BETA_API_KEY})` },
      }),
    });
    const raw = await post(
      gateway.url,
      '/v1/messages/count_tokens',
      { 'x-api-key': gateway.key, 'anthropic-version': '2023-06-01' },
      { model: 'B-1', messages: [{ role: 'user', content: 'Hi' }] },
    );
    assert.equal(raw.status, 400, raw.text);
    assert.equal((raw.json as { error: { type: string } }).error.type, 'invalid_request_error');
    assert.ok(!raw.text.includes(upstreamKeys.BETA_API_KEY));
  });
});

describe('keys', () => {
  test('a count is one request against RPM (no tokens); the model restriction applies', async () => {
    const created = await post(gateway.url, '/admin/keys', alphaAuth(adminKey), {
      name: 'count',
      rpm: 2,
      models: ['A-2'],
    });
    assert.equal(created.status, 201, created.text);
    const key = (created.json as { key: string }).key;
    const client = new Anthropic0({
      apiKey: key,
      baseURL: gateway.url,
      maxRetries: 0,
      defaultHeaders: { 'beta-version': '2023-06-01' },
    });
    await assert.rejects(
      client.messages.countTokens({ model: 'B-1', messages: [{ role: 'user', content: 'Hi' }] }),
      (error) => {
        assert.ok(error instanceof Anthropic0.PermissionDeniedError, String(error));
        return true;
      },
    );
    for (let index = 0; index < 2; index++) {
      const counted = await client.messages.countTokens({
        model: 'A-2',
        messages: [{ role: 'user', content: 'Hi' }],
      });
      assert.ok(counted.input_tokens > 0);
    }
    // The minute's two requests are spent by counting: the next count and a chat are refused.
    await assert.rejects(
      client.messages.countTokens({ model: 'A-2', messages: [{ role: 'user', content: 'Hi' }] }),
      (error) => error instanceof Anthropic0.RateLimitError,
    );
    await assert.rejects(
      client.messages.create({ model: 'A-2', max_tokens: 10, messages: [{ role: 'user', content: 'Hi' }] }),
      (error) => error instanceof Anthropic0.RateLimitError,
    );
  });

  test('a key whose budget is spent is refused before the upstream is asked', async () => {
    const created = await post(gateway.url, '/admin/keys', alphaAuth(adminKey), {
      name: 'cut-off',
      budget_usd: 0,
    });
    assert.equal(created.status, 201, created.text);
    const key = (created.json as { key: string }).key;
    const before = upstream.requests.length;
    const counted = await post(
      gateway.url,
      '/v1/messages/count_tokens',
      { 'x-api-key': key, 'anthropic-version': '2023-06-01' },
      { model: 'B-1', messages: [{ role: 'user', content: 'Hi' }] },
    );
    assert.equal(counted.status, 429, counted.text);
    assert.equal(counted.headers.get('x-should-retry'), 'false');
    const gemini = await post(
      gateway.url,
      '/v1beta/models/C-1:countTokens',
      { 'x-goog-api-key': key },
      { contents: [{ role: 'user', parts: [{ text: 'Hi' }] }] },
    );
    assert.equal(gemini.status, 429, gemini.text);
    assert.equal(upstream.requests.length, before, 'no upstream count for a key that is cut off');
  });

  test('a bad key is refused', async () => {
    await assert.rejects(
      genai(gateway, 'nope').models.countTokens({ model: 'C-1', contents: 'Hi' }),
      /403|PERMISSION_DENIED/,
    );
    const missing = await post(
      gateway.url,
      '/v1/messages/count_tokens',
      { 'x-api-key': gateway.key, 'anthropic-version': '2023-06-01' },
      { model: 'Z-9', messages: [{ role: 'user', content: 'Hi' }] },
    );
    assert.equal(missing.status, 404);
  });
});
