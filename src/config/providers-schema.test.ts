import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { ConfigError, loadConfig } from './load-config.ts';

function writeConfig(text: string): string {
  const path = join(mkdtempSync(join(tmpdir(), 'modelgate-providers-')), 'config.yaml');
  writeFileSync(path, text);
  return path;
}

test('providers: named settings (secrets from the environment) that models and deployments name', () => {
  const path = writeConfig(`
providers:
  my-openai: { preset: openai, apiKey: "\${OPENAI_KEY}" }
  claude: { preset: anthropic, apiKey: sk-ant-x, baseUrl: "https://proxy.example/anthropic" }
models:
  - name: gpt-4o
    family: alpha
    contextWindow: 128000
    maxOutputTokens: 16384
    provider: my-openai
  - name: B-1
    deployments:
      - { provider: claude, upstreamModel: claude-sonnet-4-5 }
`);
  const config = loadConfig({ OPENAI_KEY: 'sk-from-env' }, path);
  assert.deepEqual(config.providers['my-openai'], {
    name: 'my-openai',
    preset: 'openai',
    apiKey: 'sk-from-env',
  });
  assert.equal(config.providers.claude?.baseUrl, 'https://proxy.example/anthropic');
  assert.equal(config.models.find((entry) => entry.name === 'gpt-4o')?.provider, 'my-openai');
  assert.equal(config.routing['B-1']?.deployments[0]?.provider, 'claude');
});

test('a provider name nobody configured, or one beside its own baseUrl/apiKey, is refused naming it', () => {
  const unknown = writeConfig(`
providers:
  one: { preset: openai }
models:
  - { name: A-1, provider: two }
`);
  assert.throws(
    () => loadConfig({}, unknown),
    (error: unknown) =>
      error instanceof ConfigError &&
      error.message === 'model A-1.provider: no provider "two" in providers (configured: one)',
  );
  const beside = writeConfig(`
providers:
  one: { preset: openai }
models:
  - name: A-1
    deployments: [{ provider: one, apiKey: sk-x }]
`);
  assert.throws(() => loadConfig({}, beside), /deployments\[0\]: set baseUrl\/apiKey on provider one/);
  const typo = writeConfig(`
providers:
  one: { preset: openai, apikey: sk-x }
`);
  assert.throws(() => loadConfig({}, typo), /apikey/);
});
