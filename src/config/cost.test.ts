import assert from 'node:assert/strict';
import { test } from 'node:test';
import { formatUsd } from './cost.ts';

/** What the cost header always carried: the reference `formatUsd` must keep giving. */
const reference = (value: number): string => value.toFixed(10).replace(/\.?0+$/, '') || '0';

test('the cost header is fixed-point with its trailing zeros trimmed', () => {
  assert.equal(formatUsd(0.0000285), '0.0000285');
  assert.equal(formatUsd(0), '0');
  assert.equal(formatUsd(-0), '0');
  assert.equal(formatUsd(12), '12');
  assert.equal(formatUsd(100), '100');
  assert.equal(formatUsd(0.5), '0.5');
  assert.equal(formatUsd(1e-11), '0');
  assert.equal(formatUsd(-1e-11), '-0');
  assert.equal(formatUsd(0.00000000005), '0.0000000001');
});

test('the cost header is the same text as toFixed(10) trimmed by the regular expression', () => {
  const awkward = [1e21, 1e30, 1.5e22, -1e30, Number.NaN, Infinity, -Infinity, 2 ** 53, 0.1 + 0.2, 1 / 3];
  for (const value of awkward) assert.equal(formatUsd(value), reference(value), String(value));
  let seed = 7;
  for (let index = 0; index < 20_000; index++) {
    seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
    const value = (seed / 2 ** 31) * 10 ** ((index % 14) - 9) * (index % 5 === 0 ? -1 : 1);
    assert.equal(formatUsd(value), reference(value), String(value));
    const rounded = Math.round(value * 1e6) / 1e6;
    assert.equal(formatUsd(rounded), reference(rounded), String(rounded));
  }
});
