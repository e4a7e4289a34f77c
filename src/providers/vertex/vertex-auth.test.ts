/**
 * The Vertex preset's credentials and errors against the strict Vertex mock: one token shared and
 * renewed, refusals mapped by the shared rules without upstream text, settings named.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { credentialsRejectedMessage } from '../../codecs/shared/upstream-errors.ts';
import { startVertexMock, type VertexMock } from '../../../test/upstream-mocks/vertex/index.ts';
import { callProvider, chatRequest, codecOf, realHttpTransport, sendEncoded, userText } from '../test-kit.ts';
import type { ProviderSettings } from '../provider.ts';
import { createVertexProvider, vertexPreset } from './index.ts';

let mock: VertexMock;
let keyFile: string;
const http = realHttpTransport();
const directory = mkdtempSync(join(tmpdir(), 'vertex-provider-'));

before(async () => {
  mock = await startVertexMock({ projectId: 'proj-a', minimumCachedTokens: 20 });
  keyFile = join(directory, 'key.json');
  writeFileSync(keyFile, JSON.stringify(mock.serviceAccountKey));
});
after(async () => {
  await http.close();
  await mock.close();
});

const settings = (extra: Partial<ProviderSettings> = {}): ProviderSettings => ({
  name: 'vertex-test',
  preset: 'vertex',
  project: 'proj-a',
  location: 'us-central1',
  baseUrl: mock.url,
  credentials: { keyFile },
  ...extra,
});

const tokenRequests = () => mock.requests.filter((request) => request.path === '/token').length;

test('one token serves concurrent and later calls; a token past its expiry is refreshed once', async (t) => {
  t.mock.timers.enable({ apis: ['Date'], now: Date.now() });
  const provider = createVertexProvider(settings());
  const transport = provider.transport(http);
  const before = tokenRequests();
  const ask = () =>
    callProvider(provider, transport, 'gamma', chatRequest('gemini-2.5-flash', [userText('hi')]));
  const answers = await Promise.all([ask(), ask(), ask()]);
  assert.ok(answers.every((answer) => answer.ok));
  await ask();
  assert.equal(tokenRequests() - before, 1, 'one grant for four calls');
  const bearers = new Set(mock.requests.slice(-4).map((request) => request.headers.authorization));
  assert.equal(bearers.size, 1);

  // Past the hour Google's tokens live (the mock's own clock moves too: the old token is dead there).
  t.mock.timers.tick(3600 * 1000);
  const later = await Promise.all([ask(), ask()]);
  assert.ok(later.every((answer) => answer.ok));
  assert.equal(tokenRequests() - before, 2, 'one more grant, shared by both calls');
  assert.notEqual(mock.requests.at(-1)?.headers.authorization, [...bearers][0]);
});

test('errors: another project is a 403 without upstream text; RESOURCE_EXHAUSTED is a 429', async () => {
  const wrong = vertexPreset(settings({ project: 'proj-b' }));
  const denied = await callProvider(
    wrong,
    wrong.transport(http),
    'gamma',
    chatRequest('gemini-2.5-flash', [userText('x')]),
  );
  assert.ok(!denied.ok);
  assert.equal(denied.status, 403);
  assert.equal(denied.error.message, credentialsRejectedMessage);

  const provider = vertexPreset(settings());
  const codec = codecOf('gamma');
  const upstream = codec.encodeRequest(chatRequest('gemini-2.5-flash', [userText('x')]), {
    baseUrl: provider.baseUrl,
    apiKey: undefined,
    model: 'gemini-2.5-flash',
  });
  upstream.headers['x-mock-fail'] = '429';
  const limited = await sendEncoded(provider, provider.transport(http), codec, upstream, false);
  assert.ok(!limited.ok);
  assert.equal(limited.error.kind, 'rate_limited');
  assert.equal(limited.error.status, 429);
});

test('a key the token endpoint refuses: an upstream 401 with no key or path in it, the key only in secrets', async () => {
  const forgedFile = join(directory, 'forged.json');
  const other = await startVertexMock({ projectId: 'proj-a' });
  // A key the mock under test never trusted (another mock's), with this mock's token_uri.
  writeFileSync(forgedFile, JSON.stringify({ ...other.serviceAccountKey, token_uri: mock.tokenUri }));
  await other.close();
  const provider = vertexPreset(settings({ credentials: { keyFile: forgedFile } }));
  assert.deepEqual(provider.secrets, [other.serviceAccountKey.private_key]);
  // Refused credentials answer as an upstream 401 (final, no retry, the deployment misconfigured).
  const answer = await provider.transport(http).send(
    provider.baseUrl,
    codecOf('gamma').encodeRequest(chatRequest('gemini-2.5-flash', [userText('x')]), {
      baseUrl: provider.baseUrl,
      apiKey: undefined,
      model: 'gemini-2.5-flash',
    }),
    new AbortController().signal,
  );
  assert.equal(answer.status, 401);
  const text = await answer.text();
  assert.ok(!text.includes('PRIVATE KEY') && !text.includes(forgedFile), text);
});

test('settings: project and location required and named; the endpoint follows the location', () => {
  assert.throws(
    () => vertexPreset({ name: 'v', preset: 'vertex', location: 'us-central1' }),
    /providers\.v\.project/,
  );
  assert.throws(() => vertexPreset({ name: 'v', preset: 'vertex', project: 'p' }), /providers\.v\.location/);
  assert.throws(
    () => vertexPreset({ name: 'v', preset: 'vertex', project: 'p', location: 'evil.example/x' }),
    /location/,
  );
  const env = { GOOGLE_APPLICATION_CREDENTIALS: undefined };
  assert.equal(
    createVertexProvider({ name: 'v', preset: 'vertex', project: 'p', location: 'europe-west4' }, { env })
      .baseUrl,
    'https://europe-west4-aiplatform.googleapis.com',
  );
  assert.equal(
    createVertexProvider({ name: 'v', preset: 'vertex', project: 'p', location: 'global' }, { env }).baseUrl,
    'https://aiplatform.googleapis.com',
  );
  assert.equal(
    createVertexProvider({ name: 'v', preset: 'vertex', project: 'p', location: 'global' }, { env }).wireFor(
      'gamma',
      'gemini-2.5-pro',
    ),
    'gamma',
  );
});

test('settings: an unreadable or broken key file is named, its contents never quoted', () => {
  const broken = join(directory, 'broken.json');
  writeFileSync(broken, '{"private_key": "-----BEGIN PRIVATE KEY-----secret');
  assert.throws(
    () => vertexPreset(settings({ credentials: { keyFile: join(directory, 'missing.json') } })),
    /credentials\.keyFile: cannot read .*missing\.json \(ENOENT\)/,
  );
  assert.throws(
    () => vertexPreset(settings({ credentials: { keyFile: broken } })),
    (error: Error) => error.message.includes('broken.json') && !error.message.includes('secret'),
  );
});

test('GOOGLE_APPLICATION_CREDENTIALS: a service-account key is read like keyFile; another file keeps its secrets listed', () => {
  const base = { name: 'v', preset: 'vertex', project: 'proj-a', location: 'us-central1' };
  const fromEnv = createVertexProvider(base, { env: { GOOGLE_APPLICATION_CREDENTIALS: keyFile } });
  assert.deepEqual(fromEnv.secrets, [mock.serviceAccountKey.private_key]);
  const userFile = join(directory, 'adc.json');
  writeFileSync(
    userFile,
    JSON.stringify({
      type: 'authorized_user',
      client_id: 'id',
      client_secret: 'd-secret',
      refresh_token: '1//refresh',
    }),
  );
  const user = createVertexProvider(base, { env: { GOOGLE_APPLICATION_CREDENTIALS: userFile } });
  assert.deepEqual(user.secrets, ['d-secret', '1//refresh']);
  assert.throws(
    () =>
      createVertexProvider(base, { env: { GOOGLE_APPLICATION_CREDENTIALS: join(directory, 'none.json') } }),
    /^Error: GOOGLE_APPLICATION_CREDENTIALS: cannot read/,
  );
});
