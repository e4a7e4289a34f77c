import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { openDatabase } from './database.ts';
import {
  bootstrapClientKeys,
  hashKey,
  keyRecheckMs,
  staticKeyId,
  type Unlimited,
} from '../../keys/client-keys.ts';
import { emptyPolicy } from '../../keys/key-store.ts';
import { SqliteKeyStore } from './sqlite-key-store.ts';
import { SqliteResponseStore } from './sqlite-response-store.ts';

/** The embedded store as the gateway bootstraps it: one object is both the store and the source. */
function bootstrap(
  database: ReturnType<typeof openDatabase>,
  staticKeys: string[],
  now: number,
  unlimited?: Partial<Unlimited>,
): ReturnType<typeof bootstrapClientKeys> {
  const store = new SqliteKeyStore(database);
  return bootstrapClientKeys(store, store, staticKeys, now, unlimited);
}

test('with no keys configured, one is generated once and only its hash is stored', async () => {
  const database = openDatabase(':memory:');
  const first = await bootstrap(database, [], 1);
  assert.match(first.generatedKey ?? '', /^mg-[A-Za-z0-9_-]{32}$/);
  assert.equal(first.keys.authenticate(first.generatedKey, 1)?.name, 'default');
  const stored = (
    database.prepare('SELECT key_hash FROM client_keys').all() as Array<{ key_hash: string }>
  ).map((row) => ({ ...row }));
  assert.deepEqual(stored, [{ key_hash: hashKey(first.generatedKey ?? '') }]);
  const second = await bootstrap(database, [], 2);
  assert.equal(second.generatedKey, undefined, 'printed only at the first start');
  assert.ok(second.keys.authenticate(first.generatedKey, 2));
});

test('static keys are accepted, every model, no budget, limited unless declared unlimited; anything else, hostile input included, is refused', async () => {
  const database = openDatabase(':memory:');
  const { keys, generatedKey } = await bootstrap(database, ['k-one', 'k-two'], 1, {
    families: [],
    staticKeys: { 'static-2': ['beta'] },
  });
  assert.equal(generatedKey, undefined);
  const one = keys.authenticate('k-one', 1);
  assert.equal(one?.id, staticKeyId('k-one'));
  assert.match(one.id, /^static-[0-9a-f]{12}$/);
  assert.equal(one.models, undefined);
  assert.equal(one.budgetUsd, undefined);
  assert.deepEqual([...one.unlimited], [], 'limited by default');
  assert.equal(keys.authenticate('k-two', 1)?.id, staticKeyId('k-two'));
  assert.deepEqual([...(keys.authenticate('k-two', 1)?.unlimited ?? [])], ['beta']);
  for (const hostile of [undefined, '', 'k-one ', "' OR 1=1 --", 'k-one\u0000', 'x'.repeat(65536), 'ключ']) {
    assert.equal(keys.authenticate(hostile, 1), undefined);
  }
});

test('a change made by another connection (the CLI) applies within the recheck interval', async () => {
  const directory = mkdtempSync(join(tmpdir(), 'modelgate-keys-'));
  const path = join(directory, 'keys.db');
  const gateway = openDatabase(path);
  const { keys } = await bootstrap(gateway, ['static'], 1_000);
  const cliDatabase = openDatabase(path);
  const cli = new SqliteKeyStore(cliDatabase);
  const created = await cli.create('team', emptyPolicy, 1_000);
  // The cache read the store at 1 000 (bootstrap); a request past the interval sees the new key.
  assert.equal(keys.authenticate(created.key, 1_000 + keyRecheckMs)?.name, 'team');
  await cli.revoke('team', 2_000);
  assert.ok(keys.authenticate(created.key, 1_000 + keyRecheckMs + 1), 'still cached inside the interval');
  assert.equal(keys.authenticate(created.key, 1_000 + 2 * keyRecheckMs), undefined, 'revoked');
  cliDatabase.close();
  gateway.close();
  rmSync(directory, { recursive: true, force: true });
});

test('an expired key is refused from its expiry on', async () => {
  const database = openDatabase(':memory:');
  const { keys } = await bootstrap(database, ['static'], 0);
  const { key } = await new SqliteKeyStore(database).create('short', { ...emptyPolicy, expiresAt: 5_000 }, 0);
  keys.reload();
  assert.ok(keys.authenticate(key, 4_999));
  assert.equal(keys.authenticate(key, 5_000), undefined);
});

test('what a static key kept under its positional id moves to its derived id at start, once', async () => {
  const database = openDatabase(':memory:');
  database
    .prepare("INSERT INTO key_spend (key_id, spent_usd) VALUES ('static-1', 1.5), ('static-2', 2)")
    .run();
  const responses = new SqliteResponseStore(database, 86_400_000);
  await responses.put('static-2', { id: 'resp_kept', inputItems: [], response: { id: 'resp_kept' } });
  const store = new SqliteKeyStore(database);
  // The list as it is now: k-two took the second place.
  await bootstrap(database, ['k-one', 'k-two'], 1);
  const spend = await store.spend();
  assert.equal(spend.get(staticKeyId('k-one')), 1.5);
  assert.equal(spend.get(staticKeyId('k-two')), 2);
  assert.equal(spend.has('static-1'), false);
  assert.ok((await responses.get('resp_kept', staticKeyId('k-two'))) !== undefined);
  assert.equal(await responses.get('resp_kept', 'static-2'), undefined);
  // A later start with the list reordered changes nothing: no positional id is left.
  await bootstrap(database, ['k-two', 'k-one'], 2);
  assert.equal((await store.spend()).get(staticKeyId('k-one')), 1.5);
});
