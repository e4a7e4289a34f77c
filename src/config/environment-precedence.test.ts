/**
 * Precedence, section by section: a variable wins over the file, the file over the default; and a
 * variable's refused value is the same error naming the variable, with a file or without one.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import type { Config } from './config.ts';
import { ConfigError, loadConfig, type Environment } from './load-config.ts';

function writeConfig(text: string): string {
  const path = join(mkdtempSync(join(tmpdir(), 'modelgate-precedence-')), 'config.yaml');
  writeFileSync(path, text);
  return path;
}

interface Precedence {
  setting: string;
  file: string;
  environment: Environment;
  read: (config: Config) => unknown;
  byDefault: unknown;
  fromFile: unknown;
  fromEnvironment: unknown;
}

const sections: Precedence[] = [
  {
    setting: 'server.host / HOST',
    file: 'server: { host: 0.0.0.0 }',
    environment: { HOST: '::1' },
    read: (config) => config.host,
    byDefault: '127.0.0.1',
    fromFile: '0.0.0.0',
    fromEnvironment: '::1',
  },
  {
    setting: 'server.port / PORT',
    file: 'server: { port: 9000 }',
    environment: { PORT: '9100' },
    read: (config) => config.port,
    byDefault: 8080,
    fromFile: 9000,
    fromEnvironment: 9100,
  },
  {
    setting: 'database / MODELGATE_DB',
    file: 'database: /srv/file.db',
    environment: { MODELGATE_DB: '/srv/env.db' },
    read: (config) => config.databasePath,
    byDefault: './data/modelgate.db',
    fromFile: '/srv/file.db',
    fromEnvironment: '/srv/env.db',
  },
  {
    setting: 'postgres.url / MODELGATE_DATABASE_URL',
    file: "postgres: { url: 'postgres://file/db' }",
    environment: { MODELGATE_DATABASE_URL: 'postgresql://env/db' },
    read: (config) => config.databaseUrl,
    byDefault: undefined,
    fromFile: 'postgres://file/db',
    fromEnvironment: 'postgresql://env/db',
  },
  {
    setting: 'postgres.outbox / MODELGATE_OUTBOX',
    file: 'database: /srv/store.db\npostgres: { outbox: /srv/file-outbox.db }',
    environment: { MODELGATE_OUTBOX: '/srv/env-outbox.db' },
    read: (config) => config.outboxPath,
    byDefault: join('data', 'ledger-outbox.db'),
    fromFile: '/srv/file-outbox.db',
    fromEnvironment: '/srv/env-outbox.db',
  },
  {
    setting: 'redis.url / MODELGATE_REDIS_URL',
    file: "redis: { url: 'valkey://file:6379' }",
    environment: { MODELGATE_REDIS_URL: 'rediss://env:6380' },
    read: (config) => config.sharedStore.redisUrl,
    byDefault: undefined,
    fromFile: 'redis://file:6379',
    fromEnvironment: 'rediss://env:6380',
  },
  {
    setting: 'upstreams.beta / BETA_BASE_URL, BETA_API_KEY, BETA_FAULT_HEADERS',
    file: "upstreams: { beta: { baseUrl: 'http://file.example/', apiKey: file-key, faultHeaders: true } }",
    environment: { BETA_BASE_URL: 'https://env.example/v', BETA_API_KEY: 'env-key', BETA_FAULT_HEADERS: '0' },
    read: (config) => config.upstreams.beta,
    byDefault: { baseUrl: undefined, apiKey: undefined, faultHeaders: false },
    fromFile: { baseUrl: 'http://file.example', apiKey: 'file-key', faultHeaders: true },
    fromEnvironment: { baseUrl: 'https://env.example/v', apiKey: 'env-key', faultHeaders: false },
  },
  {
    setting: 'simulator / MODELGATE_SIMULATOR, SIMULATOR_TTFT_MS, SIMULATOR_TOKEN_DELAY_MS',
    file: 'simulator: { enabled: false, timeToFirstTokenMs: 5, interTokenDelayMs: 6 }',
    environment: { MODELGATE_SIMULATOR: 'true', SIMULATOR_TTFT_MS: '7', SIMULATOR_TOKEN_DELAY_MS: '8' },
    read: (config) => config.simulator,
    byDefault: { enabled: true, timeToFirstTokenMs: 0, interTokenDelayMs: 0 },
    fromFile: { enabled: false, timeToFirstTokenMs: 5, interTokenDelayMs: 6 },
    fromEnvironment: { enabled: true, timeToFirstTokenMs: 7, interTokenDelayMs: 8 },
  },
  {
    setting: 'logLevel / LOG_LEVEL',
    file: 'logLevel: warn',
    environment: { LOG_LEVEL: 'debug' },
    read: (config) => config.logLevel,
    byDefault: 'info',
    fromFile: 'warn',
    fromEnvironment: 'debug',
  },
];

for (const section of sections) {
  test(`${section.setting}: the variable over the file, the file over the default`, () => {
    const path = writeConfig(`${section.file}\n`);
    assert.deepEqual(section.read(loadConfig({})), section.byDefault, 'default');
    assert.deepEqual(section.read(loadConfig({}, path)), section.fromFile, 'file');
    assert.deepEqual(
      section.read(loadConfig(section.environment, path)),
      section.fromEnvironment,
      'environment',
    );
    assert.deepEqual(
      section.read(loadConfig(section.environment)),
      section.fromEnvironment,
      'environment alone',
    );
  });
}

test('a blank variable is unset: the file (or the default) stands', () => {
  const path = writeConfig('server: { port: 9000 }\n');
  assert.equal(loadConfig({ PORT: '  ', HOST: '' }, path).port, 9000);
  assert.equal(loadConfig({ PORT: '  ', HOST: '' }, path).host, '127.0.0.1');
});

test('a variable sets one field of a section; the rest of the file section stands', () => {
  const path = writeConfig('simulator: true\nupstreams: { alpha: { apiKey: file-key } }\n');
  const config = loadConfig({ SIMULATOR_TTFT_MS: '40', ALPHA_BASE_URL: 'http://a.example' }, path);
  assert.deepEqual(config.simulator, { enabled: true, timeToFirstTokenMs: 40, interTokenDelayMs: 0 });
  assert.deepEqual(config.upstreams.alpha, {
    baseUrl: 'http://a.example',
    apiKey: 'file-key',
    faultHeaders: false,
  });
});

test('what only the environment gives cannot be written in the file', () => {
  const path = writeConfig('environmentOnly: { adminKey: aaaaaaaaaaaaaaaaaaaa }\n');
  assert.throws(() => loadConfig({}, path), /Unrecognized key "environmentOnly"/);
  const config = loadConfig({
    MODELGATE_KEYS: ' k1 , k2 ,',
    MODELGATE_ADMIN_KEY: 'a'.repeat(16),
    MODELGATE_METRICS_TOKEN: 'm'.repeat(16),
    OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318',
  });
  assert.deepEqual(config.staticKeys, ['k1', 'k2']);
  assert.equal(config.adminKey, 'a'.repeat(16));
  assert.equal(config.metrics.token, 'm'.repeat(16));
  assert.deepEqual(config.tracing, { enabled: true, captureContent: false });
  assert.equal(
    loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c', OTEL_SDK_DISABLED: 'TRUE' }).tracing.enabled,
    false,
  );
});

/** The message of the ConfigError `run` throws. */
function refusal(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    assert.ok(error instanceof ConfigError, String(error));
    return error.message;
  }
  assert.fail('expected a ConfigError');
}

const refusedValues: [Environment, string][] = [
  [{ PORT: '70000' }, 'PORT must be 0–65535, got 70000'],
  [{ PORT: 'abc' }, 'PORT must be 0–65535, got abc'],
  [{ ALPHA_BASE_URL: 'ftp://x' }, 'ALPHA_BASE_URL must be an http(s) URL without query or fragment'],
  [
    { GAMMA_BASE_URL: 'http://g.example?q=1' },
    'GAMMA_BASE_URL must be an http(s) URL without query or fragment',
  ],
  [{ BETA_FAULT_HEADERS: 'yes' }, 'BETA_FAULT_HEADERS must be 1, true, 0 or false'],
  [{ MODELGATE_SIMULATOR: 'on' }, 'MODELGATE_SIMULATOR must be 1, true, 0 or false'],
  [{ SIMULATOR_TTFT_MS: '-1' }, 'SIMULATOR_TTFT_MS must be a whole number ≥ 0'],
  [{ SIMULATOR_TOKEN_DELAY_MS: '1.5' }, 'SIMULATOR_TOKEN_DELAY_MS must be a whole number ≥ 0'],
  [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL must be one of debug, info, warn, error, silent'],
  [
    { MODELGATE_DATABASE_URL: 'mysql://h/db' },
    'MODELGATE_DATABASE_URL must be a postgres:// or postgresql:// URL',
  ],
  [{ MODELGATE_REDIS_URL: 'http://h:1' }, 'MODELGATE_REDIS_URL must be a redis:// or rediss:// URL'],
  [{ MODELGATE_ADMIN_KEY: 'short-secret' }, 'MODELGATE_ADMIN_KEY must be at least 16 characters'],
  [{ MODELGATE_METRICS_TOKEN: 'short-token' }, 'MODELGATE_METRICS_TOKEN must be at least 16 characters'],
];

for (const [environment, message] of refusedValues) {
  const name = Object.keys(environment)[0] ?? '';
  test(`${name} refused: "${message}", with a file setting it or without`, () => {
    assert.equal(
      refusal(() => loadConfig(environment)),
      message,
    );
    // The file's own valid value for the same setting changes nothing: the variable wins, and is named.
    const path = writeConfig(
      'server: { port: 9000 }\nupstreams: { alpha: { baseUrl: "http://file.example" } }\nlogLevel: warn\n',
    );
    const withFile = refusal(() => loadConfig(environment, path));
    assert.equal(withFile, message);
    assert.doesNotMatch(withFile, /config file/);
  });
}

test('a refused secret is named, never shown', () => {
  const message = refusal(() => loadConfig({ MODELGATE_ADMIN_KEY: 'hunter2-secret' }));
  assert.match(message, /MODELGATE_ADMIN_KEY/);
  assert.doesNotMatch(message, /hunter2/);
});

test("the file's mistake is reported at its field even when a variable sets a neighbour", () => {
  const path = writeConfig('server: { port: 70000 }\n');
  const message = refusal(() => loadConfig({ HOST: '0.0.0.0' }, path));
  assert.match(message, /^config file .* is invalid:\n/);
  assert.match(message, /server\.port/);
  // A variable overriding the bad value does not hide it: the file is still refused, at its field.
  const overridden = refusal(() => loadConfig({ PORT: '8081' }, path));
  assert.match(overridden, /^config file .* is invalid:\n/);
  assert.match(overridden, /server\.port/);
  assert.equal(overridden.match(/server\.port/g)?.length, 1, 'said once');
});
