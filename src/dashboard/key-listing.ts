/**
 * The keys page's list: the admin API's listing of stored keys, with the static keys
 * (MODELGATE_KEYS) before them — marked `static`, nothing to change — and each periodic budget's
 * spend in its current UTC period, read from the hour rollups (periods start on an hour).
 */
import type { AdminDependencies } from '../admin/admin-request.ts';
import type { JsonObject, JsonValue } from '../ir/index.ts';
import { isBudgetPeriod, periodWindow } from '../keys/budget-period.ts';
import type { DashboardStore } from '../store/dashboard-store.ts';
import { roundUsd } from '../usage/report.ts';
import { hourMs } from '../usage/rollups.ts';

export async function keyListing(
  listing: JsonObject,
  context: { admin: AdminDependencies; store: DashboardStore },
): Promise<JsonObject> {
  const { admin, store } = context;
  const stored = Array.isArray(listing.data) ? listing.data.filter(isObject) : [];
  const spend = await admin.store.spend();
  const statics: JsonObject[] = admin.keys.staticKeys().map((key) => ({
    id: key.id,
    object: 'key',
    name: key.name,
    static: true,
    status: 'active',
    models: null,
    budget_usd: null,
    spent_usd: roundUsd(spend.get(key.id) ?? 0),
    budget_period: null,
    period_budget_usd: null,
    rpm: key.rpm ?? null,
    tpm: key.tpm ?? null,
    expires_at: null,
    created_at: null,
    updated_at: null,
    revoked_at: null,
  }));
  const now = admin.clock();
  const periodSpend = await spendInPeriods(store, stored, now);
  const keys = stored.map((key) => ({
    ...key,
    static: false,
    period_spent_usd: typeof key.id === 'string' ? (periodSpend.get(key.id) ?? null) : null,
  }));
  return { ...listing, data: [...statics, ...keys] };
}

/** Key id → spend in its period so far, for the active keys with a periodic budget. */
async function spendInPeriods(
  store: DashboardStore,
  keys: readonly JsonObject[],
  now: number,
): Promise<Map<string, number>> {
  const byStart = new Map<number, string[]>();
  for (const key of keys) {
    if (key.status !== 'active' || typeof key.id !== 'string' || !isBudgetPeriod(key.budget_period)) continue;
    const start = periodWindow(key.budget_period, now).start;
    byStart.set(start, [...(byStart.get(start) ?? []), key.id]);
  }
  const spent = new Map<string, number>();
  for (const [start, ids] of byStart) {
    for (const id of ids) spent.set(id, 0);
    const rows = await store.all<{ key_id: string; cost_usd: number }>(
      `SELECT value AS key_id, SUM(cost_usd) AS cost_usd FROM usage_rollup
       WHERE period = ? AND dimension = 'key' AND bucket >= ? AND value IN (${ids.map(() => '?').join(', ')})
       GROUP BY value`,
      [hourMs, start, ...ids],
    );
    for (const row of rows) spent.set(row.key_id, roundUsd(row.cost_usd));
  }
  return spent;
}

function isObject(value: JsonValue): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
