import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { exceedsJsonDepth } from './json-depth.ts';

const depth = (text: string, limit: number): boolean => exceedsJsonDepth(text, limit);

test('counts objects and arrays, not brackets inside strings (escaped quotes included)', () => {
  assert.equal(depth('{"a":[{"b":[1]}]}', 4), false);
  assert.equal(depth('{"a":[{"b":[1]}]}', 3), true);
  assert.equal(depth('{"text":"[[[[[[[[{{{{{{"}', 1), false);
  assert.equal(depth('{"text":"say \\"[[[[\\" ok \\\\", "x": [[1]]}', 3), false);
  assert.equal(depth('{"text":"say \\"[[[[\\" ok \\\\", "x": [[1]]}', 2), true);
  assert.equal(depth('"unterminated [[[[', 1), false);
  assert.equal(depth('['.repeat(100_000), 128), true);
  // More brackets than the limit, all shallow: the exact scan decides.
  assert.equal(depth(`[${'[],'.repeat(300)}[]]`, 128), false);
  assert.equal(depth(`{"s":"${'{'.repeat(300)}","a":[1]}`, 128), false);
});

test('agrees with a parse-and-walk depth on any JSON value', () => {
  const measure = (value: unknown): number =>
    typeof value === 'object' && value !== null ? 1 + Math.max(0, ...Object.values(value).map(measure)) : 0;
  fc.assert(
    fc.property(fc.jsonValue({ maxDepth: 8 }), fc.integer({ min: 0, max: 10 }), (value, limit) => {
      const text = JSON.stringify(value);
      assert.equal(depth(text, limit), measure(value) > limit, text);
    }),
    { seed: 5, numRuns: 500 },
  );
});
