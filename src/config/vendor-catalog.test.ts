import assert from 'node:assert/strict';
import { test } from 'node:test';
import { costUsd } from './cost.ts';
import {
  baseCatalog,
  firstPartyPlatform,
  toModelEntry,
  vendorCatalogSource,
  vendorModel,
  vendorModels,
} from './vendor-catalog.ts';
import { emptyUsage } from '../ir/index.ts';

function entry(name: string): ReturnType<typeof toModelEntry> {
  const model = vendorModel(name);
  assert.ok(model, `${name} is in the vendor catalog`);
  return toModelEntry(model);
}

test('the generated data says which source and date it came from', () => {
  const source = vendorCatalogSource();
  assert.equal(source.repository, 'https://github.com/BerriAI/litellm');
  assert.equal(source.license, 'MIT');
  assert.ok(!Number.isNaN(Date.parse(source.date)));
  assert.match(source.sha256, /^[0-9a-f]{64}$/);
});

test('the models users ask for by their vendor names, each in its family with real limits and prices', () => {
  const gpt4o = entry('gpt-4o');
  assert.equal(gpt4o.family, 'alpha');
  assert.equal(gpt4o.upstreamModel, 'gpt-4o');
  assert.equal(gpt4o.contextWindow, 128000);
  assert.equal(gpt4o.pricing.inputPerMillion, 2.5);
  assert.equal(gpt4o.capabilities.reasoning, false);

  const sonnet = entry('claude-sonnet-4-5');
  assert.equal(sonnet.family, 'beta');
  assert.deepEqual(sonnet.pricing, {
    inputPerMillion: 3,
    outputPerMillion: 15,
    cacheReadPerMillion: 0.3,
    cacheWritePerMillion: 3.75,
  });
  assert.equal(sonnet.capabilities.promptCaching, true);

  const geminiPro = entry('gemini-2.5-pro');
  assert.equal(geminiPro.family, 'gamma');
  assert.ok(geminiPro.contextWindow >= 1_000_000);

  for (const reasoning of ['o3', 'o4-mini', 'gpt-5'])
    assert.equal(entry(reasoning).capabilities.reasoning, true);
});

test('cloud ids resolve by catalog name and by the cloud own id', () => {
  const bedrock = vendorModel('us.anthropic.claude-sonnet-4-5-20250929-v1:0');
  assert.ok(bedrock);
  assert.equal(bedrock.name, 'bedrock/us.anthropic.claude-sonnet-4-5-20250929-v1:0');
  assert.equal(bedrock.platform, 'bedrock');
  assert.equal(bedrock.family, 'beta');
  assert.equal(vendorModel('claude-sonnet-4-5@20250929')?.name, 'vertex/claude-sonnet-4-5@20250929');
  assert.equal(vendorModel('azure/gpt-4o')?.upstreamModel, 'gpt-4o');
  assert.equal(vendorModel('vertex/gemini-2.5-pro')?.family, 'gamma');
  // gemini-2.5-pro is both Google's own and Vertex's id: the bare name is Google's.
  assert.equal(vendorModel('gemini-2.5-pro')?.platform, 'gemini');
  assert.equal(vendorModel('no-such-model'), undefined);
});

test('every model is usable as a catalog entry: sorted, unique, output within the window', () => {
  const models = vendorModels();
  const names = models.map((model) => model.name);
  assert.deepEqual(names, [...names].sort());
  assert.equal(new Set(names).size, names.length);
  for (const model of models) {
    assert.ok(model.maxOutputTokens <= model.contextWindow, model.name);
    const { pricing } = toModelEntry(model);
    for (const price of Object.values(pricing)) assert.ok(Number.isFinite(price) && price >= 0, model.name);
  }
});

test('a missing cache price falls back to the family factors; a given one wins', () => {
  // OpenAI lists no cache-write price for gpt-4o: its family writes at the input price.
  assert.equal(entry('gpt-4o').pricing.cacheWritePerMillion, 2.5);
  assert.equal(entry('gpt-4o').pricing.cacheReadPerMillion, 1.25);
  assert.equal(entry('claude-sonnet-4-5').pricing.cacheWritePerMillion, 3.75);
});

test('cost at a vendor model prices counts cache reads and writes at their own prices', () => {
  const usage = {
    ...emptyUsage,
    inputTokens: 1_000_000,
    cacheReadTokens: 400_000,
    cacheWriteTokens: 100_000,
    outputTokens: 10_000,
  };
  // 500k uncached × $3 + 400k read × $0.30 + 100k written × $3.75 + 10k out × $15
  assert.equal(
    costUsd(usage, entry('claude-sonnet-4-5').pricing).toFixed(6),
    (1.5 + 0.12 + 0.375 + 0.15).toFixed(6),
  );
});

test('baseCatalog: the spec models can be turned off; vendor models only for configured platforms', () => {
  const names = (options: Parameters<typeof baseCatalog>[0]): string[] =>
    baseCatalog(options).map((m) => m.name);
  assert.deepEqual(names({ spec: true, platforms: [] }), [
    'A-1',
    'A-2',
    'A-3',
    'B-1',
    'B-2',
    'B-3',
    'B-4',
    'C-1',
    'C-2',
    'C-3',
  ]);
  const anthropicOnly = names({ spec: false, platforms: ['anthropic'] });
  assert.ok(anthropicOnly.includes('claude-sonnet-4-5'));
  assert.ok(!anthropicOnly.includes('gpt-4o') && !anthropicOnly.includes('A-1'));
  assert.ok(anthropicOnly.every((name) => vendorModel(name)?.platform === 'anthropic'));
  const withClouds = names({ spec: true, platforms: ['openai', 'bedrock'] });
  assert.ok(withClouds.includes('A-1') && withClouds.includes('gpt-4o'));
  assert.ok(withClouds.includes('bedrock/anthropic.claude-sonnet-4-5-20250929-v1:0'));
});

test('each family has its vendor first-party platform', () => {
  assert.equal(firstPartyPlatform('alpha'), 'openai');
  assert.equal(firstPartyPlatform('beta'), 'anthropic');
  assert.equal(firstPartyPlatform('gamma'), 'gemini');
  assert.equal(firstPartyPlatform('delta'), undefined);
});
