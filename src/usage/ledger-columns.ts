/**
 * A ledger batch as the embedded store writes it: each row's values in the table's column order,
 * cut into the multi-row INSERTs' chunks, with the batch's spend per key and its rollup sums. The
 * writer binds these as they are; `ledger-thread.ts` builds them on the event loop and hands the
 * chunks to the writer thread as one JSON string. Measured (bench/README.md, fourth session): a
 * structured clone of ~240 row objects and the writer's copy of their fields into arguments cost
 * both threads together ~1.7 µs a row more than this (a string is copied across whole, and
 * `JSON.parse` of arrays of plain values is cheaper than the clone's rebuilding of keyed objects).
 */
import type { LedgerRow } from './ledger.ts';
import { roundMs } from './ledger.ts';
import { rollupRows, type RollupRows } from './rollups.ts';

/** A bound SQL value. */
export type ColumnValue = string | number | null;

/** The table's columns, in the order a row's values are laid out. */
export const ledgerColumnNames = [
  'request_id',
  'attempt',
  'final',
  'created_at',
  'key_id',
  'surface',
  'model',
  'family',
  'upstream_model',
  'deployment',
  'stream',
  'status',
  'upstream_status',
  'outcome',
  'error',
  'prompt_tokens',
  'cached_tokens',
  'cache_write_tokens',
  'output_tokens',
  'cost_usd',
  'usage_estimated',
  'latency_ms',
  'ttft_ms',
  'overhead_ms',
  'reasoning_tokens',
  'trace_id',
] as const;

const width = ledgerColumnNames.length;

/** Where the values that identify a row sit within it (`writeOnce` looks the last row up). */
export const rowIdentity = { requestId: 0, attempt: 1, createdAt: 3, keyId: 4 } as const;

/**
 * Rows per multi-row INSERT, largest first: a batch of n rows takes at most n / 64 + 6 statement
 * runs (26 columns: 64 rows is well under SQLite's parameter limit).
 */
export const rowsPerChunk = [64, 32, 16, 8, 4, 2, 1] as const;

export interface LedgerColumns {
  /** The rows' values, `rowsPerChunk` rows a chunk, largest chunks first: the batch's order. */
  chunks: ColumnValue[][];
  /** Each key's cost in the batch (rows with a positive cost), summed in row order. */
  spend: [keyId: string, costUsd: number][];
  rollups: RollupRows;
  /** False when a number is not finite: JSON would carry it as null, so the rows go as objects. */
  jsonSafe: boolean;
}

export function ledgerColumns(batch: readonly LedgerRow[]): LedgerColumns {
  const chunks: ColumnValue[][] = [];
  let finite = 0;
  let index = 0;
  for (const rows of rowsPerChunk) {
    for (; index + rows <= batch.length; index += rows) {
      const values = new Array<ColumnValue>(rows * width);
      for (let offset = 0; offset < rows; offset++)
        finite += putValues(values, offset * width, batch[index + offset] as LedgerRow);
      chunks.push(values);
    }
  }
  const spend = new Map<string, number>();
  for (let at = 0; at < batch.length; at++) {
    const row = batch[at] as LedgerRow;
    if (row.costUsd > 0) spend.set(row.keyId, (spend.get(row.keyId) ?? 0) + row.costUsd);
  }
  const rollups = rollupRows(batch);
  // The sums too (a sum of finite numbers may not be): a handful a batch.
  // Indexed loops: this runs every 20 ms, often below the optimizing tier, where `for…of` made an
  // iterator result per step (and a destructured pair an array).
  for (let at = 0; at < rollups.usage.length; at++) {
    const row = rollups.usage[at] as (string | number)[];
    for (let column = 0; column < row.length; column++) {
      const value = row[column];
      if (typeof value === 'number') finite += value;
    }
  }
  for (let at = 0; at < rollups.latency.length; at++) {
    const counts = (rollups.latency[at] as RollupRows['latency'][number])[1];
    for (let bin = 0; bin < counts.length; bin++) finite += (counts[bin] as [number, number])[1];
  }
  return { chunks, spend: [...spend], rollups, jsonSafe: Number.isFinite(finite) };
}

/**
 * One row's values at `at`; returns the sum of its numbers, which is finite only when each of them
 * is (NaN and infinities carry through a sum): one check a batch instead of one a value.
 */
function putValues(values: ColumnValue[], at: number, row: LedgerRow): number {
  const latency = roundMs(row.latencyMs);
  const ttft = roundMs(row.ttftMs);
  const overhead = roundMs(row.overheadMs);
  values[at] = row.requestId;
  values[at + 1] = row.attempt;
  values[at + 2] = row.final ? 1 : 0;
  values[at + 3] = row.createdAt;
  values[at + 4] = row.keyId;
  values[at + 5] = row.surface;
  values[at + 6] = row.model;
  values[at + 7] = row.family;
  values[at + 8] = row.upstreamModel ?? null;
  values[at + 9] = row.deployment ?? null;
  values[at + 10] = row.stream ? 1 : 0;
  values[at + 11] = row.status;
  values[at + 12] = row.upstreamStatus ?? null;
  values[at + 13] = row.outcome;
  values[at + 14] = row.error ?? null;
  values[at + 15] = row.promptTokens;
  values[at + 16] = row.cachedTokens;
  values[at + 17] = row.cacheWriteTokens;
  values[at + 18] = row.outputTokens;
  values[at + 19] = row.costUsd;
  values[at + 20] = row.usageEstimated ? 1 : 0;
  values[at + 21] = latency;
  values[at + 22] = ttft;
  values[at + 23] = overhead;
  values[at + 24] = row.reasoningTokens;
  values[at + 25] = row.traceId ?? null;
  return (
    row.attempt +
    row.createdAt +
    row.status +
    (row.upstreamStatus ?? 0) +
    row.promptTokens +
    row.cachedTokens +
    row.cacheWriteTokens +
    row.outputTokens +
    row.costUsd +
    (latency ?? 0) +
    (ttft ?? 0) +
    (overhead ?? 0) +
    row.reasoningTokens
  );
}

/**
 * A batch's columns as the writer thread gets them: all of it one JSON string, copied across
 * whole (a structured clone of the rollups' few objects cost a 20-row batch more than its rows).
 */
export interface ColumnsMessage {
  json: string;
}

type ColumnsJson = [
  LedgerColumns['chunks'],
  LedgerColumns['spend'],
  RollupRows['usage'],
  RollupRows['latency'],
];

export function toColumnsMessage({ chunks, spend, rollups }: LedgerColumns): ColumnsMessage {
  return { json: JSON.stringify([chunks, spend, rollups.usage, rollups.latency] satisfies ColumnsJson) };
}

export function fromColumnsMessage(message: ColumnsMessage): LedgerColumns {
  const [chunks, spend, usage, latency] = JSON.parse(message.json) as ColumnsJson;
  return { chunks, spend, rollups: { usage, latency }, jsonSafe: true };
}

/**
 * A batch as the writer thread is handed it: rows, or columns for a target that takes them;
 * `count` is its number of rows either way (a failed write reports what is queued).
 */
export type BatchForm = { rows: LedgerRow[]; count: number } | { columns: ColumnsMessage; count: number };

/**
 * Columns when the target takes them and every number survives JSON, else the rows themselves
 * (a structured clone).
 */
export function handOffForm(rows: LedgerRow[], takesColumns: boolean): BatchForm {
  if (takesColumns) {
    const columns = ledgerColumns(rows);
    if (columns.jsonSafe) return { columns: toColumnsMessage(columns), count: rows.length };
  }
  return { rows, count: rows.length };
}

/** A writer that takes a batch as columns (the embedded store's). */
export interface ColumnsWriter {
  /** `once`: as `LedgerWriter.writeOnce`, nothing written when the batch's last row is there. */
  writeColumns(columns: LedgerColumns, once: boolean): void;
}
