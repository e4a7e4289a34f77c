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
  assert.equal(defaults.upstreams.beta.faultHeaders, false);
  const path = writeConfig('upstreams:\n  beta: { baseUrl: "http://127.0.0.1:8081", faultHeaders: true }\n');
  assert.equal(loadConfig({}, path).upstreams.beta.faultHeaders, true);
  assert.equal(loadConfig({ BETA_FAULT_HEADERS: '0' }, path).upstreams.beta.faultHeaders, false);
  assert.equal(loadConfig({ GAMMA_FAULT_HEADERS: 'true' }).upstreams.gamma.faultHeaders, true);
  assert.throws(() => loadConfig({ ALPHA_FAULT_HEADERS: 'yes' }), ConfigError);
});
