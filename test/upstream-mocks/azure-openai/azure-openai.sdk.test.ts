/**
 * The Azure OpenAI mock proven with the official `openai` SDK's `AzureOpenAI` client (api-key and Entra
 * token provider) on the legacy deployment route, and the plain `OpenAI` client on `/openai/v1`.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import OpenAI, { AzureOpenAI } from 'openai';
import type { MockUpstream } from '../kit/server.ts';
import { outputFilterTrigger, promptFilterTrigger } from './content-filter.ts';
import { defaultAzureEntraToken, defaultAzureMockKey, startAzureOpenAIMock } from './mock.ts';

let mock: MockUpstream;
const apiVersion = '2024-10-21';

before(async () => {
  mock = await startAzureOpenAIMock();
});
after(() => mock.close());

function azure(deployment: string, overrides: { apiKey?: string; apiVersion?: string } = {}): AzureOpenAI {
  return new AzureOpenAI({
    endpoint: mock.url,
    apiKey: overrides.apiKey ?? defaultAzureMockKey,
    apiVersion: overrides.apiVersion ?? apiVersion,
    deployment,
    maxRetries: 0,
  });
}

async function rejection(promise: Promise<unknown>): Promise<InstanceType<typeof OpenAI.APIError>> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof OpenAI.APIError, `expected an APIError, got ${String(error)}`);
    return error;
  }
  assert.fail('the request was accepted');
}

const messages = [{ role: 'user' as const, content: 'hello azure' }];

describe('legacy deployment route', () => {
  test('create answers with Azure filter annotations and the underlying model', async () => {
    const completion = await azure('chat-prod').chat.completions.create({ model: '', messages });
    assert.equal(completion.model, 'gpt-4o-mini');
    assert.equal(completion.choices[0]?.message.content, 'mock azure-openai reply to: hello azure');
    assert.ok('prompt_filter_results' in completion);
    assert.ok('content_filter_results' in completion.choices[0]);
    const request = mock.requests.at(-1);
    assert.equal(request?.path, `/openai/deployments/chat-prod/chat/completions?api-version=${apiVersion}`);
    assert.equal(request.headers['api-key'], defaultAzureMockKey);
  });

  test('a stream opens with the content-filter preamble chunk', async () => {
    const stream = await azure('gpt-4o').chat.completions.create({ model: '', messages, stream: true });
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    assert.equal(chunks[0]?.choices.length, 0);
    assert.ok('prompt_filter_results' in chunks[0]);
    const text = chunks.map((chunk) => chunk.choices[0]?.delta.content ?? '').join('');
    assert.equal(text, 'mock azure-openai reply to: hello azure');
  });

  test('a streamed tool call assembles through the SDK helper', async () => {
    const tools = [{ type: 'function' as const, function: { name: 'ping', parameters: { type: 'object' } } }];
    const stream = azure('gpt-4o').chat.completions.stream({
      model: '',
      messages: [{ role: 'user', content: 'call ping' }],
      tools,
    });
    const call = (await stream.finalChatCompletion()).choices[0]?.message.tool_calls?.[0];
    assert.equal(call?.type === 'function' ? call.function.name : undefined, 'ping');
  });

  test('the Entra token provider authenticates with a bearer token', async () => {
    const client = new AzureOpenAI({
      endpoint: mock.url,
      apiVersion,
      deployment: 'gpt-4o',
      azureADTokenProvider: () => Promise.resolve(defaultAzureEntraToken),
      maxRetries: 0,
    });
    await client.chat.completions.create({ model: '', messages });
    assert.equal(mock.requests.at(-1)?.headers.authorization, `Bearer ${defaultAzureEntraToken}`);
    const wrong = new AzureOpenAI({
      endpoint: mock.url,
      apiVersion,
      deployment: 'gpt-4o',
      azureADTokenProvider: () => Promise.resolve('not-a-token'),
      maxRetries: 0,
    });
    assert.ok(
      (await rejection(wrong.chat.completions.create({ model: '', messages }))) instanceof
        OpenAI.AuthenticationError,
    );
  });

  test('models.list answers on the legacy route', async () => {
    const ids: string[] = [];
    for await (const model of azure('gpt-4o').models.list()) ids.push(model.id);
    assert.ok(ids.includes('o4-mini'));
  });
});

describe('refusals', () => {
  test('a wrong key, an unknown api-version and an unknown deployment', async () => {
    const key = await rejection(
      azure('gpt-4o', { apiKey: 'wrong' }).chat.completions.create({ model: '', messages }),
    );
    assert.ok(key instanceof OpenAI.AuthenticationError);
    assert.match(key.message, /Access denied due to invalid subscription key/);
    const version = await rejection(
      azure('gpt-4o', { apiVersion: '2019-01-01' }).chat.completions.create({ model: '', messages }),
    );
    assert.ok(version instanceof OpenAI.NotFoundError);
    assert.match(version.message, /Resource not found/);
    const missingVersion = await fetch(`${mock.url}/openai/deployments/gpt-4o/chat/completions`, {
      method: 'POST',
      headers: { 'api-key': defaultAzureMockKey, 'content-type': 'application/json' },
      body: JSON.stringify({ messages }),
    });
    assert.equal(missingVersion.status, 404);
    const deployment = await rejection(azure('nope').chat.completions.create({ model: '', messages }));
    assert.ok(deployment instanceof OpenAI.NotFoundError);
    assert.equal(deployment.code, 'DeploymentNotFound');
  });

  test('a reasoning deployment follows OpenAI reasoning rules', async () => {
    const error = await rejection(
      // eslint-disable-next-line @typescript-eslint/no-deprecated -- the refusal of the deprecated field is the subject
      azure('reasoner').chat.completions.create({ model: '', messages, max_tokens: 5 }),
    );
    assert.ok(error instanceof OpenAI.BadRequestError);
    assert.equal(error.code, 'unsupported_parameter');
    assert.match(error.message, /Use 'max_completion_tokens' instead/);
  });

  test('the content filter refuses a prompt and cuts an output', async () => {
    const prompt = [{ role: 'user' as const, content: `please ${promptFilterTrigger}` }];
    const refused = await rejection(azure('gpt-4o').chat.completions.create({ model: '', messages: prompt }));
    assert.ok(refused instanceof OpenAI.BadRequestError);
    assert.equal(refused.code, 'content_filter');
    assert.match(
      JSON.stringify(refused.error),
      /"innererror":\{"code":"ResponsibleAIPolicyViolation","content_filter_result"/,
    );
    const output = [{ role: 'user' as const, content: `please ${outputFilterTrigger}` }];
    const cut = await azure('gpt-4o').chat.completions.create({ model: '', messages: output });
    assert.equal(cut.choices[0]?.finish_reason, 'content_filter');
  });
});

describe('/openai/v1 route', () => {
  test('the key as bearer, the deployment as model', async () => {
    const client = new OpenAI({
      baseURL: `${mock.url}/openai/v1`,
      apiKey: defaultAzureMockKey,
      maxRetries: 0,
    });
    const completion = await client.chat.completions.create({ model: 'reasoner', messages });
    assert.equal(completion.model, 'o4-mini');
    assert.ok((completion.usage?.completion_tokens_details?.reasoning_tokens ?? 0) > 0);
    const ids: string[] = [];
    for await (const model of client.models.list()) ids.push(model.id);
    assert.ok(ids.includes('chat-prod'));
    const missing = await rejection(client.chat.completions.create({ model: 'A-2', messages }));
    assert.equal(missing.code, 'DeploymentNotFound');
  });
});

describe('Azure-only behaviour', () => {
  test('data_sources is accepted, an unknown field is refused', async () => {
    const withSources = { model: '', messages, data_sources: [] };
    await azure('gpt-4o').chat.completions.create(withSources);
    const unknown = await rejection(
      azure('gpt-4o').chat.completions.create({ model: '', messages, ...{ bogus: 1 } }),
    );
    assert.match(unknown.message, /Unrecognized request argument supplied: bogus/);
  });

  test('x-mock-fail 429 answers in Azure shape with retry-after', async () => {
    const limited = await rejection(
      azure('gpt-4o').chat.completions.create({ model: '', messages }, { headers: { 'x-mock-fail': '429' } }),
    );
    assert.ok(limited instanceof OpenAI.RateLimitError);
    assert.match(limited.message, /exceeded token rate limit/);
    assert.equal(limited.headers.get('retry-after'), '1');
  });
});
