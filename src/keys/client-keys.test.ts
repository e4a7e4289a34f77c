import assert from 'node:assert/strict';
import { test } from 'node:test';
import { openDatabase } from '../store/database.ts';
import { bootstrapClientKeys, hashKey } from './client-keys.ts';

test('with no keys configured, one is generated once and only its hash is stored', () => {
  const database = openDatabase(':memory:');
  const first = bootstrapClientKeys(database, [], 1);
  assert.match(first.generatedKey ?? '', /^mg-[A-Za-z0-9_-]{32}$/);
  assert.ok(first.keys.accepts(first.generatedKey));
  const stored = (
    database.prepare('SELECT key_hash FROM client_keys').all() as Array<{ key_hash: string }>
  ).map((row) => ({ ...row }));
  assert.deepEqual(stored, [{ key_hash: hashKey(first.generatedKey ?? '') }]);
  const second = bootstrapClientKeys(database, [], 2);
  assert.equal(second.generatedKey, undefined, 'printed only at the first start');
  assert.ok(second.keys.accepts(first.generatedKey));
});

test('static keys are accepted; anything else, hostile input included, is refused', () => {
  const database = openDatabase(':memory:');
  const { keys, generatedKey } = bootstrapClientKeys(database, ['k-one', 'k-two'], 1);
  assert.equal(generatedKey, undefined);
  assert.ok(keys.accepts('k-one'));
  assert.ok(keys.accepts('k-two'));
  for (const hostile of [undefined, '', 'k-one ', "' OR 1=1 --", 'k-one\u0000', 'x'.repeat(65536), 'ключ']) {
    assert.equal(keys.accepts(hostile), false);
  }
});
