import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { catalogFromLitellm, placeLitellmKey } from './litellm-catalog.ts';
import type { VendorCatalogSource } from './vendor-catalog-schema.ts';

const sample: Record<string, unknown> = JSON.parse(
  readFileSync(new URL('./__fixtures__/litellm-sample.json', import.meta.url), 'utf8'),
);

const provenance: VendorCatalogSource = {
  dataset: 'LiteLLM model_prices_and_context_window.json',
  repository: 'https://github.com/BerriAI/litellm',
  license: 'MIT',
  readFrom: 'test',
  ref: 'test',
  date: '2026-07-24T18:23:43.215Z',
  sha256: '0'.repeat(64),
  generatedBy: 'test',
};

test('keeps the three vendors chat models and their cloud ids, each under the name clients use', () => {
  const { models } = catalogFromLitellm(sample, provenance);
  assert.deepEqual(Object.keys(models), [
    'azure/gpt-4o',
    'bedrock/anthropic.claude-sonnet-4-5-20250929-v1:0',
    'bedrock/us.anthropic.claude-sonnet-4-5-20250929-v1:0',
    'claude-sonnet-4-5',
    'gemini-2.5-pro',
    'gpt-4o',
    'o3',
    'vertex/claude-opus-4-6',
    'vertex/claude-sonnet-4-5@20250929',
    'vertex/gemini-2.5-pro',
    'vertex/gemini-3.1-flash-lite',
  ]);
  const families = Object.fromEntries(Object.entries(models).map(([name, model]) => [name, model.family]));
  assert.equal(families['azure/gpt-4o'], 'alpha');
  assert.equal(families['bedrock/us.anthropic.claude-sonnet-4-5-20250929-v1:0'], 'beta');
  assert.equal(families['vertex/claude-sonnet-4-5@20250929'], 'beta');
  assert.equal(families['vertex/gemini-2.5-pro'], 'gamma');
  assert.equal(models['azure/gpt-4o']?.upstreamModel, 'gpt-4o');
  assert.equal(models['vertex/claude-opus-4-6']?.upstreamModel, 'claude-opus-4-6');
  assert.equal(models['gemini-2.5-pro']?.vendor, 'google');
  assert.equal(models['bedrock/us.anthropic.claude-sonnet-4-5-20250929-v1:0']?.vendor, 'anthropic');
});

test('prices per million tokens without float noise; a missing cache price stays null', () => {
  const { models } = catalogFromLitellm(sample, provenance);
  assert.deepEqual(models['claude-sonnet-4-5']?.pricing, {
    inputPerMillion: 3,
    outputPerMillion: 15,
    cacheReadPerMillion: 0.3,
    cacheWritePerMillion: 3.75,
  });
  assert.deepEqual(models['gpt-4o']?.pricing, {
    inputPerMillion: 2.5,
    outputPerMillion: 10,
    cacheReadPerMillion: 1.25,
    cacheWritePerMillion: null,
  });
  assert.equal(models['bedrock/us.anthropic.claude-sonnet-4-5-20250929-v1:0']?.pricing.inputPerMillion, 3.3);
});

test('limits and capabilities come from the entry; reasoning marks the o-series, not gpt-4o', () => {
  const { models } = catalogFromLitellm(sample, provenance);
  const gpt4o = models['gpt-4o'];
  assert.ok(gpt4o);
  assert.equal(gpt4o.contextWindow, 128000);
  assert.equal(gpt4o.maxOutputTokens, 16384);
  assert.deepEqual(gpt4o.capabilities, {
    streaming: true,
    tools: true,
    vision: true,
    reasoning: false,
    promptCaching: true,
  });
  assert.equal(models.o3?.capabilities.reasoning, true);
  assert.equal(models['gemini-2.5-pro']?.contextWindow, 1048576);
});

test('the same input in another key order gives the same bytes', () => {
  const reversed = Object.fromEntries(Object.entries(sample).reverse());
  assert.equal(
    JSON.stringify(catalogFromLitellm(reversed, provenance)),
    JSON.stringify(catalogFromLitellm(sample, provenance)),
  );
});

test('a file that is not LiteLLM-shaped is refused with a reason', () => {
  assert.throws(() => catalogFromLitellm([], provenance), /not a JSON object of models/);
  assert.throws(
    () => catalogFromLitellm({ 'some-model': { mode: 'chat' } }, provenance),
    /none of the expected/,
  );
});

test('keys that are not deployable ids or not plain chat are left out', () => {
  assert.equal(placeLitellmKey('azure/eu/gpt-4o-2024-08-06', 'azure'), undefined);
  assert.equal(placeLitellmKey('bedrock/us-east-1/anthropic.claude-v2:1', 'bedrock'), undefined);
  assert.equal(placeLitellmKey('vertex_ai/claude-3-haiku@20240307', 'vertex_ai-anthropic_models'), undefined);
  assert.equal(placeLitellmKey('gpt-4o-audio-preview', 'openai'), undefined);
  assert.equal(placeLitellmKey('gemini/gemini-2.5-flash-native-audio-latest', 'gemini'), undefined);
  assert.deepEqual(placeLitellmKey('gemini-2.0-flash', 'vertex_ai-language-models'), {
    platform: 'vertex',
    name: 'vertex/gemini-2.0-flash',
    upstreamModel: 'gemini-2.0-flash',
  });
});
