import assert from 'node:assert/strict';
import { test } from 'node:test';
import { headerNumber } from './surface.ts';

test('a header number has the digits String gives it, whatever the number', () => {
  const values = [
    0,
    -0,
    1,
    7,
    999,
    1_000_000_000,
    999_999_999_999,
    -42,
    2 ** 31,
    2 ** 53,
    1e21,
    1.5,
    0.1,
    -2.25,
  ];
  for (const value of [...values, Number.NaN, Number.POSITIVE_INFINITY, Number.MAX_SAFE_INTEGER + 2])
    assert.equal(headerNumber(value), String(value), `for ${String(value)}`);
});
