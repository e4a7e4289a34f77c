import assert from 'node:assert/strict';
import { test } from 'node:test';
import { traceIdOf } from './traceparent.ts';

test('a valid traceparent gives its trace id; anything else gives none', () => {
  const id = '4bf92f3577b34da6a3ce929d0e0e4736';
  assert.equal(traceIdOf(`00-${id}-00f067aa0ba902b7-01`), id);
  assert.equal(traceIdOf(`00-${id.toUpperCase()}-00f067aa0ba902b7-00`), id);
  assert.equal(traceIdOf(`01-${id}-00f067aa0ba902b7-01-extra`), id, 'a later version may add fields');
  assert.equal(traceIdOf(`00-${id}-00f067aa0ba902b7-01-extra`), undefined);
  assert.equal(traceIdOf(`ff-${id}-00f067aa0ba902b7-01`), undefined);
  assert.equal(traceIdOf(`00-${'0'.repeat(32)}-00f067aa0ba902b7-01`), undefined);
  assert.equal(traceIdOf(`00-${id}-${'0'.repeat(16)}-01`), undefined);
  assert.equal(traceIdOf('00-xyz'), undefined);
  assert.equal(traceIdOf(undefined), undefined);
  assert.equal(traceIdOf([`00-${id}-00f067aa0ba902b7-01`]), undefined);
});
