import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runInNewContext } from 'node:vm';
import { formatUsd } from './money.ts';

test('money is shown to significant digits, never float noise', () => {
  assert.equal(formatUsd(0.000015074999999999999), '$0.0000151');
  assert.equal(formatUsd(0.0029), '$0.0029');
  assert.equal(formatUsd(0.002), '$0.002');
  assert.equal(formatUsd(0), '$0.00');
  assert.equal(formatUsd(5), '$5.00');
  assert.equal(formatUsd(1234.5678), '$1,234.57');
  assert.equal(formatUsd(-0.0042), '-$0.0042');
  assert.equal(formatUsd(Number.NaN), '–');
});

test('its source runs on its own (the dashboard script embeds it)', () => {
  const embedded = runInNewContext(`(${formatUsd.toString()})`) as typeof formatUsd;
  assert.equal(embedded(0.000015074999999999999), '$0.0000151');
  assert.equal(embedded(12), '$12.00');
});
