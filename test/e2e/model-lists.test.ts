/**
 * Model lists in the caller's family shape, through the official SDKs unchanged (base URL and key
 * only): openai on A, @anthropic-ai/sdk 1.x and 0.x on B (`x-api-key` or a version header on
 * `/v1/models`), @google/genai on C (`/v1beta/models` or a C credential), paging included; a
 * key limited to some models sees only those.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI } from '@google/genai';
import Anthropic0 from 'anthropic-sdk-0';
import OpenAI from 'openai';
import { alphaAuth, post, writeTempConfig } from '../kit/e2e.ts';
import { startTestGateway, type TestGateway } from '../kit/test-gateway.ts';

const adminKey = 'mg-admin-model-lists-0123456789';
const catalog = ['A-1', 'A-2', 'A-3', 'B-1', 'B-2', 'B-3', 'B-4', 'C-1', 'C-2', 'C-3'];
let gateway: TestGateway;
let config: { path: string; remove(): void };
/** A key allowed B-1 and C-2 only. */
let limitedKey: string;

before(async () => {
  config = writeTempConfig('aliases.yaml', 'aliases: { sonnet: B-1 }\n');
  gateway = await startTestGateway({ MODELGATE_ADMIN_KEY: adminKey }, config.path);
  const created = await post(gateway.url, '/admin/keys', alphaAuth(adminKey), {
    name: 'limited',
    models: ['B-1', 'C-2'],
  });
  assert.equal(created.status, 201, created.text);
  limitedKey = (created.json as { key: string }).key;
});

after(async () => {
  await gateway.close();
  config.remove();
});

function genai(key: string, apiVersion?: string): GoogleGenAI {
  return new GoogleGenAI({
    apiKey: key,
    httpOptions: {
      baseUrl: gateway.url,
      ...(apiVersion === undefined ? {} : { apiVersion }),
      retryOptions: { attempts: 1 },
    },
  });
}

describe('official SDKs list and retrieve models unchanged', () => {
  test('openai: the A shape', async () => {
    const client = new OpenAI({ apiKey: gateway.key, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
    const ids: string[] = [];
    for await (const model of client.models.list()) ids.push(model.id);
    assert.deepEqual(ids, catalog);
    const one = await client.models.retrieve('sonnet');
    assert.equal(one.id, 'B-1');
    assert.equal(one.object, 'model');
  });

  test('@anthropic-ai/sdk 1.x (bearer + anthropic-version): the B shape, paged', async () => {
    const client = new Anthropic({ apiKey: gateway.key, baseURL: gateway.url, maxRetries: 0 });
    const ids: string[] = [];
    for await (const model of client.models.list({ limit: 3 })) {
      assert.equal(model.type, 'model');
      assert.equal(model.display_name, model.id);
      assert.ok(!Number.isNaN(Date.parse(model.created_at)));
      ids.push(model.id);
    }
    assert.deepEqual(ids, catalog);
    const page = await client.models.list({ limit: 4 });
    assert.deepEqual([page.data.length, page.has_more, page.first_id, page.last_id], [4, true, 'A-1', 'B-1']);
    const one = await client.models.retrieve('sonnet');
    assert.deepEqual([one.type, one.id], ['model', 'B-1']);
    await assert.rejects(client.models.retrieve('Z-9'), (error) => {
      assert.ok(error instanceof Anthropic.NotFoundError, String(error));
      return true;
    });
  });

  test('@anthropic-ai/sdk 0.x (x-api-key): the B shape; before_id pages backwards', async () => {
    const client = new Anthropic0({ apiKey: gateway.key, baseURL: gateway.url, maxRetries: 0 });
    const ids: string[] = [];
    for await (const model of client.models.list({ limit: 6 })) ids.push(model.id);
    assert.deepEqual(ids, catalog);
    const before = await client.models.list({ before_id: 'B-2', limit: 2 });
    assert.deepEqual(
      before.data.map((model) => model.id),
      ['A-3', 'B-1'],
    );
    assert.equal(before.has_more, true);
    assert.equal((await client.models.retrieve('C-3')).id, 'C-3');
  });

  test('@google/genai (/v1beta and /v1): the C shape, paged with pageToken', async () => {
    for (const apiVersion of [undefined, 'v1']) {
      const client = genai(gateway.key, apiVersion);
      const names: string[] = [];
      const pager = await client.models.list({ config: { pageSize: 4 } });
      for await (const model of pager) {
        assert.ok(model.inputTokenLimit !== undefined && model.outputTokenLimit !== undefined);
        assert.ok(model.supportedActions?.includes('generateContent'));
        names.push(model.name ?? '');
      }
      assert.deepEqual(
        names,
        catalog.map((name) => `models/${name}`),
        String(apiVersion),
      );
      const one = await client.models.get({ model: 'C-3' });
      assert.deepEqual(
        [one.name, one.displayName, one.inputTokenLimit, one.outputTokenLimit],
        ['models/C-3', 'C-3', 32760, 2048],
      );
    }
  });
});

describe('only the models the key may use', () => {
  test('each shape lists only them, and a model outside is not found', async () => {
    const openai = new OpenAI({ apiKey: limitedKey, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
    const alpha: string[] = [];
    for await (const model of openai.models.list()) alpha.push(model.id);
    assert.deepEqual(alpha, ['B-1', 'C-2']);
    await assert.rejects(openai.models.retrieve('A-1'), OpenAI.NotFoundError);

    const anthropic = new Anthropic({ apiKey: limitedKey, baseURL: gateway.url, maxRetries: 0 });
    const beta: string[] = [];
    for await (const model of anthropic.models.list()) beta.push(model.id);
    assert.deepEqual(beta, ['B-1', 'C-2']);

    const gamma: string[] = [];
    for await (const model of await genai(limitedKey).models.list()) gamma.push(model.name ?? '');
    assert.deepEqual(gamma, ['models/B-1', 'models/C-2']);
    await assert.rejects(genai(limitedKey).models.get({ model: 'C-1' }), /404|NOT_FOUND/);
  });
});

describe('raw requests', () => {
  async function get(
    path: string,
    headers: Record<string, string>,
  ): Promise<{ status: number; json: unknown }> {
    const response = await fetch(gateway.url + path, { headers });
    return { status: response.status, json: await response.json() };
  }

  test('which shape answers /v1/models: bearer A, x-api-key or a version header B, a C credential C', async () => {
    const alpha = await get('/v1/models', alphaAuth(gateway.key));
    assert.equal((alpha.json as { object: string }).object, 'list');
    const unified = await get('/api/alpha/v1/models', alphaAuth(gateway.key));
    assert.deepEqual(unified.json, alpha.json);
    for (const headers of [
      { 'x-api-key': gateway.key },
      { ...alphaAuth(gateway.key), 'beta-version': '2023-06-01' },
    ]) {
      const beta = await get('/v1/models', headers);
      assert.equal((beta.json as { has_more: boolean }).has_more, false);
    }
    for (const [path, headers] of [
      ['/v1/models', { 'x-goog-api-key': gateway.key }],
      ['/v1/models', { 'x-gamma-api-key': gateway.key }],
      [`/v1/models?key=${gateway.key}`, {}],
      ['/v1beta/models', alphaAuth(gateway.key)],
    ] as const) {
      const gamma = await get(path, headers);
      assert.equal(gamma.status, 200, path);
      assert.equal((gamma.json as { models: unknown[] }).models.length, catalog.length, path);
    }
  });

  test('errors come in the chosen shape: bad key, bad paging, unknown model', async () => {
    const beta = await get('/v1/models', { 'x-api-key': 'wrong' });
    assert.equal(beta.status, 401);
    assert.equal((beta.json as { error: { type: string } }).error.type, 'authentication_error');
    const limit = await get('/v1/models?limit=0', { 'x-api-key': gateway.key });
    assert.equal(limit.status, 400);
    assert.match((limit.json as { error: { message: string } }).error.message, /limit/);
    const token = await get('/v1beta/models?pageToken=nonsense', { 'x-goog-api-key': gateway.key });
    assert.equal(token.status, 400);
    assert.equal((token.json as { error: { status: string } }).error.status, 'INVALID_ARGUMENT');
    const missing = await get('/v1beta/models/Z-9', { 'x-goog-api-key': gateway.key });
    assert.equal(missing.status, 404);
    assert.equal((missing.json as { error: { status: string } }).error.status, 'NOT_FOUND');
    const unauthenticated = await get('/v1beta/models', {});
    assert.equal(unauthenticated.status, 403);
  });
});
