import assert from 'node:assert/strict';
import { test } from 'node:test';
import { InFlight } from './in-flight.ts';

test('members come and go in any order; size and iteration follow', () => {
  const inFlight = new InFlight<string>();
  const a = inFlight.add('a');
  const b = inFlight.add('b');
  const c = inFlight.add('c');
  assert.deepEqual([...inFlight], ['c', 'b', 'a']);
  inFlight.delete(b);
  assert.deepEqual([...inFlight], ['c', 'a']);
  inFlight.delete(b);
  assert.equal(inFlight.size, 2, 'deleting twice deletes once');
  inFlight.delete(c);
  inFlight.delete(a);
  assert.equal(inFlight.size, 0);
  assert.deepEqual([...inFlight], []);
  inFlight.add('d');
  assert.deepEqual([...inFlight], ['d']);
});

test('an iteration survives what its members do to the others (a drain aborting requests)', () => {
  const inFlight = new InFlight<number>();
  const entries = [0, 1, 2, 3, 4].map((value) => inFlight.add(value));
  const seen: number[] = [];
  for (const value of inFlight) {
    seen.push(value);
    // Each member visited takes itself and the next older one out, and a new one comes in.
    inFlight.delete(entries[value] ?? entries[0]!);
    if (value > 0) inFlight.delete(entries[value - 1]!);
    inFlight.add(10 + value);
  }
  assert.deepEqual(seen, [4, 2, 0], 'the deleted are skipped, the added wait for the next iteration');
  assert.deepEqual([...inFlight], [10, 12, 14]);
});

test('a deleted entry holds nothing of the list', () => {
  const inFlight = new InFlight<object>();
  inFlight.add({});
  const middle = inFlight.add({});
  inFlight.add({});
  inFlight.delete(middle);
  assert.equal(middle.previous, undefined);
  assert.equal(middle.next, undefined);
});
