/**
 * The dashboard's rollups in PostgreSQL: the same per-minute and per-hour rows as the embedded
 * store's (usage/rollups.ts sums a batch the same way for both), written in the shipper's
 * transaction from the rows its insert really added, so a replayed batch adds nothing. Latency
 * histograms are a row per bin (`count = count + excluded.count`): instances shipping at once add
 * to the same bucket without reading it first. Input is sorted by key so two shippers lock rows
 * in the same order.
 */
import { rollupRow, summarizeRollups } from '../../usage/rollups.ts';
import type { LedgerRow } from '../../usage/ledger.ts';
import { pgRollupBackfillSql } from '../rollup-backfill.ts';
import type { PgConnection } from './connection.ts';

const usageColumns: readonly [string, string][] = [
  ['period', 'int4'],
  ['dimension', 'text'],
  ['bucket', 'int8'],
  ['value', 'text'],
  ['requests', 'int8'],
  ['errors', 'int8'],
  ['attempts', 'int8'],
  ['retries', 'int8'],
  ['fallbacks', 'int8'],
  ['prompt_tokens', 'int8'],
  ['cached_tokens', 'int8'],
  ['cache_write_tokens', 'int8'],
  ['output_tokens', 'int8'],
  ['cost_usd', 'float8'],
  ['overhead_ms', 'float8'],
  ['overhead_count', 'int8'],
];
const summed = usageColumns.slice(4).map(([name]) => `${name} = usage_rollup.${name} + excluded.${name}`);

const upsertUsageSql = `INSERT INTO usage_rollup (${usageColumns.map(([name]) => name).join(', ')})
  SELECT * FROM unnest(${usageColumns.map(([, type], index) => `$${index + 1}::${type}[]`).join(', ')})
  ORDER BY 1, 2, 3, 4
  ON CONFLICT (period, dimension, bucket, value) DO UPDATE SET ${summed.join(', ')}`;

const upsertLatencySql = `INSERT INTO latency_rollup (period, model, bucket, metric, bin, count)
  SELECT * FROM unnest($1::int4[], $2::text[], $3::int8[], $4::text[], $5::int2[], $6::int8[])
  ORDER BY 1, 2, 3, 4, 5
  ON CONFLICT (period, model, bucket, metric, bin) DO UPDATE SET count = latency_rollup.count + excluded.count`;

/** Adds `rows` (ledger rows just inserted, in the caller's transaction) to the rollups. */
export async function writeRollups(query: PgConnection['query'], rows: readonly LedgerRow[]): Promise<void> {
  if (rows.length === 0) return;
  const { usage, latency } = summarizeRollups(rows);
  const columns: unknown[][] = usageColumns.map(() => []);
  for (const entry of usage) rollupRow(entry).forEach((value, index) => columns[index]?.push(value));
  await query(upsertUsageSql, columns);
  const bins: unknown[][] = [[], [], [], [], [], []];
  for (const entry of latency)
    for (const [bin, count] of entry.counts)
      [...entry.values, bin, count].forEach((value, index) => bins[index]?.push(value));
  if (latency.length > 0) await query(upsertLatencySql, bins);
}

/** Empties the rollups and fills them again from the ledger, in one transaction (after a bulk import). */
export async function rebuildPgRollups(connection: PgConnection): Promise<void> {
  await connection.transaction(async (query) => {
    await query(`DELETE FROM usage_rollup; DELETE FROM latency_rollup; ${pgRollupBackfillSql}`);
  });
}
