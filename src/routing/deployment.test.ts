import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { PickFilter } from './deployment.ts';
import { ManualClock, deployment, route } from './test-kit.ts';

const all: PickFilter = { exclude: undefined, only: undefined, avoidCooling: true, ignoreBreaker: false };

function picks(count: number, pick: () => string | undefined): Record<string, number> {
  const counts: Record<string, number> = {};
  for (let index = 0; index < count; index++) {
    const id = pick() ?? 'none';
    counts[id] = (counts[id] ?? 0) + 1;
  }
  return counts;
}

test('weighted choice: exact shares over every window of sum(weights) picks, interleaved', () => {
  const clock = new ManualClock();
  const model = route('B-1', [deployment('a', { weight: 3 }), deployment('b', { weight: 1 })], clock);
  const order = Array.from({ length: 8 }, () => model.pick(clock.now(), all)?.id);
  assert.deepEqual(order, ['a', 'a', 'b', 'a', 'a', 'a', 'b', 'a']);
  assert.deepEqual(
    picks(400, () => model.pick(clock.now(), all)?.id),
    { a: 300, b: 100 },
  );
});

test('equal weights: the deployment with fewer calls in flight wins the tie', () => {
  const clock = new ManualClock();
  const busy = deployment('busy');
  const idle = deployment('idle');
  busy.inFlight = 5;
  const model = route('B-1', [busy, idle], clock);
  assert.equal(model.pick(clock.now(), all)?.id, 'idle');
});

test('an open circuit, an excluded or a cooling deployment is skipped; cooling only while others can serve', () => {
  const clock = new ManualClock();
  const a = deployment('a', { threshold: 2 });
  const b = deployment('b');
  const model = route('B-1', [a, b], clock);
  a.breaker.fail(clock.now());
  a.breaker.fail(clock.now());
  assert.deepEqual(
    picks(4, () => model.pick(clock.now(), all)?.id),
    { b: 4 },
  );
  assert.equal(model.pick(clock.now(), { ...all, exclude: [b] }), undefined);
  b.coolingUntil = clock.now() + 1000;
  assert.equal(model.pick(clock.now(), all), undefined);
  assert.equal(model.pick(clock.now(), { ...all, avoidCooling: false })?.id, 'b');
  clock.time += 5000;
  assert.equal(model.pick(clock.now(), { ...all, only: [a] })?.id, 'a', 'past the cool-down: probe');
});
