/**
 * The usage rollups rebuilt from the ledger in SQL: the migration that adds them fills them from
 * the rows already written, and `rebuildRollups` does it again (after a bulk import, or to repair
 * them). The ledger keeps them current batch by batch (usage/rollups.ts) with the same rules: the
 * dimensions, the latency bins and the columns below must match that code.
 */
import type { DatabaseSync } from 'node:sqlite';

/** Latency bins grow by this factor from 1 ms; the last bin takes everything longer. */
export const latencyBinGrowth = 1.25;
export const lastLatencyBin = 80;
/** Separates model and deployment in the `deployment` dimension's value. */
export const deploymentSeparator = '\u001f';

const periods = [60_000, 3_600_000];
const dimensions: Readonly<Record<string, string>> = {
  all: "''",
  key: 'key_id',
  model: 'model',
  family: 'family',
  deployment: "model || char(31) || COALESCE(deployment, '')",
};

/**
 * One statement per period and dimension (each a single grouped pass over the ledger). Retries
 * here are all attempts after the first (the ledger's own writer also tells fallbacks, to another
 * model, apart; a rebuild counts them as retries).
 */
const usageSql = periods.flatMap((period) =>
  Object.entries(dimensions).map(
    ([dimension, value]) => `
  INSERT INTO usage_rollup
    SELECT ${period}, '${dimension}', created_at - created_at % ${period}, ${value},
      SUM(final), SUM(final = 1 AND outcome <> 'ok'), SUM(attempt > 0), SUM(attempt > 1), 0,
      SUM(prompt_tokens), SUM(cached_tokens), SUM(cache_write_tokens), SUM(output_tokens),
      SUM(cost_usd), SUM(CASE WHEN final = 1 THEN COALESCE(overhead_ms, 0) ELSE 0 END),
      SUM(final = 1 AND overhead_ms IS NOT NULL)
    FROM usage_ledger GROUP BY 3, 4;`,
  ),
);

/** Histograms as `bin:count` pairs, per model and for all models (model ''). */
const latencySql = periods.flatMap((period) =>
  ["''", 'model'].flatMap((model) =>
    [
      ['latency', 'latency_ms'],
      ['ttft', 'ttft_ms'],
    ].map(
      ([metric, column]) => `
  INSERT INTO latency_rollup
    SELECT ${period}, grp, bucket, '${metric}', group_concat(bin || ':' || n, ' ')
    FROM (SELECT ${model} AS grp, created_at - created_at % ${period} AS bucket,
            CASE WHEN ${column} <= 1 THEN 0 ELSE MIN(${lastLatencyBin},
              CAST(ceil(ln(${column}) / ln(${latencyBinGrowth})) AS INTEGER)) END AS bin,
            COUNT(*) AS n
          FROM usage_ledger
          WHERE final = 1 AND outcome <> 'rejected' AND ${column} IS NOT NULL
          GROUP BY 1, 2, 3)
    GROUP BY grp, bucket;`,
    ),
  ),
);

export const rollupBackfillSql = [...usageSql, ...latencySql].join('\n');

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
