import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CircuitBreaker } from './breaker.ts';

const config = { failureThreshold: 3, cooldownMs: 1000 };

test('opens after the threshold of consecutive failures; a success in between resets the count', () => {
  const breaker = new CircuitBreaker(config);
  breaker.fail(0);
  breaker.fail(0);
  breaker.succeed();
  breaker.fail(0);
  breaker.fail(0);
  assert.equal(breaker.state(0), 'closed');
  assert.ok(breaker.allows(0));
  breaker.fail(10);
  assert.equal(breaker.state(10), 'open');
  assert.equal(breaker.allows(500), false);
  assert.equal(breaker.waitMs(500), 510);
});

test('after the cool-down one probe goes through; its success closes the circuit', () => {
  const breaker = new CircuitBreaker(config);
  for (let index = 0; index < 3; index++) breaker.fail(0);
  assert.equal(breaker.allows(999), false);
  assert.ok(breaker.allows(1000));
  assert.equal(breaker.state(1000), 'half-open');
  breaker.begin(1000);
  assert.equal(breaker.allows(1001), false, 'a second probe waits for the first');
  breaker.succeed();
  assert.equal(breaker.state(1002), 'closed');
  assert.ok(breaker.allows(1002));
  assert.equal(breaker.snapshot(1002).opens, 1);
  assert.deepEqual({ ...breaker.transitions }, { open: 1, 'half-open': 1, closed: 1 });
});

test('a failed probe opens the circuit again for a whole cool-down; a probe without verdict frees the slot', () => {
  const breaker = new CircuitBreaker(config);
  for (let index = 0; index < 3; index++) breaker.fail(0);
  breaker.begin(1000);
  breaker.release();
  assert.ok(breaker.allows(1000), 'the client left: another request may probe');
  breaker.begin(1000);
  breaker.fail(1100);
  assert.equal(breaker.state(1100), 'open');
  assert.equal(breaker.allows(2099), false);
  assert.ok(breaker.allows(2100));
  assert.equal(breaker.snapshot(1100).opens, 2);
});

test('threshold 0 disables the breaker', () => {
  const breaker = new CircuitBreaker({ failureThreshold: 0, cooldownMs: 1000 });
  for (let index = 0; index < 100; index++) breaker.fail(0);
  assert.equal(breaker.state(0), 'closed');
});
