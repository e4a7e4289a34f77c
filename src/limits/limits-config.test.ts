import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { ConfigError, loadConfig } from '../config/load-config.ts';
import { priceCeilings } from './key-services.ts';

function withConfig(text: string, run: (path: string) => void): void {
  const directory = mkdtempSync(join(tmpdir(), 'modelgate-limits-config-'));
  try {
    const path = join(directory, 'config.yaml');
    writeFileSync(path, text);
    run(path);
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}

test('rate limits default to the spec table and are overridable per family', () => {
  assert.deepEqual(loadConfig({}).rateLimits, {
    alpha: { requestsPerMinute: 500, tokensPerMinute: 10_000 },
    beta: { requestsPerMinute: 50, tokensPerMinute: 100_000 },
    gamma: { requestsPerMinute: 60, tokensPerMinute: 32_000 },
    converse: { requestsPerMinute: 50, tokensPerMinute: 100_000 },
  });
  withConfig(
    'limits:\n  beta: { rpm: 5 }\n  gamma: { tpm: 1000 }\nshutdown: { drainTimeoutMs: 500 }\n',
    (path) => {
      const config = loadConfig({}, path);
      assert.deepEqual(config.rateLimits.beta, { requestsPerMinute: 5, tokensPerMinute: 100_000 });
      assert.deepEqual(config.rateLimits.gamma, { requestsPerMinute: 60, tokensPerMinute: 1000 });
      assert.equal(config.drainTimeoutMs, 500);
    },
  );
  withConfig('limits:\n  beta: { rpm: 0 }\n', (path) => {
    assert.throws(() => loadConfig({}, path), /limits\.beta\.rpm/);
  });
});

test('nobody is unlimited unless the config says so: per family, per static key (all or listed families), or MODELGATE_UNLIMITED_KEYS', () => {
  assert.deepEqual(loadConfig({ MODELGATE_KEYS: 'k1,k2' }).unlimited, { families: [], staticKeys: {} });
  withConfig(
    'limits:\n  gamma: { unlimited: true }\n  staticKeys:\n    static-1: { unlimited: [beta] }\n    static-2: { unlimited: true }\n',
    (path) => {
      const config = loadConfig({ MODELGATE_KEYS: 'k1,k2' }, path);
      assert.deepEqual(config.unlimited, {
        families: ['gamma'],
        staticKeys: { 'static-1': ['beta'], 'static-2': ['alpha', 'beta', 'gamma', 'converse'] },
      });
      assert.throws(() => loadConfig({ MODELGATE_KEYS: 'k1' }, path), /static-2 names no key/);
    },
  );
  assert.deepEqual(
    loadConfig({ MODELGATE_KEYS: 'k1,k2', MODELGATE_UNLIMITED_KEYS: ' static-2 ' }).unlimited.staticKeys,
    { 'static-2': ['alpha', 'beta', 'gamma', 'converse'] },
  );
  assert.throws(
    () => loadConfig({ MODELGATE_KEYS: 'k1', MODELGATE_UNLIMITED_KEYS: 'k1' }),
    /not a static key id/,
  );
  withConfig('limits:\n  staticKeys:\n    mykey: { unlimited: true }\n', (path) => {
    assert.throws(
      () => loadConfig({ MODELGATE_KEYS: 'k1' }, path),
      /limits\.staticKeys: mykey is not a static key id/,
    );
  });
});

test('the admin key: at least 16 characters, never one of the client keys', () => {
  assert.equal(loadConfig({}).adminKey, undefined);
  assert.equal(loadConfig({ MODELGATE_ADMIN_KEY: 'a'.repeat(16) }).adminKey, 'a'.repeat(16));
  assert.throws(() => loadConfig({ MODELGATE_ADMIN_KEY: 'short' }), ConfigError);
  assert.throws(
    () => loadConfig({ MODELGATE_ADMIN_KEY: 'b'.repeat(20), MODELGATE_KEYS: `k1,${'b'.repeat(20)}` }),
    /must differ/,
  );
});

test('a budget reserves at the dearest prices a request can reach through its fallbacks', () => {
  withConfig(
    'models:\n  - name: A-3\n    fallbacks: [B-4]\n  - name: B-4\n    fallbacks: [A-1]\n',
    (path) => {
      const ceilings = priceCeilings(loadConfig({}, path));
      // A-3 (0.5/1.5) → B-4 (0.25/1.25, cache write 0.3125) → A-1 (30/60).
      assert.equal(ceilings.get('A-3')?.inputPerMillion, 30);
      assert.equal(ceilings.get('A-3')?.outputPerMillion, 60);
      assert.equal(ceilings.get('B-4')?.outputPerMillion, 60);
      assert.equal(ceilings.get('A-1')?.outputPerMillion, 60, 'no fallbacks: its own prices');
      assert.equal(ceilings.get('C-2')?.inputPerMillion, 0.075);
    },
  );
});

test('redis.holdTtlMs: how long an unsettled budget hold lives; at least a second', () => {
  assert.equal(loadConfig({}).sharedStore.holdTtlMs, undefined, 'unset: the request timeouts plus a minute');
  withConfig('redis:\n  holdTtlMs: 15000\n', (path) => {
    assert.equal(loadConfig({}, path).sharedStore.holdTtlMs, 15_000);
  });
  withConfig('redis:\n  holdTtlMs: 500\n', (path) => {
    assert.throws(() => loadConfig({}, path), /redis\.holdTtlMs/);
  });
});
