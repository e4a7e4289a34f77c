/**
 * The overview page's figures (spend, requests, latency and time to first token over a range), read from the rollups (never the ledger), so each answer costs the same at a thousand
 * ledger rows as at a million. Written once for both stores (`DashboardStore`: the same tables on each).
 */
import type { JsonObject } from '../ir/index.ts';
import type { DashboardStore } from '../store/dashboard-store.ts';
import { addUsageSums, emptyUsageSums, roundUsd } from '../usage/report.ts';
import { hourMs } from '../usage/rollups.ts';
import { quantiles, type Histogram } from './percentiles.ts';
import { dayAndMonthStart, pointIndex, pointsOf, seriesRange, type Range } from './ranges.ts';
import { type BucketRow } from './rollup-sums.ts';
import { groupTotals } from './usage-query.ts';

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
