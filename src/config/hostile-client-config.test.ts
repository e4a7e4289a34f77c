import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { ConfigError, loadConfig } from './load-config.ts';

function writeConfig(text: string): string {
  const path = join(mkdtempSync(join(tmpdir(), 'modelgate-config-')), 'config.yaml');
  writeFileSync(path, text);
  return path;
}

test('fault headers go to no HTTP upstream unless it is declared a simulator (file or env)', () => {
  const defaults = loadConfig({ BETA_BASE_URL: 'http://127.0.0.1:8081' });
  assert.equal(defaults.upstreams.beta?.faultHeaders, false);
  const path = writeConfig('upstreams:\n  beta: { baseUrl: "http://127.0.0.1:8081", faultHeaders: true }\n');
  assert.equal(loadConfig({}, path).upstreams.beta?.faultHeaders, true);
  assert.equal(loadConfig({ BETA_FAULT_HEADERS: '0' }, path).upstreams.beta?.faultHeaders, false);
  assert.equal(loadConfig({ GAMMA_FAULT_HEADERS: 'true' }).upstreams.gamma?.faultHeaders, true);
  assert.throws(() => loadConfig({ ALPHA_FAULT_HEADERS: 'yes' }), ConfigError);
});

test('hostile-client limits: defaults, a per-key share derived from maxInFlight, bounds checked', () => {
  const defaults = loadConfig({});
  assert.equal(defaults.maxInFlightPerKey, 256);
  assert.equal(defaults.maxBodyBytesReading, 128 * 1024 * 1024);
  assert.equal(defaults.bodyReadTimeoutMs, 60_000);
  assert.equal(defaults.minBodyBytesPerSecond, 8_192);
  assert.equal(loadConfig({}, writeConfig('server: { maxInFlight: 10 }\n')).maxInFlightPerKey, 2);
  assert.equal(
    loadConfig({}, writeConfig('server: { bodyLimitBytes: 268435456 }\n')).maxBodyBytesReading,
    268435456,
    'the cap holds at least one whole body',
  );
  const set = loadConfig(
    {},
    writeConfig(
      'server: { maxInFlightPerKey: 7, maxBodyBytesReading: 33554432, bodyReadTimeoutMs: 5000, minBodyBytesPerSecond: 0 }\n',
    ),
  );
  assert.deepEqual(
    [set.maxInFlightPerKey, set.maxBodyBytesReading, set.bodyReadTimeoutMs, set.minBodyBytesPerSecond],
    [7, 33554432, 5000, 0],
  );
  assert.throws(
    () => loadConfig({}, writeConfig('server: { maxInFlight: 10, maxInFlightPerKey: 11 }\n')),
    ConfigError,
  );
  assert.throws(() => loadConfig({}, writeConfig('server: { maxBodyBytesReading: 1024 }\n')), ConfigError);
});
