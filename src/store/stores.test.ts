import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { test } from 'node:test';
import { emptyPolicy } from '../keys/key-store.ts';
import { openStores } from './stores.ts';

const loadedModules = (): string[] => Object.keys(createRequire(import.meta.url).cache);
const pgLoaded = (): boolean => loadedModules().some((path) => path.includes('/node_modules/pg/'));

test('without MODELGATE_DATABASE_URL the embedded store serves everything and pg is never loaded', async () => {
  const stores = await openStores({
    databasePath: ':memory:',
    databaseUrl: undefined,
    outboxPath: ':memory:',
  });
  assert.equal(stores.kind, 'embedded');
  const { record } = await stores.keys.create('team', emptyPolicy, 1);
  assert.deepEqual(
    stores.keySource.activeKeys().map((key) => key.id),
    [record.id],
  );
  const ledger = stores.ledger({});
  ledger.append({
    requestId: 'req_1',
    attempt: 1,
    final: true,
    createdAt: 1_000,
    keyId: record.id,
    surface: 'alpha',
    model: 'A-3',
    family: 'alpha',
    upstreamModel: 'A-3',
    deployment: undefined,
    stream: false,
    status: 200,
    upstreamStatus: 200,
    outcome: 'ok',
    error: undefined,
    promptTokens: 3,
    cachedTokens: 0,
    cacheWriteTokens: 0,
    outputTokens: 2,
    reasoningTokens: 0,
    costUsd: 0.25,
    usageEstimated: false,
    latencyMs: 1,
    ttftMs: undefined,
    overheadMs: 0.1,
    traceId: undefined,
  });
  await ledger.close();
  assert.equal((await stores.usage.report({ by: 'key', since: 0 })).total.requests, 1);
  assert.equal((await stores.keys.spend()).get(record.id), 0.25);
  await stores.close();
  assert.equal(pgLoaded(), false);
  // The check sees pg once something loads it.
  await import('pg');
  assert.equal(pgLoaded(), true);
});
