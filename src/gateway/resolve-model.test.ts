import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadConfig } from '../config/load-config.ts';
import { ModelResolver } from './resolve-model.ts';

const resolver = new ModelResolver(loadConfig({}));

test('catalog names resolve to their family and upstream id', () => {
  assert.equal(resolver.resolve('B-2')?.family, 'beta');
  assert.equal(resolver.resolve('C-3')?.contextWindow, 32760);
});

test('family prefixes send uncatalogued ids to that family', () => {
  const entry = resolver.resolve('gamma/some-model-001');
  assert.ok(entry);
  assert.equal(entry.family, 'gamma');
  assert.equal(entry.upstreamModel, 'some-model-001');
  assert.equal(resolver.resolve('alpha/org/model-7b')?.upstreamModel, 'org/model-7b');
});

test('unknown or hostile names resolve to nothing', () => {
  for (const name of [
    'nope',
    'delta/x',
    'alpha/',
    'alpha/../../x',
    'alpha/x#@evil',
    'alpha/%2F',
    'alpha/a\r\nb',
    'alpha//x',
    '/alpha/x',
    'alpha/x y',
  ]) {
    assert.equal(resolver.resolve(name), undefined, name);
  }
});

test('prefix aliases catch every name they start, the longest prefix first, after exact names', () => {
  const config = loadConfig({});
  config.aliases = { 'claude-*': 'B-2', 'claude-haiku-*': 'B-1', 'claude-opus-5-5': 'B-3', 'gpt-*': 'A-1' };
  const patterns = new ModelResolver(config);
  assert.equal(patterns.resolve('claude-sonnet-4-5-20250929')?.name, 'B-2');
  assert.equal(patterns.resolve('claude-haiku-4-5')?.name, 'B-1');
  assert.equal(patterns.resolve('claude-opus-5-5')?.name, 'B-3');
  assert.equal(patterns.resolve('gpt-5-codex')?.name, 'A-1');
  // Catalog names and family prefixes are not shadowed; a bare prefix is not a name.
  assert.equal(patterns.resolve('A-2')?.name, 'A-2');
  assert.equal(patterns.resolve('gamma/claude-x')?.family, 'gamma');
  assert.equal(patterns.resolve('claude'), undefined);
});
