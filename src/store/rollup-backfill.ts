/**
 * The usage rollups rebuilt from the ledger in SQL, for both stores (one text, two spellings):
 * the migration that adds them fills them from the rows already written, and `rebuildRollups` does
 * it again (after a bulk import, or to repair them; PostgreSQL's is store/postgres/pg-rollups.ts). The ledger keeps them current batch by batch (usage/rollups.ts) with the same rules: the
 * dimensions, the latency bins and the columns below must match that code.
 */
import type { DatabaseSync } from 'node:sqlite';

/** Latency bins grow by this factor from 1 ms; the last bin takes everything longer. */
export const latencyBinGrowth = 1.25;
export const lastLatencyBin = 80;
/** Separates model and deployment in the `deployment` dimension's value. */
export const deploymentSeparator = '\u001f';

/** `bin:count bin:count …` (the embedded store's histogram text) → bin → count. */
export function parseCounts(text: string): Map<number, number> {
  const counts = new Map<number, number>();
  for (const pair of text.split(' ')) {
    const colon = pair.indexOf(':');
    if (colon === -1) continue;
    const bin = Number(pair.slice(0, colon));
    counts.set(bin, (counts.get(bin) ?? 0) + Number(pair.slice(colon + 1)));
  }
  return counts;
}

const periods = [60_000, 3_600_000];

/** How each store spells what differs (the rest is SQL both run alike: `final` is 1/0 or a boolean). */
interface Dialect {
  /** Char 31 (the deployment separator). */
  separator: string;
  /** The INSERT of one histogram from `binned` (grp, bucket, bin, n) for `period` and `metric`. */
  latencyInsert(period: number, metric: string, binned: string): string;
}

/** Ledger rows with `created_at` in [from, to): a slice of the backfill. */
interface TimeRange {
  from: number;
  to: number;
}

function backfillSql(dialect: Dialect, range?: TimeRange): string {
  const within = range === undefined ? '' : `created_at >= ${range.from} AND created_at < ${range.to}`;
  const dimensions: Readonly<Record<string, string>> = {
    all: "''",
    key: 'key_id',
    model: 'model',
    family: 'family',
    deployment: `model || ${dialect.separator} || COALESCE(deployment, '')`,
  };
  // One statement per period and dimension (each a single grouped pass over the ledger). Retries
  // here are all attempts after the first (the ledger's own writer also tells fallbacks, to
  // another model, apart; a rebuild counts them as retries).
  const usage = periods.flatMap((period) =>
    Object.entries(dimensions).map(
      ([dimension, value]) => `
  INSERT INTO usage_rollup
    SELECT ${period}, '${dimension}', created_at - created_at % ${period}, ${value},
      SUM(CASE WHEN final THEN 1 ELSE 0 END), SUM(CASE WHEN final AND outcome <> 'ok' THEN 1 ELSE 0 END),
      SUM(CASE WHEN attempt > 0 THEN 1 ELSE 0 END), SUM(CASE WHEN attempt > 1 THEN 1 ELSE 0 END), 0,
      SUM(prompt_tokens), SUM(cached_tokens), SUM(cache_write_tokens), SUM(output_tokens),
      SUM(cost_usd), SUM(CASE WHEN final THEN COALESCE(overhead_ms, 0) ELSE 0 END),
      SUM(CASE WHEN final AND overhead_ms IS NOT NULL THEN 1 ELSE 0 END)
    FROM usage_ledger ${within === '' ? '' : `WHERE ${within} `}GROUP BY 3, 4;`,
    ),
  );
  // Histograms per model and for all models (model ''); the bin in double precision, as
  // usage/rollups.ts's latencyBin computes it.
  const latency = periods.flatMap((period) =>
    ["''", 'model'].flatMap((model) =>
      [
        ['latency', 'latency_ms'],
        ['ttft', 'ttft_ms'],
      ].map(([metric = '', column = '']) => {
        const bin = `CAST(ceil(ln(${column}) / ln(CAST(${latencyBinGrowth} AS DOUBLE PRECISION))) AS INTEGER)`;
        return dialect.latencyInsert(
          period,
          metric,
          `(SELECT ${model} AS grp, created_at - created_at % ${period} AS bucket,
              CASE WHEN ${column} <= 1 THEN 0 WHEN ${bin} > ${lastLatencyBin} THEN ${lastLatencyBin} ELSE ${bin} END AS bin,
              COUNT(*) AS n
            FROM usage_ledger
            WHERE final AND outcome <> 'rejected' AND ${column} IS NOT NULL${within === '' ? '' : ` AND ${within}`}
            GROUP BY 1, 2, 3) AS binned`,
        );
      }),
    ),
  );
  return [...usage, ...latency].join('\n');
}

/** The embedded store's: a histogram is a `bin:count …` text per bucket. */
const sqliteDialect: Dialect = {
  separator: 'char(31)',
  latencyInsert: (period, metric, binned) => `
  INSERT INTO latency_rollup
    SELECT ${period}, grp, bucket, '${metric}', group_concat(bin || ':' || n, ' ') FROM ${binned}
    GROUP BY grp, bucket;`,
};

/** PostgreSQL's: a histogram is a row per bin. */
const pgDialect: Dialect = {
  separator: 'chr(31)',
  latencyInsert: (period, metric, binned) => `
  INSERT INTO latency_rollup SELECT ${period}, grp, bucket, '${metric}', bin, n FROM ${binned};`,
};

export const rollupBackfillSql = backfillSql(sqliteDialect);
export const pgRollupBackfillSql = backfillSql(pgDialect);

/** Told how far a backfill got: ledger rows rolled up so far, of all. */
export type BackfillProgress = (done: number, total: number) => void;

/** A day: every minute and hour bucket lies inside one, so slices never split a rollup row. */
const sliceMs = 86_400_000;
const reportEveryRows = 100_000;
const reportEveryMs = 2_000;

/** The ledger's extent, as both stores read it. */
interface LedgerExtent {
  rows: number;
  first: number | null;
  last: number | null;
}

const extentSql =
  'SELECT COUNT(*) AS rows, MIN(created_at) AS first, MAX(created_at) AS last FROM usage_ledger';
const sliceCountSql = 'SELECT COUNT(*) AS rows FROM usage_ledger WHERE created_at >= ? AND created_at < ?';

/** The day slices covering the ledger, oldest first. */
function* slices(extent: LedgerExtent): Iterable<TimeRange> {
  if (extent.first === null || extent.last === null) return;
  for (let from = extent.first - (extent.first % sliceMs); from <= extent.last; from += sliceMs)
    yield { from, to: from + sliceMs };
}

/** Reports progress every `reportEveryRows` rows or `reportEveryMs`, and once at the end. */
function progressReporter(total: number, progress: BackfillProgress | undefined): (done: number) => void {
  let reportedRows = 0;
  let reportedAt = Date.now();
  return (done) => {
    if (progress === undefined) return;
    const now = Date.now();
    if (done < total && done - reportedRows < reportEveryRows && now - reportedAt < reportEveryMs) return;
    reportedRows = done;
    reportedAt = now;
    progress(done, total);
  };
}

/** The embedded store's backfill (inside the migration's transaction), a day of the ledger at a time. */
export function backfillSqliteRollups(database: DatabaseSync, progress?: BackfillProgress): void {
  const extent = database.prepare(extentSql).get() as unknown as LedgerExtent;
  if (extent.rows === 0) return;
  const report = progressReporter(extent.rows, progress);
  const count = database.prepare(sliceCountSql);
  let done = 0;
  for (const range of slices(extent)) {
    const rows = (count.get(range.from, range.to) as { rows: number } | undefined)?.rows ?? 0;
    if (rows === 0) continue;
    database.exec(backfillSql(sqliteDialect, range));
    done += rows;
    report(done);
  }
}

/** PostgreSQL's backfill (inside the migration's transaction), a day of the ledger at a time. */
export async function backfillPgRollups(
  query: <Row extends Record<string, unknown>>(text: string, values?: readonly unknown[]) => Promise<Row[]>,
  progress?: BackfillProgress,
): Promise<void> {
  const [extent] = await query<{ rows: number; first: number | null; last: number | null }>(extentSql);
  if (extent === undefined || extent.rows === 0) return;
  const report = progressReporter(extent.rows, progress);
  let done = 0;
  for (const range of slices(extent)) {
    const [counted] = await query<{ rows: number }>(sliceCountSql.replace('?', '$1').replace('?', '$2'), [
      range.from,
      range.to,
    ]);
    const rows = counted?.rows ?? 0;
    if (rows === 0) continue;
    await query(backfillSql(pgDialect, range));
    done += rows;
    report(done);
  }
}

/** Empties the rollups and fills them again from the ledger, in one transaction. */
export function rebuildRollups(database: DatabaseSync): void {
  database.exec('BEGIN');
  try {
    database.exec(`DELETE FROM usage_rollup; DELETE FROM latency_rollup; ${rollupBackfillSql}`);
    database.exec('COMMIT');
  } catch (error) {
    database.exec('ROLLBACK');
    throw error;
  }
}
