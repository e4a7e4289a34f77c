/**
 * The models page's figures (per model and deployment: retries, fallbacks, errors, overhead, latency), read from the rollups (never the ledger), so each answer costs the same at a thousand
 * ledger rows as at a million. Written once for both stores (`DashboardStore`: the same tables on each).
 */
import type { JsonObject } from '../ir/index.ts';
import type { DashboardStore } from '../store/dashboard-store.ts';
import { deploymentSeparator } from '../store/rollup-backfill.ts';
import { addHistogram, quantile, type Histogram } from './percentiles.ts';
import { otherRow, topRows } from './top-rows.ts';
import { windowParts, type Range } from './ranges.ts';

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
