/**
 * The vendor catalog wired into the configuration: which models a gateway offers follows from the
 * upstreams configured, the file's entries win over vendor data, `catalog.spec: false` drops A-1…C-3,
 * and whether the simulator answers models without an upstream.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { costUsd } from './cost.ts';
import { loadConfig } from './load-config.ts';
import { activePlatforms, hasRealUpstream, missingUpstream, simulatorNotice } from './upstream-presence.ts';

function writeConfig(text: string): string {
  const path = join(mkdtempSync(join(tmpdir(), 'modelgate-catalog-')), 'config.yaml');
  writeFileSync(path, text);
  return path;
}

const names = (config: ReturnType<typeof loadConfig>): string[] => config.models.map((entry) => entry.name);

test('no upstream: the spec catalog only, the simulator on, and the start-up notice says so', () => {
  const config = loadConfig({});
  assert.deepEqual(activePlatforms(config), []);
  assert.equal(names(config).includes('gpt-4o'), false);
  assert.equal(config.simulator.enabled, true);
  assert.equal(hasRealUpstream(config), false);
  assert.match(
    simulatorNotice(config) ?? '',
    /no upstream is configured: the built-in simulator answers every model/,
  );
  assert.match(simulatorNotice(config) ?? '', /ALPHA_BASE_URL/);
});

test("a family's base URL offers its vendor's models with the vendor's figures, and only those", () => {
  const config = loadConfig({ ALPHA_BASE_URL: 'https://api.openai.example' });
  assert.deepEqual(activePlatforms(config), ['openai']);
  const gpt = config.models.find((entry) => entry.name === 'gpt-4o');
  assert.ok(gpt);
  assert.equal(gpt.family, 'alpha');
  assert.equal(gpt.upstreamModel, 'gpt-4o');
  assert.equal(gpt.maxOutputTokens, 16_384);
  assert.deepEqual(gpt.pricing, {
    inputPerMillion: 2.5,
    outputPerMillion: 10,
    cacheReadPerMillion: 1.25,
    // OpenAI lists no cache-write price: a write costs plain input (the family's factor).
    cacheWritePerMillion: 2.5,
  });
  assert.equal(gpt.capabilities.promptCaching, true);
  assert.equal(names(config).includes('claude-sonnet-4-5'), false);
  assert.equal(names(config).includes('A-1'), true);
  assert.equal(names(config).includes('azure/gpt-4o'), false, 'clouds only when a provider is configured');
});

test('catalog.spec: false leaves A-1…C-3 out', () => {
  const config = loadConfig(
    { BETA_BASE_URL: 'https://api.anthropic.example' },
    writeConfig('catalog: { spec: false }\n'),
  );
  assert.equal(config.catalog.spec, false);
  assert.deepEqual(
    names(config).filter((name) => /^[ABC]-\d$/.test(name)),
    [],
  );
  assert.ok(names(config).includes('claude-sonnet-4-5'));
});

test('the file wins over vendor data and keeps the capabilities it does not mention; cost uses its prices', () => {
  const config = loadConfig(
    { BETA_BASE_URL: 'https://api.anthropic.example' },
    writeConfig(`
models:
  - name: claude-sonnet-4-5
    maxOutputTokens: 32000
    pricing: { outputPerMillion: 20, cacheReadPerMillion: 0.5 }
  - name: A-2
    capabilities: { reasoning: true }
`),
  );
  const sonnet = config.models.find((entry) => entry.name === 'claude-sonnet-4-5');
  assert.ok(sonnet);
  assert.equal(sonnet.maxOutputTokens, 32_000);
  assert.deepEqual(sonnet.pricing, {
    inputPerMillion: 3,
    outputPerMillion: 20,
    cacheReadPerMillion: 0.5,
    cacheWritePerMillion: 3.75,
  });
  assert.equal(sonnet.capabilities.reasoning, true);
  assert.equal(sonnet.capabilities.promptCaching, true);
  assert.equal(config.models.find((entry) => entry.name === 'A-2')?.capabilities.reasoning, true);
  // 1M uncached input, 1M read from the cache, 1M written to it, 1M output.
  const usage = {
    inputTokens: 3_000_000,
    outputTokens: 1_000_000,
    cacheReadTokens: 1_000_000,
    cacheWriteTokens: 1_000_000,
  };
  assert.equal(costUsd(usage, sonnet.pricing), 3 + 0.5 + 3.75 + 20);
});

test('a real upstream turns the simulator off: a model without one names the setting; simulator: true or MODELGATE_SIMULATOR=1 turns it back on', () => {
  const environment = { BETA_BASE_URL: 'https://api.anthropic.example' };
  const config = loadConfig(environment);
  assert.equal(config.simulator.enabled, false);
  assert.equal(simulatorNotice(config), undefined);
  const a1 = config.models.find((entry) => entry.name === 'A-1');
  const b1 = config.models.find((entry) => entry.name === 'B-1');
  assert.ok(a1 && b1);
  assert.equal(missingUpstream(config, a1), 'model A-1 has no upstream: set ALPHA_BASE_URL or a deployment');
  assert.equal(missingUpstream(config, b1), undefined);
  assert.equal(loadConfig(environment, writeConfig('simulator: true\n')).simulator.enabled, true);
  const section = loadConfig(
    environment,
    writeConfig('simulator: { enabled: true, interTokenDelayMs: 5 }\n'),
  );
  assert.deepEqual(section.simulator, { enabled: true, timeToFirstTokenMs: 0, interTokenDelayMs: 5 });
  assert.equal(loadConfig({ ...environment, MODELGATE_SIMULATOR: '1' }).simulator.enabled, true);
  assert.equal(missingUpstream(loadConfig({ ...environment, MODELGATE_SIMULATOR: '1' }), a1), undefined);
  assert.equal(loadConfig({ MODELGATE_SIMULATOR: '0' }).simulator.enabled, false);
});

test('a deployment with its own base URL is a real upstream; deployments without one name their family', () => {
  const withDeployment = loadConfig(
    {},
    writeConfig('models:\n  - name: A-1\n    deployments: [{ baseUrl: "http://a.example" }]\n'),
  );
  assert.equal(withDeployment.simulator.enabled, false);
  const a1 = withDeployment.models.find((entry) => entry.name === 'A-1');
  const b1 = withDeployment.models.find((entry) => entry.name === 'B-1');
  assert.ok(a1 && b1);
  assert.equal(missingUpstream(withDeployment, a1), undefined);
  assert.equal(
    missingUpstream(withDeployment, b1),
    'model B-1 has no upstream: set BETA_BASE_URL or a deployment',
  );
  const keyless = loadConfig(
    { GAMMA_BASE_URL: 'http://g.example' },
    writeConfig('models:\n  - name: B-2\n    deployments: [{ id: one }]\n'),
  );
  const b2 = keyless.models.find((entry) => entry.name === 'B-2');
  assert.ok(b2);
  assert.match(missingUpstream(keyless, b2) ?? '', /B-2 has no upstream: its deployments need BETA_BASE_URL/);
});

test("an alias the file gives a vendor model's name wins over the vendor model", () => {
  const config = loadConfig(
    { ALPHA_BASE_URL: 'https://api.openai.example' },
    writeConfig('aliases: { gpt-4o: A-2 }\nmodels:\n  - { name: A-3, aliases: [o3] }\n'),
  );
  assert.equal(names(config).includes('gpt-4o'), false);
  assert.equal(names(config).includes('o3'), false);
  assert.equal(config.aliases['gpt-4o'], 'A-2');
  assert.equal(config.aliases.o3, 'A-3');
  assert.ok(names(config).includes('gpt-4.1'));
  assert.throws(
    () => loadConfig({}, writeConfig('aliases: { A-1: A-2 }\n')),
    /alias A-1 is already a model name/,
  );
});
