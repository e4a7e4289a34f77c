import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { closestKey } from './did-you-mean.ts';
import { ConfigError, loadConfig } from './load-config.ts';

function temporaryFile(text: string, name = 'config.yaml'): string {
  const path = join(mkdtempSync(join(tmpdir(), 'modelgate-secrets-')), name);
  writeFileSync(path, text);
  return path;
}

/** The ConfigError `run` throws (fails the test if it throws nothing or something else). */
function configError(run: () => unknown): ConfigError {
  try {
    run();
  } catch (error) {
    assert.ok(error instanceof ConfigError, String(error));
    return error;
  }
  assert.fail('expected a ConfigError');
}

test('${VAR} in a config string is the environment variable, not the literal text', () => {
  const path = temporaryFile(
    'upstreams:\n  alpha: { baseUrl: "${ALPHA_HOST:-http://fallback.example}/api", apiKey: "${OPENAI_API_KEY}" }\n',
  );
  const config = loadConfig({ OPENAI_API_KEY: 'sk-from-env-123' }, path);
  assert.equal(config.upstreams.alpha?.apiKey, 'sk-from-env-123');
  assert.equal(config.upstreams.alpha.baseUrl, 'http://fallback.example/api');
  const set = loadConfig({ OPENAI_API_KEY: 'k', ALPHA_HOST: 'http://set.example' }, path);
  assert.equal(set.upstreams.alpha?.baseUrl, 'http://set.example/api');
  const literal = temporaryFile('models:\n  - { name: A-1, upstreamModel: "cost-$${X}" }\n');
  assert.equal(loadConfig({}, literal).models[0]?.upstreamModel, 'cost-${X}');
});

test('${file:/path} reads a mounted secret, its trailing newline trimmed', () => {
  const secret = temporaryFile('sk-mounted-secret-456\n', 'openai');
  const path = temporaryFile(`models:\n  - name: A-1\n    apiKey: "\${file:${secret}}"\n`);
  assert.equal(loadConfig({}, path).models[0]?.apiKey, 'sk-mounted-secret-456');
});

test('an unset variable or unreadable file stops the start, naming it but never a secret', () => {
  const unset = configError(() =>
    loadConfig(
      { OTHER_KEY: 'sk-other-789' },
      temporaryFile('upstreams:\n  beta: { apiKey: "${BETA_SECRET}", baseUrl: "${OTHER_KEY}" }\n'),
    ),
  );
  assert.match(unset.message, /upstreams\.beta\.apiKey: environment variable BETA_SECRET is not set/);
  assert.doesNotMatch(unset.message, /sk-other-789/);
  const missing = configError(() =>
    loadConfig({}, temporaryFile('models:\n  - { name: A-1, apiKey: "${file:/nonexistent/secret}" }\n')),
  );
  assert.match(
    missing.message,
    /models\.0\.apiKey: cannot read secret file \/nonexistent\/secret \(ENOENT\)/,
  );
  // A secret that expands into an invalid value: the schema's message names the field, not the value.
  const invalid = configError(() =>
    loadConfig(
      { LEAKY: 'not-a-url-sk-secret-000' },
      temporaryFile('upstreams:\n  gamma: { baseUrl: "${LEAKY}" }\n'),
    ),
  );
  assert.match(invalid.message, /upstreams\.gamma\.baseUrl/);
  assert.doesNotMatch(invalid.message, /sk-secret-000/);
});

test('an unknown key names the closest known key', () => {
  const typo = configError(() => loadConfig({}, temporaryFile('models:\n  - { name: A-1, apikey: x }\n')));
  assert.match(typo.message, /Unrecognized key "apikey" \(did you mean "apiKey"\?\)\n.*models\[0\]/);
  assert.match(
    configError(() => loadConfig({}, temporaryFile('modles: []\n'))).message,
    /"modles" \(did you mean "models"\?\)/,
  );
  assert.match(
    configError(() => loadConfig({}, temporaryFile('images: { fetc: true }\n'))).message,
    /"fetc" \(did you mean "fetch"\?\)/,
  );
  assert.match(
    configError(() => loadConfig({}, temporaryFile('limits: { strictOutputToken: true }\n'))).message,
    /did you mean "strictOutputTokens"\?/,
  );
  const unrelated = configError(() => loadConfig({}, temporaryFile('bogus: 1\n')));
  assert.match(unrelated.message, /Unrecognized key "bogus"/);
  assert.doesNotMatch(unrelated.message, /did you mean/);
});

test('closestKey: typos within a few edits, nothing for unrelated words', () => {
  assert.equal(closestKey('fallback', ['fallbacks', 'aliases']), 'fallbacks');
  assert.equal(closestKey('tiemouts', ['timeouts', 'retry']), 'timeouts');
  assert.equal(closestKey('xyz', ['timeouts', 'retry']), undefined);
});
