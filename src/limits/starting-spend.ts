/**
 * Where the budget stores start: each key's lifetime spend (the key store's running total) and
 * its spend so far in the current UTC day, week and month, each period's own account
 * (`keys/budget-period.ts`), summed from the hour rollups (a period starts on an hour) — so a
 * restart, or a Redis that lost its data, neither forgets a period's spend nor counts the last
 * period's. Every key gets its periods' figures, so a periodic budget given to a key later in
 * the period (through any instance) starts from what the key spent since the period began as of
 * this start.
 */
import { budgetPeriods, periodAccount, periodWindow } from '../keys/budget-period.ts';
import type { KeyStore } from '../keys/key-store.ts';
import type { Stores } from '../store/stores.ts';
import { hourMs } from '../usage/rollups.ts';

export async function startingSpend(
  keys: KeyStore,
  rollups: Stores['dashboard'],
  now: number,
): Promise<Map<string, number>> {
  const spend = await keys.spend();
  for (const period of budgetPeriods) {
    const window = periodWindow(period, now);
    const rows = await rollups.all<{ key_id: string; cost_usd: number | null }>(
      `SELECT value AS key_id, SUM(cost_usd) AS cost_usd FROM usage_rollup
       WHERE period = ? AND dimension = 'key' AND bucket >= ? GROUP BY value`,
      [hourMs, window.start],
    );
    for (const row of rows)
      if (row.cost_usd !== null && row.cost_usd > 0)
        spend.set(periodAccount(row.key_id, window), row.cost_usd);
  }
  return spend;
}
