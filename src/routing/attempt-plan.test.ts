import assert from 'node:assert/strict';
import { test } from 'node:test';
import { GatewayError } from '../ir/index.ts';
import { AttemptPlan, type AttemptFailure, type Step } from './attempt-plan.ts';
import type { ModelRoute } from './deployment.ts';
import { backoffMs } from './retry-policy.ts';
import { ManualClock, deployment, route, testPolicy } from './test-kit.ts';

const unavailable: AttemptFailure = {
  error: new GatewayError('overloaded', 'upstream: overloaded'),
  retryable: true,
  unhealthy: true,
  retryAfterMs: undefined,
};

function describe(step: Step | undefined): string {
  if (step === undefined) return 'done';
  return `${step.route.entry.name}:${step.deployment.id}+${step.waitMs}`;
}

/** Runs the plan with every call failing as `failure`; returns the steps taken. */
function exhaust(plan: AttemptPlan, clock: ManualClock, failure: AttemptFailure = unavailable): string[] {
  const steps: string[] = [];
  for (;;) {
    const step = plan.next();
    steps.push(describe(step));
    if (step === undefined) return steps;
    clock.time += step.waitMs;
    plan.begin(step);
    plan.fail(step, failure);
  }
}

function chain(primary: ModelRoute, ...fallbacks: ModelRoute[]): ModelRoute {
  primary.chain = [primary, ...fallbacks];
  return primary;
}

test('one deployment: retried with exponential backoff (equal jitter), up to `attempts`', () => {
  const clock = new ManualClock();
  const plan = new AttemptPlan(route('B-1', [deployment('b')], clock), testPolicy, clock, false);
  // random 0.5: half the step plus a quarter: 100 → 75, 200 → 150.
  assert.deepEqual(exhaust(plan, clock), ['B-1:b+0', 'B-1:b+75', 'B-1:b+150', 'done']);
  assert.equal(plan.attempts, 3);
  assert.match(plan.finalError().message, /overloaded/);
});

test('several deployments: each once without waiting, then the fallbacks in order; retries on the last', () => {
  const clock = new ManualClock();
  const b1 = route('B-1', [deployment('b1'), deployment('b2')], clock);
  const a2 = route('A-2', [deployment('a', { family: 'alpha', model: 'A-2' })], clock);
  const c1 = route('C-1', [deployment('c', { family: 'gamma', model: 'C-1' })], clock);
  const plan = new AttemptPlan(chain(b1, a2, c1), testPolicy, clock, false);
  assert.deepEqual(exhaust(plan, clock), [
    'B-1:b1+0',
    'B-1:b2+0',
    'A-2:a+0',
    'C-1:c+0',
    'C-1:c+75',
    'C-1:c+150',
    'done',
  ]);
  assert.equal(plan.attempts, 6);
  const shorter = exhaust(new AttemptPlan(b1, { ...testPolicy, maxAttempts: 4 }, clock, false), clock);
  assert.deepEqual(shorter.slice(0, 2).sort(), ['B-1:b1+0', 'B-1:b2+0']);
  assert.deepEqual(shorter.slice(2), ['A-2:a+0', 'C-1:c+0', 'done'], 'the request budget');
});

test('a retry-after is waited out when short; a long one ends the retries on that deployment', () => {
  const clock = new ManualClock();
  const b = deployment('b');
  const plan = new AttemptPlan(route('B-1', [b], clock), testPolicy, clock, false);
  const short = { ...unavailable, retryAfterMs: 1200 };
  let step = plan.next();
  assert.ok(step);
  plan.begin(step);
  plan.fail(step, short);
  step = plan.next();
  assert.equal(step?.waitMs, 1200);
  assert.ok(step);
  plan.begin(step);
  plan.fail(step, { ...unavailable, retryAfterMs: 60_000 });
  assert.equal(plan.next(), undefined);
  assert.equal(b.coolingUntil, clock.now() + 60_000, 'other requests prefer other deployments meanwhile');
});

test('the time budget: no retry whose wait would end past it, no new attempt after it', () => {
  const clock = new ManualClock();
  const policy = { ...testPolicy, budgetMs: 100 };
  const plan = new AttemptPlan(route('B-1', [deployment('b')], clock), policy, clock, false);
  assert.deepEqual(exhaust(plan, clock), ['B-1:b+0', 'B-1:b+75', 'done']);
});

test('open circuits: skipped while another deployment or fallback can serve, else called anyway', () => {
  const clock = new ManualClock();
  const b = deployment('b', { threshold: 2 });
  b.breaker.fail(clock.now());
  b.breaker.fail(clock.now());
  clock.time += 1500;
  const a2 = route('A-2', [deployment('a', { family: 'alpha', model: 'A-2' })], clock);
  const withFallback = new AttemptPlan(chain(route('B-1', [b], clock), a2), testPolicy, clock, false);
  assert.equal(describe(withFallback.next()), 'A-2:a+0');
  const alone = new AttemptPlan(route('B-1', [b], clock), testPolicy, clock, false);
  const step = alone.next();
  assert.equal(describe(step), 'B-1:b+0', 'the only option: a blip must not become an outage');
  assert.ok(step);
  alone.begin(step);
  alone.answered(step);
  assert.equal(b.breaker.state(clock.now()), 'closed', 'a success closes it');
});

test('nothing to call at all (every model skipped): the last reason, or unavailable', () => {
  const clock = new ManualClock();
  const plan = new AttemptPlan(route('B-1', [deployment('b')], clock), testPolicy, clock, false);
  plan.skipModel(new GatewayError('invalid_request', 'does not fit'));
  assert.equal(plan.next(), undefined);
  assert.equal(plan.finalError().message, 'does not fit');
});

test('failures count toward the breaker: 5xx yes, 429 no (it cools the deployment instead)', () => {
  const clock = new ManualClock();
  const a = deployment('a', { threshold: 2 });
  const single = route('B-1', [a], clock);
  const plan = new AttemptPlan(single, testPolicy, clock, false);
  assert.deepEqual(
    exhaust(plan, clock),
    ['B-1:a+0', 'B-1:a+75', 'B-1:a+150', 'done'],
    'open after two, yet the only option: retried',
  );
  assert.equal(a.breaker.state(clock.now()), 'open');
  assert.equal(a.inFlight, 0);
  const b = deployment('b', { threshold: 1 });
  const limited = { ...unavailable, unhealthy: false, retryAfterMs: 1500 };
  const other = new AttemptPlan(route('B-1', [b], clock), testPolicy, clock, false);
  const step = other.next();
  assert.ok(step);
  other.begin(step);
  other.fail(step, limited);
  assert.equal(b.breaker.state(clock.now()), 'closed');
  assert.equal(b.coolingUntil, clock.now() + 1500);
  assert.equal(other.next()?.waitMs, 1500);
});

test('a rehearsal (fault-injection headers) calls each deployment once and moves no simulated breaker', () => {
  const clock = new ManualClock();
  const b = deployment('b', { threshold: 1, simulated: true });
  const plan = new AttemptPlan(route('B-1', [b], clock), testPolicy, clock, true);
  assert.deepEqual(exhaust(plan, clock), ['B-1:b+0', 'done']);
  assert.equal(b.breaker.state(clock.now()), 'closed');
});

test('a rehearsal on a real deployment: its failures are real (the headers never reach it)', () => {
  const clock = new ManualClock();
  const b = deployment('b', { threshold: 1 });
  const plan = new AttemptPlan(route('B-1', [b], clock), testPolicy, clock, true);
  assert.deepEqual(exhaust(plan, clock), ['B-1:b+0', 'done']);
  assert.equal(b.breaker.state(clock.now()), 'open');
});

test('a model that cannot take the request is skipped; a non-retryable failure is final', () => {
  const clock = new ManualClock();
  const b1 = route('B-1', [deployment('b')], clock);
  const a1 = route('A-1', [deployment('a', { family: 'alpha', model: 'A-1' })], clock);
  const c1 = route('C-1', [deployment('c', { family: 'gamma', model: 'C-1' })], clock);
  const plan = new AttemptPlan(chain(b1, a1, c1), { ...testPolicy, attempts: 1 }, clock, false);
  let step = plan.next();
  assert.ok(step);
  plan.begin(step);
  plan.fail(step, unavailable);
  step = plan.next();
  assert.equal(step?.route, a1);
  plan.skipModel(new GatewayError('invalid_request', 'too long for A-1'));
  assert.equal(plan.next()?.route, c1);
});

test('backoff bounds', () => {
  const policy = { ...testPolicy, backoffMs: 100, maxBackoffMs: 300 };
  assert.equal(
    backoffMs(1, policy, () => 0),
    50,
  );
  assert.equal(
    backoffMs(1, policy, () => 0.999999),
    100,
  );
  assert.equal(
    backoffMs(5, policy, () => 1),
    300,
    'capped',
  );
});
