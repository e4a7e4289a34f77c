import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { JsonObject } from '../../ir/index.ts';
import type { ModelInfo } from '../surface.ts';
import { modelListing } from './model-list.ts';

const models = ['m1', 'm2', 'm3'].map((name): ModelInfo => ({
  name,
  family: 'gamma',
  upstreamModel: name,
  contextWindow: 100,
  maxOutputTokens: 10,
  pricing: { inputPerMillion: 1, outputPerMillion: 1, cacheReadPerMillion: 1, cacheWritePerMillion: 1 },
  capabilities: { streaming: name !== 'm3', tools: true, vision: false },
  aliases: [],
}));

test('pages with pageSize and the opaque nextPageToken until the end', () => {
  const first = modelListing.list(models, new URLSearchParams('pageSize=2'));
  const names = (page: JsonObject): unknown[] => (page.models as JsonObject[]).map((model) => model.name);
  assert.deepEqual(names(first), ['models/m1', 'models/m2']);
  assert.equal(typeof first.nextPageToken, 'string');
  const second = modelListing.list(
    models,
    new URLSearchParams({ pageSize: '2', pageToken: first.nextPageToken as string }),
  );
  assert.deepEqual(names(second), ['models/m3']);
  assert.equal(second.nextPageToken, undefined);
  assert.throws(() => modelListing.list(models, new URLSearchParams('pageToken=zz')), /pageToken/);
});

test('one model in the family shape; methods follow the capabilities', () => {
  assert.deepEqual(modelListing.describe(models[2]!), {
    name: 'models/m3',
    baseModelId: 'm3',
    version: '1',
    displayName: 'm3',
    description: 'm3 (gamma family) through modelgate',
    inputTokenLimit: 100,
    outputTokenLimit: 10,
    supportedGenerationMethods: ['generateContent', 'countTokens'],
  });
});
