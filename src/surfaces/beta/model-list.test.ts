import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ModelInfo } from '../surface.ts';
import { modelListing } from './model-list.ts';

const models = ['m1', 'm2', 'm3'].map((name): ModelInfo => ({
  name,
  family: 'beta',
  upstreamModel: name,
  contextWindow: 100,
  maxOutputTokens: 10,
  pricing: { inputPerMillion: 1, outputPerMillion: 1, cacheReadPerMillion: 1, cacheWritePerMillion: 1 },
  capabilities: { streaming: true, tools: true, vision: false },
  aliases: [],
}));
const page = (query: string) => modelListing.list(models, new URLSearchParams(query));

test('pages forward with limit and after_id, backward with before_id', () => {
  assert.deepEqual(page('limit=2'), {
    data: [
      { type: 'model', id: 'm1', display_name: 'm1', created_at: '1970-01-01T00:00:00Z' },
      { type: 'model', id: 'm2', display_name: 'm2', created_at: '1970-01-01T00:00:00Z' },
    ],
    has_more: true,
    first_id: 'm1',
    last_id: 'm2',
  });
  assert.deepEqual(
    [page('limit=2&after_id=m2').has_more, page('limit=2&after_id=m2').first_id],
    [false, 'm3'],
  );
  assert.deepEqual(page('after_id=m3'), { data: [], has_more: false, first_id: null, last_id: null });
  const back = page('before_id=m3&limit=1');
  assert.deepEqual([back.first_id, back.has_more], ['m2', true]);
  assert.equal(page('before_id=m2').has_more, false);
});

test('bad paging parameters are 400s naming them', () => {
  for (const [query, name] of [
    ['limit=0', 'limit'],
    ['limit=1001', 'limit'],
    ['limit=2.5', 'limit'],
    ['after_id=nope', 'after_id'],
    ['after_id=m1&before_id=m2', 'before_id'],
  ] as const) {
    assert.throws(
      () => page(query),
      (error: { kind: string; param: string }) => error.kind === 'invalid_request' && error.param === name,
      query,
    );
  }
});

test('claims B clients on the shared path: x-api-key or a version header', () => {
  const none = new URLSearchParams();
  assert.equal(modelListing.claims({ 'x-api-key': 'k' }, none), true);
  assert.equal(
    modelListing.claims({ authorization: 'Bearer k', 'anthropic-version': '2023-06-01' }, none),
    true,
  );
  assert.equal(modelListing.claims({ authorization: 'Bearer k' }, none), false);
});
