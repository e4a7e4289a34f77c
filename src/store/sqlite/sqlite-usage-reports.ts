/**
 * The embedded store's usage reports: the ledger grouped in SQL, rows turned into a report by
 * usage/report.ts (the same rules as PostgreSQL's, store/postgres/pg-usage-reports.ts).
 */
import type { Database } from './database.ts';
import {
  emptyReport,
  reportFromRows,
  type UsageGrouping,
  type UsageQuery,
  type UsageReport,
  type UsageReports,
  type UsageRow,
} from '../../usage/report.ts';

/** The embedded store's reports (the statement runs at once). */
export class SqliteUsageReports implements UsageReports {
  readonly #database: Database;

  constructor(database: Database) {
    this.#database = database;
  }

  async report(query: UsageQuery, names?: ReadonlyMap<string, string>): Promise<UsageReport> {
    return Promise.resolve(usageReport(this.#database, query, names));
  }
}

/** Fixed SQL per grouping: no identifier ever comes from input. */
const groupExpressions: Readonly<Record<UsageGrouping, string>> = {
  model: 'model',
  key: 'key_id',
  day: "strftime('%Y-%m-%d', created_at / 1000, 'unixepoch')",
};

/** `names`: key id → key name, to show keys by name. */
export function usageReport(
  database: Database,
  query: UsageQuery,
  names: ReadonlyMap<string, string> = new Map(),
): UsageReport {
  const conditions = ['created_at >= ?'];
  const values: (number | string)[] = [query.since];
  if (query.until !== undefined) {
    conditions.push('created_at < ?');
    values.push(query.until);
  }
  if (query.keyIds !== undefined) {
    if (query.keyIds.length === 0) return emptyReport(query);
    conditions.push(`key_id IN (${query.keyIds.map(() => '?').join(', ')})`);
    values.push(...query.keyIds);
  }
  const rows = database
    .prepare(
      `SELECT ${groupExpressions[query.by]} AS grp,
         SUM(final) AS requests,
         SUM(CASE WHEN final = 1 AND outcome <> 'ok' THEN 1 ELSE 0 END) AS errors,
         SUM(prompt_tokens) AS prompt_tokens,
         SUM(cached_tokens) AS cached_tokens,
         SUM(cache_write_tokens) AS cache_write_tokens,
         SUM(output_tokens) AS output_tokens,
         SUM(cost_usd) AS cost_usd
       FROM usage_ledger WHERE ${conditions.join(' AND ')}
       GROUP BY grp ORDER BY grp`,
    )
    .all(...values) as unknown as UsageRow[];
  return reportFromRows(query, rows, names);
}
