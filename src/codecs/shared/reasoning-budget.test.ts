import assert from 'node:assert/strict';
import { test } from 'node:test';
import { GatewayError } from '../../ir/index.ts';
import { budgetForEffort, readEffort } from './reasoning-budget.ts';

test('an effort is a growing share of the output cap, at least 1024 and below the cap', () => {
  const cap = 32_000;
  const budgets = (['minimal', 'low', 'medium', 'high', 'xhigh', 'max'] as const).map((effort) =>
    budgetForEffort(effort, cap),
  );
  assert.deepEqual(budgets, [2000, 4000, 8000, 16000, 20000, 24000]);
  assert.equal(budgetForEffort('minimal', 4096), 1024);
  assert.equal(budgetForEffort('max', 1100), 1024);
  assert.equal(budgetForEffort('max', 1030), 1024);
  assert.equal(budgetForEffort('high', 1024), undefined);
  assert.equal(budgetForEffort('none', 32_000), undefined);
});

test('efforts are read strictly: an unknown one is a 400 naming the field', () => {
  assert.equal(readEffort('xhigh', 'reasoning_effort'), 'xhigh');
  assert.equal(readEffort(null, 'reasoning_effort'), undefined);
  assert.throws(
    () => readEffort('extreme', 'reasoning.effort'),
    (error: unknown) => error instanceof GatewayError && error.param === 'reasoning.effort',
  );
});
