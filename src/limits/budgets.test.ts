import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { MemoryBudgets, type Reservation } from './budgets.ts';

test('reserve the worst case, settle to the real cost, refuse once the budget is spent', async () => {
  const budgets = new MemoryBudgets(new Map([['k', 0.5]]));
  const first = await budgets.reserve('k', 1, 0.3);
  assert.ok(first.admitted);
  assert.equal(budgets.reserved('k'), 0.3);
  await budgets.settle(first.reservation, 0.1);
  assert.equal(budgets.reserved('k'), 0);
  assert.ok(Math.abs(budgets.spent('k') - 0.6) < 1e-12);
  const second = await budgets.reserve('k', 1, 0.3);
  assert.ok(second.admitted);
  await budgets.settle(second.reservation, 0.4);
  const refused = await budgets.reserve('k', 1, 0.3);
  assert.deepEqual(refused, { admitted: false, spentUsd: budgets.spent('k'), budgetUsd: 1 });
});

test('a released reservation is given back whole', async () => {
  const budgets = new MemoryBudgets();
  const reserved = await budgets.reserve('k', 1, 0.9);
  assert.ok(reserved.admitted);
  assert.equal((await budgets.reserve('k', 1, 0.2)).admitted, true, 'committed 0.9 < 1');
  assert.equal((await budgets.reserve('k', 1, 0.2)).admitted, false, 'committed 1.1 ≥ 1');
  await budgets.release(reserved.reservation);
  assert.equal((await budgets.reserve('k', 1, 0.2)).admitted, true);
});

test('any interleaving of concurrent requests overspends by at most one worst case', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.double({ min: 0.01, max: 5, noNaN: true }),
      fc.array(
        fc.record({
          worst: fc.double({ min: 0, max: 1, noNaN: true }),
          share: fc.double({ min: 0, max: 1, noNaN: true }),
          settleAfter: fc.nat(5),
        }),
        { maxLength: 60 },
      ),
      async (budget, requests) => {
        const budgets = new MemoryBudgets();
        const open: { reservation: Reservation; cost: number; settleAfter: number }[] = [];
        const worstAdmitted: number[] = [];
        for (const request of requests) {
          const result = await budgets.reserve('k', budget, request.worst);
          if (result.admitted) {
            worstAdmitted.push(request.worst);
            open.push({
              reservation: result.reservation,
              cost: request.worst * request.share,
              settleAfter: request.settleAfter,
            });
          }
          for (const item of [...open]) {
            if (item.settleAfter-- <= 0) {
              await budgets.settle(item.reservation, item.cost);
              open.splice(open.indexOf(item), 1);
            }
          }
        }
        for (const item of open) await budgets.settle(item.reservation, item.cost);
        const largest = Math.max(0, ...worstAdmitted);
        assert.ok(
          budgets.spent('k') <= budget + largest + 1e-9,
          `${budgets.spent('k')} > ${budget} + ${largest}`,
        );
      },
    ),
  );
});

test('a periodic account is kept until its time, then dropped (a long-running process keeps no old periods)', async () => {
  let now = 1_000;
  const budgets = new MemoryBudgets(new Map(), () => now);
  const yesterday = await budgets.reserve('k/day:2026-11-26', 1, 0.2, 5_000);
  assert.ok(yesterday.admitted);
  await budgets.settle(yesterday.reservation, 0.1);
  now = 4_000;
  await budgets.reserve('k/day:2026-11-27', 1, 0.2, 90_000);
  assert.equal(budgets.spent('k/day:2026-11-26'), 0.1, 'not yet past its time');
  now = 70_000;
  await budgets.reserve('k/day:2026-11-27', 1, 0.2, 90_000);
  assert.equal(budgets.spent('k/day:2026-11-26'), 0, 'forgotten');
  assert.equal(budgets.reserved('k/day:2026-11-27'), 0.4);
});
