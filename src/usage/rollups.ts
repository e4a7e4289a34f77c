/**
 * Rollups of the usage ledger per minute and per hour, kept in the ledger's own write transaction
 * so charts never scan the ledger and never disagree with it. A row counts once in each
 * dimension (all, key, model, family, model+deployment), never in their cross product, so a page
 * reads at most buckets × values of one dimension. Each batch is summed in memory first (one upsert
 * per distinct bucket and value), so a batch of rows from the same minute costs a handful of
 * upserts. Latency and time to first token go into log-spaced bins (each bin 25% wider than the
 * last, from 1 ms), per model and for all models (model ''), enough for p50/p95/p99 within a bin.
 *
 * A retry is an attempt after the first on the same model, a fallback one on another model; the
 * previous attempt is looked up in the same batch (a request's rows are appended together), and
 * an attempt whose predecessor was written in an earlier batch counts as a retry.
 */
import { deploymentSeparator, lastLatencyBin, latencyBinGrowth } from '../store/rollup-backfill.ts';
import type { LedgerRow } from './ledger.ts';

export const minuteMs = 60_000;
export const hourMs = 3_600_000;
export const rollupPeriods = [minuteMs, hourMs] as const;

/** What a rollup row is summed by (one dimension at a time). */
export type RollupDimension = 'all' | 'key' | 'model' | 'family' | 'deployment';

function dimensionValues(row: LedgerRow): [RollupDimension, string][] {
  return [
    ['all', ''],
    ['key', row.keyId],
    ['model', row.model],
    ['family', row.family],
    ['deployment', `${row.model}${deploymentSeparator}${row.deployment ?? ''}`],
  ];
}

/** Bin boundaries grow by this factor; the rebuild in SQL (store/rollup-backfill.ts) uses the same rule. */
const binGrowth = latencyBinGrowth;
const lastBin = lastLatencyBin;

/** The bin of a duration: 0 up to 1 ms, else the smallest n with value ≤ 1.25ⁿ. */
export function latencyBin(milliseconds: number): number {
  if (milliseconds <= 1) return 0;
  return Math.min(lastBin, Math.ceil(Math.log(milliseconds) / Math.log(binGrowth)));
}

/** The upper edge of a bin (what a percentile in that bin reports). */
export function binUpperMs(bin: number): number {
  return bin === 0 ? 1 : binGrowth ** bin;
}

/** One usage rollup row's worth of a batch: the key (period, dimension, bucket, value) and its sums. */
export interface RollupSums {
  values: [period: number, dimension: RollupDimension, bucket: number, value: string];
  requests: number;
  errors: number;
  attempts: number;
  retries: number;
  fallbacks: number;
  promptTokens: number;
  cachedTokens: number;
  cacheWriteTokens: number;
  outputTokens: number;
  costUsd: number;
  overheadMs: number;
  overheadCount: number;
}

/** One latency histogram's worth of a batch: the key (period, model, bucket, metric) and bin → count. */
export interface BinCounts {
  values: [period: number, model: string, bucket: number, metric: 'latency' | 'ttft'];
  counts: Map<number, number>;
}

/** What a batch adds to the rollups. */
export interface RollupSummary {
  usage: RollupSums[];
  latency: BinCounts[];
}

/**
 * What a batch adds to the rollups, summed in memory (both stores write these: the embedded one
 * here, PostgreSQL in store/postgres/pg-rollups.ts, from the rows its insert really added).
 *
 * A batch is mostly rows of the same few keys and models in the same minute: the entries a row
 * adds to (its `RowGroup`) are found once per distinct group, by one string key, instead of ten
 * rollup keys and eight histogram keys built per row.
 */
export function summarizeRollups(batch: readonly LedgerRow[]): RollupSummary {
  const sums = new Map<string, RollupSums>();
  const bins = new Map<string, BinCounts>();
  const groups = new Map<string, RowGroup>();
  const previousModel = new Map<string, string>();
  let last: RowGroup | undefined;
  // Indexed loops: this runs every 20 ms, often below the optimizing tier, where `for…of` made an
  // iterator result per step — some fifteen objects a row.
  for (let index = 0; index < batch.length; index++) {
    const row = batch[index] as LedgerRow;
    let retry = 0;
    let fallback = 0;
    if (row.attempt > 1) {
      const previous = previousModel.get(row.requestId);
      if (previous !== undefined && previous !== row.model) fallback = 1;
      else retry = 1;
    }
    if (row.attempt > 0) previousModel.set(row.requestId, row.model);
    const group = last !== undefined && sameGroup(last, row) ? last : groupOf(row, groups, sums, bins);
    last = group;
    const { sums: entries, latency, ttft } = group;
    for (let at = 0; at < entries.length; at++) addRow(entries[at] as RollupSums, row, retry, fallback);
    if (!row.final || row.outcome === 'rejected') continue;
    if (row.latencyMs !== undefined) {
      const bin = latencyBin(row.latencyMs);
      for (let at = 0; at < latency.length; at++) increment((latency[at] as BinCounts).counts, bin);
    }
    if (row.ttftMs !== undefined) {
      const bin = latencyBin(row.ttftMs);
      for (let at = 0; at < ttft.length; at++) increment((ttft[at] as BinCounts).counts, bin);
    }
  }
  // A group's histograms exist from its first row on; those no finished request reached stay out.
  return { usage: [...sums.values()], latency: [...bins.values()].filter((entry) => entry.counts.size > 0) };
}

/** The rollup entries every row of one minute, key, model, family and deployment adds to. */
interface RowGroup {
  minute: number;
  keyId: string;
  model: string;
  family: string;
  deployment: string | undefined;
  /** One per period and dimension. */
  sums: RollupSums[];
  /** Latency and time-to-first-token histograms, per period, for all models and for this one. */
  latency: BinCounts[];
  ttft: BinCounts[];
}

function sameGroup(group: RowGroup, row: LedgerRow): boolean {
  return (
    group.minute === row.createdAt - (row.createdAt % minuteMs) &&
    group.keyId === row.keyId &&
    group.model === row.model &&
    group.family === row.family &&
    group.deployment === row.deployment
  );
}

function groupOf(
  row: LedgerRow,
  groups: Map<string, RowGroup>,
  sums: Map<string, RollupSums>,
  bins: Map<string, BinCounts>,
): RowGroup {
  const minute = row.createdAt - (row.createdAt % minuteMs);
  const id = `${minute}\u0000${row.keyId}\u0000${row.model}\u0000${row.family}\u0000${row.deployment ?? '\u0001'}`;
  const known = groups.get(id);
  if (known !== undefined) return known;
  const group: RowGroup = {
    minute,
    keyId: row.keyId,
    model: row.model,
    family: row.family,
    deployment: row.deployment,
    sums: [],
    latency: [],
    ttft: [],
  };
  const values = dimensionValues(row);
  for (const period of rollupPeriods) {
    const bucket = row.createdAt - (row.createdAt % period);
    for (const [dimension, value] of values)
      group.sums.push(entryFor(sums, [period, dimension, bucket, value], emptySums));
    for (const model of ['', row.model]) {
      group.latency.push(entryFor(bins, [period, model, bucket, 'latency'], emptyBins));
      group.ttft.push(entryFor(bins, [period, model, bucket, 'ttft'], emptyBins));
    }
  }
  groups.set(id, group);
  return group;
}

/** The entry of `entries` for these key values, made by `make` the first time. */
function entryFor<Entry, Values extends (string | number)[]>(
  entries: Map<string, Entry>,
  values: Values,
  make: (values: Values) => Entry,
): Entry {
  const id = values.join('\u0000');
  let entry = entries.get(id);
  if (entry === undefined) {
    entry = make(values);
    entries.set(id, entry);
  }
  return entry;
}

const emptyBins = (values: BinCounts['values']): BinCounts => ({ values, counts: new Map() });

function increment(counts: Map<number, number>, bin: number): void {
  counts.set(bin, (counts.get(bin) ?? 0) + 1);
}

/**
 * A batch's rollups as the embedded store writes them: each usage sum as its table row
 * (`rollupRow`), each histogram as its key and its `[bin, count]` pairs. Plain arrays: they travel
 * to the ledger's thread inside its batch's JSON (`ledger-columns.ts`).
 */
export interface RollupRows {
  usage: (string | number)[][];
  latency: [values: BinCounts['values'], counts: [bin: number, count: number][]][];
}

export function rollupRows(batch: readonly LedgerRow[]): RollupRows {
  const { usage, latency } = summarizeRollups(batch);
  return { usage: usage.map(rollupRow), latency: latency.map((entry) => [entry.values, [...entry.counts]]) };
}

/** A usage rollup row's columns in the table's order (both stores' tables). */
export function rollupRow(entry: RollupSums): (string | number)[] {
  return [
    ...entry.values,
    entry.requests,
    entry.errors,
    entry.attempts,
    entry.retries,
    entry.fallbacks,
    entry.promptTokens,
    entry.cachedTokens,
    entry.cacheWriteTokens,
    entry.outputTokens,
    entry.costUsd,
    entry.overheadMs,
    entry.overheadCount,
  ];
}

function emptySums(values: RollupSums['values']): RollupSums {
  return {
    values,
    requests: 0,
    errors: 0,
    attempts: 0,
    retries: 0,
    fallbacks: 0,
    promptTokens: 0,
    cachedTokens: 0,
    cacheWriteTokens: 0,
    outputTokens: 0,
    costUsd: 0,
    overheadMs: 0,
    overheadCount: 0,
  };
}

function addRow(entry: RollupSums, row: LedgerRow, retry: number, fallback: number): void {
  if (row.final) {
    entry.requests++;
    if (row.outcome !== 'ok') entry.errors++;
    if (row.overheadMs !== undefined) {
      entry.overheadMs += row.overheadMs;
      entry.overheadCount++;
    }
  }
  if (row.attempt > 0) entry.attempts++;
  entry.retries += retry;
  entry.fallbacks += fallback;
  entry.promptTokens += row.promptTokens;
  entry.cachedTokens += row.cachedTokens;
  entry.cacheWriteTokens += row.cacheWriteTokens;
  entry.outputTokens += row.outputTokens;
  entry.costUsd += row.costUsd;
}

/** A histogram as the stores keep it in text: `bin:count` pairs, bins ascending. */
export function formatCounts(counts: ReadonlyMap<number, number>): string {
  return [...counts]
    .sort((left, right) => left[0] - right[0])
    .map(([bin, count]) => `${bin}:${count}`)
    .join(' ');
}
