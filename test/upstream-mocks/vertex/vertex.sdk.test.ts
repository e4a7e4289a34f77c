/**
 * The Vertex mock as the official SDKs see it: google-auth-library's JWT client obtains an access
 * token from the mock's token endpoint with a generated service-account key; @google/genai in Vertex
 * mode and @anthropic-ai/vertex-sdk then call the publishers/google and publishers/anthropic routes.
 */
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { after, before, test } from 'node:test';
import { AnthropicVertex } from '@anthropic-ai/vertex-sdk';
import { ApiError, GoogleGenAI } from '@google/genai';
import { jwtClientFor } from './auth-client.ts';
import { startVertexMock, type VertexMock } from './index.ts';

let mock: VertexMock;
before(async () => {
  mock = await startVertexMock({ projectId: 'proj-a' });
});
after(() => mock.close());

const genai = (project = 'proj-a') =>
  new GoogleGenAI({
    vertexai: true,
    project,
    location: 'us-central1',
    googleAuthOptions: { authClient: jwtClientFor(mock.serviceAccountKey) },
    httpOptions: { baseUrl: mock.url },
  });

test('the token endpoint grants a JWT-bearer assertion signed by the trusted key', async () => {
  const { token } = await jwtClientFor(mock.serviceAccountKey).getAccessToken();
  assert.match(token ?? '', /^ya29\./);
  const grant = mock.requests.find((request) => request.path === '/token');
  assert.equal(
    (grant?.body as Record<string, string>).grant_type,
    'urn:ietf:params:oauth:grant-type:jwt-bearer',
  );
});

test("the token endpoint refuses an untrusted signature and Google's own audience", async () => {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const forged = {
    ...mock.serviceAccountKey,
    private_key: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
  };
  await assert.rejects(jwtClientFor(forged).getAccessToken(), /Invalid JWT Signature/);
  const client = jwtClientFor(mock.serviceAccountKey);
  client.additionalClaims = {};
  await assert.rejects(client.getAccessToken(), /Failed audience check/);
});

test('@google/genai in Vertex mode: generateContent, stream and countTokens', async () => {
  const answer = await genai().models.generateContent({ model: 'gemini-2.5-flash', contents: 'Hi Vertex' });
  assert.equal(answer.text, 'mock vertex reply to: Hi Vertex');
  assert.equal(answer.usageMetadata?.trafficType, 'ON_DEMAND');
  assert.ok(answer.createTime !== undefined);
  const sent = mock.requests.at(-1);
  assert.match(
    sent?.path ?? '',
    /^\/v1beta1\/projects\/proj-a\/locations\/us-central1\/publishers\/google\/models\/gemini-2\.5-flash:generateContent/,
  );
  assert.match(sent?.headers.authorization ?? '', /^Bearer ya29\./);
  let streamed = '';
  for await (const chunk of await genai().models.generateContentStream({
    model: 'gemini-2.5-flash',
    contents: 'stream it',
  }))
    streamed += chunk.text ?? '';
  assert.equal(streamed, 'mock vertex reply to: stream it');
  const counted = await genai().models.countTokens({ model: 'gemini-2.5-flash', contents: 'count me' });
  assert.ok((counted.totalTokens ?? 0) > 0);
});

test('Vertex refuses another project (403), a content without role (400), an API key (401)', async () => {
  await assert.rejects(
    genai('proj-b').models.generateContent({ model: 'gemini-2.5-flash', contents: 'x' }),
    (error: unknown) => error instanceof ApiError && error.status === 403,
  );
  const { token } = await jwtClientFor(mock.serviceAccountKey).getAccessToken();
  const call = async (headers: Record<string, string>, query = '') => {
    const response = await fetch(
      `${mock.url}/v1/projects/proj-a/locations/us-central1/publishers/google/models/gemini-2.5-flash:generateContent${query}`,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify({ contents: [{ parts: [{ text: 'no role' }] }] }),
      },
    );
    const { error } = (await response.json()) as { error: { status: string; message: string } };
    return [response.status, error.status, error.message];
  };
  assert.deepEqual(await call({ authorization: `Bearer ${token ?? ''}` }), [
    400,
    'INVALID_ARGUMENT',
    'Please use a valid role: user, model.',
  ]);
  assert.deepEqual((await call({}, '?key=AIza-anything')).slice(0, 2), [401, 'UNAUTHENTICATED']);
  assert.match(
    String((await call({ 'x-goog-api-key': 'AIza-anything' }))[2]),
    /^API keys are not supported by this API/,
  );
  assert.deepEqual((await call({ authorization: 'Bearer ya29.never-issued' })).slice(0, 2), [
    401,
    'UNAUTHENTICATED',
  ]);
});

const anthropicVertex = () =>
  new AnthropicVertex({
    region: 'us-east5',
    projectId: 'proj-a',
    baseURL: `${mock.url}/v1`,
    authClient: jwtClientFor(mock.serviceAccountKey),
    maxRetries: 0,
    // vertex-sdk 1.x copies the anthropic-version header into the body's anthropic_version; Vertex wants its own.
    defaultHeaders: { 'anthropic-version': 'vertex-2023-10-16' },
  });

test('@anthropic-ai/vertex-sdk: create, stream with tools, countTokens on the rawPredict routes', async () => {
  const client = anthropicVertex();
  const message = await client.messages.create({
    model: 'claude-sonnet-4-5@20250929',
    max_tokens: 32,
    messages: [{ role: 'user', content: 'Hello Claude' }],
  });
  assert.equal(
    message.content[0]?.type === 'text' && message.content[0].text,
    'mock anthropic reply to: Hello Claude',
  );
  const sent = mock.requests.at(-1);
  assert.match(
    sent?.path ?? '',
    /^\/v1\/projects\/proj-a\/locations\/us-east5\/publishers\/anthropic\/models\/claude-sonnet-4-5@20250929:rawPredict$/,
  );
  assert.equal((sent?.body as Record<string, unknown>).model, undefined);
  const stream = client.messages.stream({
    model: 'claude-sonnet-4-5@20250929',
    max_tokens: 32,
    tools: [
      {
        name: 'lookup',
        input_schema: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] },
      },
    ],
    messages: [{ role: 'user', content: 'call lookup' }],
  });
  const final = await stream.finalMessage();
  assert.deepEqual(final.content[0]?.type === 'tool_use' && final.content[0].input, { q: 'x' });
  assert.match(mock.requests.at(-1)?.path ?? '', /:streamRawPredict$/);
  const counted = await client.messages.countTokens({
    model: 'claude-sonnet-4-5@20250929',
    messages: [{ role: 'user', content: 'count' }],
  });
  assert.ok(counted.input_tokens > 0);
  assert.match(mock.requests.at(-1)?.path ?? '', /count-tokens:rawPredict$/);
});

test("Vertex anthropic routes refuse a model field and a first-party anthropic_version in Anthropic's shape", async () => {
  const { token } = await jwtClientFor(mock.serviceAccountKey).getAccessToken();
  const post = async (body: unknown) => {
    const response = await fetch(
      `${mock.url}/v1/projects/proj-a/locations/us-east5/publishers/anthropic/models/claude-sonnet-4-5@20250929:rawPredict`,
      {
        method: 'POST',
        headers: { authorization: `Bearer ${token ?? ''}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      },
    );
    const json = (await response.json()) as { type: string; error: { type: string; message: string } };
    return [response.status, json.type, json.error.message];
  };
  const base = { max_tokens: 8, messages: [{ role: 'user', content: 'x' }] };
  assert.deepEqual(
    await post({ ...base, anthropic_version: 'vertex-2023-10-16', model: 'claude-sonnet-4-5' }),
    [400, 'error', 'model: Extra inputs are not permitted'],
  );
  assert.deepEqual(await post({ ...base, anthropic_version: '2023-06-01' }), [
    400,
    'error',
    "anthropic_version: Input should be 'vertex-2023-10-16'",
  ]);
  assert.deepEqual(await post(base), [400, 'error', 'anthropic_version: Field required']);
});
