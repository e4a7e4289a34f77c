/**
 * What the overview, usage and models pages show, read from the rollups (never the ledger), so
 * each answer costs the same at a thousand ledger rows as at a million. Written once for both
 * stores (`DashboardStore`: the same tables on each).
 */
import type { JsonObject } from '../ir/index.ts';
import type { DashboardStore } from '../store/dashboard-store.ts';
import { addUsageSums, emptyUsageSums, roundUsd, type UsageSums } from '../usage/report.ts';
import { deploymentSeparator } from '../store/rollup-backfill.ts';
import { hourMs } from '../usage/rollups.ts';
import { addHistogram, quantile, quantiles, type Histogram } from './percentiles.ts';
import { otherRow, topRows } from './top-rows.ts';
import { dayAndMonthStart, pointIndex, pointsOf, seriesRange, windowParts, type Range } from './ranges.ts';

type BucketRow = UsageSums & { bucket: number };

const sums = `SUM(requests) AS requests, SUM(errors) AS errors, SUM(prompt_tokens) AS prompt_tokens,
  SUM(cached_tokens) AS cached_tokens, SUM(cache_write_tokens) AS cache_write_tokens,
  SUM(output_tokens) AS output_tokens, SUM(cost_usd) AS cost_usd`;

export async function overview(store: DashboardStore, exact: Range, now: number): Promise<JsonObject> {
  // The cards cover the exact range; the charts draw it by minute for an hour, else by hour.
  const total = emptyUsageSums();
  for (const group of await groupTotals(store, exact, 'all')) addUsageSums(total, group);
  const range = seriesRange(exact);
  const rows = await store.all<BucketRow>(
    `SELECT bucket, requests, errors, prompt_tokens, cached_tokens, output_tokens
     FROM usage_rollup WHERE period = ? AND dimension = 'all' AND bucket BETWEEN ? AND ?`,
    [range.period, range.since, range.last],
  );
  const points = pointsOf(range);
  const perPoint = points.map(() => ({ requests: 0, errors: 0, prompt: 0, cached: 0, output: 0 }));
  for (const row of rows) {
    const point = perPoint[pointIndex(range, row.bucket)];
    if (point === undefined) continue;
    point.requests += row.requests;
    point.errors += row.errors;
    point.prompt += row.prompt_tokens;
    point.cached += row.cached_tokens;
    point.output += row.output_tokens;
  }
  const latency = await latencyQuantiles(store, range, 'latency', points.length);
  const ttft = await latencyQuantiles(store, range, 'ttft', points.length);
  const seconds = range.step / 1000;
  const { day, month } = dayAndMonthStart(now);
  return {
    range: exact.name,
    step_s: seconds,
    totals: {
      requests: total.requests,
      errors: total.errors,
      error_rate: total.requests === 0 ? 0 : total.errors / total.requests,
      requests_per_s: total.requests / ((exact.last + exact.period - exact.since) / 1000),
      prompt_tokens: total.prompt_tokens,
      cached_tokens: total.cached_tokens,
      cache_write_tokens: total.cache_write_tokens,
      output_tokens: total.output_tokens,
      cost_usd: roundUsd(total.cost_usd),
      cache_hit_ratio: total.prompt_tokens === 0 ? 0 : total.cached_tokens / total.prompt_tokens,
    },
    spend: { today_usd: await spendSince(store, day), month_usd: await spendSince(store, month) },
    series: {
      t: points.map((point) => point / 1000),
      requests_per_s: perPoint.map((point) => Math.round((point.requests / seconds) * 1000) / 1000),
      error_rate: perPoint.map((point) => (point.requests === 0 ? null : point.errors / point.requests)),
      prompt_tokens: perPoint.map((point) => point.prompt),
      output_tokens: perPoint.map((point) => point.output),
      cached_tokens: perPoint.map((point) => point.cached),
      latency_p50: latency.map((values) => values[0] ?? null),
      latency_p95: latency.map((values) => values[1] ?? null),
      latency_p99: latency.map((values) => values[2] ?? null),
      ttft_p50: ttft.map((values) => values[0] ?? null),
      ttft_p95: ttft.map((values) => values[1] ?? null),
      ttft_p99: ttft.map((values) => values[2] ?? null),
    },
  };
}

/** Spend since a UTC day or month start (hour rollups: both starts fall on an hour). */
async function spendSince(store: DashboardStore, since: number): Promise<number> {
  const [row] = await store.all<{ cost: number | null }>(
    "SELECT SUM(cost_usd) AS cost FROM usage_rollup WHERE period = ? AND dimension = 'all' AND bucket >= ?",
    [hourMs, since],
  );
  return roundUsd(row?.cost ?? 0);
}

const percentiles = [0.5, 0.95, 0.99];

/** p50, p95 and p99 of one metric per point, every model together (model ''). */
async function latencyQuantiles(
  store: DashboardStore,
  range: Range,
  metric: 'latency' | 'ttft',
  count: number,
): Promise<(number | null)[][]> {
  const rows = await store.histograms({
    period: range.period,
    models: [''],
    from: range.since,
    to: range.last,
    step: range.step,
    metric,
  });
  const histograms: (Histogram | undefined)[] = new Array<Histogram | undefined>(count);
  for (const row of rows) if (row.point >= 0 && row.point < count) histograms[row.point] = row.counts;
  return Array.from(histograms, (histogram) => quantiles(histogram, percentiles));
}

export const usageDimensions = ['key', 'model', 'family'] as const;
export type UsageDimension = (typeof usageDimensions)[number];

export function isUsageDimension(value: string): value is UsageDimension {
  return (usageDimensions as readonly string[]).includes(value);
}

type GroupTotals = UsageSums & { grp: string };

/** Totals per value of one dimension over the range (whole hours read from the hour rollup). */
async function groupTotals(store: DashboardStore, range: Range, dimension: string): Promise<GroupTotals[]> {
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

/** Per model and deployment: retries, fallbacks, errors, overhead and latency over the range. */
interface DeploymentRow {
  value: string;
  requests: number;
  errors: number;
  attempts: number;
  retries: number;
  fallbacks: number;
  overhead_ms: number;
  overhead_count: number;
}

const deploymentSums = [
  'requests',
  'errors',
  'attempts',
  'retries',
  'fallbacks',
  'overhead_ms',
  'overhead_count',
] as const;

export async function modelStats(store: DashboardStore, range: Range): Promise<JsonObject[]> {
  const merged = new Map<string, DeploymentRow>();
  for (const part of windowParts(range))
    for (const row of await store.all<DeploymentRow>(
      `SELECT value, SUM(requests) AS requests, SUM(errors) AS errors,
         SUM(attempts) AS attempts, SUM(retries) AS retries, SUM(fallbacks) AS fallbacks,
         SUM(overhead_ms) AS overhead_ms, SUM(overhead_count) AS overhead_count
       FROM usage_rollup WHERE period = ? AND dimension = 'deployment' AND bucket BETWEEN ? AND ?
       GROUP BY value`,
      [part.period, part.from, part.to],
    )) {
      const sum = merged.get(row.value);
      if (sum === undefined) merged.set(row.value, { ...row });
      else for (const field of deploymentSums) sum[field] += row[field];
    }
  // The busiest `maxTableRows` model × deployment rows, the rest summed as "other" (`top-rows.ts`).
  const { kept, rest } = topRows([...merged.values()], (row) => row.requests);
  const rows = kept.sort((left, right) => left.value.localeCompare(right.value));
  if (rest.length > 0) {
    const other: DeploymentRow = {
      value: otherRow,
      requests: 0,
      errors: 0,
      attempts: 0,
      retries: 0,
      fallbacks: 0,
      overhead_ms: 0,
      overhead_count: 0,
    };
    for (const row of rest) for (const field of deploymentSums) other[field] += row[field];
    rows.push(other);
  }
  const latency = await modelLatency(
    store,
    range,
    new Set(rows.map((row) => row.value.split(deploymentSeparator)[0] ?? '')),
  );
  return rows.map((row) => {
    const [model = '', deployment = ''] = row.value.split(deploymentSeparator);
    return {
      model,
      deployment: deployment === '' ? null : deployment,
      requests: row.requests,
      attempts: row.attempts,
      errors: row.errors,
      error_rate: row.requests === 0 ? 0 : row.errors / row.requests,
      retries: row.retries,
      fallbacks: row.fallbacks,
      retry_rate: row.attempts === 0 ? 0 : row.retries / row.attempts,
      fallback_rate: row.attempts === 0 ? 0 : row.fallbacks / row.attempts,
      overhead_ms_avg:
        row.overhead_count === 0 ? null : Math.round((row.overhead_ms / row.overhead_count) * 100) / 100,
      latency_p95_ms: quantile(latency.get(`latency:${model}`), 0.95),
      ttft_p95_ms: quantile(latency.get(`ttft:${model}`), 0.95),
    };
  });
}

/** Per model, over the range: one read per window part for every model. */
async function modelLatency(
  store: DashboardStore,
  range: Range,
  models: Iterable<string>,
): Promise<Map<string, Histogram>> {
  const histograms = new Map<string, Histogram>();
  const wanted = [...models];
  for (const part of windowParts(range)) {
    // One point over the whole part: its buckets summed.
    const step = part.to - part.from + part.period;
    const rows = await store.histograms({
      period: part.period,
      models: wanted,
      from: part.from,
      to: part.to,
      step,
    });
    for (const row of rows) {
      const id = `${row.metric}:${row.model}`;
      let histogram = histograms.get(id);
      if (histogram === undefined) histograms.set(id, (histogram = new Map<number, number>()));
      addHistogram(histogram, row.counts);
    }
  }
  return histograms;
}
