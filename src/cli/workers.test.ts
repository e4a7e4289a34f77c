import assert from 'node:assert/strict';
import { availableParallelism } from 'node:os';
import { test } from 'node:test';
import { ConfigError, loadConfig } from '../config/load-config.ts';
import { parseWorkers } from './workers.ts';

test('--workers: one without a shared store, N or auto with Redis, anything else a usage error', () => {
  const embedded = loadConfig({});
  assert.equal(parseWorkers(undefined, embedded), 1);
  assert.equal(parseWorkers('1', embedded), 1);
  assert.throws(() => parseWorkers('2', embedded), /--workers 2 needs MODELGATE_REDIS_URL.*2× every limit/);
  const shared = loadConfig({ MODELGATE_REDIS_URL: 'redis://127.0.0.1:6379' });
  assert.equal(parseWorkers('4', shared), 4);
  assert.equal(parseWorkers('auto', shared), availableParallelism());
  for (const wrong of ['0', '-1', '1.5', 'many', '257'])
    assert.throws(() => parseWorkers(wrong, shared), ConfigError, wrong);
});

test('the shared store: MODELGATE_REDIS_URL must be a redis URL; closed by default, 50 ms commands', () => {
  assert.deepEqual(loadConfig({}).sharedStore, {
    redisUrl: undefined,
    commandTimeoutMs: 50,
    prefix: 'mg:',
    holdTtlMs: undefined,
    onStoreFailure: 'closed',
    instances: 1,
  });
  assert.equal(loadConfig({ MODELGATE_REDIS_URL: 'valkey://h:1' }).sharedStore.redisUrl, 'redis://h:1');
  assert.throws(() => loadConfig({ MODELGATE_REDIS_URL: 'http://h:1' }), /redis:\/\//);
});
