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

function backfillSql(dialect: Dialect): string {
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
    FROM usage_ledger GROUP BY 3, 4;`,
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
            WHERE final AND outcome <> 'rejected' AND ${column} IS NOT NULL
            GROUP BY 1, 2, 3) AS binned`,
        );
      }),
    ),
  );
  return [...usage, ...latency].join('\n');
}

/** The embedded store's: a histogram is a `bin:count …` text per bucket. */
export const rollupBackfillSql = backfillSql({
  separator: 'char(31)',
  latencyInsert: (period, metric, binned) => `
  INSERT INTO latency_rollup
    SELECT ${period}, grp, bucket, '${metric}', group_concat(bin || ':' || n, ' ') FROM ${binned}
    GROUP BY grp, bucket;`,
});

/** PostgreSQL's: a histogram is a row per bin. */
export const pgRollupBackfillSql = backfillSql({
  separator: 'chr(31)',
  latencyInsert: (period, metric, binned) => `
  INSERT INTO latency_rollup SELECT ${period}, grp, bucket, '${metric}', bin, n FROM ${binned};`,
});

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
