import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { ConfigError, loadConfig } from './load-config.ts';

function writeConfig(text: string, name = 'config.yaml'): string {
  const path = join(mkdtempSync(join(tmpdir(), 'modelgate-config-')), name);
  writeFileSync(path, text);
  return path;
}

test('defaults: the spec catalog, simulator upstreams, 127.0.0.1:8080', () => {
  const config = loadConfig({});
  assert.equal(config.host, '127.0.0.1');
  assert.equal(config.port, 8080);
  assert.deepEqual(
    config.models.map((entry) => entry.name),
    ['A-1', 'A-2', 'A-3', 'B-1', 'B-2', 'B-3', 'B-4', 'C-1', 'C-2', 'C-3'],
  );
  const b1 = config.models.find((entry) => entry.name === 'B-1');
  assert.deepEqual(b1?.pricing, {
    inputPerMillion: 3,
    outputPerMillion: 15,
    cacheReadPerMillion: 0.3,
    cacheWritePerMillion: 3.75,
  });
  assert.equal(config.models.find((entry) => entry.name === 'A-2')?.pricing.cacheReadPerMillion, 5);
  assert.equal(config.models.find((entry) => entry.name === 'C-1')?.pricing.cacheReadPerMillion, 0.3125);
  assert.equal(config.upstreams.alpha?.baseUrl, undefined);
});

test('a YAML file adds models and aliases, maps upstream ids, overrides figures; env wins', () => {
  const path = writeConfig(`
upstreams:
  beta: { baseUrl: "http://file.example/", apiKey: from-file }
models:
  - name: A-2
    upstreamModel: real-a2
    contextWindow: 64000
  - name: local
    family: alpha
    contextWindow: 4096
    maxOutputTokens: 1024
    aliases: [tiny]
aliases:
  fast: A-3
`);
  const config = loadConfig({ BETA_API_KEY: 'from-env' }, path);
  const a2 = config.models.find((entry) => entry.name === 'A-2');
  assert.ok(a2);
  assert.equal(a2.upstreamModel, 'real-a2');
  assert.equal(a2.contextWindow, 64000);
  assert.equal(a2.maxOutputTokens, 4096);
  assert.equal(config.models.find((entry) => entry.name === 'local')?.family, 'alpha');
  assert.deepEqual({ ...config.aliases }, { tiny: 'local', fast: 'A-3' });
  assert.equal(config.upstreams.beta?.baseUrl, 'http://file.example');
  assert.equal(config.upstreams.beta.apiKey, 'from-env');
});

test('JSON files work too', () => {
  const path = writeConfig(JSON.stringify({ server: { port: 9999 } }), 'config.json');
  assert.equal(loadConfig({}, path).port, 9999);
  assert.equal(loadConfig({ PORT: '7000' }, path).port, 7000);
});

test('image fetching is off unless the file turns it on; caps are validated', () => {
  assert.deepEqual(loadConfig({}).images, {
    enabled: false,
    maxBytes: 5 * 1024 * 1024,
    timeoutMs: 5000,
    maxPerRequest: 20,
  });
  const on = loadConfig(
    {},
    writeConfig('images: { fetch: true, maxBytes: 1000000, timeoutMs: 2000, maxPerRequest: 3 }\n'),
  );
  assert.deepEqual(on.images, { enabled: true, maxBytes: 1_000_000, timeoutMs: 2000, maxPerRequest: 3 });
  assert.throws(() => loadConfig({}, writeConfig('images: { maxPerRequest: 0 }\n')), /images\.maxPerRequest/);
  assert.throws(() => loadConfig({}, writeConfig('images: { maxBytes: 0 }\n')), /images\.maxBytes/);
  assert.throws(() => loadConfig({}, writeConfig('images: { follow: true }\n')), /follow/);
});

test('invalid files fail at start with messages that name the field', () => {
  assert.throws(
    () => loadConfig({}, writeConfig('models:\n  - name: x\n    contextWindow: -1\n')),
    (error: unknown) => {
      assert.ok(error instanceof ConfigError);
      assert.match(error.message, /contextWindow/);
      return true;
    },
  );
  assert.throws(() => loadConfig({}, writeConfig('bogus: 1\n')), /bogus/);
  assert.throws(() => loadConfig({}, writeConfig('aliases: { fast: nope }\n')), /unknown model nope/);
  assert.throws(() => loadConfig({}, writeConfig("aliases: { 'a*b': A-1 }\n")), /may only end an alias/);
  assert.deepEqual(
    { ...loadConfig({}, writeConfig("aliases: { 'claude-*': B-2 }\n")).aliases },
    { 'claude-*': 'B-2' },
  );
  assert.throws(() => loadConfig({}, writeConfig('models:\n  - name: new-one\n')), /needs family/);
  assert.throws(() => loadConfig({}, '/nonexistent/modelgate.yaml'), /cannot read config file/);
  assert.throws(() => loadConfig({ ALPHA_BASE_URL: 'ftp://x' }), /ALPHA_BASE_URL/);
  assert.throws(() => loadConfig({ PORT: 'abc' }), /PORT/);
});

test('responses.retentionDays: 30 days unless configured; not positive is refused', () => {
  assert.equal(loadConfig({}).responses.retentionMs, 30 * 86_400_000);
  assert.equal(
    loadConfig({}, writeConfig('responses: { retentionDays: 0.5 }')).responses.retentionMs,
    43_200_000,
  );
  assert.throws(() => loadConfig({}, writeConfig('responses: { retentionDays: 0 }')), ConfigError);
});

test('family names are the registered families: per-family sections and defaults come from them', () => {
  const config = loadConfig(
    {},
    writeConfig('limits:\n  beta: { rpm: 7, unlimited: true }\n  strictOutputTokens: true\n'),
  );
  assert.deepEqual(config.rateLimits, {
    alpha: { requestsPerMinute: 500, tokensPerMinute: 10_000 },
    beta: { requestsPerMinute: 7, tokensPerMinute: 100_000 },
    gamma: { requestsPerMinute: 60, tokensPerMinute: 32_000 },
    converse: { requestsPerMinute: 50, tokensPerMinute: 100_000 },
  });
  assert.deepEqual(config.unlimited.families, ['beta']);
  assert.equal(config.strictOutputTokens, true);
  assert.throws(() => loadConfig({}, writeConfig('limits: { omega: { rpm: 1 } }\n')), /limits\.omega/);
  assert.throws(() => loadConfig({}, writeConfig('limits: { beta: { rpm: 0 } }\n')), /limits\.beta\.rpm/);
  assert.throws(
    () => loadConfig({}, writeConfig('upstreams: { omega: { baseUrl: "http://x.example" } }\n')),
    /no such family \(alpha, beta, gamma, converse\)\n.*upstreams\.omega/,
  );
  assert.throws(
    () =>
      loadConfig(
        {},
        writeConfig('models:\n  - { name: m, family: omega, contextWindow: 9, maxOutputTokens: 9 }\n'),
      ),
    /"omega" is no family/,
  );
});
