import assert from 'node:assert/strict';
import { test } from 'node:test';
import { openDatabase } from './database.ts';
import { SqliteResponseStore } from './sqlite-response-store.ts';

const day = 86_400_000;

function setup(): { store: SqliteResponseStore; advance: (ms: number) => void } {
  let now = 1_700_000_000_000;
  const store = new SqliteResponseStore(openDatabase(':memory:'), 30 * day, () => now);
  return {
    store,
    advance: (ms) => {
      now += ms;
    },
  };
}

const stored = {
  id: 'resp_1',
  inputItems: [{ role: 'user', content: 'hi' }],
  response: { id: 'resp_1', object: 'response', output: [] },
};

test('only the key that stored a response reads or deletes it', async () => {
  const { store } = setup();
  await store.put('key-a', stored);
  assert.deepEqual(await store.get('resp_1', 'key-a'), stored);
  assert.equal(await store.get('resp_1', 'key-b'), undefined);
  assert.equal(await store.delete('resp_1', 'key-b'), false);
  assert.deepEqual(await store.get('resp_1', 'key-a'), stored);
  assert.equal(await store.delete('resp_1', 'key-a'), true);
  assert.equal(await store.get('resp_1', 'key-a'), undefined);
  assert.equal(await store.delete('resp_1', 'key-a'), false);
});

test('a response is kept for the retention, then unreadable and purged', async () => {
  const { store, advance } = setup();
  await store.put('key-a', stored);
  advance(30 * day - 1);
  assert.equal(await store.purge(), 0);
  assert.ok((await store.get('resp_1', 'key-a')) !== undefined);
  advance(1);
  assert.equal(await store.get('resp_1', 'key-a'), undefined, 'expired before any purge ran');
  assert.equal(await store.delete('resp_1', 'key-a'), false);
  assert.equal(await store.purge(), 1);
});
