/**
 * Every client surface × the cloud presets through a running gateway configured with `providers:`:
 * an Azure OpenAI deployment, Vertex AI's Gemini and Claude, Bedrock's Anthropic model
 * (InvokeModel) and a non-Anthropic one (Converse), with the official SDKs: text (JSON and
 * streamed) with usage and a tool call with streamed arguments; then prompt-cache usage per cloud.
 * The mocks refuse what the clouds refuse (auth, signatures, body rules), so an answer here means
 * the cloud would have taken the request.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI } from '@google/genai';
import OpenAI from 'openai';
import {
  alternativeModels,
  azureDatedVersion,
  bedrockCountableModel,
  cloudModels,
  refusedModels,
  startCloudGateway,
  type CloudGateway,
} from '../kit/cloud-providers.ts';
import { alphaAuth, betaAuth, gammaAuth, leaks, post } from '../kit/e2e.ts';
import { ledgerRowOf } from '../kit/vendor-providers.ts';
import {
  chatCompletions,
  generateContent,
  messages,
  responses,
  type SurfaceClient,
} from '../kit/vendor-surface-clients.ts';

let cloud: CloudGateway;
const clients: SurfaceClient[] = [];

before(async () => {
  cloud = await startCloudGateway();
  const { url, key } = cloud.gateway;
  clients.push(
    chatCompletions('unified', new OpenAI({ apiKey: key, baseURL: `${url}/api/alpha/v1`, maxRetries: 0 })),
    chatCompletions('A chat completions', new OpenAI({ apiKey: key, baseURL: `${url}/v1`, maxRetries: 0 })),
    responses(new OpenAI({ apiKey: key, baseURL: `${url}/v1`, maxRetries: 0 })),
    messages(new Anthropic({ apiKey: key, baseURL: url, maxRetries: 0 })),
    generateContent(
      new GoogleGenAI({ apiKey: key, httpOptions: { baseUrl: url, retryOptions: { attempts: 1 } } }),
    ),
  );
});

after(async () => {
  await cloud.close();
});

const surfaceNames = ['unified', 'A chat completions', 'Responses', 'B messages', 'C generateContent'];

for (const surfaceName of surfaceNames)
  describe(`${surfaceName} surface`, () => {
    const client = (): SurfaceClient => {
      const found = clients.find((candidate) => candidate.name === surfaceName);
      assert.ok(found);
      return found;
    };
    for (const [which, model] of Object.entries(cloudModels)) {
      test(`${which}: text, JSON and streamed, with usage`, async () => {
        for (const stream of [false, true]) {
          const answer = await client().text(model, `Hello from ${surfaceName}`, stream);
          assert.match(answer.text, /\S/, `stream ${stream}: text`);
          assert.ok(
            answer.input > 0 && answer.output > 0,
            `stream ${stream}: usage ${JSON.stringify(answer)}`,
          );
        }
      });
      test(`${which}: a tool call with streamed arguments`, async () => {
        const call = await client().tool(model);
        assert.equal(call.name, 'get_weather');
        assert.equal(typeof (call.args as { city?: unknown }).city, 'string');
      });
    }
  });

/** A prompt long enough for every cloud's prompt cache (over 1024 tokens). */
const longPrompt = Array.from({ length: 400 }, (_, index) => `Fact ${index}: the sky is blue.`).join(' ');
/** Input price 2/M, output 8/M (the kit's models). */
const uncachedCost = (row: { prompt_tokens: number; output_tokens: number }): number =>
  (row.prompt_tokens * 2 + row.output_tokens * 8) / 1e6;

test('a Bedrock API key and a dated Azure API version work through the A and B surfaces', async () => {
  const [unified, anthropic] = [clients[0], clients[3]];
  assert.ok(unified && anthropic);
  for (const model of Object.values(alternativeModels))
    for (const client of [unified, anthropic])
      for (const stream of [false, true]) {
        const answer = await client.text(model, 'Hello', stream);
        assert.match(answer.text, /\S/, `${model} ${client.name} stream ${stream}`);
        assert.ok(answer.input > 0 && answer.output > 0, `${model}: ${JSON.stringify(answer)}`);
      }
});

test('cache usage from Azure OpenAI and Vertex Gemini reaches the unified client and the ledger', async () => {
  const client = new OpenAI({
    apiKey: cloud.gateway.key,
    baseURL: `${cloud.gateway.url}/api/alpha/v1`,
    maxRetries: 0,
  });
  for (const model of [cloudModels.azure, cloudModels.vertexGemini]) {
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
    const row = await ledgerRowOf(cloud, response.headers.get('x-request-id') ?? '');
    assert.equal(row.cached_tokens, cached, model);
    assert.ok(row.cost_usd < uncachedCost(row), `${model}: cached input is billed below the input price`);
  }
});

test('Anthropic cache reads on Vertex and Bedrock reach the B client and the ledger', async () => {
  const client = new Anthropic({ apiKey: cloud.gateway.key, baseURL: cloud.gateway.url, maxRetries: 0 });
  for (const model of [cloudModels.vertexClaude, cloudModels.bedrockClaude]) {
    const ask = () =>
      client.messages
        .create({
          model,
          max_tokens: 64,
          system: [{ type: 'text', text: longPrompt, cache_control: { type: 'ephemeral' } }],
          messages: [{ role: 'user', content: `hi ${model}` }],
        })
        .withResponse();
    const first = await ask();
    assert.ok((first.data.usage.cache_creation_input_tokens ?? 0) > 0, JSON.stringify(first.data.usage));
    const { data, response } = await ask();
    const read = data.usage.cache_read_input_tokens ?? 0;
    assert.ok(read > 0, `${model}: ${JSON.stringify(data.usage)}`);
    const row = await ledgerRowOf(cloud, response.headers.get('x-request-id') ?? '');
    assert.equal(row.cached_tokens, read, model);
    assert.ok(row.cost_usd < uncachedCost(row), model);
  }
});

test('count-tokens: Vertex and Bedrock count at their own endpoints; what they cannot count is estimated', async () => {
  const { url, key } = cloud.gateway;
  const messages = [{ role: 'user', content: 'How many tokens is this?' }];
  const contents = [{ role: 'user', parts: [{ text: 'How many tokens is this?' }] }];
  const claude = await post(url, '/v1/messages/count_tokens', betaAuth(key), {
    model: cloudModels.vertexClaude,
    messages,
  });
  assert.equal(claude.status, 200, claude.text);
  assert.equal(claude.headers.get('x-modelgate-token-count'), 'upstream');
  assert.match(
    cloud.received.vertex.at(-1)?.path ?? '',
    /\/publishers\/anthropic\/models\/count-tokens:rawPredict$/,
  );
  const gemini = await post(url, `/v1beta/models/${cloudModels.vertexGemini}:countTokens`, gammaAuth(key), {
    contents,
  });
  assert.equal(gemini.status, 200, gemini.text);
  assert.equal(gemini.headers.get('x-modelgate-token-count'), 'upstream');
  assert.match(cloud.received.vertex.at(-1)?.path ?? '', /\/models\/gemini-2\.5-flash:countTokens$/);
  // Bedrock's CountTokens, asked about the foundation model behind the inference profile.
  const bedrock = await post(url, '/v1/messages/count_tokens', betaAuth(key), {
    model: bedrockCountableModel,
    messages,
  });
  assert.equal(bedrock.status, 200, bedrock.text);
  assert.equal(bedrock.headers.get('x-modelgate-token-count'), 'upstream');
  assert.equal(
    cloud.received.bedrock.at(-1)?.path,
    `/model/${encodeURIComponent('anthropic.claude-sonnet-4-20250514-v1:0')}/count-tokens`,
  );
  assert.deepEqual(
    JSON.parse(bedrock.text),
    JSON.parse(claude.text),
    'the Messages count of the same prompt',
  );
  // A Claude model CountTokens refuses is asked once, then estimated; Converse models (not
  // counted by AWS) and Azure (no count endpoint) are estimated without a call.
  const sent = cloud.received.bedrock.length + cloud.received.azure.length;
  for (const model of [
    cloudModels.bedrockClaude,
    cloudModels.bedrockClaude,
    cloudModels.bedrockConverse,
    cloudModels.azure,
  ]) {
    const estimated = await post(url, '/v1/messages/count_tokens', betaAuth(key), { model, messages });
    assert.equal(estimated.status, 200, estimated.text);
    assert.equal(estimated.headers.get('x-modelgate-token-count'), 'estimate', model);
    assert.ok((JSON.parse(estimated.text) as { input_tokens: number }).input_tokens > 0);
  }
  assert.equal(cloud.received.bedrock.length + cloud.received.azure.length, sent + 1);
});

test('a cloud refusing the gateway’s credentials is a 502 in the caller’s family shape, no secret in it', async () => {
  const { url, key } = cloud.gateway;
  for (const model of Object.values(refusedModels)) {
    const answers = {
      alpha: await post(url, '/v1/chat/completions', alphaAuth(key), {
        model,
        messages: [{ role: 'user', content: 'hi' }],
      }),
      beta: await post(url, '/v1/messages', betaAuth(key), {
        model,
        max_tokens: 20,
        messages: [{ role: 'user', content: 'hi' }],
      }),
      gamma: await post(url, `/v1beta/models/${model}:generateContent`, gammaAuth(key), {
        contents: [{ role: 'user', parts: [{ text: 'hi' }] }],
      }),
    };
    for (const answer of Object.values(answers)) assert.equal(answer.status, 502, `${model}: ${answer.text}`);
    const alpha = JSON.parse(answers.alpha.text) as { error: { type: string } };
    assert.equal(alpha.error.type, 'server_error', model);
    const beta = JSON.parse(answers.beta.text) as { type: string; error: { type: string } };
    assert.equal(beta.type, 'error', model);
    assert.equal(beta.error.type, 'api_error', model);
    const gamma = JSON.parse(answers.gamma.text) as { error: { code: number; status: string } };
    assert.equal(gamma.error.code, 502, model);
    const seen = Object.values(answers)
      .map((answer) => answer.text)
      .join('\n');
    assert.deepEqual(leaks(seen, cloud.secrets), [], model);
  }
  assert.deepEqual(leaks(cloud.gateway.logs.join('\n'), cloud.secrets), [], 'no secret in a log line');
});

test('a refused token grant is final: one grant per request, no retry, logged as a 401', async () => {
  const { url, key } = cloud.gateway;
  const grants = (): number =>
    cloud.received.vertex.filter((request) => !request.path.includes('/publishers/')).length;
  const before = grants();
  const answer = await post(url, `/v1beta/models/${refusedModels.vertex}:generateContent`, gammaAuth(key), {
    contents: [{ role: 'user', parts: [{ text: 'hi' }] }],
  });
  assert.equal(answer.status, 502, answer.text);
  // A refusal is not a connection failure: no second grant for the same request.
  assert.equal(grants() - before, 1);
  const failed = cloud.gateway.logs.filter(
    (line) => line.includes('upstream call failed') && line.includes(refusedModels.vertex),
  );
  assert.ok(
    failed.some((line) => line.includes('"status":401')),
    failed.join('\n'),
  );
});

test('each cloud got its own auth and paths, and never the client key', () => {
  const { azure, vertex, bedrock } = cloud.received;
  assert.ok(azure.length > 0 && azure.every((request) => request.headers['api-key'] !== undefined));
  const dated = `/openai/deployments/gpt-4o/chat/completions?api-version=${azureDatedVersion}`;
  assert.ok(azure.every((request) => request.path.startsWith('/openai/v1/') || request.path === dated));
  assert.ok(azure.some((request) => request.path === dated));
  const predictions = vertex.filter((request) => request.path.includes('/publishers/'));
  assert.ok(predictions.every((request) => /^Bearer /.test(request.headers.authorization ?? '')));
  assert.ok(
    predictions.some((request) => request.path.includes('/publishers/google/models/gemini-2.5-flash:')),
  );
  assert.ok(predictions.some((request) => request.path.includes('/publishers/anthropic/models/claude-')));
  const byApiKey = (request: { path: string }): boolean => request.path.includes('/meta.llama3');
  assert.ok(
    bedrock
      .filter((request) => !byApiKey(request))
      .every((request) => /^AWS4-HMAC-SHA256 /.test(request.headers.authorization ?? '')),
  );
  assert.ok(
    bedrock.some(byApiKey) &&
      bedrock.filter(byApiKey).every((request) => /^Bearer /.test(request.headers.authorization ?? '')),
  );
  assert.ok(bedrock.some((request) => /\/invoke-with-response-stream$/.test(request.path)));
  assert.ok(bedrock.some((request) => /\/converse-stream$/.test(request.path)));
  const all = JSON.stringify([azure, vertex, bedrock].flat().map((request) => request.headers));
  assert.ok(!all.includes(cloud.gateway.key));
});
