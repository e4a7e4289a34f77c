import assert from 'node:assert/strict';
import { test } from 'node:test';
import { openDatabase } from './database.ts';
import { KeyStoreError, emptyPolicy, hashKey } from '../../keys/key-store.ts';
import { SqliteKeyStore } from './sqlite-key-store.ts';

test('create returns the key once; the store and listings hold no key material', async () => {
  const database = openDatabase(':memory:');
  const store = new SqliteKeyStore(database);
  const { key, record } = await store.create(
    'team-a',
    {
      models: ['A-2', 'B-1'],
      budgetUsd: 10,
      periodBudget: { period: 'daily', usd: 2 },
      rpm: 5,
      tpm: 1000,
      expiresAt: 9_000,
    },
    1_000,
  );
  assert.match(key, /^mg-[A-Za-z0-9_-]{32}$/);
  assert.deepEqual(
    { ...record, id: '' },
    {
      id: '',
      name: 'team-a',
      createdAt: 1_000,
      updatedAt: undefined,
      revokedAt: undefined,
      models: ['A-2', 'B-1'],
      budgetUsd: 10,
      periodBudget: { period: 'daily', usd: 2 },
      rpm: 5,
      tpm: 1000,
      expiresAt: 9_000,
      spentUsd: 0,
    },
  );
  const dump = JSON.stringify(await store.list(true));
  assert.ok(!dump.includes(key) && !dump.includes(hashKey(key)));
  const raw = JSON.stringify(database.prepare('SELECT * FROM client_keys').all());
  assert.ok(!raw.includes(key), 'only the hash is stored');
  assert.ok(raw.includes(hashKey(key)));
});

test('update changes and clears fields; revoke is idempotent and frees the name', async () => {
  const store = new SqliteKeyStore(openDatabase(':memory:'));
  await store.create('team', { ...emptyPolicy, rpm: 5, budgetUsd: 1 }, 1);
  const updated = await store.update('team', { rpm: null, budgetUsd: 2, models: ['C-1'] }, 2);
  assert.equal(updated.rpm, undefined);
  assert.equal(updated.budgetUsd, 2);
  assert.deepEqual(updated.models, ['C-1']);
  assert.equal(updated.updatedAt, 2);
  const revoked = await store.revoke('team', 3);
  assert.equal(revoked.revokedAt, 3);
  assert.equal((await store.revoke(revoked.id, 4)).revokedAt, 3);
  assert.equal((await store.list()).length, 0);
  assert.equal((await store.list(true)).length, 1);
  await assert.rejects(store.update(revoked.id, { rpm: 1 }, 5), { kind: 'conflict' });
  assert.equal((await store.create('team', emptyPolicy, 6)).record.name, 'team', 'the name is free again');
});

test('bad input is refused with a reason; hostile names are stored as plain text', async () => {
  const store = new SqliteKeyStore(openDatabase(':memory:'));
  await store.create('x', emptyPolicy, 1);
  const refusals: [string, () => Promise<unknown>][] = [
    ['duplicate', () => store.create('x', emptyPolicy, 1)],
    ['empty name', () => store.create('  ', emptyPolicy, 1)],
    ['control', () => store.create('a\u0000b', emptyPolicy, 1)],
    ['negative budget', () => store.create('y', { ...emptyPolicy, budgetUsd: -1 }, 1)],
    ['fractional rpm', () => store.create('y', { ...emptyPolicy, rpm: 1.5 }, 1)],
    ['unknown key', () => store.revoke('nope', 1)],
    ['a static key id', () => store.create('static-0123456789ab', emptyPolicy, 1)],
    ['renamed like a static key', () => store.update('x', { name: 'Static-1' }, 1)],
  ];
  for (const [label, attempt] of refusals) await assert.rejects(attempt, KeyStoreError, label);
  const hostile = "'; DROP TABLE client_keys; --";
  await store.create(hostile, emptyPolicy, 1);
  assert.equal((await store.find(hostile))?.name, hostile);
  assert.equal((await store.list()).length, 2);
});
