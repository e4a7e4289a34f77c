/**
 * The usage page's figures (usage and spend by key, model or family; budgets burning down), read from the rollups (never the ledger), so each answer costs the same at a thousand
 * ledger rows as at a million. Written once for both stores (`DashboardStore`: the same tables on each).
 */
import type { JsonObject } from '../ir/index.ts';
import type { DashboardStore } from '../store/dashboard-store.ts';
import { addUsageSums, emptyUsageSums, roundUsd, type UsageSums } from '../usage/report.ts';
import { otherRow, topRows } from './top-rows.ts';
import { pointsOf, seriesRange, windowParts, type Range } from './ranges.ts';
import { sums } from './rollup-sums.ts';

export const usageDimensions = ['key', 'model', 'family'] as const;
export type UsageDimension = (typeof usageDimensions)[number];

export function isUsageDimension(value: string): value is UsageDimension {
  return (usageDimensions as readonly string[]).includes(value);
}

type GroupTotals = UsageSums & { grp: string };

/** Totals per value of one dimension over the range (whole hours read from the hour rollup). */
export async function groupTotals(
  store: DashboardStore,
  range: Range,
  dimension: string,
): Promise<GroupTotals[]> {
  const totals = new Map<string, GroupTotals>();
  for (const part of windowParts(range)) {
    const rows = await store.all<GroupTotals>(
      `SELECT value AS grp, ${sums} FROM usage_rollup
       WHERE period = ? AND dimension = ? AND bucket BETWEEN ? AND ? GROUP BY value`,
      [part.period, dimension, part.from, part.to],
    );
    for (const row of rows) {
      const sum = totals.get(row.grp);
      if (sum === undefined) totals.set(row.grp, { ...row });
      else addUsageSums(sum, row);
    }
  }
  return [...totals.values()].sort(
    (left, right) => right.cost_usd - left.cost_usd || left.grp.localeCompare(right.grp),
  );
}

/** Lines drawn per chart; the rest are summed as "other". */
const maxLines = 8;

/**
 * Usage and spend by key, model or family: a table over the range and a spend series per group
 * (the largest `maxLines`, the rest as "other").
 */
export async function usageBreakdown(
  store: DashboardStore,
  range: Range,
  by: UsageDimension,
  names: ReadonlyMap<string, string>,
): Promise<JsonObject> {
  const groups = await groupTotals(store, range, by);
  const label = (group: string): string => (by === 'key' ? (names.get(group) ?? group) : group);
  const drawn = groups.slice(0, maxLines).map((group) => group.grp);
  const lineOf = new Map(drawn.map((group, index) => [group, index]));
  // Drawn by hour past an hour's range, summed per point in SQL.
  const series = seriesRange(range);
  const rows = await store.all<{ point: number; grp: string; cost_usd: number; tokens: number }>(
    `SELECT (bucket - ?) / ? AS point, value AS grp, SUM(cost_usd) AS cost_usd,
       SUM(prompt_tokens + output_tokens) AS tokens FROM usage_rollup
     WHERE period = ? AND dimension = ? AND bucket BETWEEN ? AND ? GROUP BY point, grp`,
    [series.since, series.step, series.period, by, series.since, series.last],
  );
  const points = pointsOf(series);
  const lineCount = drawn.length + (groups.length > maxLines ? 1 : 0);
  const cost = Array.from({ length: lineCount }, () => points.map(() => 0));
  const tokens = Array.from({ length: lineCount }, () => points.map(() => 0));
  for (const row of rows) {
    const line = lineOf.get(row.grp) ?? maxLines;
    const position = row.point;
    const costLine = cost[line];
    const tokenLine = tokens[line];
    if (costLine === undefined || tokenLine === undefined || position < 0 || position >= points.length)
      continue;
    costLine[position] = (costLine[position] ?? 0) + row.cost_usd;
    tokenLine[position] = (tokenLine[position] ?? 0) + row.tokens;
  }
  const lineNames = drawn.map(label);
  if (groups.length > maxLines) lineNames.push('other');
  const tableRow = (group: GroupTotals, name: string, keyId: string | null): JsonObject => ({
    [by]: name,
    ...(by === 'key' ? { key_id: keyId } : {}),
    requests: group.requests,
    errors: group.errors,
    prompt_tokens: group.prompt_tokens,
    cached_tokens: group.cached_tokens,
    cache_write_tokens: group.cache_write_tokens,
    output_tokens: group.output_tokens,
    cost_usd: roundUsd(group.cost_usd),
  });
  // The table: the largest by spend, the rest summed as "other" (`top-rows.ts`).
  const { kept, rest } = topRows(groups, (group) => group.cost_usd);
  const data = kept.map((group) => tableRow(group, label(group.grp), group.grp));
  if (rest.length > 0) {
    const other: GroupTotals = { ...emptyUsageSums(), grp: otherRow };
    for (const group of rest) addUsageSums(other, group);
    data.push(tableRow(other, otherRow, null));
  }
  return {
    range: range.name,
    by,
    data,
    series: {
      t: points.map((point) => point / 1000),
      names: lineNames,
      cost_usd: cost.map((line) => line.map(roundUsd)),
      tokens,
    },
  };
}

export interface BudgetedKey {
  id: string;
  name: string;
  budgetUsd: number;
  spentUsd: number;
}

/**
 * Budget burn-down: what each key with a budget had left at the end of each bucket, worked back
 * from its lifetime spend now (the spend after a bucket is added back).
 */
export async function budgetBurnDown(
  store: DashboardStore,
  exact: Range,
  keys: readonly BudgetedKey[],
): Promise<JsonObject> {
  const range = seriesRange(exact);
  const points = pointsOf(range);
  const t = points.map((point) => point / 1000);
  if (keys.length === 0) return { t, keys: [] };
  const rows = await store.all<{ key_id: string; point: number; cost_usd: number }>(
    `SELECT value AS key_id, (bucket - ?) / ? AS point, SUM(cost_usd) AS cost_usd FROM usage_rollup
     WHERE period = ? AND dimension = 'key' AND bucket BETWEEN ? AND ?
       AND value IN (${keys.map(() => '?').join(', ')}) GROUP BY key_id, point`,
    [range.since, range.step, range.period, range.since, range.last, ...keys.map((key) => key.id)],
  );
  const spent = new Map(keys.map((key) => [key.id, points.map(() => 0)]));
  for (const row of rows) {
    const line = spent.get(row.key_id);
    if (line !== undefined && row.point >= 0 && row.point < line.length)
      line[row.point] = (line[row.point] ?? 0) + row.cost_usd;
  }
  return {
    t,
    keys: keys.map((key) => {
      const perPoint = spent.get(key.id) ?? [];
      const remaining: number[] = new Array<number>(points.length);
      // Left at the end of each point: the budget less the lifetime spend, less what came after.
      let after = 0;
      for (let position = points.length - 1; position >= 0; position--) {
        remaining[position] = roundUsd(key.budgetUsd - (key.spentUsd - after));
        after += perPoint[position] ?? 0;
      }
      return {
        key_id: key.id,
        name: key.name,
        budget_usd: key.budgetUsd,
        spent_usd: roundUsd(key.spentUsd),
        remaining_usd: remaining,
      };
    }),
  };
}
