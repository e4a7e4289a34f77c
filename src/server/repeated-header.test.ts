import assert from 'node:assert/strict';
import { test } from 'node:test';
import { repeatedHeader } from './repeated-header.ts';

test('repeatedHeader finds a credential header sent twice, whatever its case', () => {
  const names = ['x-api-key', 'authorization'];
  assert.equal(repeatedHeader(['Host', 'h', 'X-Api-Key', 'a', 'x-api-key', 'b'], names), 'x-api-key');
  assert.equal(
    repeatedHeader(['Authorization', 'Bearer a', 'authorization', 'Bearer b'], names),
    'authorization',
  );
  assert.equal(repeatedHeader(['x-api-key', 'a', 'authorization', 'Bearer a'], names), undefined);
  assert.equal(repeatedHeader([], names), undefined);
});
